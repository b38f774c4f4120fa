import icml25.w2s_intrinsic.reproduce as w2s
from icml25.lab import runner
from icml25.w2s_intrinsic.claims import CLAIMS


def test_cells_cover_the_grid_and_the_figure_only_n():
    config = w2s.SCALES["default"]
    cells = w2s.cells(config)
    ns = len(config.n_values) + len(config.extra_n_values)
    assert len(cells) == len(config.d_sw_values) * ns
    assert {c["d_sw"] for c in cells} == {0, 5, 10, 20}
    assert {100, 200, 400} <= {c["n"] for c in cells}
    assert config.N_values[0] == 100 and config.N_values[-1] == 4000


def test_claims_keep_the_issue_thresholds():
    by_id = {c.id: c for c in CLAIMS}
    assert [c.id for c in CLAIMS] == ["a1", "a2", "a3", "a4", "a5", "b1", "b2", "c"]
    assert all(by_id[f"a{i}"].threshold == 1.0 for i in range(1, 6))
    assert (w2s.SE_TOLERANCE, w2s.REL_TOLERANCE) == (3.0, 0.05)


def test_which_rows_are_checks():
    # ER_w and ER_c are plain OLS risks on true labels: their closed forms hold whatever the
    # paper says about weak-to-strong training, so matching them checks the simulator
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["a1", "a3"]
    assert [c.id for c in CLAIMS if c.kind == "claim"] == ["a2", "a4", "a5", "b1", "b2", "c"]


def test_smoke_claims_hold(tmp_path):
    summary = runner.run(["w2s_intrinsic"], scale="smoke", out=tmp_path, jobs=1)["w2s_intrinsic"]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    expected = ["holds" if c.kind == "check" else "reproduced" for c in CLAIMS]
    assert [c["verdict"] for c in summary["claims"]] == expected
    assert summary["measurements"]["max_rel_error_strong"] < 0.1
