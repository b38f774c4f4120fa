import icml25.mdm_order.reproduce as mr
from icml25.lab import runner
from icml25.mdm_order.claims import CLAIMS


def test_claims_keep_the_issue_thresholds():
    by_id = {c.id: (c.metric, c.comparison, c.threshold) for c in CLAIMS}
    assert by_id["a"] == ("acc_top_margin", ">=", 0.60)
    assert by_id["b"] == ("acc_vanilla", "<=", 0.20)
    assert by_id["c"] == ("adaptive_over_vanilla", ">=", 3.0)
    assert by_id["d"] == ("margin_minus_prob", ">=", -0.05)
    assert by_id["e"] == ("loss_ratio_vanilla_over_margin", ">=", 1.5)


def test_default_evaluates_at_least_500_puzzles_and_trains():
    default = mr.SCALES["default"]
    assert default.n_test >= 500 and default.model == "trained"
    assert mr.SCALES["paper"].mdm().d_model == 384 and not mr.SCALES["paper"].peer_attention


def test_smoke_analytic_model_solves_singles_and_vanilla_does_not(tmp_path):
    summary = runner.run(["mdm_order"], scale="smoke", out=tmp_path, jobs=1)["mdm_order"]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    m = summary["measurements"]
    assert m["acc_top_prob"] >= 0.95 and m["acc_top_margin"] >= 0.95
    assert m["acc_vanilla"] <= 0.2
    assert [c["verdict"] for c in summary["claims"]] == [
        "holds" if c.kind == "check" else "reproduced" for c in CLAIMS
    ]


def test_which_declarations_are_checks():
    # every declaration is measured on a trained model and could fail
    assert [c.id for c in CLAIMS if c.kind == "check"] == []
