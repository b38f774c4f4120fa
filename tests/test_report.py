import re

import pytest
from markupsafe import escape

from icml25.lab import catalog, runner
from icml25.lab.report import build

SLUG = "ipd_pavlov"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    runs = tmp_path_factory.mktemp("runs")
    summary = runner.run([SLUG], scale="smoke", out=runs, jobs=1)[SLUG]
    out = tmp_path_factory.mktemp("site")
    return build(runs, out), summary


def test_index_lists_every_paper_and_each_claim(site):
    index, summary = site
    html = index.read_text()
    for card in catalog.cards():
        assert card.slug in html
    for claim in summary["claims"]:
        assert claim["metric"] in html
    assert html.count(">reproduced<") + html.count(">not reproduced<") == len(summary["claims"])


def test_paper_page_shows_figures_that_exist_and_the_readme(site):
    index, summary = site
    page = (index.parent / f"{SLUG}.html").read_text()
    images = re.findall(r'<img [^>]*src="([^"]+)"', page)
    readme_images = [src for src in images if "/readme-figures/" in src]
    assert len(images) - len(readme_images) == len(summary["figures"]) >= 2
    assert readme_images  # the README's own figures, copied beside the page
    for src in images:
        assert (index.parent / src).is_file(), src
    assert "<table>" in page and escape(catalog.card(SLUG).title) in page
    assert 'class="readme"' in page
    assert "http://" not in page.replace("https://github.com", "")  # opens offline
