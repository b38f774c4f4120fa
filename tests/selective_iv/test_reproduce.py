import numpy as np

import icml25.selective_iv.reproduce as rep
import icml25.selective_iv.summary as reduce
from icml25.selective_iv.claims import CLAIMS


def test_cells_cover_the_papers_grid():
    config = rep.SCALES["default"]
    cells = rep.cells(config)
    assert len(cells) == 2 * 16 * config.seeds
    assert {(c["strength_y"], c["strength_d"]) for c in cells} == {
        (a, b) for a in (0.3, 0.5, 0.7, 0.9) for b in (0.3, 0.5, 0.7, 0.9)
    }
    assert {c["setting"] for c in cells} == {"nucem", "uc"}
    assert config.nuisance == "classifier" and set(config.strong_y) <= set(config.strengths_y)
    paper = rep.SCALES["paper"]
    assert len(rep.cells(paper)) == 2 * 16 * 100
    assert (paper.nuisance, paper.nuisance_iter, paper.n) == ("classifier", 500, 10000)


def test_claims_keep_the_issue_thresholds():
    by_id = {c.id: c for c in CLAIMS}
    assert (by_id["a_point"].comparison, by_id["a_point"].threshold) == (">=", 0.02)
    assert (by_id["a_partial"].comparison, by_id["a_partial"].threshold) == (">=", 0.02)
    assert (by_id["b"].comparison, by_id["b"].threshold) == (">=", 0.0)
    assert (by_id["c"].comparison, by_id["c"].threshold) == ("<=", 0.01)


def test_no_claim_is_a_check():
    # every row compares learners trained on simulated data; (c), the oracle bound, is a sanity
    # bound but not one the code guarantees (UCL's surrogate differs from the oracle's loss)
    assert [c.id for c in CLAIMS if c.kind == "check"] == []
    assert [c.id for c in CLAIMS] == ["a_point", "a_partial", "b", "c"]
    by_id = {c.id: c for c in CLAIMS}  # (a) is judged where selection bias is strong
    assert by_id["a_point"].metric == "nucem_strong_point_minus_selected"
    assert by_id["a_partial"].metric == "nucem_strong_partial_minus_selected"


def test_summary_means_and_gaps_by_hand():
    config = rep.Config(strengths_y=(0.5, 0.9), strengths_d=(0.5,), seeds=2)
    rows = {"selected": 0.5, "ipw": 0.5, "full": 0.7, "point": 0.6, "partial": 0.65}
    results = []
    for s, shift in (("nucem", 0.0), ("uc", 0.1)):
        for sy in (0.5, 0.9):
            for r in range(2):
                cell = {"setting": s, "strength_y": sy, "strength_d": 0.5, "replicate": r}
                out = {k: v + shift * (k == "point") + 0.01 * r for k, v in rows.items()}
                if sy == 0.9:  # outside the strong-bias rows: point UCL no better than selected
                    out["point"] = out["selected"]
                extra = {"labelled_fraction": 0.5, "weak_share_true": 0.9}
                results.append((cell, out | extra | {"weak_share_estimated": 0.5 + 0.1 * r}))
    m = reduce.summarize(config, results).measurements
    np.testing.assert_allclose(m["nucem_strong_point_minus_selected"], 0.1)
    np.testing.assert_allclose(m["nucem_strong_partial_minus_selected"], 0.15)
    np.testing.assert_allclose(m["nucem_strong_oracle_margin"], 0.2)
    np.testing.assert_allclose(m["nucem_strong_datasets"], 2)
    np.testing.assert_allclose(m["nucem_weak_share_estimated"], 0.55)
    np.testing.assert_allclose(m["replications_per_grid_point"], 2)
    np.testing.assert_allclose(m["nucem_point_minus_selected"], 0.05)
    np.testing.assert_allclose(m["nucem_partial_minus_selected"], 0.15)
    np.testing.assert_allclose(m["uc_partial_minus_point"], (-0.05 + 0.15) / 2)
    np.testing.assert_allclose(m["ucl_minus_oracle_max"], -0.05)
    np.testing.assert_allclose(m["nucem_strong_se_point_minus_selected"], 0.0)


def test_smoke_run_is_complete(smoke):
    summary = smoke("selective_iv")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    m = summary["measurements"]
    for s in ("nucem", "uc"):
        for k in reduce.METHODS:
            assert 1 / 3 < m[f"{s}_acc_{k}"] <= 1.0  # every method beats chance on 3 classes
    assert all(np.isfinite(c["measured"]) for c in summary["claims"])
