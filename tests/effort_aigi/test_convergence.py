"""The convergence rule of the fine-tuning loops: where it stops on synthetic loss sequences
whose window means are computed by hand, the cap, the absolute slack, and that ``fine_tune``
stops exactly where the rule says."""

import math

import numpy as np
import pytest

from icml25.effort_aigi import ConvergenceRule, TinyViT, build_detector, fine_tune


def test_stops_where_the_hand_computed_window_means_say():
    # 1.00, 0.99, ..., 0.51 for 50 steps, then 0.5 for ever; windows of 10, checks every 5
    losses = np.r_[1.0 - 0.01 * np.arange(50), np.full(50, 0.5)]
    rule = ConvergenceRule(window=10, every=5, rtol=0.05, atol=0.0, max_steps=100)
    # t = 60: (0.555 - 0.5) / 0.555 = 0.099 > 0.05; t = 65: (0.515 - 0.5) / 0.515 = 0.029
    assert rule.relative_change(losses[:60]) == pytest.approx(0.055 / 0.555, rel=1e-9)
    assert not rule.met(losses[:60])
    assert rule.relative_change(losses[:65]) == pytest.approx(0.015 / 0.515, rel=1e-9)
    assert rule.met(losses[:65])
    assert rule.stopping_step(losses) == (65, True)
    # checked only every 5 steps: t = 64 already meets the rule ((0.521 - 0.5) / 0.521 = 0.040;
    # t = 63: 0.028 / 0.528 = 0.053), but the loop stops at 65
    assert rule.relative_change(losses[:63]) == pytest.approx(0.028 / 0.528, rel=1e-9)
    assert not rule.met(losses[:63])
    assert rule.met(losses[:64]) and not rule.stop(losses[:64])


def test_a_loss_still_falling_runs_to_the_cap_unconverged():
    losses = 0.99 ** np.arange(200)  # falls 1 - 0.99**10 = 9.6% per 10-step window
    rule = ConvergenceRule(window=10, every=5, rtol=0.05, atol=0.0, max_steps=40)
    assert rule.relative_change(losses[:40]) == pytest.approx(1 - 0.99**10, rel=1e-9)
    assert rule.stopping_step(losses) == (40, False)
    loose = ConvergenceRule(window=10, every=5, rtol=0.1, atol=0.0, max_steps=40)
    assert loose.stopping_step(losses) == (20, True)  # 9.6% <= 10% at the first check


def test_the_absolute_slack_lets_a_loss_near_zero_converge():
    losses = 0.01 * 0.9 ** np.arange(100)  # window means 0.006513 then 0.002271: 65% relative
    strict = ConvergenceRule(window=10, every=5, rtol=0.05, atol=0.0, max_steps=60)
    slack = ConvergenceRule(window=10, every=5, rtol=0.05, atol=0.005, max_steps=60)
    assert strict.stopping_step(losses) == (60, False)
    assert slack.stopping_step(losses) == (20, True)  # 0.00424 <= 0.05 * 0.00651 + 0.005


def test_a_rising_loss_and_short_sequences():
    rule = ConvergenceRule(window=4, every=2, rtol=0.0, atol=0.0, max_steps=20)
    assert rule.stopping_step(np.linspace(0.1, 0.9, 30)) == (8, True)  # rising: no progress
    assert math.isnan(rule.relative_change(np.ones(7)))  # fewer than 2 windows
    assert not rule.met(np.ones(7)) and rule.met(np.ones(8))
    assert rule.stopping_step(np.linspace(1.0, 0.0, 5)) == (5, False)  # ended before a check


def test_bad_rules():
    with pytest.raises(ValueError, match="max_steps"):
        ConvergenceRule(window=10, max_steps=15)
    with pytest.raises(ValueError, match="rtol"):
        ConvergenceRule(rtol=-0.1)
    with pytest.raises(ValueError, match="window"):
        ConvergenceRule(window=0)
    with pytest.raises(ValueError, match="losses"):
        ConvergenceRule().met(np.ones((3, 3)))


def test_fine_tune_stops_where_the_rule_says():
    rng = np.random.default_rng(0)
    real = rng.uniform(-1, 1, (32, 1, 8, 8)).astype(np.float32)
    fake = np.clip(real + 0.5, -1, 1).astype(np.float32)
    backbone = TinyViT(dim=8, depth=1, heads=2, seed=0)
    rule = ConvergenceRule(window=5, every=5, rtol=0.05, atol=0.005, max_steps=60)
    det = build_detector(backbone, "effort", seed=0)
    losses = fine_tune(det, real, fake, lr=1e-2, seed=0, batch=16, rule=rule)
    assert 10 <= len(losses) <= 60
    assert rule.stopping_step(losses) == (len(losses), rule.met(losses))
    fixed = fine_tune(
        build_detector(backbone, "effort", seed=0),
        real,
        fake,
        lr=1e-2,
        seed=0,
        batch=16,
        steps=len(losses),
    )
    np.testing.assert_allclose(fixed, losses, rtol=1e-5, atol=1e-6)  # the same path, fixed budget
    with pytest.raises(ValueError, match="exactly one"):
        fine_tune(det, real, fake, lr=1e-2, seed=0, steps=5, rule=rule)
    with pytest.raises(ValueError, match="exactly one"):
        fine_tune(det, real, fake, lr=1e-2, seed=0)
