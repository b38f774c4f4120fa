"""The lines of each paper's README that say how its committed result was made, and the
intervals of the claims that declare replicates, written from the committed summary
(``python -m icml25.lab.provenance`` writes them all), so the README never says another time,
cache state or interval than the summary it ships with.

The lines sit between ``<!-- committed-run -->`` and ``<!-- /committed-run -->``."""

from __future__ import annotations

import re
import shlex
import sys
from importlib import resources
from pathlib import Path

from icml25.lab import catalog, store
from icml25.lab.run_summary import RunSummary

BEGIN, END = "<!-- committed-run -->", "<!-- /committed-run -->"
BLOCK = re.compile(re.escape(BEGIN) + r"\n(.*?)\n" + re.escape(END), re.S)


def shown_command(command: str) -> str:
    """The command without its ``--out`` folder (a path on the machine that ran it)."""
    words, shown = shlex.split(command), []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word == "--out":
            skip = True
        elif not word.startswith("--out="):
            shown.append(word)
    return shlex.join(shown)


def committed_line(summary: dict) -> str:
    """How a committed run was made: command, cells computed and cached, cell and wall time,
    machine, date, and its verdicts."""
    run = RunSummary.from_dict(summary)
    cells, timing, prov = run.cells, run.timing, run.provenance
    judged = f", judged again {prov['judged'][:10]}" if prov.get("judged") else ""
    cached = (
        f", {cells['cached']} from the cache (computed earlier in "
        f"{timing['cached_cell_seconds']:.0f} s)"
        if cells["cached"]
        else ""
    )
    return (
        f"Committed run (`src/icml25/results/{run.slug}/{run.scale}/seed-{run.seed}/"
        f"summary.json`): `{shown_command(prov['command'])}`, {cells['total']} cells: "
        f"{cells['computed']} computed in {timing['computed_cell_seconds']:.0f} s of cell "
        f"time{cached}; "
        f"{timing['wall_seconds']:.0f} s wall on {prov['cores']} cores, finished "
        f"{prov['finished'][:10]}{judged}: {run.headline}."
    )


def readme_path(slug: str) -> Path:
    return Path(str(resources.files("icml25"))) / slug / "README.md"


_METHOD = {"student-t": "t-interval", "wilson": "Wilson interval"}


def interval_lines(summary: dict) -> list[str]:
    """One line per claim judged on its replicates: mean, interval, n, verdict."""
    lines = []
    for c in summary["claims"]:
        ci = c.get("interval")
        if ci is None:
            continue
        n = ci["n"]
        sizes = f"{min(n)}" if min(n) == max(n) else f"{min(n)}-{max(n)}"
        count = f"n = {n[0]}" if len(n) == 1 else f"{len(n)} groups of n = {sizes}"
        lines.append(
            f"- ({c['id']}) `{c['metric']}` = {c['measured']:.4g} ({c['across'] or 'mean'} of "
            f"`{c['replicates']}`, {count}): {ci['confidence']:.0%} {_METHOD[ci['method']]} "
            f"[{ci['low']:.4g}, {ci['high']:.4g}] {c['comparison']} {c['threshold']:g}: "
            f"**{c['verdict']}**"
        )
    return lines


def expected(slug: str) -> str:
    path = store.summary_path(store.results_dir(), slug, "default", 0)
    summary = store.read_summary(path)
    return "\n".join([committed_line(summary), *interval_lines(summary)])


def written(slug: str) -> str | None:
    """The line in the README now, or None when it has none."""
    match = BLOCK.search(readme_path(slug).read_text(encoding="utf-8"))
    return None if match is None else match.group(1)


def write(slug: str) -> None:
    """Put the line in the README: in place of the old one, else under the title."""
    path = readme_path(slug)
    text = path.read_text(encoding="utf-8")
    block = f"{BEGIN}\n{expected(slug)}\n{END}"
    if BLOCK.search(text):
        text = BLOCK.sub(lambda _: block, text, count=1)
    else:
        title, _, rest = text.partition("\n")
        text = f"{title}\n\n{block}\n{rest}"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    for slug in argv or catalog.implemented():
        write(slug)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
