"""The top README's tally and its table of papers, written from the catalog and the committed
default-scale summaries (``python -m icml25.lab.papers_table [README.md]`` rewrites both), so
the README never states other counts, entry points or run times than the package ships.

The tally sits between ``<!-- tally -->`` and ``<!-- /tally -->``, the table between
``<!-- papers -->`` and ``<!-- /papers -->``."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from icml25.lab import catalog, store
from icml25.lab.claims import headline

BLOCKS = ("tally", "papers")
_KEYS = ("claims", "reproduced", "not_reproduced", "inconclusive", "not_measured", "incomplete")


def committed_summaries() -> dict[str, dict]:
    """Each implemented paper's committed default-scale summary (seed 0), by slug."""
    root = store.results_dir()
    return {
        slug: store.read_summary(store.summary_path(root, slug, "default", 0))
        for slug in catalog.implemented()
    }


def total_counts(summaries: dict[str, dict]) -> Counter:
    """The verdict counts of all the summaries added up."""
    total = Counter()
    for summary in summaries.values():
        total.update({k: v for k, v in summary["counts"].items() if isinstance(v, int)})
    return total


def tally(summaries: dict[str, dict]) -> str:
    """One paragraph: the papers and the claims and checks of their committed runs."""
    c = total_counts(summaries)
    parts = [f"{c['reproduced']} reproduced", f"{c['not_reproduced']} not reproduced"]
    parts += [f"{c[k]} {k.replace('_', ' ')}" for k in _KEYS[3:] if c[k]]
    return (
        f"**The evidence so far**: the committed default-scale runs of the {len(summaries)} "
        f"implemented papers judge {c['claims']} claims: {', '.join(parts)}. "
        f"{c['checks_hold']} of {c['checks']} checks hold (a check holds by construction and "
        f"counts apart from the claims)."
    )


def _minutes(seconds: float) -> str:
    minutes = seconds / 60
    return f"{minutes:.1f} min" if minutes < 10 else f"{minutes:.0f} min"


def table(summaries: dict[str, dict]) -> str:
    """The Papers table: one row per card, in the order of the seed files."""
    rows = [
        "| paper | title (the paper) | use it | default run: cells, cell time | verdicts |",
        "|---|---|---|---|---|",
    ]
    for card in catalog.cards():
        title = f"[{card.title}]({card.link})" if card.link else card.title
        summary = summaries.get(card.slug)
        if summary is None:
            rows.append(f"| `{card.slug}` | {title} | | | {card.status} |")
            continue
        run = f"{summary['cells']['total']}, {_minutes(store.cell_seconds(summary))}"
        readme = f"[README](src/icml25/{card.slug}/README.md)"
        rows.append(
            f"| `{card.slug}` | {title} | `{card.import_line}` | {run} | "
            f"{headline(summary['counts'])}; {readme} |"
        )
    return "\n".join(rows)


def blocks() -> dict[str, str]:
    summaries = committed_summaries()
    return {"tally": tally(summaries), "papers": table(summaries)}


def _pattern(name: str) -> re.Pattern:
    return re.compile(rf"<!-- {name} -->\n(.*?)\n?<!-- /{name} -->", re.S)


def written(text: str) -> dict[str, str | None]:
    """What the README holds between each pair of markers now (None where it has none)."""
    found = {name: _pattern(name).search(text) for name in BLOCKS}
    return {name: m.group(1) if m else None for name, m in found.items()}


def replace_block(path: Path, name: str, body: str) -> None:
    """Put ``body`` between the ``<!-- name -->`` and ``<!-- /name -->`` lines of ``path``."""
    text = path.read_text(encoding="utf-8")
    block = f"<!-- {name} -->\n{body}\n<!-- /{name} -->"
    text, n = _pattern(name).subn(lambda _: block, text)
    if n != 1:
        raise ValueError(f"{path}: needs one <!-- {name} --> ... <!-- /{name} --> block")
    path.write_text(text, encoding="utf-8")


def write(path: Path) -> None:
    for name, body in blocks().items():
        replace_block(path, name, body)


if __name__ == "__main__":
    write(Path(sys.argv[1] if len(sys.argv) > 1 else "README.md"))
