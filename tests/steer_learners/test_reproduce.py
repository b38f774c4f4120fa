import numpy as np

import icml25.steer_learners.reproduce as sl
from icml25.lab import runner
from icml25.steer_learners.claims import CLAIMS


def test_cells_cover_every_part():
    config = sl.SCALES["default"]
    cells = sl.cells(config)
    assert [c["rho"] for c in cells if c["part"] == "path"] == list(config.rhos)
    steer = [c for c in cells if c["part"] == "steer"]
    assert len(steer) == len(sl.GAMES) * 2 * config.steer_seeds
    assert all(cfg.n_epochs >= 6 for cfg in sl.SCALES.values())  # >= 5 epoch-to-epoch ratios


def test_claims_keep_the_issue_thresholds():
    by_id = {c.id: c for c in CLAIMS}
    assert (by_id["a1"].comparison, by_id["a1"].threshold) == ("<=", 0.3)
    assert (by_id["a2"].comparison, by_id["a2"].threshold) == ("<=", 0.3)
    for p in ("b", "c"):
        assert (by_id[f"{p}1"].comparison, by_id[f"{p}1"].threshold) == ("<=", 0.7)
        assert (by_id[f"{p}2"].comparison, by_id[f"{p}2"].threshold) == ("<=", 0.7)


def test_which_rows_are_checks():
    # constant steps with persistent noise sit at their stationary floor from the first epoch
    # on, by the schedule's construction: (b3), (c3) check the baseline, the rest is the paper's
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["b3", "c3"]
    claims = ["a1", "a2", "b1", "b2", "b4", "c1", "c2", "c4"]
    assert [c.id for c in CLAIMS if c.kind == "claim"] == claims


def test_schedules_share_rounds_and_start():
    config = sl.SCALES["default"]
    game, _, _ = sl.rideshare_problem(config)
    geo, const = (sl.schedule(config, game, k) for k in ("geometric", "constant"))
    np.testing.assert_array_equal(geo[2], const[2])
    assert geo[0][0] == const[0][-1] and geo[0][-1] == geo[0][0] / 2 ** (config.n_epochs - 1)
    assert game.mu * geo[0][0] * geo[2][0] >= config.contraction


def test_smoke_claims_hold(tmp_path):
    summary = runner.run(["steer_learners"], scale="smoke", out=tmp_path, jobs=1)["steer_learners"]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    expected = ["holds" if c.kind == "check" else "reproduced" for c in CLAIMS]
    assert [c["verdict"] for c in summary["claims"]] == expected
    assert summary["measurements"]["path_max_rel_error_vs_closed_form"] < 0.1
    assert summary["measurements"]["path_bound_holds_fraction"] == 1.0
