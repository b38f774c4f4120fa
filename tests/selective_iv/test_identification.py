"""The identification formulas on exact population moments of small discrete models."""

import numpy as np
import pytest
from scipy.special import softmax

from icml25.selective_iv import (
    clip_upper_quantile,
    first_stage_slope,
    level_first_stage_slope,
    partial_identification_bounds,
    partial_weights,
    point_identified_eta,
    point_weights,
    wald_denominator,
)


def population(additive: bool, seed: int):
    """Exact moments at one covariate value: U in {0..3}, Z in {1, 2, 3} (Z independent of U),
    Y | U categorical (K = 3), D | Z, U Bernoulli, additive alpha(Z) + beta(U) (the paper's
    no-unmeasured-common-effect-modifier case) or a logistic interaction (it fails).
    Returns eta (K,), the Wald moments, and the per-level moments."""
    rng = np.random.default_rng(seed)
    p_u = rng.dirichlet(np.ones(4))  # (4,)
    levels = np.array([1.0, 2.0, 3.0])
    p_z = rng.dirichlet(np.ones(3))  # (3,)
    p_y_u = softmax(3 * rng.standard_normal((4, 3)), axis=1)  # (U, K)
    if additive:
        p_d = 0.5 * rng.random(3)[:, None] + 0.5 * rng.random(4)[None, :]  # (Z, U)
    else:
        p_d = 1 / (1 + np.exp(-(3 * rng.standard_normal((3, 1)) * rng.standard_normal((1, 4)))))
    joint = p_z[:, None, None] * p_u[None, :, None] * p_y_u[None]  # (Z, U, K) P(z, u, y)
    dy = (joint * p_d[:, :, None]).sum(axis=1)  # (Z, K) P(z, D=1, Y=k)
    m = {
        "m_d": np.array([(p_z[:, None] * p_u[None] * p_d).sum()]),
        "m_z": np.array([p_z @ levels]),
        "m_dz": np.array([(levels[:, None] * p_z[:, None] * p_u[None] * p_d).sum()]),
        "m_dy": dy.sum(axis=0)[None],
        "m_dzy": (levels[:, None] * dy).sum(axis=0)[None],
    }
    m_dy_z = (dy / p_z[:, None])[None]  # (1, Z, K) E[D 1{Y=k} | z]
    p_d0_z = (1 - p_d @ p_u)[None]  # (1, Z) P(D=0 | z)
    return p_u @ p_y_u, m, m_dy_z, p_d0_z


@pytest.mark.parametrize("seed", range(5))
def test_wald_ratio_identifies_eta_when_instrument_and_confounder_are_additive(seed):
    eta, m, _, _ = population(additive=True, seed=seed)
    np.testing.assert_allclose(point_identified_eta(**m)[0], eta, atol=1e-12)


def test_wald_ratio_rows_sum_to_one_on_coherent_moments():
    for seed in range(5):
        _, m, _, _ = population(additive=False, seed=seed)
        np.testing.assert_allclose(point_identified_eta(**m).sum(axis=1), 1.0, atol=1e-12)


def test_wald_ratio_is_biased_with_an_interaction():
    errors = []
    for seed in range(5):
        eta, m, _, _ = population(additive=False, seed=seed)
        errors.append(np.abs(point_identified_eta(**m)[0] - eta).max())
    assert max(errors) > 1e-2  # the identification condition matters


@pytest.mark.parametrize("additive", [True, False])
def test_tight_bounds_contain_eta_under_any_confounding(additive):
    for seed in range(10):
        eta, _, m_dy_z, p_d0_z = population(additive, seed)
        lower, upper = partial_identification_bounds(m_dy_z, p_d0_z, quantile=1.0)
        assert np.all(lower[0] <= eta + 1e-12) and np.all(eta <= upper[0] + 1e-12)
        # the intersection over levels is at least as narrow as every single level
        width_z = p_d0_z[0]  # u - l at each level, (Z,)
        assert np.all(upper - lower <= width_z.min() + 1e-12)


def test_bounds_collapse_when_one_decision_maker_labels_everyone():
    m_dy_z = np.array([[[0.2, 0.3, 0.5], [0.1, 0.1, 0.2]]])  # (1, L=2, K=3)
    p_d0_z = np.array([[0.0, 0.6]])  # level 1 labels everyone
    lower, upper = partial_identification_bounds(m_dy_z, p_d0_z, quantile=1.0)
    np.testing.assert_allclose(lower, [[0.2, 0.3, 0.5]])
    np.testing.assert_allclose(upper, [[0.2, 0.3, 0.5]])
    np.testing.assert_allclose(partial_weights(lower, upper), point_weights(lower))


def test_bounds_quantile_and_a_b_by_hand():
    # levels give l = (0.1, 0.2, 0.3, 0.4, 0.5) for one class, P(D=0) = 0.2 everywhere
    m_dy_z = np.array([0.1, 0.2, 0.3, 0.4, 0.5])[None, :, None]  # (1, 5, 1)
    p_d0_z = np.full((1, 5), 0.2)
    lower, upper = partial_identification_bounds(m_dy_z, p_d0_z, a=0.25, b=0.75, quantile=0.8)
    # l_z = m + 0.05, u_z = l_z + 0.1; 0.8-quantile of l = 0.42 + 0.05, 0.2-quantile of u
    np.testing.assert_allclose(lower, [[0.47]])
    np.testing.assert_allclose(upper, [[0.18 + 0.05 + 0.1]])


