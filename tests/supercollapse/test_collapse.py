"""Normalized curves, Delta, sigma, the L0 fit, the frontier and the power-law collapse."""

import numpy as np
import pytest

from icml25.supercollapse import (
    collapse_deviation,
    compute_frontier,
    fit_compute_optimal,
    fit_frontier_exponent,
    fit_irreducible_loss,
    noise_floor,
    normalized_curves,
    optimal_horizon,
    power_law_collapse,
    power_law_loss,
    power_law_optimal_horizon,
)


@pytest.mark.parametrize(("mu", "nu"), [(0.3, 0.5), (0.5, 0.3), (1.0, 1.0), (0.2, 0.7)])
def test_power_law_curves_collapse_exactly_at_the_optimal_horizon(mu, nu):
    """Issue claim (d): l(x) = (r x^-mu + 1)/(r + 1), r = nu/mu, for every p, to 1e-9."""
    p = np.geomspace(1e2, 1e5, 6)[:, None]  # (P, 1)
    x = np.linspace(0.02, 1.0, 50)[None, :]  # (1, X)
    L = power_law_loss(x * power_law_optimal_horizon(p, mu, nu), p, mu, nu, L0=0.5)
    ell = normalized_curves(L, 0.5)  # (P, X)
    np.testing.assert_allclose(
        ell, np.broadcast_to(power_law_collapse(x, mu, nu), ell.shape), atol=1e-9
    )
    assert collapse_deviation(ell[:, None, :].repeat(2, axis=1)).max() < 1e-9


def test_power_law_optimal_horizon_minimises_loss_at_fixed_compute():
    mu, nu, c = 0.4, 0.6, 1e9
    p = np.geomspace(10, 1e6, 200_001)  # fine grid of sizes at compute c = 6 p t
    L = power_law_loss(c / (6 * p), p, mu, nu)
    p_best = p[np.argmin(L)]
    t_star = power_law_optimal_horizon(p_best, mu, nu)
    assert 6 * p_best * t_star == pytest.approx(c, rel=2e-4)


def test_off_optimal_horizon_breaks_the_collapse():
    mu, nu = 0.5, 0.3
    p = np.geomspace(1e2, 1e5, 6)[:, None]
    x = np.linspace(0.1, 1.0, 10)[None, :]
    t = 3.0 * (p / 1e2) ** (1.2 * nu / mu)  # exponent 1.2x the optimal one
    ell = normalized_curves(power_law_loss(x * t, p, mu, nu), 0.0)
    assert np.ptp(ell, axis=0)[0] > 0.1


def test_normalized_curves_end_at_one_and_ignore_scale():
    rng = np.random.default_rng(0)
    L = 0.3 + rng.uniform(0.1, 1.0, size=(3, 4, 7))
    ell = normalized_curves(L, 0.3)
    np.testing.assert_allclose(ell[..., -1], 1.0)
    np.testing.assert_allclose(normalized_curves(0.3 + 5 * (L - 0.3), 0.3), ell)


