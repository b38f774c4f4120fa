"""The HTML report, built from a real smoke run, committed results and a few hand-made summaries:
one with claims and checks of every verdict, one whose cells failed, and two that cannot be
shown (not JSON; JSON of the wrong shape)."""

import json
import os
import re
import stat
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from markupsafe import escape

from icml25.lab import catalog, claims, report, runner, store

SLUG = "ipd_pavlov"  # a real smoke run in runs/, a committed default summary in results/
MIXED = "hiref"  # committed: claims and checks of every verdict
FAILED = "mdm_order"  # runs: 2 of 10 cells failed
GARBAGE = "maxmin_eig"  # runs: summary.json is not JSON
ODD = "relu_threshold"  # runs: JSON of schema 2 whose claims are not a list
COMMIT = "0123456789abcdef0123456789abcdef01234567"
SMOKE_MARK = "smoke: not evidence"


def _claim(id, verdict, kind="claim", measured=0.5, **extra):
    return {
        "id": id,
        "statement": f"statement of ({id})",
        "metric": f"metric_{id}",
        "comparison": ">=",
        "threshold": 0.25,
        "kind": kind,
        "paper_value": "",
        "source": "",
        "measured": measured,
        "verdict": verdict,
        **extra,
    }


def _summary(slug, scale, verdicts, *, failed=0, dirty=False, finished="2025-07-01T10:00:00+00:00"):
    total = 10
    measurements = {c["metric"]: c["measured"] for c in verdicts}
    measurements["not_claimed_extra"] = 3.25
    return {
        "schema": store.SCHEMA,
        "slug": slug,
        "title": catalog.card(slug).title,
        "scale": scale,
        "seed": 0,
        "complete": not failed,
        "config": {"n": 8},
        "cells": {
            "total": total,
            "ok": total - failed,
            "failed": failed,
            "computed": 6,
            "cached": 4,
        },
        "failures": [
            {
                "cell": {"index": i},
                "reason": "MemoryError: cell ran out of memory",
                "traceback": f"Traceback (most recent call last):\nMemoryError: marker-{i}",
            }
            for i in range(failed)
        ],
        "measurements": {} if failed else measurements,
        "claims": verdicts,
        "counts": claims.tally(verdicts),
        "figures": [],
        "warnings": {"RuntimeWarning: divide by zero": 3},
        "summary_error": None,
        "timing": {
            "wall_seconds": 12.5,
            "computed_cell_seconds": 20.25,
            "cached_cell_seconds": 7.75,
            "summarize_seconds": 0.5,
        },
        "provenance": {
            "command": f"icml25 run {slug}",
            "backend": "loky",
            "address": None,
            "jobs": 2,
            "started": "2025-07-01T09:59:00+00:00",
            "finished": finished,
            "commit": COMMIT,
            "dirty": dirty,
            "cores": 2,
            "platform": "Linux",
            "versions": {"python": "3.11.7", "icml25": "0.1.0", "numpy": "9.9.9-numpy"},
            "code_fingerprint": "abcdef123456",
            "dependencies": {"numpy": "9.9.9-numpy"},
        },
    }


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built under umask 022 with ``store.results_dir`` pointing at a temporary
    results folder (kept for the module, so that other builds see the same evidence)."""
    runs = tmp_path_factory.mktemp("runs")
    results = tmp_path_factory.mktemp("results")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store, "results_dir", lambda: results)
        smoke = runner.run([SLUG], scale="smoke", out=runs, jobs=1)[SLUG]

        committed = {**smoke, "scale": "default"}  # its figures listed, not shipped
        committed["provenance"] = {
            **smoke["provenance"],
            "commit": COMMIT,
            "dirty": False,
            "finished": "2025-07-01T10:00:00+00:00",
        }
        store.write_summary(results, SLUG, "default", 0, committed)

        mixed = [
            _claim("a", claims.REPRODUCED, paper_value="0.93 in the paper", source="Table 2"),
            _claim("b", claims.REPRODUCED),
            _claim("c", claims.NOT_REPRODUCED, measured=0.125),
            _claim("d", claims.NOT_MEASURED, measured=None),
            _claim("e", claims.HOLDS, kind="check"),
            _claim("f", claims.FAILS, kind="check", measured=0.0625),
        ]
        store.write_summary(results, MIXED, "default", 0, _summary(MIXED, "default", mixed))

        incomplete = [
            _claim(i, claims.INCOMPLETE, kind=k, measured=None)
            for i, k in [("a", "claim"), ("b", "claim"), ("c", "check")]
        ]
        failed = _summary(FAILED, "default", incomplete, failed=2, dirty=True)
        store.write_summary(runs, FAILED, "default", 0, failed)

        garbage = store.summary_path(runs, GARBAGE, "default", 0)
        garbage.parent.mkdir(parents=True)
        garbage.write_text('{"schema": 2, "slug": ', encoding="utf-8")
        odd = _summary(ODD, "default", [])
        odd["claims"] = "not a list"
        odd_path = store.summary_path(runs, ODD, "default", 0)  # the store refuses to write it
        odd_path.parent.mkdir(parents=True)
        odd_path.write_text(json.dumps(odd), encoding="utf-8")

        errors = []
        mask = os.umask(0o022)
        try:
            index = report.build(runs, tmp_path_factory.mktemp("site"), errors.append)
        finally:
            os.umask(mask)
        yield SimpleNamespace(
            index=index,
            out=index.parent,
            runs=runs,
            smoke=smoke,
            committed=committed,
            errors=errors,
            unreadable={garbage, store.summary_path(runs, ODD, "default", 0)},
        )


def _page(site, slug):
    return (site.out / f"{slug}.html").read_text(encoding="utf-8")


def _row(site, slug):
    """The index's row of one paper."""
    html = site.index.read_text(encoding="utf-8")
    found = re.search(rf'<tr id="{slug}"[^>]*>(.*?)</tr>', html, re.S)
    assert found, slug
    return found[1]


