import icml25.wow_flows.reproduce as wow
from icml25.lab.claims import NOT_MEASURED
from icml25.wow_flows.claims import CLAIMS


def test_cells_cover_every_part():
    config = wow.SCALES["default"]
    parts = [c["part"] for c in wow.cells(config)]
    assert parts.count("rings") == 2 + len(config.rings_extra)
    assert parts.count("transfer") == len(config.b_shots) * config.b_seeds
    assert config.b_claim_shots in config.b_shots and config.b_seeds == 5
    assert parts.count("distill") == config.c_seeds == 5


def test_smoke_run_measures_every_claim(smoke):
    summary = smoke("wow_flows")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    for claim in summary["claims"]:
        assert claim["verdict"] != NOT_MEASURED, claim["id"]
    m = summary["measurements"]
    # the shift costs the source classifier accuracy: the gap the flow has to close
    assert m["b_acc_source_on_source"] > m["b_acc_source_on_target"] + 0.1
    assert m["a_riesz_own_rings_distinct"] == 1.0


def test_which_declarations_are_checks_and_diagnostics():
    assert [c.id for c in CLAIMS if c.kind == "check"] == []
    assert [c.id for c in CLAIMS if c.kind == "diagnostic"] == [
        "a_plateau",
        "b_vs_unflowed",
        "why_b_no_more_than_shots",
        "why_b_collapse",
        "c_vs_class_means",
    ]
