import icml25.mlc_rcn.reproduce as rp
from icml25.mlc_rcn.claims import CLAIMS


def test_cells_cover_every_part():
    config = rp.SCALES["default"]
    parts = [c["part"] for c in rp.cells(config)]
    assert (
        parts.count("binary")
        == 2 * len(config.binary_marginals) * len(config.binary_ns) * config.binary_seeds
    )
    assert parts.count("bayes") == config.bayes_cells
    assert parts.count("multiclass") == 2 * len(config.multi_ns) * config.multi_seeds
    assert config.claim_n in config.binary_ns


def test_claims_keep_the_issue_thresholds():
    by_id = {c.id: c for c in CLAIMS}
    assert (by_id["a"].comparison, by_id["a"].threshold) == ("<=", 0.02)
    assert (by_id["b"].comparison, by_id["b"].threshold) == (">=", 1.0)
    assert rp.SCALES["default"].claim_n == 20_000


def test_smoke_claims_hold(smoke):
    summary = smoke("mlc_rcn")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    assert [c["verdict"] for c in summary["claims"]] == [
        "holds" if c.kind == "check" else "reproduced" for c in CLAIMS
    ]
    m = summary["measurements"]
    assert m["bayes_instances_positive_sigma"] >= 1
    assert m["bayes_closed_form_mismatch_positive_sigma"] == 0.0


def test_which_declarations_are_checks():
    # (b) is algebra: argmax_j H_{f(x), j} = f(x) whenever every H_ii > H_ij
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["b"]
