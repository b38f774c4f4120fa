import json

import pytest

import icml25.ipd_pavlov.reproduce as ipd
from icml25.lab import catalog
from icml25.lab.cli import main

SLUG = "ipd_pavlov"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    assert main(["run", SLUG, "--scale", "smoke", "--jobs", "1", "--out", str(out)]) == 0
    return out


def test_list_shows_every_card_with_its_status(runs, capsys):
    assert main(["list", "--runs", str(runs)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    for card in catalog.cards():
        row = next(line for line in lines if line.startswith(card.slug + " "))
        assert card.status in row
    assert "reproduced (smoke)" in next(line for line in lines if line.startswith(SLUG))
    assert "38 papers" in out


def test_show_prints_the_card_claims_and_numbers(runs, capsys):
    assert main(["show", SLUG, "--runs", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "claim (a)" in out and "last run at scale smoke" in out


def test_show_json_has_the_same_content(runs, capsys):
    assert main(["show", SLUG, "--json", "--runs", str(runs)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "implemented"
    assert [c["id"] for c in data["claims"]] == ["a", "b", "c", "d"]
    assert set(data["runs"]) == {"smoke"}
    assert data["runs"]["smoke"]["claims"][0]["verdict"] in {"reproduced", "not reproduced"}


def test_show_a_paper_without_reproduction(tmp_path, capsys):
    slug = next(c.slug for c in catalog.cards() if c.status != catalog.IMPLEMENTED)
    assert main(["show", slug, "--json", "--runs", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == catalog.card(slug).status
    assert data["claims"] == [] and data["runs"] == {}


def test_run_prints_verdicts_and_reuses_cells(runs, capsys):
    assert main(["run", SLUG, "--scale", "smoke", "--jobs", "1", "--out", str(runs)]) == 0
    out = capsys.readouterr().out
    n = len(ipd.cells(ipd.SCALES["smoke"]))
    assert f"{n}/{n} cells ({n} cached, 0 failed)" in out
    assert "(a) min_pavlov_rate_small_epsilon" in out


def test_report_writes_the_site(runs, tmp_path, capsys):
    site = tmp_path / "site"
    assert main(["report", "--runs", str(runs), "--out", str(site)]) == 0
    assert (site / "index.html").is_file() and (site / f"{SLUG}.html").is_file()


@pytest.mark.parametrize(
    "argv, word",
    [
        (["run", "nope"], "nope"),
        (["run", "rad_ai"], "no reproduction"),
        (["run"], "SLUG"),
        (["run", SLUG, "--all"], "not both"),
        (["run", SLUG, "--scale", "huge"], "--scale"),
        (["run", SLUG, "--seed", "-3"], "--seed"),
        (["run", SLUG, "--seed", "x"], "--seed"),
        (["run", SLUG, "--jobs", "0"], "jobs"),
        (["run", SLUG, "--backend", "spark"], "--backend"),
        (["show", "nope"], "nope"),
        (["list", "--runs", "/no/such/folder"], "--runs"),
        (["show", SLUG, "--runs", "/no/such/folder"], "--runs"),
        (["report", "--runs", "/no/such/folder"], "--runs"),
        (["frobnicate"], "frobnicate"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(argv, word, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("icml25: error:")
    assert word in lines[0]