def test_point_weights_are_the_excess_risk():
    eta = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
    W = point_weights(eta)
    np.testing.assert_allclose(W, [[0.3, 0.0, 0.2], [0.0, 0.5, 0.3]])
    assert np.all(W.min(axis=1) == 0) and np.all(W[np.arange(2), eta.argmax(axis=1)] == 0)


def test_partial_weights_by_hand_and_nonnegative():
    lower = np.array([[0.1, 0.4, 0.2]])
    upper = np.array([[0.3, 0.6, 0.25]])
    np.testing.assert_allclose(partial_weights(lower, upper), [[0.5, 0.2, 0.4]])
    rng = np.random.default_rng(0)
    low = rng.random((50, 4))
    assert np.all(partial_weights(low, low + rng.random((50, 4))) >= 0)


def test_partial_weights_bound_the_point_weights_of_every_eta_in_the_box():
    rng = np.random.default_rng(1)
    lower = 0.3 * rng.random((20, 3))
    upper = lower + 0.3 * rng.random((20, 3))
    W = partial_weights(lower, upper)
    for _ in range(50):
        eta = lower + rng.random((20, 3)) * (upper - lower)
        assert np.all(point_weights(eta) <= W + 1e-12)


def test_clip_upper_quantile_per_column():
    w = np.column_stack([np.arange(11.0), 10 * np.arange(11.0)])
    np.testing.assert_allclose(clip_upper_quantile(w, 0.9).max(axis=0), [9.0, 90.0])
    assert clip_upper_quantile(w, None) is w


def test_zero_instrument_effect_gives_finite_weights():
    m = {
        "m_d": np.array([0.5, 0.0]),
        "m_z": np.array([2.0, 2.0]),
        "m_dz": np.array([1.0, 0.0]),  # Cov(D, Z | x) = 0 at both units
        "m_dy": np.array([[0.2, 0.3], [0.0, 0.0]]),
        "m_dzy": np.array([[0.5, 0.5], [0.0, 0.0]]),
    }
    eta = point_identified_eta(**m)
    assert np.all(np.isfinite(eta)) and np.all(eta[1] == 0)


def test_first_stage_from_wald_moments_equals_the_slope_over_levels():
    # one covariate value, Z uniform on 1..5 independent of U: Cov(D, Z | x) / Var(Z) is the
    # least-squares slope of P(D = 1 | x, z) on z, whatever the shape of P(D = 1 | x, z)
    rng = np.random.default_rng(0)
    levels = np.arange(1.0, 6.0)
    p_d1_z = rng.random((4, 5))  # (n, L) four covariate values
    m_d, m_z = p_d1_z.mean(axis=1), np.full(4, levels.mean())
    m_dz = (p_d1_z * levels).mean(axis=1)
    np.testing.assert_allclose(wald_denominator(m_d, m_z, m_dz), m_dz - m_d * m_z)
    np.testing.assert_allclose(
        first_stage_slope(m_d, m_z, m_dz, levels.var()),
        level_first_stage_slope(p_d1_z, levels),
        atol=1e-12,
    )
    linear = 0.1 + 0.07 * levels[None] + np.zeros((3, 1))  # (3, L) slope 0.07 by hand
    np.testing.assert_allclose(level_first_stage_slope(linear, levels), 0.07)
    np.testing.assert_allclose(level_first_stage_slope(np.full((2, 5), 0.4), levels), 0.0)


def test_bad_arguments():
    m = {k: np.zeros(3) for k in ("m_d", "m_z", "m_dz")} | {
        "m_dy": np.zeros((3, 2)),
        "m_dzy": np.zeros((3, 2)),
    }
    with pytest.raises(ValueError, match="m_d"):
        point_identified_eta(**(m | {"m_d": np.zeros((3, 1))}))
    with pytest.raises(ValueError, match="m_dy"):
        point_identified_eta(**(m | {"m_dy": np.zeros(3)}))
    with pytest.raises(ValueError, match="same n"):
        point_identified_eta(**(m | {"m_z": np.zeros(4)}))
    with pytest.raises(ValueError, match="min_cov"):
        point_identified_eta(**m, min_cov=0.0)
    good = (np.zeros((2, 3, 2)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="m_dy_z"):
        partial_identification_bounds(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="p_d0_z"):
        partial_identification_bounds(good[0], np.zeros((2, 4)))
    with pytest.raises(ValueError, match="a must"):
        partial_identification_bounds(*good, a=-0.1)
    with pytest.raises(ValueError, match="b must"):
        partial_identification_bounds(*good, a=0.5, b=0.4)
    with pytest.raises(ValueError, match="quantile"):
        partial_identification_bounds(*good, quantile=0.3)
    with pytest.raises(ValueError, match="eta"):
        point_weights(np.zeros(3))
    with pytest.raises(ValueError, match="same shape"):
        partial_weights(np.zeros((2, 3)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="quantile"):
        clip_upper_quantile(np.zeros((2, 2)), 1.5)
    with pytest.raises(ValueError, match="same shape"):
        wald_denominator(np.zeros(3), np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="var_z"):
        first_stage_slope(np.zeros(3), np.zeros(3), np.zeros(3), 0.0)
    with pytest.raises(ValueError, match="levels"):
        level_first_stage_slope(np.zeros((2, 3)), np.arange(4.0))
