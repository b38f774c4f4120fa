import numpy as np

import icml25.stop_st.reproduce as rep
from icml25.lab.claims import NOT_MEASURED
from icml25.stop_st.claims import CLAIMS


def test_cells_pair_every_model_with_every_replicate():
    config = rep.SCALES["default"]
    cells = rep.cells(config)
    assert len(cells) == 7 * config.replicates == 42
    assert {c["model"] for c in cells} == {
        "stop",
        "stop_plain",
        "gcn",
        "backbone",
        "stop_plain_mixed_heads",
        "explain_shift",
        "explain_transductive",
    }


def test_every_model_of_a_replicate_sees_the_same_data():
    config = rep.SCALES["smoke"]
    (p1, s1), (p2, s2) = rep._data(config, 0), rep._data(config, 0)
    np.testing.assert_array_equal(p1.base, p2.base)
    np.testing.assert_array_equal(s1.new, s2.new)
    assert not np.array_equal(rep._data(config, 1)[0].base, p1.base)


def test_smoke_run_measures_every_claim(smoke):
    summary = smoke("stop_st")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    assert all(c["verdict"] != NOT_MEASURED for c in summary["claims"])
    m = summary["measurements"]
    # the models learned something: better than repeating the last observed value
    assert m["mae_id_test_stop"] < m["mae_id_test_last_value"]
    paths = {f["path"] for f in summary["figures"]}
    assert {"figures/error_by_horizon.png", "figures/forecasts_vs_truth.png"} <= paths


def test_which_declarations_are_checks():
    # the shift's size is a property of our generator; (a), (b), (c) can fail
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["shift_is_real"]
