"""The reproduction's grid, its data, and the smoke run (checks hold, claims measured)."""

import numpy as np

import icml25.effort_aigi.reproduce as ea
from icml25.effort_aigi import GENERATORS, digits, quantise
from icml25.effort_aigi.claims import CLAIMS
from icml25.lab.claims import NOT_MEASURED


def test_cells_and_claims():
    config = ea.SCALES["default"]
    probe = {"seed": 0, "ft_lr": config.probe_lr}
    assert ea.cells(config) == [{"seed": s} for s in range(3)] + [probe]
    assert config.probe_lr == 1e-2 and config.ft_lr == 1e-3
    assert set(config.train_generators) == set(GENERATORS) and len(GENERATORS) >= 3
    kinds = {c.id: c.kind for c in CLAIMS}
    assert {i: k for i, k in kinds.items() if k != "diagnostic"} == {
        "a": "claim",
        "b": "claim",
        "c1": "check",
        "c2": "check",
    }
    assert {"why_conv_rel_change", "why_b_pca90", "why_lr_collapse"} <= set(kinds)
    rule = config.rule
    assert (rule.window, rule.every, rule.rtol, rule.atol, rule.max_steps) == (
        200,
        50,
        0.02,
        0.002,
        2000,
    )


def test_digits_and_quantisation():
    x, y = digits()
    assert x.shape == (1797, 1, 8, 8) and x.min() == -1 and x.max() == 1
    levels = np.unique(x)
    assert len(levels) == 17
    q = quantise(np.random.default_rng(0).uniform(-1.3, 1.3, (50, 1, 8, 8)))
    assert set(np.unique(q)) <= set(levels.tolist())  # fakes live on the reals' grey levels
    np.testing.assert_array_equal(quantise(x), x)


def test_smoke_run_measures_every_claim_and_the_checks_hold(smoke):
    summary = smoke("effort_aigi")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    assert verdicts["c1"] == verdicts["c2"] == "holds"
    assert NOT_MEASURED not in verdicts.values()
    m = summary["measurements"]
    config = ea.SCALES["smoke"]
    layers = 4 * config.depth  # q, k, v, proj per block
    # Effort's rank-1 residual has one number per layer more than rank-1 LoRA
    assert m["trainable_effort"] - m["trainable_lora"] == layers
    assert m["trainable_full"] > 10 * m["trainable_effort"]
    for method in ("full", "lora", "effort"):
        assert 0 <= m[f"unseen_auc_mean_{method}"] <= 1
        assert 0 <= m[f"lr_probe_unseen_auc_mean_{method}"] <= 1
    # every run records its steps (within the rule's cap) and whether the rule was met
    steps = [v for k, v in m.items() if k.startswith("ft_steps[")]
    met = [v for k, v in m.items() if k.startswith("ft_converged[")]
    assert len(steps) == len(met) == 9 * config.seeds
    assert all(2 * config.ft_window <= s <= config.ft_max_steps for s in steps)
    assert set(met) <= {0.0, 1.0} and m["conv_share_met"] == np.mean(met)
    assert np.isfinite(m["conv_worst_rel_change_adapters"])
    # the entropy rank reads the whole spectrum: at most the feature dimension, at least 1
    for method in ("full", "lora", "effort"):
        assert 1 <= m[f"entropy_erank_mean_{method}"] <= config.dim
