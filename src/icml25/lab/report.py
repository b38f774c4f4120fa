"""The HTML report: a static site that opens from the file system, with no server or network.

``index.html`` lists every paper of the catalog with its status and, for each paper with
evidence, one line per summary: its scale and seed, where it comes from (the committed results
shipped with the package, with their commit and date, or a run of this machine), its claims and
checks counted apart, its failed cells, and a mark on smoke-scale results ("smoke: not
evidence"). One page per paper with evidence shows the card with its links, then each summary
(committed results first, then runs, larger scales first): the claims table, every measurement,
the run's figures, failures, warnings and provenance; and below, the paper's README with its
committed figures, kept apart from the figures of a run.

Every page and figure is written atomically, with the permissions the user's umask gives. A
summary that cannot be read or shown is passed to ``on_error`` and the rest of the site is built.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from html import escape
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

import markdown
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from icml25.lab import catalog, store
from icml25.lab.claims import (
    CHECK,
    CLAIM,
    DIAGNOSTIC,
    FAILS,
    HOLDS,
    INCOMPLETE,
    INCONCLUSIVE,
    NOT_MEASURED,
    NOT_REPRODUCED,
    REPRODUCED,
    tally,
)
from icml25.lab.reproduction import SCALE_NAMES

COMMITTED, RUNS = "committed", "runs"
SMOKE = "smoke"
LONG_TABLE = 12  # more measurements than this: the table is collapsed
FIGURE_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg")
SYMBOLS = {"<=": "≤", ">=": "≥", "<": "<", ">": ">"}

OnError = Callable[[store.Unreadable], None]
CLAIM_VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_MEASURED, INCOMPLETE)


def build(runs: Path | None, out: Path, on_error: OnError | None = None) -> Path:
    """Write the site for the committed results and the runs under ``runs`` (None: the
    committed results only) into ``out``.

    Returns the path of ``index.html``. A ``summary.json`` that cannot be read, or whose content
    cannot be shown, is passed to ``on_error`` as :class:`store.Unreadable` (default: skipped)
    and the rest of the site is built.
    """
    runs, out = (Path(runs) if runs is not None else None), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env = _environment()
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    papers = []
    for card in catalog.cards():
        shown, unreadable = _evidence(card.slug, runs, on_error)
        first = store.latest(shown)
        if shown:
            for view in shown:
                _copy_figures(view, out)
            page = env.get_template("paper.html").render(
                card=card,
                shown=shown,
                unreadable=unreadable,
                readme=_readme_html(card, out),
                readme_figures=_readme_figures(card),
                stamp=stamp,
            )
            store.write_text_atomic(out / f"{card.slug}.html", page)
            _companion_pages(card, out, env, stamp)
        rest = [view for view in shown if view is not first]
        papers.append(
            {
                "card": card,
                "shown": [first, *rest] if first else [],
                "unreadable": unreadable,
                "verdicts": evidence_verdicts(_evidence_view(shown)),
            }
        )
    index = out / "index.html"
    totals = {
        "papers": len(papers),
        "evidence": sum(1 for p in papers if p["shown"]),
        **{
            status: sum(1 for p in papers if p["card"].status == status)
            for status in (catalog.IMPLEMENTED, catalog.PLANNED, catalog.POSITION_PAPER)
        },
    }
    evidence = [(p["card"].slug, _evidence_view(p["shown"])) for p in papers]
    evidence = [(slug, view) for slug, view in evidence if view is not None]
    overall = Counter()
    for _, view in evidence:
        overall.update(view["counts"])
    page = env.get_template("index.html").render(
        papers=papers,
        areas=sorted({p["card"].area for p in papers}),
        totals=totals,
        overall={"papers": len(evidence), **overall},
        all_committed=all(view["committed"] for _, view in evidence),
        chart=margin_chart(evidence),
        stamp=stamp,
    )
    store.write_text_atomic(index, page)
    return index


def _evidence_view(shown: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The run a paper's evidence is: the first (page order) at a scale above smoke, without
    a model; None when there is none."""
    return next((v for v in shown if not v["smoke"] and v["model"] is None), None)