def _sections(page):
    """``{anchor: html}`` for each summary's section of a paper page."""
    parts = re.split(r'<h2 id="([^"]+)">', page)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_index_lists_every_paper_with_its_status(site):
    html = site.index.read_text(encoding="utf-8")
    for card in catalog.cards():
        row = _row(site, card.slug)
        assert escape(card.title) in row and card.status in row
        linked = f'href="{card.slug}.html"' in row
        assert linked == (card.slug in {SLUG, MIXED, FAILED}), card.slug
        if card.status == catalog.POSITION_PAPER:
            assert "position paper: no system to build" in row
        if card.status == catalog.PLANNED:
            assert "planned: no reproduction yet" in row
    assert html.count('<tr id="') == len(catalog.cards()) == 38


def test_index_counts_claims_and_checks_apart(site):
    row = _row(site, MIXED)
    for text in [
        "2 of 4 claims reproduced",
        "1 not reproduced",
        "1 not measured",
        "1 of 2 checks hold",
        "1 fails",
    ]:
        assert f">{text}<" in row, text
    smoke = _row(site, SLUG)
    counts = site.smoke["counts"]
    assert f">{counts['reproduced']} of {counts['claims']} claims reproduced<" in smoke
    if counts["not_reproduced"]:
        assert f">{counts['not_reproduced']} not reproduced<" in smoke
    assert not re.search(r"checks? holds?", smoke)


def test_index_and_page_show_failed_cells_and_incomplete_claims(site):
    row = _row(site, FAILED)
    assert ">2 claims incomplete<" in row and ">1 check incomplete<" in row
    assert ">2 of 10 cells failed<" in row and "reproduced" not in row
    page = _page(site, FAILED)
    for i in range(2):  # each failure: its reason, its traceback folded away
        assert re.search(rf"<details><summary>.*?</summary><pre>[^<]*marker-{i}</pre>", page)
    assert "MemoryError: cell ran out of memory" in page
    assert page.count('<td class="incomplete">incomplete</td>') == 3


def test_smoke_results_are_marked_and_default_ones_are_not(site):
    assert _row(site, SLUG).count(SMOKE_MARK) == 1  # the smoke run only, not the committed one
    for slug in (MIXED, FAILED):
        assert SMOKE_MARK not in _row(site, slug)
        assert SMOKE_MARK not in _page(site, slug)
    sections = _sections(_page(site, SLUG))
    assert SMOKE_MARK in sections["runs-smoke-seed-0"]
    assert SMOKE_MARK not in sections["committed-default-seed-0"]


