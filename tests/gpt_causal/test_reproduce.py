import icml25.gpt_causal.reproduce as gc
import icml25.gpt_causal.summary as gs
from icml25.gpt_causal.claims import CLAIMS
from icml25.lab.claims import NOT_MEASURED


def test_smoke_run_measures_every_claim(smoke):
    summary = smoke("gpt_causal")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    assert all(c["verdict"] != NOT_MEASURED for c in summary["claims"])
    m = summary["measurements"]
    assert 0 <= m["a_id_legal_rate"] <= 1 and 0 <= m["ood_legal_rate"] <= 1
    assert m["c_auc_gap"] == m["auc_confidence"] - m["auc_top_probability"]
    names = {f["path"].split("/")[-1] for f in summary["figures"]}
    assert {"legal_rate_by_confidence_quintile.png", "example_structures.png"} <= names


def test_quintiles_and_declarations():
    import numpy as np

    conf = np.arange(10.0)
    legal = np.array([0, 0, 0, 1, 0, 1, 1, 1, 1, 1], dtype=bool)
    assert gs._quintile_rates(conf, legal).tolist() == [0.0, 0.5, 0.5, 1.0, 1.0]
    assert not [c for c in CLAIMS if c.kind == "check"]
    plateau = next(c for c in CLAIMS if c.id == "train_plateau")
    assert plateau.kind == "diagnostic" and plateau.comparison is None and plateau.threshold is None
    assert plateau.metric == "val_loss_rel_change_last_quarter"
    assert gc.cells(gc.SCALES["default"]) == [{"run": "main"}]