def evidence_verdicts(view: Mapping[str, Any] | None) -> list[str]:
    """The verdicts among a paper's evidence claims, as CSS names (``not-reproduced``), in
    the order of :data:`claims.VERDICTS`; ``["no-evidence"]`` for a paper without a run above
    smoke scale. The index filters its rows by them."""
    if view is None:
        return ["no-evidence"]
    found = {c["verdict"] for c in view["claims"] if c["kind"] == CLAIM}
    return [v.replace(" ", "-") for v in CLAIM_VERDICTS if v in found]


def claim_margin(claim: Mapping[str, Any]) -> float | None:
    """How far a claim's measured value is on its claimed side of the threshold, in units of
    the threshold: ``(m - t) / |t|`` for ``>=``/``>``, ``(t - m) / |t|`` for ``<=``/``<``
    (``|t|`` read as 1 when ``t = 0``). Positive: on the claimed side. None for a claim not
    measured or with another comparison."""
    m, t, sign = claim.get("measured"), claim.get("threshold"), _SIDE.get(claim["comparison"])
    if sign is None or not isinstance(m, int | float) or not isinstance(t, int | float):
        return None
    if not (math.isfinite(m) and math.isfinite(t)):
        return None
    return sign * (m - t) / (abs(t) or 1.0)


_SIDE = {"≥": 1, ">": 1, "≤": -1, "<": -1}
_VERDICT_COLOUR = {
    "reproduced": "#0a7d32",
    "not reproduced": "#b42318",
    "inconclusive": "#9a6700",
}
_CLIP = 2.0  # margins beyond +-2 thresholds are drawn at the edge, their value in the tooltip


def margin_chart(evidence: list[tuple[str, dict[str, Any]]]) -> str:
    """An inline SVG: one bar per claim (checks and diagnostics left out) from 0 to its
    :func:`claim_margin`, clipped to +-2, coloured by verdict, grouped by paper."""
    rows = []
    for slug, view in evidence:
        for c in view["claims"]:
            if c["kind"] == CLAIM:
                rows.append((slug, c, claim_margin(c)))
    if not rows:
        return ""
    bar, label_w, plot_w, top = 9, 220, 520, 22
    height = top + bar * len(rows) + 4 * len({slug for slug, _, _ in rows}) + 20
    x0 = label_w + plot_w / 2  # the threshold
    scale = plot_w / (2 * _CLIP)
    parts = [
        f'<svg class="margins" viewBox="0 0 {label_w + plot_w + 10} {height}" role="img" '
        f'aria-label="each claim\'s margin over its threshold" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{label_w}" y="12" font-size="10">-2 thresholds (wrong side)</text>',
        f'<text x="{x0}" y="12" font-size="10" text-anchor="middle">threshold</text>',
        f'<text x="{label_w + plot_w}" y="12" font-size="10" text-anchor="end">+2 (claimed side)'
        "</text>",
    ]
    y, previous = top, None
    for slug, c, margin in rows:
        if slug != previous:
            y += 4 if previous else 0
            parts.append(
                f'<text x="{label_w - 6}" y="{y + bar - 1}" font-size="9" text-anchor="end">'
                f"{escape(slug)}</text>"
            )
            previous = slug
        value = "not measured" if margin is None else f"{margin:+.3g}"
        tip = f"{slug} ({c['id']}): {c['verdict']}, margin {value} thresholds"
        if margin is not None:
            m = max(-_CLIP, min(_CLIP, margin))
            x, w = (x0, m * scale) if m >= 0 else (x0 + m * scale, -m * scale)
            colour = _VERDICT_COLOUR.get(c["verdict"], "#888")
            parts.append(
                f'<rect x="{x:.1f}" y="{y + 1}" width="{max(w, 1):.1f}" height="{bar - 2}" '
                f'fill="{colour}"><title>{escape(tip)}</title></rect>'
            )
        y += bar
    parts.append(f'<line x1="{x0}" y1="{top - 4}" x2="{x0}" y2="{y}" stroke="#333"/>')
    parts.append("</svg>")
    return "\n".join(parts)


# ---------------------------------------------------------------- one summary, ready to render


def _evidence(
    slug: str, runs: Path | None, on_error: OnError | None
) -> tuple[list[dict[str, Any]], list[store.Unreadable]]:
    """The summaries of one paper ready to render, in page order, and those that could not be
    read or shown (each also passed to ``on_error``)."""
    shown, unreadable = [], []

    def report_error(err: store.Unreadable) -> None:
        unreadable.append(err)
        if on_error is not None:
            on_error(err)

    for summary in store.evidence(runs, slug, report_error):
        try:
            shown.append(_view(summary, slug, runs))
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            reason = f"cannot be shown: {type(err).__name__}: {err}"
            report_error(store.Unreadable(_summary_file(summary, slug, runs), reason))
    for view in shown:
        view["beside"] = _beside(view, store.offline_beside(shown, view))
    return sorted(shown, key=_page_order), unreadable