def test_origin_commit_and_date_are_shown(site):
    row = _row(site, SLUG)
    committed = "committed results · 0123456 · 2025-07-01"
    assert committed in row and "this machine's run" in row
    assert row.index(committed) < row.index("this machine")  # the default scale is shown first
    assert committed in _row(site, MIXED)
    assert "committed results" not in _row(site, FAILED)
    # the paper page, evidence first: the committed default results, the README's figures,
    # then the smoke runs folded away as a pipeline check, then the README
    page = _page(site, SLUG)
    order = ["committed-default-seed-0", "figures", "runs-smoke-seed-0", "readme"]
    assert list(_sections(page)) == order
    folded = page[page.index('<details class="pipeline"') : page.index('<h2 id="readme">')]
    assert "Pipeline check (not evidence)" in folded and 'id="runs-smoke-seed-0"' in folded


def test_the_readme_figures_follow_the_evidence_with_their_captions(site):
    figures = _sections(_page(site, SLUG))["figures"]
    shown = re.findall(r'<img src="([^"]+)" alt="([^"]*)">', figures)
    readme = catalog.card(SLUG).readme()
    named = re.findall(r"!\[([^\]]*)\]\(figures/([^)]+)\)", readme)
    assert shown and [Path(src).name for src, _ in shown] == list(
        dict.fromkeys(n for _, n in named)
    )
    for src, caption in shown:
        assert (site.out / src).is_file() and caption and f"<figcaption>{caption}" in figures


def test_unreadable_summaries_are_reported_and_the_rest_is_built(site):
    assert {e.path for e in site.errors} == site.unreadable
    reasons = {e.path.parent.parent.parent.name: e.reason for e in site.errors}
    assert "JSONDecodeError" in reasons[GARBAGE]
    assert "claims" in reasons[ODD] and "not a list" in reasons[ODD]
    for slug in (GARBAGE, ODD):
        assert not (site.out / f"{slug}.html").exists()
        assert f'href="{slug}.html"' not in _row(site, slug)
        assert "unreadable summary" in _row(site, slug)  # the index says so, beside the paper
    for slug in (SLUG, MIXED, FAILED):
        assert (site.out / f"{slug}.html").is_file()


def test_paper_page_shows_the_card_claims_measurements_and_provenance(site):
    card = catalog.card(MIXED)
    page = _page(site, MIXED)
    assert card.paper_title and escape(card.paper_title) in page
    assert escape(card.authors) in page and escape(card.venue) in page
    assert f'href="{card.link}"' in page and f'href="{card.code_url}"' in page
    columns = ["claim", "kind", "paper", "threshold", "ours", "verdict"]
    assert "".join(f"<th>{c}</th>" for c in columns) in page
    assert "0.93 in the paper" in page and "Table 2" in page  # the paper's value, its source
    assert "≥ 0.25" in page and ">0.125<" in page  # threshold, ours
    for verdict, css in [
        ("reproduced", "reproduced"),
        ("not reproduced", "not-reproduced"),
        ("not measured", "not-measured"),
        ("holds", "holds"),
        ("fails", "fails"),
    ]:
        assert f'<td class="{css}">{verdict}</td>' in page
    assert "not_claimed_extra" in page and ">3.25<" in page  # every measurement, claimed or not
    for text in [
        "0123456",  # commit
        "clean tree",
        f"icml25 run {MIXED}",  # command
        "loky, jobs 2",
        "2 cores",
        "numpy 9.9.9-numpy",
        "2025-07-01 09:59:00 UTC",
        "20.2 s computed (6)",
        "7.8 s reused from cache (4)",
        "12.5 s wall",
        "RuntimeWarning: divide by zero",
    ]:
        assert text in page, text
    assert "with uncommitted changes" in _page(site, FAILED)


