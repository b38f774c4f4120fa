import icml25.creativity.reproduce as cr
from icml25.creativity.claims import CLAIMS
from icml25.lab.claims import NOT_MEASURED


def test_cells_cover_every_task_method_and_seed():
    config = cr.SCALES["default"]
    cells = cr.cells(config)
    assert len(cells) == config.seeds * (4 + 4 + 3)
    for task in ("line", "circle"):
        methods = {c["method"] for c in cells if c["task"] == task}
        assert methods == {"ntp", "ntp_nohash", "mdm", "teacherless"}
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
    assert all(v != NOT_MEASURED for v in verdicts.values()), verdicts
    # the checks hold at any scale: generated answers are valid, greedy without seed is <= 1/N
    assert verdicts["train_valid"] == "holds" and verdicts["greedy_no_seed"] == "holds"
    m = summary["measurements"]
    for task in ("line", "circle", "sibling"):
        assert 0 <= m[f"{task}_ntp_creativity"] <= m[f"{task}_ntp_valid"] <= 1


def test_which_declarations_are_checks():
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["train_valid", "greedy_no_seed"]