def _beside(run: Mapping[str, Any], offline: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The measurements that a run against a model made, each beside the offline run's value
    (None where the offline run has none); empty for an offline run or one with no offline twin."""
    if offline is None:
        return []
    values = {m["name"]: m["value"] for m in run["measurements"]}
    before = {m["name"]: m["value"] for m in offline["measurements"]}
    return [
        {"name": name, "offline": before.get(name), "model": values.get(name)}
        for name in run["model_measurements"]
    ]


def _view(summary: Mapping[str, Any], slug: str, runs: Path | None) -> dict[str, Any]:
    """A summary with every field the templates read, of the right type; raises KeyError,
    TypeError or ValueError when the summary's content is not what its schema promises."""
    origin = summary.get("origin", RUNS)
    scale, seed = str(summary["scale"]), _integer(summary["seed"], "seed")
    tag = summary.get("model")
    folder = store.run_dir(Path("."), slug, scale, seed, tag).name  # refuses an unsafe tag
    provenance = _mapping(summary.get("provenance"), "provenance")
    claims = [_claim(c) for c in _sequence(summary["claims"], "claims")]
    counts = tally(claims)  # the claims are checked above: tallied as RunSummary does
    measurements = _mapping(summary["measurements"], "measurements")
    cells = _mapping(summary.get("cells"), "cells")
    timing = _mapping(summary.get("timing"), "timing")
    base = store.results_dir() if origin == COMMITTED or runs is None else runs
    claimed: dict[str, list[str]] = {}
    for c in claims:
        claimed.setdefault(c["metric"], []).append(c["id"])
    finished = str(provenance.get("finished") or provenance.get("started") or "")
    commit = str(provenance.get("commit") or "")
    return {
        "origin": origin,
        "committed": origin == COMMITTED,
        "scale": scale,
        "seed": seed,
        "smoke": scale == SMOKE,
        "model": tag,
        "model_name": _model(summary.get("config"), provenance.get("llm_budget")),
        "model_measurements": [
            str(n) for n in _sequence(summary.get("model_measurements", []), "model_measurements")
        ],
        "llm_usage": summary.get("llm_usage")
        if isinstance(summary.get("llm_usage"), Mapping)
        else None,
        "anchor": f"{origin}-{scale}-{folder}",
        "complete": bool(summary.get("complete", True)),
        "date": finished[:10],
        "commit": commit,
        "commit_short": commit[:7],
        "dirty": provenance.get("dirty"),
        "claims": claims,
        "counts": counts,
        "claim_parts": _claim_parts(claims),
        "check_parts": _check_parts(claims),
        "cells": {
            key: _integer(cells.get(key, 0), f"cells.{key}")
            for key in ("total", "ok", "failed", "computed", "cached")
        },
        "failures": [_failure(f) for f in _sequence(summary.get("failures", []), "failures")],
        "measurements": [
            {"name": str(name), "value": value, "claims": claimed.get(str(name), [])}
            for name, value in measurements.items()
        ],
        "long": len(measurements) > LONG_TABLE,
        # committed results ship without their figures: show only those that are there
        "figures": [
            f
            for f in _figures(summary.get("figures", []), base, slug, origin, scale, seed, tag)
            if f["exists"] or origin != COMMITTED
        ],
        "warnings": sorted(
            _mapping(summary.get("warnings"), "warnings").items(), key=lambda kv: -_count(kv[1])
        ),
        "summary_error": summary.get("summary_error"),
        "figure_errors": [
            {"name": str(f["name"]), "error": str(f["error"])}
            for f in _sequence(summary.get("figure_errors", []), "figure_errors")
        ],
        "timing": {
            key: _seconds(timing.get(key))
            for key in (
                "wall_seconds",
                "computed_cell_seconds",
                "cached_cell_seconds",
                "summarize_seconds",
            )
        },
        "provenance": {
            "command": provenance.get("command"),
            "backend": provenance.get("backend"),
            "address": provenance.get("address"),
            "jobs": provenance.get("jobs"),
            "cores": provenance.get("cores"),
            "platform": provenance.get("platform"),
            "cpu": provenance.get("cpu"),
            "started": _when(provenance.get("started")),
            "finished": _when(provenance.get("finished")),
            "code_fingerprint": provenance.get("code_fingerprint"),
            "summary_fingerprint": provenance.get("summary_fingerprint"),
            "judged": _when(provenance.get("judged")),
            "versions": list(_mapping(provenance.get("versions"), "versions").items()),
            "dependencies": list(_mapping(provenance.get("dependencies"), "dependencies").items()),
        },
        "config": json.dumps(summary.get("config", {}), indent=2, sort_keys=True, default=str),
        # read by store.latest, which picks the summary the index shows first
        "finished": finished,
    }


def _model(config: Any, budget: Any = None) -> str:
    """``NAME at URL`` for a run made against a language model (and the scale whose model
    budget it ran with, where another); empty for an offline one."""
    llm = config.get("llm") if isinstance(config, Mapping) else None
    if not isinstance(llm, Mapping):
        return ""
    within = f" (the {budget} model budget)" if isinstance(budget, str) else ""
    return f"{llm.get('model', '?')} at {llm.get('base_url', '?')}{within}"


def _claim(c: Any) -> dict[str, Any]:
    c = _mapping(c, "a claim")
    kind = c.get("kind", CLAIM)
    if kind not in (CLAIM, CHECK, DIAGNOSTIC):
        raise ValueError(f"claim {c.get('id')!r} has kind {kind!r}")
    verdict = "shown, not judged" if kind == DIAGNOSTIC else str(c["verdict"])
    interval = c.get("interval")
    if interval is not None:
        interval = _mapping(interval, "interval")
        interval = {
            "low": float(interval["low"]),
            "high": float(interval["high"]),
            "n": [_integer(k, "interval.n") for k in _sequence(interval["n"], "interval.n")],
            "confidence": float(interval.get("confidence", 0.95)),
            "method": str(interval.get("method", "")),
        }
    return {
        "id": str(c["id"]),
        "statement": str(c.get("statement", "")),
        "metric": str(c["metric"]),
        "kind": kind,
        "paper_value": str(c.get("paper_value") or ""),
        "source": str(c.get("source") or ""),
        "comparison": SYMBOLS.get(c.get("comparison"), str(c.get("comparison", ""))),
        "threshold": c.get("threshold"),
        "measured": c.get("measured"),
        "verdict": verdict,
        "css": "muted" if kind == DIAGNOSTIC else verdict.replace(" ", "-"),
        "interval": interval,
        "single_run": kind == CLAIM and interval is None and not c.get("replicates"),
    }


def _claim_parts(claims: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """``[(css class, text)]`` for the claims: "3 of 4 claims reproduced", "1 not reproduced";
    the first part is green only when every claim reproduced."""
    verdicts = [c["verdict"] for c in claims if c["kind"] == CLAIM]
    n = len(verdicts)
    if not n:
        return [("muted", "no claims")]
    noun = "claim" if n == 1 else "claims"
    if verdicts.count(INCOMPLETE) == n:
        return [(INCOMPLETE, f"{n} {noun} incomplete")]
    done = verdicts.count(REPRODUCED)
    parts = [("reproduced" if done == n else "partial", f"{done} of {n} {noun} reproduced")]
    return parts + _others(verdicts, (NOT_REPRODUCED, INCONCLUSIVE, INCOMPLETE, NOT_MEASURED))


def _check_parts(claims: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """``[(css class, text)]`` for the checks: "2 checks hold", or "1 of 2 checks hold", "1
    fails"; empty when the paper declares no check."""
    verdicts = [c["verdict"] for c in claims if c["kind"] == CHECK]
    n = len(verdicts)
    if not n:
        return []
    if verdicts.count(INCOMPLETE) == n:
        return [(INCOMPLETE, f"{n} {'check' if n == 1 else 'checks'} incomplete")]
    hold = verdicts.count(HOLDS)
    if hold == n:
        return [(HOLDS, "1 check holds" if n == 1 else f"{n} checks hold")]
    parts = [("partial", f"{hold} of {n} {'check holds' if n == 1 else 'checks hold'}")]
    parts += [("fails", f"{k} fail{'s' if k == 1 else ''}") for k in [verdicts.count(FAILS)] if k]
    return parts + _others(verdicts, (INCOMPLETE, NOT_MEASURED))


def _others(verdicts: list[str], which: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(v.replace(" ", "-"), f"{verdicts.count(v)} {v}") for v in which if v in verdicts]


def _regular_inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is a regular file (not a link to one) whose real place is inside
    ``folder``: a figure of somebody else's runs folder never brings another file along."""
    try:
        return (
            path.is_file()
            and not path.is_symlink()
            and path.resolve().is_relative_to(folder.resolve())
        )
    except OSError:
        return False


def _failure(f: Any) -> dict[str, str]:
    f = _mapping(f, "a failure")
    cell = f.get("cell")
    return {
        "cell": json.dumps(cell, sort_keys=True, default=str) if cell is not None else "?",
        "reason": str(f.get("reason") or ""),
        "traceback": str(f.get("traceback") or ""),
    }


def _figures(
    figures: Any, base: Path, slug: str, origin: str, scale: str, seed: int, model: str | None
) -> list[dict[str, Any]]:
    """Each figure with its source (inside the summary's folder, never outside it), the path it
    gets in the site, and whether the file is there to copy."""
    folder = store.run_dir(base, slug, scale, seed, model)
    found = []
    for figure in _sequence(figures, "figures"):
        if isinstance(figure, str):  # schema 1 listed bare file names
            figure = {"path": figure, "caption": ""}
        figure = _mapping(figure, "a figure")
        relative = PurePosixPath(str(figure["path"]))
        safe = (
            not relative.is_absolute()
            and ".." not in relative.parts
            and relative.suffix.lower() in FIGURE_SUFFIXES
        )
        source = folder / relative
        inside = safe and _regular_inside(source, folder)
        found.append(
            {
                "name": relative.name,
                "caption": str(figure.get("caption") or relative.stem.replace("_", " ")),
                "source": source if safe else None,
                "src": f"{slug}/{origin}/{scale}/{folder.name}/{relative}" if safe else "",
                "exists": inside,
            }
        )
    return found


def _page_order(view: Mapping[str, Any]) -> tuple:
    """Committed results first, then runs; larger scales first; then by seed, the offline run
    just before the runs of the same seed against a model."""
    rank = {scale: i for i, scale in enumerate(SCALE_NAMES)}
    model = view["model"]
    return (
        not view["committed"],
        -rank.get(view["scale"], -1),
        view["seed"],
        model is not None,
        model or "",
    )


def _summary_file(summary: Mapping[str, Any], slug: str, runs: Path | None) -> Path:
    """Where ``summary`` was read from (its scale, seed and model were checked when read)."""
    base = runs if summary.get("origin") != COMMITTED and runs is not None else store.results_dir()
    return store.summary_path(base, slug, summary["scale"], summary["seed"], summary.get("model"))


def _mapping(value: Any, what: str) -> Mapping:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} is a {type(value).__name__}, not an object")
    return value


def _sequence(value: Any, what: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"{what} is a {type(value).__name__}, not a list")
    return value


def _integer(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} is {value!r}, not an integer")
    return value


def _seconds(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _count(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _when(value: Any) -> str:
    """``2026-12-01T14:52:23+00:00`` as ``2026-12-01 14:52:23 UTC``."""
    text = str(value or "").replace("T", " ", 1)
    return text.removesuffix("+00:00") + " UTC" if text.endswith("+00:00") else text


# ---------------------------------------------------------------- files of the site


def _copy_figures(view: Mapping[str, Any], out: Path) -> None:
    for figure in view["figures"]:
        if figure["exists"]:
            store.write_atomic(out / figure["src"], figure["source"].read_bytes())


def _readme_html(card: catalog.Card, out: Path) -> str:
    """The paper's README as HTML, its headings moved two levels down to sit under the page's
    own. Its committed figures (``figures/*`` beside it) are copied to ``<slug>/readme-figures/``
    and its images point there; an image on the network becomes a link, so that the page loads
    nothing from outside."""
    readme = card.readme()
    if not readme:
        return ""
    folder = resources.files("icml25").joinpath(card.slug, "figures")
    if folder.is_dir():
        for item in folder.iterdir():
            if item.is_file() and item.name.lower().endswith(FIGURE_SUFFIXES):
                target = out / card.slug / "readme-figures" / item.name
                store.write_atomic(target, item.read_bytes())
    html = _package_markdown(readme, f"{card.slug}/readme-figures/", f"{card.slug}/")
    return _HEADING.sub(lambda m: f"<{m[1]}h{min(int(m[2]) + 2, 6)}", html)


def _companion_pages(card: catalog.Card, out: Path, env: Environment, stamp: str) -> None:
    """Each Markdown file beside the paper's README (hiref's ``BENCHMARK.md``) as a page of
    its own, ``<slug>/<NAME>.html``, where the README's links to it point; its figures are those
    :func:`_readme_html` copied."""
    folder = resources.files("icml25").joinpath(card.slug)
    if not folder.is_dir():
        return
    for item in folder.iterdir():
        if item.is_file() and item.name.endswith(".md") and item.name != "README.md":
            html = _package_markdown(item.read_text(encoding="utf-8"), "readme-figures/", "")
            html = html.replace('href="README.md"', f'href="../{card.slug}.html"')
            page = env.get_template("companion.html").render(
                card=card, name=item.name, content=html, stamp=stamp
            )
            store.write_text_atomic(out / card.slug / f"{item.name[:-3]}.html", page)


def _package_markdown(text: str, figures: str, companions: str) -> str:
    """Markdown of a paper's package as HTML: its ``figures/`` images pointing to ``figures``,
    an image on the network turned into a link, and links to a Markdown file beside it
    (``NAME.md``) to its page, ``companions + NAME.html``."""
    html = markdown_html(text).replace('src="figures/', f'src="{figures}')
    html = _COMPANION_LINK.sub(lambda m: f'href="{companions}{m[1]}.html', html)
    return _REMOTE_IMAGE.sub(lambda m: f'<a href="{m["src"]}">[image: {m["src"]}]</a>', html)


_COMPANION_LINK = re.compile(r'href="(?!README\.md)([A-Za-z][\w-]*)\.md(?=["#])')


_README_IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\(figures/(?P<name>[^)\s/]+)\)")


def _readme_figures(card: catalog.Card) -> list[dict[str, str]]:
    """The README's own figures (``![caption](figures/NAME)``, in the order it shows them,
    each once) that are committed beside it, as copied by :func:`_readme_html`."""
    readme = card.readme() or ""
    folder = resources.files("icml25").joinpath(card.slug, "figures")
    figures, seen = [], set()
    for match in _README_IMAGE.finditer(readme):
        name = match["name"]
        if name in seen or not name.lower().endswith(FIGURE_SUFFIXES):
            continue
        if not folder.joinpath(name).is_file():
            continue
        seen.add(name)
        caption = match["alt"].strip() or name
        figures.append({"src": f"{card.slug}/readme-figures/{name}", "caption": caption})
    return figures


def markdown_html(text: str) -> str:
    """Markdown as HTML with raw HTML shown as text, not rendered (a README in someone else's
    package cannot put a script or a handler on the page), and every link or image whose URL
    has a scheme other than http, https or mailto (``javascript:``, ``data:``) pointing nowhere."""
    md = markdown.Markdown(extensions=["tables", "fenced_code"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    html = md.convert(text)
    return _URL.sub(lambda m: m[0] if _safe_url(m["url"]) else f'{m["attr"]}="#"', html)


def _safe_url(url: str) -> bool:
    scheme = re.match(r"\s*([a-zA-Z][\w+.-]*):", url)
    return scheme is None or scheme[1].lower() in ("http", "https", "mailto")


_URL = re.compile(r'(?P<attr>\b(?:href|src))="(?P<url>[^"]*)"')
_HEADING = re.compile(r"<(/?)h([1-6])(?=[\s>])")
_REMOTE_IMAGE = re.compile(r'<img\b[^>]*?\ssrc="(?P<src>(?:[a-zA-Z][\w+.-]*:)?//[^"]*)"[^>]*>')


# ---------------------------------------------------------------- templates


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("icml25.lab", "templates"),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["number"] = _number
    env.filters["seconds"] = _format_seconds
    return env


def _number(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return f"{value:.4g}"
    return str(value)


def _format_seconds(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 120:
        return f"{value / 60:.1f} min"
    return f"{value:.1f} s" if value >= 1 or value == 0 else f"{value:.2f} s"
