import icml25.gpt_causal.reproduce as gc
import icml25.gpt_causal.summary as gs
from icml25.gpt_causal.claims import CLAIMS
from icml25.lab import runner
from icml25.lab.claims import NOT_MEASURED


def test_smoke_run_measures_every_claim(tmp_path):
    summary = runner.run(["gpt_causal"], scale="smoke", out=tmp_path, jobs=1)["gpt_causal"]
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
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["train_plateau"]
    assert gc.cells(gc.SCALES["default"]) == [{"run": "main"}]
