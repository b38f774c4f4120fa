import icml25.rf_ensembles.reproduce as rf
from icml25.lab.claims import NOT_MEASURED
from icml25.rf_ensembles.claims import CLAIMS


def test_cells_cover_every_part():
    config = rf.SCALES["default"]
    parts = [c["part"] for c in rf.cells(config)]
    assert parts.count("mean_var") == len(config.a_widths) * config.a_chunks
    assert parts.count("budget") == 2 * len(config.b_members) * config.b_chunks
    assert parts.count("width") == len(config.c_widths) >= 4
    assert all(w > config.b_n_train for w in config.c_widths)
    assert parts.count("variance") == config.d_datasets


def test_smoke_claims_hold(smoke):
    summary = smoke("rf_ensembles")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    # (d) is measured but, as at default scale, not reproduced: ReLU members' variance is
    # heavy-tailed in 1-D (see the README); the theorems (a1, a2, b) and (c) hold.
    assert {k: verdicts[k] for k in ("a1", "a2", "b", "c")} == dict.fromkeys(
        ("a1", "a2", "b", "c"), "reproduced"
    )
    assert verdicts["d"] != NOT_MEASURED
    assert summary["measurements"]["b_min_gap_over_se"] > 3  # the gap itself is detected


def test_which_declarations_are_checks():
    # a1, a2, b are theorems tested by Monte Carlo; c, d are measured in ReLU mode
    assert [c.id for c in CLAIMS if c.kind == "check"] == []
