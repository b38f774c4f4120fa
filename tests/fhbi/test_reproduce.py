import numpy as np

import icml25.fhbi.reproduce as fh
import icml25.fhbi.summary as fs
from icml25.fhbi.claims import CLAIMS
from icml25.lab.claims import DIAGNOSTIC, NOT_MEASURED


def test_cells_cover_every_method_and_the_rho_grid():
    config = fh.SCALES["default"]
    cells = fh.cells(config)
    test = [c for c in cells if c["part"] == "test"]
    per_seed = 1 + len(config.rho_grid) + 3
    assert len(test) == len(config.datasets) * config.seeds * per_seed
    assert {c["method"] for c in test} == set(fs.METHODS)
    assert {c["rho"] for c in test if c["method"] == "svgd"} == {0.0}
    val = [c for c in cells if c["part"] == "val"]
    assert len(val) == len(config.datasets) * config.val_seeds * len(config.rho_grid)


def test_smoke_run_measures_every_claim(smoke):
    summary = smoke("fhbi")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    assert verdicts["a1"] == verdicts["a2"] == "holds"
    assert all(v != NOT_MEASURED for v in verdicts.values())
    m = summary["measurements"]
    assert 0 < m["a_step_max_abs_move"]  # the checks compare a step that moves the particles
    smoke_config = fh.SCALES["smoke"]
    for d in smoke_config.datasets:
        assert m[f"rho_chosen_{d}"] in smoke_config.rho_grid
        for s in range(smoke_config.seeds):  # one paired replicate per (dataset, seed)
            assert -1 <= m[f"b2_acc_gap[dataset={d},seed={s}]"] <= 1
            assert np.isfinite(m[f"d_log_grad_diversity_ratio[dataset={d},seed={s}]"])
        for method in ("svgd", "fhbi", "ensemble", "ensemble_sam"):
            assert m[f"grad_diversity_{method}_{d}"] >= 1 / smoke_config.particles


def test_which_declarations_are_checks_and_diagnostics():
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["a1", "a2"]
    assert [c.id for c in CLAIMS if c.kind == DIAGNOSTIC] == ["why_d_predictions"]
    judged = {c.id: c for c in CLAIMS}
    for cid in ("b2", "d"):  # FHBI no worse than SVGD, judged on the worst dataset
        assert (judged[cid].comparison, judged[cid].threshold) == (">=", 0.0)
        assert judged[cid].across == "min" and "{group}" in judged[cid].replicates
