"""The top README's table of default run times: each paper's cells and cell time in one
``icml25 run --all`` (its runs folder), beside the committed default runs of earlier commits
read from git, and the run's total cell time and wall time.

    python -m icml25.lab.default_times RUNS --before COMMIT [--before COMMIT ...] [README.md]

prints the table, or writes it between ``<!-- times -->`` and ``<!-- /times -->`` of the file
given. It reads the earlier summaries with ``git show``, so it runs in a clone of the repository.

A paper's *cell time* is the seconds its cells ran, one thread a cell (the summary's
``computed_cell_seconds`` plus ``cached_cell_seconds``). Its *span* is from the run's start to
the end of the paper's last cell (the summary's provenance): the papers share the workers, so
a span is no paper's own wall time, and the last span is the run's. A paper rerun on its own
after that run (its provenance names another start) is marked, with its own run's span, and a
line under the table gives its command; its cells count in the total cell time, not in the
run's wall time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from datetime import datetime
from pathlib import Path

from icml25.lab import catalog, store
from icml25.lab.papers_table import replace_block
from icml25.lab.provenance import shown_command
from icml25.lab.store import cell_seconds

BUDGET_S = 15 * 60  # a paper's default run, the house's rule
_SUMMARY = "default/seed-0/summary.json"


def at_commit(commit: str, slug: str, repo: Path | None = None) -> dict | None:
    """The committed default summary of ``slug`` at ``commit`` (None where it had none)."""
    path = f"src/icml25/results/{slug}/{_SUMMARY}"
    done = subprocess.run(
        ["git", "show", f"{commit}:{path}"], capture_output=True, text=True, cwd=repo
    )
    return json.loads(done.stdout) if done.returncode == 0 else None


def _when(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


def run_rows(runs: Path) -> dict[str, dict]:
    """Each implemented paper's default summary in ``runs`` (seed 0), by slug; a paper that
    has none there is left out."""
    found = {}
    for slug in catalog.implemented():
        path = Path(runs) / slug / _SUMMARY
        if path.exists():
            found[slug] = store.read_summary(path)
    return found


def table(runs: dict[str, dict], before: dict[str, dict[str, dict | None]]) -> str:
    """The table: one row per paper of ``runs`` (slug order), the earlier commits' cells and
    cell minutes first (``before``: ``{commit: {slug: summary or None}}``), then the run's,
    its span, and whether its cell time is within :data:`BUDGET_S`; a last row of totals."""
    if not runs:
        raise ValueError("runs: no default-scale summary of an implemented paper in it")
    starts = [s["provenance"]["started"] for s in runs.values()]
    main = max(sorted(set(starts)), key=starts.count)  # the run most papers come from (ties: first)
    start = _when(main)
    alone = {slug for slug, s in runs.items() if s["provenance"]["started"] != main}
    heads = [f"before ({c}): cells, cell min" for c in before]
    rows = [
        "| paper | " + " | ".join(heads) + " | this run: cells, cell min | span (min) | "
        f"within {BUDGET_S // 60} min |",
        "|---|" + "---|" * len(heads) + "---|---|---|",
    ]
    for slug in sorted(runs):
        summary = runs[slug]
        old = [before[c].get(slug) for c in before]
        earlier = [f"{s['cells']['total']}, {cell_seconds(s) / 60:.1f}" if s else "" for s in old]
        prov = summary["provenance"]
        since = _when(prov["started"]) if slug in alone else start
        span = f"{(_when(prov['finished']) - since) / 60:.0f}" + (
            " (own run)" if slug in alone else ""
        )
        seconds = cell_seconds(summary)
        now = f"{summary['cells']['total']}, {seconds / 60:.1f}"
        rows.append(
            _row(f"`{slug}`", *earlier, now, span, "yes" if seconds <= BUDGET_S else "**no**")
        )
    totals = []
    for commit in before:
        kept = [s for s in before[commit].values() if s]
        cells = sum(s["cells"]["total"] for s in kept)
        totals.append(f"{cells}, {sum(map(cell_seconds, kept)) / 3600:.2f} h")
    cells = sum(s["cells"]["total"] for s in runs.values())
    hours = sum(map(cell_seconds, runs.values())) / 3600
    end = max(_when(s["provenance"]["finished"]) for k, s in runs.items() if k not in alone)
    within = sum(cell_seconds(s) <= BUDGET_S for s in runs.values())
    wall = f"{(end - start) / 3600:.2f} h wall"
    rows.append(
        _row("**all**", *totals, f"{cells}, {hours:.2f} h", wall, f"{within} of {len(runs)}")
    )
    rows += [""] + [
        f"`{slug}` (own run): `{shown_command(runs[slug]['provenance']['command'])}`, "
        f"{runs[slug]['provenance']['started'][:10]}."
        for slug in sorted(alone)
    ]
    return "\n".join(rows).rstrip()


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", type=Path, help="the runs folder of one 'icml25 run --all'")
    parser.add_argument("--before", action="append", default=[], help="an earlier commit")
    parser.add_argument("readme", type=Path, nargs="?", help="the file to write the table in")
    args = parser.parse_intermixed_args(argv)
    runs = run_rows(args.runs)
    before = {c: {slug: at_commit(c, slug) for slug in runs} for c in args.before}
    body = table(runs, before)
    if args.readme is None:
        print(body)
    else:
        replace_block(args.readme, "times", body)


if __name__ == "__main__":
    main()