def test_every_measurement_of_a_real_run_is_listed(site):
    sections = _sections(_page(site, SLUG))
    for name in site.smoke["measurements"]:
        assert f"<code>{escape(name)}</code>" in sections["runs-smoke-seed-0"]
    n = len(site.smoke["measurements"])
    folded = f"<details><summary>all {n} measurements" in sections["runs-smoke-seed-0"]
    assert folded == (n > report.LONG_TABLE)  # a long table is folded away


def test_figures_exist_with_captions_and_readme_figures_are_apart(site):
    page = _page(site, SLUG)
    for slug in (SLUG, MIXED, FAILED):
        for src in re.findall(r'<img [^>]*src="([^"]+)"', _page(site, slug)):
            assert (site.out / src).is_file(), src
    body, readme = page.split("README (committed figures)")
    sections = _sections(body)
    run_images = re.findall(r'<img [^>]*src="([^"]+)"', sections["runs-smoke-seed-0"])
    assert len(run_images) == len(site.smoke["figures"]) >= 2
    assert "Figures of this run" in sections["runs-smoke-seed-0"]
    for figure in site.smoke["figures"]:
        assert escape(figure["caption"]) in sections["runs-smoke-seed-0"]
    committed = sections["committed-default-seed-0"]
    assert "<img" not in committed and "Figures of this run" not in committed  # numbers only
    assert "Committed results carry numbers only" in committed
    readme_images = re.findall(r'<img [^>]*src="([^"]+)"', readme)
    beside_readme = sorted(
        p.name for p in (Path(report.__file__).parents[1] / SLUG / "figures").glob("*.png")
    )
    assert sorted(Path(src).name for src in readme_images) == beside_readme
    assert all(f"{SLUG}/readme-figures/" in src for src in readme_images)
    assert not any("readme-figures" in src for src in run_images)


class _Loads(HTMLParser):
    """Every URL a page loads (``src``, ``href`` of ``<link>``, ...) and every link it has."""

    def __init__(self):
        super().__init__()
        self.loads, self.links = [], []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if not value:
                continue
            if tag == "a" and name == "href":
                self.links.append(value)
            elif name in {"src", "href", "srcset", "data", "poster", "action", "background"}:
                self.loads.append((tag, value))


def test_pages_load_nothing_from_the_network(site):
    pages = sorted(site.out.glob("*.html"))
    assert len(pages) == 4  # the index and three papers
    for path in pages:
        html = path.read_text(encoding="utf-8")
        parser = _Loads()
        parser.feed(html)
        for tag, url in parser.loads:
            assert not urlsplit(url).scheme and not url.startswith("//"), (path.name, tag, url)
            assert (site.out / url).is_file(), (path.name, url)
        assert not re.search(r"url\(\s*['\"]?(https?:)?//", html) and "@import" not in html
        for url in parser.links:
            parts = urlsplit(url)
            if parts.scheme:  # to the paper, its code: a link the reader may follow
                assert parts.scheme == "https", url
            else:  # between the site's pages
                target, _, anchor = url.partition("#")
                target_html = (path.parent / (target or path.name)).read_text(encoding="utf-8")
                assert not anchor or f'id="{anchor}"' in target_html, url


def test_every_readme_renders_with_local_figures_only(tmp_path):
    for card in catalog.cards():
        html = report._readme_html(card, tmp_path)
        if card.readme() is None:
            assert html == ""
            continue
        assert "<h1" not in html and "<h2" not in html  # below the page's own headings
        for src in re.findall(r'<img [^>]*src="([^"]+)"', html):
            assert not urlsplit(src).scheme and (tmp_path / src).is_file(), (card.slug, src)


def test_files_follow_the_umask(site):
    def modes(folder):
        return {p: stat.S_IMODE(p.stat().st_mode) for p in folder.rglob("*") if p.is_file()}

    assert set(modes(site.out).values()) == {0o644}
    mask = os.umask(0o027)
    try:
        index = report.build(site.runs, site.out.parent / "site-027")
    finally:
        os.umask(mask)
    found = modes(index.parent)
    assert len(found) >= 4 and set(found.values()) == {0o640}


