import numpy as np

import icml25.relu_threshold.reproduce as rt
from icml25.relu_threshold.claims import CLAIMS


def test_cells_cover_sizes_and_controls():
    config = rt.SCALES["default"]
    cells = rt.cells(config)
    assert {c["n"] for c in cells if c["init"] == "small"} == set(config.ns)
    assert {c["n"] for c in cells if c["init"] == "lazy"} == {256}
    assert {c["n"] for c in cells if c["init"] == "tiny"} == {256}
    # the step-size cell is in the smoke and paper scales; the default's budget left it out
    paper = rt.SCALES["paper"]
    assert {c["n"] for c in rt.cells(paper) if c["init"] == "stepsize"} == {256}
    assert {c["n"] for c in rt.cells(rt.SCALES["smoke"]) if c["init"] == "stepsize"} == {256}


def test_escape_time_counts_only_a_departure_after_sitting_at_ols():
    time = np.arange(6.0)
    loss_over_ols = np.array(
        [
            [5.0, 5.0, 5.0],
            [0.5, 1.0, 3.0],  # seed 0 dips below OLS before reaching it: not an escape
            [1.0, 1.0, 2.0],
            [1.0, 0.99, 1.5],  # seed 1 leaves OLS at time 3
            [0.9, 0.98, 1.2],  # seed 0 leaves at time 4
            [0.9, 0.98, 1.1],  # seed 2 never reaches OLS
        ]
    )
    np.testing.assert_array_equal(rt._escape_time(loss_over_ols, time), [4.0, 3.0, np.inf])


def test_smoke_pipeline_and_the_claims_a_short_run_can_show(smoke):
    summary = smoke("relu_threshold")[0]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    # 2000 steps are enough to reach the OLS-like point at n = 256 (a1-a3), to keep the lazy
    # control away from it (c) and to align (d); fitting the noise below the threshold (b) needs
    # the default scale's 40,000 steps, so at smoke scale it is measured but not expected.
    assert {k: verdicts[k] for k in ("a1", "a2", "a3", "d")} == dict.fromkeys(
        ("a1", "a2", "a3", "d"), "reproduced"
    )
    # no lazy run of the three matches OLS, but the Wilson interval of 0 / 3 reaches 0.56
    assert summary["measurements"]["lazy_match_fraction"] == 0.0
    assert verdicts["c"] == "inconclusive"
    assert verdicts["b"] in {"reproduced", "not reproduced", "inconclusive"}
    # before any escape both step sizes sit at the same OLS-like point
    gap = summary["measurements"]["max_prediction_gap_over_rate[stepsize,n=256]"]
    assert gap < 1e-6


def test_no_claim_is_a_check():
    # every row can be refuted by the runs: (a)-(b) and (d) are the paper's findings measured on
    # training runs, (c) a control whose outcome our code does not fix
    assert [c.id for c in CLAIMS if c.kind == "check"] == []
    assert [c.id for c in CLAIMS if c.kind == "claim"] == ["a1", "a2", "a3", "b", "c", "d"]
