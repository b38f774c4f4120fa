"""Bad input to the features, fits, ensembles and closed forms is refused, naming the argument."""

import numpy as np
import pytest

from icml25.rf_ensembles import (
    ensemble_and_single,
    fit_rf,
    gaussian_features,
    kernel_predictor,
    kernel_root,
    r_perp_squared,
    relu_features,
    rf_ensemble,
    rf_predict,
    rkhs_norm_squared,
    sample_relu_weights,
    sinusoid_1d,
    smooth_target,
)

X = np.linspace(-4, 4, 6)[:, None]
Y = np.sin(X[:, 0])
XT = np.array([[0.5], [2.5]])
PHI = np.ones((2, 3, 4))


def rng():
    return np.random.default_rng(0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: smooth_target(5, 2, rng(), noise=np.nan), "noise must be"),
        (lambda: smooth_target(5, 2, rng(), direction=[np.nan, 1.0]), "direction must be finite"),
        (lambda: smooth_target(5, 2, rng(), direction=[1.0, 2.0, 3.0]), r"direction must have"),
        (lambda: smooth_target(10**12, 2, rng()), r"n \* d is too large"),
        (lambda: sinusoid_1d(10**12, rng()), "n is too large"),
        (lambda: fit_rf(np.ones((3, 5)), np.full(3, np.nan)), "y must be finite"),
        (lambda: fit_rf(np.full((3, 5), np.nan), np.ones(3)), "Phi must be finite"),
        (lambda: fit_rf(np.ones(3), np.ones(3)), "Phi must have shape"),
        (lambda: fit_rf(np.ones((0, 5)), np.ones(0)), "Phi must not be empty"),
        (lambda: fit_rf([[1.0, 2.0], [1.0]], np.ones(2)), "Phi must be a numeric array"),
        (lambda: rf_predict(np.full((2, 3, 4), np.nan), np.ones((2, 4))), "Phi_test must be"),
        (lambda: rf_predict(PHI, np.ones((2, 5))), r"theta must have shape \(2, 4\)"),
        (lambda: rf_predict(PHI, np.ones((1, 4))), r"theta must have shape \(2, 4\)"),
        (lambda: rf_predict(np.ones((3, 4)), np.ones(4)), "Phi_test must have 3 dimensions"),
        (lambda: rf_ensemble(X.astype(str), Y, XT, 5, 2), "X must be a numeric array"),
        (lambda: rf_ensemble(X, Y.astype(str), XT, 5, 2), "y must be a numeric array"),
        (lambda: rf_ensemble([[1.0], [2.0, 3.0]], Y[:2], XT, 5, 2), "X must be a numeric"),
        (lambda: rf_ensemble(X, Y, XT, 10**12, 2), "width is too large"),
        (lambda: rf_ensemble(X, Y, XT, 5, 10**12), "members is too large"),
        (lambda: ensemble_and_single(X, Y, XT, 5, 2, 10**12), "replicates is too large"),
        (lambda: ensemble_and_single(X, Y, XT, 5, 10**12, 2), r"members \* width is too large"),
        (lambda: sample_relu_weights(0, 5, 1, rng()), "members must be an integer >= 1"),
        (lambda: sample_relu_weights(2, 5, -1, rng()), "d must be an integer >= 1"),
        (lambda: sample_relu_weights(2.5, 5, 1, rng()), "members must be an integer"),
        (lambda: sample_relu_weights(10**12, 5, 1, rng()), "members is too large"),
        (lambda: relu_features(X, np.full((2, 5, 2), np.nan)), "W must be finite"),
        (lambda: relu_features(X, np.full((2, 5, 2), "a")), "W must be a numeric array"),
        (lambda: relu_features(X, np.ones((2, 0, 2))), "W must not be empty"),
        (lambda: kernel_root(np.full((2, 2), np.nan)), "K must be finite"),
        (lambda: kernel_root(np.ones((2, 3))), "K must be a square"),
        (lambda: kernel_root(np.ones((0, 0))), "K must not be empty"),
        (lambda: kernel_root(np.array([[1.0, 2.0], [0.0, 1.0]])), "K must be symmetric"),
        (lambda: gaussian_features(np.eye(3) * np.nan, 2, 3, rng()), "root must be finite"),
        (lambda: gaussian_features(np.eye(3), 0, 3, rng()), "members must be an integer >= 1"),
        (lambda: gaussian_features(np.ones(3), 2, 3, rng()), "root must have 2 dimensions"),
        (lambda: gaussian_features(np.eye(3), 10**12, 3, rng()), "members is too large"),
        (lambda: kernel_predictor(X, Y, XT * np.nan), "X_test must be"),
        (lambda: kernel_predictor(X, Y, np.ones((2, 2))), "X_test must have d = 1 columns"),
        (lambda: r_perp_squared(X, np.ones((2, 2))), "X_test must have d = 1 columns"),
        (lambda: kernel_predictor(np.ones((3, 1)), np.arange(3.0), XT), "X must hold distinct"),
        (lambda: rkhs_norm_squared(np.ones((3, 1)), np.arange(3.0)), "X must hold distinct"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