def test_verdict_colours_are_defined():
    css = (Path(report.__file__).parent / "templates" / "base.html").read_text(encoding="utf-8")
    for verdict in [
        claims.REPRODUCED,
        claims.NOT_REPRODUCED,
        claims.NOT_MEASURED,
        claims.INCOMPLETE,
        claims.HOLDS,
        claims.FAILS,
    ]:
        assert re.search(rf"\.{verdict.replace(' ', '-')}\b[^{{]*{{[^}}]*color:", css), verdict


def test_a_model_run_is_shown_beside_the_offline_run_of_its_seed(tmp_path, monkeypatch):
    """A run against a model has its own folder (``seed-0-<model>``), its own section right
    after the offline run's, and a table of what the model measured beside the offline value."""
    slug = "political_neutrality"
    monkeypatch.setattr(store, "results_dir", lambda: tmp_path / "results")
    offline = _summary(slug, "default", [_claim("a", claims.REPRODUCED, measured=0.5)])
    model = _summary(slug, "default", [_claim("a", claims.NOT_REPRODUCED, measured=0.125)])
    model |= {"model": "smollm2", "model_measurements": ["metric_a"]}
    model["config"] = {"llm": {"model": "local:smollm2", "base_url": "http://127.0.0.1:1/v1"}}
    store.write_summary(tmp_path / "runs", slug, "default", 0, model)
    store.write_summary(tmp_path / "runs", slug, "default", 0, offline)
    assert (tmp_path / "runs" / slug / "default" / "seed-0-smollm2" / "summary.json").is_file()
    report.build(tmp_path / "runs", tmp_path / "site")
    sections = _sections((tmp_path / "site" / f"{slug}.html").read_text(encoding="utf-8"))
    assert list(sections)[:2] == ["runs-default-seed-0", "runs-default-seed-0-smollm2"]
    beside = sections["runs-default-seed-0-smollm2"]
    assert "beside the offline run" in beside and "model: local:smollm2" in beside
    row = re.search(r"<code>metric_a</code></td>(.*?)</tr>", beside, re.S)[1]
    assert re.findall(r'<td class="num">([^<]*)</td>', row) == ["0.5", "0.125"]
    assert "beside the offline run" not in sections["runs-default-seed-0"]


def test_readme_html_is_shown_as_text_and_unsafe_links_point_nowhere():
    html = report.markdown_html(
        "<script>alert(1)</script>\n\nsee <b onclick=x>this</b>, `<sep>`, "
        "[a](javascript:alert(1)), [b](https://example.org), [c](#claims), "
        "![d](data:image/png;base64,AAAA) and ![e](figures/e.png)\n"
    )
    assert "<script" not in html and "&lt;script&gt;" in html
    assert "<b " not in html and "&lt;b onclick=x&gt;" in html
    assert "<code>&lt;sep&gt;</code>" in html
    assert 'href="#">a</a>' in html and "javascript:" not in html and "data:" not in html
    assert 'href="https://example.org"' in html and 'href="#claims"' in html
    assert 'src="figures/e.png"' in html


def test_a_figure_that_links_outside_its_run_folder_is_not_copied(tmp_path, monkeypatch):
    """Somebody else's runs folder lists a figure that is a symlink to a file of this machine:
    the report neither copies nor shows it; a real figure beside it is copied."""
    monkeypatch.setattr(store, "results_dir", lambda: tmp_path / "results")
    runs, secret = tmp_path / "runs", tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG not yours")
    summary = _summary(SLUG, "default", [_claim("a", claims.REPRODUCED)])
    summary["figures"] = [
        {"path": "figures/stolen.png", "caption": "a link"},
        {"path": "figures/real.png", "caption": "a figure"},
    ]
    store.write_summary(runs, SLUG, "default", 0, summary)
    figures = store.run_dir(runs, SLUG, "default", 0) / "figures"
    figures.mkdir()
    (figures / "stolen.png").symlink_to(secret)
    (figures / "real.png").write_bytes(b"\x89PNG ours")
    report.build(runs, tmp_path / "site")
    copied = [p.name for p in (tmp_path / "site").rglob("*.png")]
    assert "real.png" in copied and "stolen.png" not in copied
    site = [p for p in (tmp_path / "site").rglob("*") if p.is_file()]
    assert not any(p.read_bytes() == secret.read_bytes() for p in site)


