"""The closed forms against independent computations at small size."""

import numpy as np
import pytest
from scipy import integrate, stats
from sklearn.kernel_ridge import KernelRidge

from icml25.rf_ensembles import (
    arccos_kernel,
    budget_gap,
    closed_form_mean,
    closed_form_variance,
    ensemble_and_single,
    ensemble_excess,
    kernel_predictor,
    r_perp_squared,
    relu_features,
    rf_ensemble,
    rkhs_norm_squared,
    sample_relu_weights,
)


def small_data(n=4, d=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, d))
    return X, np.sin(X.sum(1)) + 0.1 * rng.standard_normal(n), rng.uniform(-3, 3, (3, d))


def test_arccos_kernel_matches_a_monte_carlo_of_relu_features():
    X, _, Z = small_data(n=5, d=2)
    W = sample_relu_weights(1, 400_000, 2, np.random.default_rng(1))
    Fx, Fz = relu_features(X, W)[0], relu_features(Z, W)[0]  # (5, D), (3, D): 1/sqrt(D) each
    np.testing.assert_allclose(Fx @ Fz.T, arccos_kernel(X, Z), rtol=0.02, atol=0.01)


def test_arccos_kernel_matches_a_quadrature_in_one_dimension():
    # x~ = (x, 1) in 2-D: E over w ~ N(0, I_2) of relu(w.a) relu(w.b) by polar quadrature
    a, b = np.array([1.3, 1.0]), np.array([-0.4, 1.0])

    def integrand(r, t):
        w = r * np.array([np.cos(t), np.sin(t)])
        return max(w @ a, 0) * max(w @ b, 0) * np.exp(-r * r / 2) / (2 * np.pi) * r

    value, _ = integrate.dblquad(integrand, 0, 2 * np.pi, 0, 12)
    assert arccos_kernel([[1.3]], [[-0.4]])[0, 0] == pytest.approx(value, rel=1e-6)
    # diagonal: E[relu(g)^2] |x~|^2 = |x~|^2 / 2
    assert arccos_kernel([[2.0]])[0, 0] == pytest.approx((4 + 1) / 2)


def test_kernel_predictor_against_sklearn_and_explicit_inverse():
    X, y, Xt = small_data(n=6, d=2)
    K, kx = arccos_kernel(X), arccos_kernel(Xt, X)
    np.testing.assert_allclose(kernel_predictor(X, y, Xt), kx @ np.linalg.inv(K) @ y, atol=1e-9)
    kr = KernelRidge(alpha=0.3, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(kernel_predictor(X, y, Xt, ridge=0.3), kr.predict(kx), atol=1e-10)
    # interpolation: h_inf = y on the training inputs, r_perp^2 = 0 there
    np.testing.assert_allclose(kernel_predictor(X, y, X), y, atol=1e-8)
    np.testing.assert_allclose(r_perp_squared(X, X), 0, atol=1e-8)


def test_r_perp_is_the_conditional_variance_of_a_gaussian_process():
    X, _, Xt = small_data(n=4, d=1)
    P = np.concatenate([X, Xt])
    C = arccos_kernel(P)
    # Schur complement of the joint covariance, computed one test point at a time
    direct = [
        C[4 + t, 4 + t] - C[4 + t, :4] @ np.linalg.solve(C[:4, :4], C[:4, 4 + t]) for t in range(3)
    ]
    np.testing.assert_allclose(r_perp_squared(X, Xt), direct, rtol=1e-8)


def test_variance_formula_is_the_inverse_wishart_mean():
    # Var[h_D(x)] = r_perp^2 / D * E[y^T (Phi Phi^T)^-1 y], Phi Phi^T ~ Wishart(K / D, D)
    X, y, Xt = small_data(n=4, d=1)
    D = 11
    K = arccos_kernel(X)
    inv_mean = stats.invwishart(df=D, scale=np.linalg.inv(K / D)).mean()
    expected = r_perp_squared(X, Xt) / D * (y @ inv_mean @ y)
    np.testing.assert_allclose(closed_form_variance(X, y, Xt, D), expected, rtol=1e-10)
    assert rkhs_norm_squared(X, y) == pytest.approx(y @ np.linalg.solve(K, y))


def test_gaussian_mode_monte_carlo_matches_mean_and_variance():
    X, y, Xt = small_data(n=3, d=1, seed=3)
    D, M = 12, 40_000
    ens = rf_ensemble(X, y, Xt, D, M, mode="gaussian", seed=0, chunk=8192)
    var = closed_form_variance(X, y, Xt, D)
    z_mean = (ens.mean - closed_form_mean(X, y, Xt)) / np.sqrt(var / M)
    assert np.abs(z_mean).max() < 4.5
    np.testing.assert_allclose(ens.variance, var, rtol=0.06)


def test_budget_gap_against_a_monte_carlo_with_shared_features():
    X, y, Xt = small_data(n=3, d=1, seed=4)
    D, M, R = 10, 3, 6000
    ens, single = ensemble_and_single(X, y, Xt, D, M, R, mode="gaussian", seed=1, chunk=2000)
    h = kernel_predictor(X, y, Xt)
    excess_e = ((ens - h) ** 2).mean(1)
    excess_s = ((single - h) ** 2).mean(1)
    assert excess_e.mean() == pytest.approx(ensemble_excess(X, y, Xt, D, M), rel=0.08)
    assert excess_s.mean() == pytest.approx(ensemble_excess(X, y, Xt, M * D), rel=0.08)
    gap = excess_e - excess_s
    z = (gap.mean() - budget_gap(X, y, Xt, D, M)) / (gap.std() / np.sqrt(R))
    assert abs(z) < 4.5
    # the closed form itself: (M - 1)(N + 1) / (M (D - N - 1)(M D - N - 1)) times mean r^2 yKy
    N, base = 3, closed_form_variance(X, y, Xt, D).mean() * (D - 3 - 1)
    assert budget_gap(X, y, Xt, D, M) == pytest.approx(
        base * (M - 1) * (N + 1) / (M * (D - N - 1) * (M * D - N - 1))
    )
