import icml25.lrnn_dynamics.reproduce as lr
from icml25.lrnn_dynamics.claims import CLAIMS


def test_cells_cover_every_part():
    config = lr.SCALES["default"]
    parts = [c["part"] for c in lr.cells(config)]
    assert parts.count("reduced") == 4 * config.reduced_seeds  # {random, aligned} x 2 tasks
    assert parts.count("order") == len(config.order_pairs) * config.order_seeds
    assert parts.count("extrapolation") == 2 * config.extrap_seeds
    assert parts.count("ntk") == len(config.ntk_scales) * config.ntk_seeds


def test_claims_keep_the_issue_thresholds():
    by_id = {c.id: c for c in CLAIMS}
    for i in ("a1", "a2", "a_aligned"):  # random start is the claim, aligned a check
        assert (by_id[i].comparison, by_id[i].threshold) == ("<", 0.05)
    assert by_id["b1"].threshold == by_id["b2"].threshold == 1.0
    assert (by_id["c1"].threshold, by_id["c2"].threshold) == (0.1, 3.0)
    assert (by_id["d"].comparison, by_id["d"].threshold) == (">", 1.0)


def test_ramp_has_the_size_of_the_exponential_profile():
    import numpy as np

    config = lr.SCALES["default"]
    np.testing.assert_allclose(
        np.linalg.norm(lr.profiles(config, "ramp"), axis=1),
        np.linalg.norm(lr.profiles(config, "exponential"), axis=1),
    )


def test_smoke_claims_hold(smoke):
    summary = smoke("lrnn_dynamics")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    assert [c["verdict"] for c in summary["claims"]] == [
        "holds" if c.kind == "check" else "reproduced" for c in CLAIMS
    ]
    assert summary["measurements"]["reduced_max_rel_error_discrete"] < 1e-8


def test_which_declarations_are_checks():
    # the aligned start stays on the invariant manifold by construction
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["a_aligned"]
