import icml25.social_choice.reproduce as sc
from icml25.social_choice.claims import CLAIMS


def test_cells_cover_every_setting_and_text_instance():
    config = sc.SCALES["default"]
    parts = [c["part"] for c in sc.cells(config)]
    assert parts.count("synthetic") == len(sc.SETTINGS) * config.instances
    assert parts.count("text") == config.text_instances
    assert sc.SETTINGS == ((0, 1, 1, 0), (1, 0.85, 0.85, 1), (2, 0.7, 0.7, 2), (3, 0.55, 0.55, 3))


def test_claims_keep_the_issue_thresholds():
    by_id = {c.id: c for c in CLAIMS}
    assert (by_id["a"].comparison, by_id["a"].threshold) == ("<=", 0.0)
    assert (by_id["b"].comparison, by_id["b"].threshold) == ("<=", 0.0)
    assert (by_id["c"].comparison, by_id["c"].threshold) == (">", 0.0)


def test_paper_setting_parameters():
    config = sc.SCALES["paper"]
    assert (config.num_issues, config.num_opinions, config.n, config.budget) == (5, 5, 60, 15)
    assert config.instances == 100


def test_smoke_run(smoke):
    summary = smoke("social_choice")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    assert verdicts["a"] == verdicts["b"] == "reproduced"
    assert verdicts["c"] != "not measured"
    m = summary["measurements"]
    assert m["setting0_max_slate_cost"] <= 15 and m["text_max_words_over_budget"] <= 0


def test_which_declarations_are_checks():
    # (a), (b) are theorems tested by simulation; (c) is empirical
    assert [c.id for c in CLAIMS if c.kind == "check"] == []
