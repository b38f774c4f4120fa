"""Forward and backward loss correction: losses, gradients, unbiasedness, fits, bad input."""

import warnings

import numpy as np
import pytest
from scipy.optimize import check_grad
from scipy.special import softmax

from icml25.mlc_rcn import (
    corrected_loss,
    excess_error,
    fit_loss_correction,
    linear_classifier,
    make_rcn_data,
    random_classifier,
    random_noise_matrix,
    symmetric_noise_matrix,
)

H3 = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5]])
RNG = np.random.default_rng(0)
X = RNG.standard_normal((40, 4))
Y = RNG.integers(0, 3, 40)
W = RNG.standard_normal((3, 4))


@pytest.mark.parametrize("correction", ["forward", "backward", "none"])
def test_gradient_matches_finite_differences(correction):
    def f(w):
        return corrected_loss(w.reshape(3, 4), X, Y, H3, correction, l2=0.1)[0]

    def g(w):
        return corrected_loss(w.reshape(3, 4), X, Y, H3, correction, l2=0.1)[1].ravel()

    assert check_grad(f, g, W.ravel()) < 1e-6


def test_forward_loss_closed_form():
    p = softmax(X[:1] @ W.T, axis=1)[0]  # (3,)
    loss, _ = corrected_loss(W, X[:1], Y[:1], H3, "forward")
    assert loss == pytest.approx(-np.log(p @ H3[:, Y[0]]))


def test_backward_loss_is_unbiased_for_the_clean_loss():
    """sum_j H_yj (H^{-1} l)_j = l_y exactly, for each clean label y."""
    x = X[:1]
    for y in range(3):
        expected = sum(H3[y, j] * corrected_loss(W, x, [j], H3, "backward")[0] for j in range(3))
        assert expected == pytest.approx(corrected_loss(W, x, [y], H3, "none")[0], rel=1e-12)


def test_corrections_reduce_to_cross_entropy_without_noise():
    ce, g_ce = corrected_loss(W, X, Y, np.eye(3), "none")
    for correction in ("forward", "backward"):
        loss, grad = corrected_loss(W, X, Y, np.eye(3), correction)
        assert loss == pytest.approx(ce, rel=1e-12)
        np.testing.assert_allclose(grad, g_ce, atol=1e-12)


def test_forward_correction_approaches_opt_for_three_labels():
    """k = 3, random H (sigma ~ 0.16), n = 8000: seen excess 0.005; bound 0.03."""
    H = random_noise_matrix(3, 0.5, 3)
    Wc = random_classifier(3, 6, seed=1)
    Xs, _, y_n = make_rcn_data(8000, Wc, H, seed=2, marginal="skewed")
    X_t, y_t, _ = make_rcn_data(50_000, Wc, H, seed=3, marginal="skewed")
    fit = fit_loss_correction(Xs, y_n, H, "forward")
    assert fit.converged
    assert excess_error(H, y_t, linear_classifier(fit.W, X_t)) < 0.03


def test_not_converging_warns():
    with pytest.warns(UserWarning, match="did not converge"):
        fit = fit_loss_correction(X, Y, H3, "forward", max_iter=1)
    assert not fit.converged


def test_bad_arguments():
    with pytest.raises(ValueError, match="correction must"):
        fit_loss_correction(X, Y, H3, "symmetric")
    with pytest.raises(ValueError, match="l2 must"):
        fit_loss_correction(X, Y, H3, l2=-1.0)
    with pytest.raises(ValueError, match="l2 must be > 0"):
        fit_loss_correction(X, Y, H3, "backward", l2=0.0)
    with pytest.raises(ValueError, match="max_iter must"):
        fit_loss_correction(X, Y, H3, max_iter=0)
    with pytest.raises(ValueError, match="invertible"):
        fit_loss_correction(X, Y, np.full((3, 3), 1 / 3), "backward")
    with pytest.raises(ValueError, match="y_noisy must take values"):
        fit_loss_correction(X, Y + 1, H3)
    with pytest.raises(ValueError, match="y_noisy must have length 40"):
        fit_loss_correction(X, Y[:5], H3)
    with pytest.raises(ValueError, match="H must be"):
        fit_loss_correction(X, Y, symmetric_noise_matrix(3, 0.2)[:2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit_loss_correction(X, Y, H3, "none")  # converges quietly
