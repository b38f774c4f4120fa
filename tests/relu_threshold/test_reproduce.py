import icml25.relu_threshold.reproduce as rt
from icml25.lab import runner
from icml25.relu_threshold.claims import CLAIMS


def test_cells_cover_sizes_and_controls():
    config = rt.SCALES["default"]
    cells = rt.cells(config)
    assert {c["n"] for c in cells if c["init"] == "small"} == set(config.ns)
    assert {c["n"] for c in cells if c["init"] == "lazy"} == {256, 512}


def test_smoke_pipeline_and_the_claims_a_short_run_can_show(tmp_path):
    summary = runner.run(["relu_threshold"], scale="smoke", out=tmp_path, jobs=1)["relu_threshold"]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    # 2000 steps are enough to reach the OLS-like point at n = 256 (a), to keep the lazy
    # control away from it (c) and to align (d); interpolation below the threshold (b) needs
    # the default scale's 40,000 steps, so at smoke scale it is measured but not expected.
    assert {k: verdicts[k] for k in ("a1", "a2", "a3", "c", "d")} == dict.fromkeys(
        ("a1", "a2", "a3", "c", "d"), "reproduced"
    )
    assert verdicts["b"] in {"reproduced", "not reproduced"}


def test_no_claim_is_a_check():
    # every row can be refuted by the runs: (a)-(b) and (d) are the paper's findings measured on
    # training runs, (c) a control whose outcome our code does not fix
    assert [c.id for c in CLAIMS if c.kind == "check"] == []
    assert [c.id for c in CLAIMS] == ["a1", "a2", "a3", "b", "c", "d"]
