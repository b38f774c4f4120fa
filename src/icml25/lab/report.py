"""The HTML report: a static site that opens from the file system, with no server or network.

``index.html`` lists every paper of the catalog with its status and, for each paper that has
runs, every claim with its threshold, measured value, verdict and the run time. One page per
paper with runs shows its card, each scale's claims and figures, failures, and its README.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import markdown
from jinja2 import Environment, PackageLoader, select_autoescape

from icml25.lab import catalog, store
from icml25.lab.reproduction import SCALE_NAMES


def build(runs: Path, out: Path) -> Path:
    """Write the site for the runs under ``runs`` into ``out``; returns the index's path."""
    runs, out = Path(runs), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env = Environment(
        loader=PackageLoader("icml25.lab", "templates"), autoescape=select_autoescape(["html"])
    )
    env.filters["number"] = _number
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    papers = []
    for card in catalog.cards():
        found = store.summaries(runs, card.slug)
        if found:
            _copy_figures(runs, out, card.slug, found)
            page = env.get_template("paper.html").render(
                card=card,
                runs=[found[s] for s in SCALE_NAMES if s in found],
                readme=_readme_html(card, out),
                stamp=stamp,
            )
            (out / f"{card.slug}.html").write_text(page, encoding="utf-8")
        papers.append({"card": card, "latest": store.latest(runs, card.slug)})
    index = out / "index.html"
    index.write_text(
        env.get_template("index.html").render(papers=papers, stamp=stamp), encoding="utf-8"
    )
    return index


def _readme_html(card: catalog.Card, out: Path) -> str:
    """The paper's README as HTML; the images it links (``figures/*.png`` beside it) are copied
    to ``<slug>/readme-figures/`` so that they show from the report's folder too."""
    readme = card.readme()
    if not readme:
        return ""
    folder = resources.files("icml25").joinpath(card.slug, "figures")
    if folder.is_dir():
        shutil.copytree(Path(str(folder)), out / card.slug / "readme-figures", dirs_exist_ok=True)
    html = markdown.markdown(readme, extensions=["tables", "fenced_code"])
    return html.replace('src="figures/', f'src="{card.slug}/readme-figures/')


def _copy_figures(runs: Path, out: Path, slug: str, found: dict[str, dict]) -> None:
    for scale, summary in found.items():
        for name in summary["figures"]:
            source = store.scale_dir(runs, slug, scale) / name
            if source.is_file():
                target = out / slug / scale / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)


def _number(value) -> str:
    if value is None:
        return "–"
    return f"{value:.4g}"
