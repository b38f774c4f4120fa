import pytest

import icml25.creativity.reproduce as cr
from icml25.creativity.claims import CLAIMS
from icml25.lab.claims import NOT_MEASURED


def test_cells_cover_every_task_method_and_seed():
    for scale, construction in (("default", set()), ("paper", {"teacherless"})):
        config = cr.SCALES[scale]
        cells = cr.cells(config)
        assert len(cells) == config.seeds * (3 + 3 + 3 + 2 * len(construction))
        for task in ("line", "circle"):
            methods = {c["method"] for c in cells if c["task"] == task}
            assert methods == {"ntp", "ntp_nohash", "mdm"} | construction
        assert {c["method"] for c in cells if c["task"] == "sibling"} == {
            "ntp",
            "teacherless",
            "mdm",
        }


def test_every_method_of_a_seed_sees_the_same_data():
    config = cr.SCALES["smoke"]
    a = cr.make_task(config, "line", 0)
    b = cr.make_task(config, "line", 0)
    c = cr.make_task(config, "line", 1)
    assert (a.train == b.train).all() and not (a.train == c.train).all()


def test_smoke_reproduction_measures_every_claim(smoke):
    summary = smoke("creativity")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    # (b) is undefined when no answer is valid, as after 25 steps
    assert verdicts.pop("b") == NOT_MEASURED
    assert summary["measurements"]["line_ntp_valid"] == 0.0
    assert all(v != NOT_MEASURED for v in verdicts.values()), verdicts
    # the checks hold at any scale: generated answers are valid, greedy without seed is <= 1/N
    assert verdicts["train_valid"] == "holds" and verdicts["greedy_no_seed"] == "holds"
    m = summary["measurements"]
    for task in ("line", "circle", "sibling"):
        assert 0 <= m[f"{task}_ntp_creativity"] <= m[f"{task}_ntp_valid"] <= 1


def test_which_declarations_are_checks():
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["train_valid", "greedy_no_seed"]


def test_the_memorised_share_counts_valid_answers_only():
    from icml25.creativity.summary import _memorised_among_valid

    # 8 answers: 4 valid, of which 1 novel, so 3 of the 4 valid ones are memorised
    score = {"valid": 0.5, "novel_valid": 0.125, "memorised": 0.375}
    assert _memorised_among_valid(score) == pytest.approx(0.75, abs=1e-12)
    assert _memorised_among_valid({"valid": 0.0, "novel_valid": 0.0, "memorised": 0.0}) is None