def test_delta_and_sigma_on_a_small_exact_case():
    # two sizes, two seeds, two points; L0 = 0
    L = np.array([[[2.0, 1.0], [4.0, 1.0]], [[3.0, 1.0], [3.0, 1.0]]])  # (P, W, X)
    ell = normalized_curves(L, 0.0)
    delta = collapse_deviation(ell)
    np.testing.assert_allclose(delta, [np.std([2, 4, 3, 3], ddof=1) / 3.0, 0.0], atol=1e-15)
    sigma = noise_floor(L, 0.0)
    np.testing.assert_allclose(sigma[:, 0], [np.std([2, 4], ddof=1) / 3.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(sigma[:, 1], 0.0, atol=1e-15)


def test_identical_shapes_give_zero_deviation():
    base = np.linspace(3.0, 1.0, 9)
    scales = np.array([1.0, 2.0, 5.0])[:, None, None]
    L = 0.1 + scales * (base - 0.1)[None, None, :].repeat(2, axis=1)
    assert collapse_deviation(normalized_curves(L, 0.1)).max() < 1e-14


def test_fit_irreducible_loss_recovers_an_exact_power_law():
    c = np.geomspace(1e8, 1e12, 6)
    fit = fit_irreducible_loss(c, 0.2 + 3.0 * c**-0.1)
    assert fit["L0"] == pytest.approx(0.2, rel=1e-4)
    assert fit["a"] == pytest.approx(3.0, rel=1e-3)
    assert fit["b"] == pytest.approx(0.1, rel=1e-3)
    assert fit["r2"] > 0.999999


def test_frontier_of_power_law_curves_gives_the_horizon_exponent():
    mu, nu = 0.5, 0.35
    sizes = np.geomspace(1e3, 1e6, 40)
    t = np.geomspace(1.0, 1e9, 400)
    compute = [6 * p * t for p in sizes]
    loss = [power_law_loss(t, p, mu, nu) for p in sizes]
    c, L_min, best = compute_frontier(compute, loss, n_points=400)
    assert np.all(np.diff(L_min) <= 1e-12)  # the frontier only goes down
    inner = (best > 0) & (best < len(sizes) - 1)  # interior winners
    _, gamma = fit_frontier_exponent(sizes[best[inner]], c[inner])
    assert gamma == pytest.approx(nu / mu, rel=0.05)


@pytest.mark.parametrize(("mu", "nu"), [(0.5, 0.35), (0.4, 0.6)])
def test_fit_compute_optimal_recovers_the_horizon_law_from_few_sizes(mu, nu):
    """Five sizes, as the reproduction: the interior frontier gives gamma = nu/mu and the
    horizons t* = kappa p^gamma / 6 of the exact optimum (power_law_optimal_horizon)."""
    sizes = np.geomspace(1e3, 1e5, 5)
    t = np.geomspace(1.0, 1e12, 2000)
    fit = fit_compute_optimal(
        sizes, [6 * p * t for p in sizes], [power_law_loss(t, p, mu, nu) for p in sizes]
    )
    assert fit["interior"]
    assert set(np.unique(fit["p_opt"])) == set(sizes)
    assert fit["gamma"] == pytest.approx(nu / mu, rel=0.05)
    # the fitted horizons sit between the optimum of each size and its neighbours'
    t_fit = fit["kappa"] * sizes ** fit["gamma"] / 6
    ratio = t_fit / power_law_optimal_horizon(sizes, mu, nu)
    assert np.all((ratio > 0.5) & (ratio < 2.0))


def test_fit_compute_optimal_uses_every_point_without_interior_winners():
    t = np.geomspace(1.0, 1e6, 200)
    fit = fit_compute_optimal(
        [1e3, 1e4], [6e3 * t, 6e4 * t], [t**-0.5 + 1e3**-0.5, t**-0.5 + 1e4**-0.5]
    )
    assert not fit["interior"]
    with pytest.raises(ValueError, match="params"):
        fit_compute_optimal([1e3], [t], [t])


def test_optimal_horizon_anchor_and_exponent():
    t = optimal_horizon([100, 200, 400], 1.5, 100, 10)
    np.testing.assert_allclose(t, [10, 10 * 2**1.5, 10 * 4**1.5])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: normalized_curves(np.ones((2, 2)), 2.0), "L0"),
        (lambda: normalized_curves(np.ones(1), 0.0), "loss"),
        (lambda: normalized_curves(np.ones((2, 2)), np.nan), "L0"),
        (lambda: collapse_deviation(np.ones((2, 3))), "l must"),
        (lambda: collapse_deviation(np.ones((2, 1, 3))), "W >= 2"),
        (lambda: noise_floor(np.ones((2, 3)), 0.0), "loss must"),
        (lambda: fit_irreducible_loss([1, 2], [1, 2]), "length >= 3"),
        (lambda: fit_irreducible_loss([1, 2, -3], [1, 2, 3]), "positive"),
        (lambda: fit_irreducible_loss([1, 2, 3], [1, 2, 3], starts=0), "starts"),
        (lambda: compute_frontier([], []), "non-empty"),
        (lambda: fit_frontier_exponent([1, 1], [2, 3]), "distinct"),
        (lambda: optimal_horizon([1, 2], "a", 1, 1), "gamma"),
        (lambda: optimal_horizon([1, 2], 1.0, 0, 1), "ref_params"),
        (lambda: optimal_horizon([1, -2], 1.0, 1, 1), "params"),
        (lambda: power_law_collapse([0.5], 0.0, 1.0), "mu"),
        (lambda: power_law_collapse([0.0], 1.0, 1.0), "x must"),
        (lambda: power_law_optimal_horizon([1], 1.0, -1.0), "nu"),
    ],
)
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()
