"""Batched fits against one-at-a-time solvers, and bad input."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from icml25.rf_ensembles import (
    arccos_kernel,
    budget_gap,
    closed_form_variance,
    ensemble_and_single,
    fit_rf,
    gaussian_features,
    kernel_root,
    relu_features,
    rf_ensemble,
    sample_relu_weights,
)


@pytest.mark.parametrize("width", [3, 5, 9])  # under-, exactly and over-parameterized, N = 5
def test_ridgeless_fit_is_the_min_norm_least_squares_solution(width):
    rng = np.random.default_rng(width)
    X, y = rng.normal(size=(5, 2)), rng.normal(size=5)
    Phi = relu_features(X, sample_relu_weights(4, width, 2, rng))  # (4, 5, width)
    theta = fit_rf(Phi, y)
    for b in range(4):
        expected = np.linalg.lstsq(Phi[b], y, rcond=None)[0]
        np.testing.assert_allclose(theta[b], expected, atol=1e-8)


@pytest.mark.parametrize("width", [3, 9])
def test_ridge_fit_matches_sklearn(width):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(5, 2)), rng.normal(size=5)
    Phi = relu_features(X, sample_relu_weights(3, width, 2, rng))
    theta = fit_rf(Phi, y, ridge=0.05)
    for b in range(3):
        sk = Ridge(alpha=0.05, fit_intercept=False, solver="svd").fit(Phi[b], y)
        np.testing.assert_allclose(theta[b], sk.coef_, atol=1e-8)


def test_gaussian_features_have_the_kernel_as_covariance():
    rng = np.random.default_rng(0)
    K = arccos_kernel(rng.normal(size=(4, 1)))
    R = kernel_root(K)
    np.testing.assert_allclose(R @ R.T, K, atol=1e-10)
    F = gaussian_features(R, 2, 100_000, rng)  # (2, 4, D)
    np.testing.assert_allclose(F[0] @ F[0].T, K, rtol=0.03, atol=0.02)


def test_ensemble_is_the_mean_of_members_and_seeded():
    rng = np.random.default_rng(0)
    X, y, Xt = rng.normal(size=(4, 1)), rng.normal(size=4), rng.normal(size=(3, 1))
    a = rf_ensemble(X, y, Xt, 20, 50, seed=3, chunk=7)
    b = rf_ensemble(X, y, Xt, 20, 50, seed=3, chunk=50)
    np.testing.assert_allclose(a.predictions, b.predictions)
    np.testing.assert_allclose(a.mean, a.predictions.mean(0))
    # members interpolate the training data when overparameterized and ridgeless (3-D inputs:
    # in 1-D a ReLU Gram matrix is singular when too few kinks fall between training inputs)
    X3 = rng.normal(size=(4, 3))
    c = rf_ensemble(X3, y, X3, 40, 5, seed=1)
    np.testing.assert_allclose(c.predictions, np.broadcast_to(y, (5, 4)), atol=1e-7)


def test_single_model_uses_all_of_the_ensembles_features():
    rng = np.random.default_rng(1)
    X, y, Xt = rng.normal(size=(3, 2)), rng.normal(size=3), rng.normal(size=(2, 2))
    ens, single = ensemble_and_single(X, y, Xt, 6, 1, 4, seed=0)
    np.testing.assert_allclose(ens, single, atol=1e-9)  # M = 1: the same model


def test_bad_arguments_raise_value_errors_naming_them():
    X, y, Xt = np.zeros((4, 1)) + np.arange(4)[:, None], np.ones(4), np.ones((2, 1))
    with pytest.raises(ValueError, match="width"):
        closed_form_variance(X, y, Xt, 5)  # D <= N + 1
    with pytest.raises(ValueError, match="width"):
        budget_gap(X, y, Xt, 4, 2)
    with pytest.raises(ValueError, match="members"):
        budget_gap(X, y, Xt, 10, 0)
    with pytest.raises(ValueError, match="mode"):
        rf_ensemble(X, y, Xt, 10, 2, mode="tanh")
    with pytest.raises(ValueError, match="ridge"):
        rf_ensemble(X, y, Xt, 10, 2, ridge=-1.0)
    with pytest.raises(ValueError, match="y"):
        rf_ensemble(X, y[:3], Xt, 10, 2)
    with pytest.raises(ValueError, match="X_test"):
        rf_ensemble(X, y, np.ones((2, 3)), 10, 2)
    with pytest.raises(ValueError, match="width"):
        rf_ensemble(X, y, Xt, 0, 2)
