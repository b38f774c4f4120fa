import numpy as np

import icml25.supercollapse.reproduce as sc
from icml25.lab.claims import NOT_MEASURED
from icml25.supercollapse import parameter_count
from icml25.supercollapse.claims import CLAIMS


def test_claims_keep_the_issue_thresholds():
    by_id = {c.id: c for c in CLAIMS}
    assert (by_id["a"].comparison, by_id["a"].threshold) == ("<", 1.0)
    assert (by_id["b"].comparison, by_id["b"].threshold) == (">", 1.0)
    assert by_id["c1"].threshold == by_id["c2"].threshold == 2.0
    assert (by_id["d"].comparison, by_id["d"].threshold) == ("<=", 1e-9)


def test_cells_and_horizons():
    config = sc.SCALES["default"]
    parts = [c["part"] for c in sc.cells(config)]
    assert parts.count("frontier") == len(config.frontier_widths) == 5
    assert parts.count("collapse") == parts.count("broken") == len(config.widths) == 4
    # every trained width is inside the frontier, so its horizon is the fit's, not extrapolated
    assert set(config.widths) < set(config.frontier_widths) and config.seeds == 5
    opt, broken = sc.horizons(config, config.gamma), sc.horizons(config, 1.2 * config.gamma)
    p = np.array([parameter_count(w, config.depth) for w in config.widths])
    steps = np.array([opt[w] for w in config.widths])
    w0 = config.widths[0]
    assert opt[w0] == broken[w0] == config.ref_steps
    np.testing.assert_allclose(steps, config.ref_steps * (p / p[0]) ** config.gamma, atol=0.5)
    assert all(broken[w] > opt[w] for w in config.widths[1:])


def test_frontier_cell_gives_constant_rate_curves():
    config = sc.SCALES["smoke"]
    out = sc.run_cell(config, {"part": "frontier", "width": 16}, seed=3)
    steps, compute = np.array(out["steps"]), np.array(out["compute"])
    assert steps[0] >= 1 and steps[-1] == config.frontier_steps
    np.testing.assert_allclose(compute, 6.0 * out["params"] * config.batch * steps)
    assert out["loss"][-1] < out["loss"][0]


def test_smoke_run_measures_every_claim(smoke):
    summary = smoke("supercollapse")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    assert NOT_MEASURED not in verdicts.values()
    assert verdicts["d"] == "holds"
    m = summary["measurements"]
    assert m["power_law_max_spread_over_sizes"] < 1e-9
    assert np.isfinite(m["frontier_gamma"]) and m["frontier_ref_steps"] > 0
    assert all(m[f"{v}_L0"] >= 0 for v in ("decay", "constant", "no_mup", "broken"))


def test_which_declarations_are_checks():
    # (d): the power-law collapse is a closed form checked against itself; (e): the horizons
    # trained equal our own frontier's fit, a consistency of the pipeline
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["d", "e"]