def test_claim_margin_is_in_units_of_the_threshold_and_positive_on_the_claimed_side():
    margin = report.claim_margin
    assert margin({"measured": 1.5, "threshold": 1.0, "comparison": "≥"}) == pytest.approx(0.5)
    assert margin({"measured": 0.5, "threshold": 1.0, "comparison": ">"}) == pytest.approx(-0.5)
    assert margin({"measured": 0.05, "threshold": 0.1, "comparison": "≤"}) == pytest.approx(0.5)
    assert margin({"measured": -0.2, "threshold": -0.1, "comparison": "<"}) == pytest.approx(1.0)
    assert margin({"measured": 0.3, "threshold": 0.0, "comparison": ">"}) == pytest.approx(0.3)
    assert margin({"measured": None, "threshold": 1.0, "comparison": "≥"}) is None
    assert margin({"measured": float("nan"), "threshold": 1.0, "comparison": "≥"}) is None


def test_the_index_opens_with_the_tally_of_the_evidence_and_a_bar_per_claim(tmp_path, monkeypatch):
    shipped = Path(report.__file__).parents[1] / "results"  # the module's fixture patches it
    monkeypatch.setattr(store, "results_dir", lambda: shipped)
    out = tmp_path / "site"
    html = report.build(None, out).read_text(encoding="utf-8")  # the committed results only
    summaries = [
        store.read_summary(store.summary_path(store.results_dir(), slug, "default", 0))
        for slug in catalog.implemented()
    ]
    total = {k: sum(s["counts"][k] for s in summaries) for k in ("claims", "reproduced")}
    tally = html[html.index('<div class="card tally">') : html.index("<svg")]
    assert f"committed default-scale runs of {len(summaries)} papers" in tally
    assert f"{total['claims']} claims" in tally and f"{total['reproduced']} reproduced" in tally
    measured = sum(
        c["kind"] == claims.CLAIM and isinstance(c.get("measured"), int | float)
        for s in summaries
        for c in s["claims"]
    )
    assert html.count("<rect ") == measured
    assert html.index('<div class="card tally">') < html.index('<table id="papers">')  # first


def test_index_rows_carry_the_area_and_verdicts_the_filters_select_on(site):
    html = site.index.read_text(encoding="utf-8")
    rows = dict(re.findall(r'<tr id="([^"]+)" data-area="[^"]+" data-verdicts="([^"]*)">', html))
    assert set(rows) == {card.slug for card in catalog.cards()}
    for card in catalog.cards():
        assert f'<tr id="{card.slug}" data-area="{card.area}"' in html
        assert f"<option>{card.area}</option>" in html
    assert rows[MIXED] == "reproduced not-reproduced not-measured"  # its claims, not its checks
    assert rows[FAILED] == "incomplete"
    with_evidence = {SLUG, MIXED, FAILED, ODD}
    assert {slug for slug, v in rows.items() if v == "no-evidence"} >= set(rows) - with_evidence
    assert 'id="filters" hidden' in html  # the script shows it: no dead controls without it


def test_a_markdown_file_beside_a_readme_is_a_page_the_readme_links_to(tmp_path):
    card = catalog.card("hiref")  # README.md and BENCHMARK.md
    readme = report._readme_html(card, tmp_path)
    assert 'href="hiref/BENCHMARK.html"' in readme and 'href="BENCHMARK.md"' not in readme
    report._companion_pages(card, tmp_path, report._environment(), "now")
    page = (tmp_path / "hiref" / "BENCHMARK.html").read_text(encoding="utf-8")
    assert "Scale, memory and Dask" in page and 'href="../hiref.html"' in page
    for src in re.findall(r'<img [^>]*src="([^"]+)"', page):
        assert (tmp_path / "hiref" / src).is_file(), src


def test_every_readme_figure_has_a_caption_that_is_not_its_file_name():
    for card in catalog.cards():
        for figure in report._readme_figures(card):
            caption, stem = figure["caption"], figure["src"].rsplit("/", 1)[1].rsplit(".", 1)[0]
            assert caption != stem and len(caption.split()) >= 5, (card.slug, caption)
