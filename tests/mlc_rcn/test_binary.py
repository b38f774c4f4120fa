"""The noise-corrected SQ perceptron for two labels."""

import numpy as np
import pytest

from icml25.mlc_rcn import (
    clean_correlation,
    excess_error,
    linear_classifier,
    make_rcn_data,
    random_classifier,
    rcn_perceptron,
    symmetric_noise_matrix,
)

H_ASYM = np.array([[0.9, 0.1], [0.3, 0.7]])


def test_noisy_sign_is_affine_in_the_clean_sign():
    """E[s(y~) | y] = a + b s(y) with the module's a, b (closed form from H's rows)."""
    a = 0.5 * (H_ASYM[1, 1] - H_ASYM[1, 0] - H_ASYM[0, 0] + H_ASYM[0, 1])
    b = H_ASYM[0, 0] + H_ASYM[1, 1] - 1
    for y, s in ((0, -1), (1, 1)):
        assert H_ASYM[y, 1] - H_ASYM[y, 0] == pytest.approx(a + b * s)


def test_clean_correlation_is_unbiased():
    """From 400,000 noisy labels, the corrected E[x s(y)] matches the clean-label average
    within 5 standard errors (s.e. <= 1 / (b sqrt(n)) per coordinate of unit variance)."""
    W = random_classifier(2, 4, seed=0)
    X, y, y_n = make_rcn_data(400_000, W, H_ASYM, seed=1, marginal="skewed")
    clean = X.T @ (2.0 * y - 1) / X.shape[0]
    b = H_ASYM[0, 0] + H_ASYM[1, 1] - 1
    se = np.sqrt(np.mean(X**2, axis=0) / X.shape[0]) / b
    assert np.all(np.abs(clean_correlation(X, y_n, H_ASYM) - clean) < 5 * se)
    np.testing.assert_allclose(clean_correlation(X, y, np.eye(2)), clean, atol=1e-12)


def test_noiseless_data_is_learned_almost_exactly():
    W = random_classifier(2, 5, seed=3)
    X, y, _ = make_rcn_data(20_000, W, np.eye(2), seed=4, marginal="skewed")
    fit = rcn_perceptron(X, y, np.eye(2))
    assert np.mean(linear_classifier(fit.W, X) != y) < 0.01
    assert fit.train_error[fit.best_iter] == fit.train_error.min()
    np.testing.assert_array_equal(fit.W[0], 0.0)


@pytest.mark.parametrize("H", [symmetric_noise_matrix(2, 0.2), H_ASYM])
def test_perceptron_beats_its_averaging_start_on_a_skewed_marginal(H):
    """On the skewed marginal E[x s(y)] is not parallel to the target: the perceptron iterations
    must cut the excess error of the averaging start (seen 0.03-0.04 -> < 0.015)."""
    W = random_classifier(2, 10, seed=5)
    X, _, y_n = make_rcn_data(20_000, W, H, seed=6, marginal="skewed")
    X_t, y_t, _ = make_rcn_data(50_000, W, H, seed=7, marginal="skewed")
    fit = rcn_perceptron(X, y_n, H)
    ex, ex0 = (excess_error(H, y_t, linear_classifier(V, X_t)) for V in (fit.W, fit.W_init))
    assert ex < 0.02
    assert ex < 0.6 * ex0


def test_bad_arguments():
    X = np.random.default_rng(0).standard_normal((50, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match=r"H must be \(2, 2\)"):
        rcn_perceptron(X, y, symmetric_noise_matrix(3, 0.1))
    with pytest.raises(ValueError, match="positive separation"):
        rcn_perceptron(X, y, symmetric_noise_matrix(2, 0.5))
    with pytest.raises(ValueError, match="iters must"):
        rcn_perceptron(X, y, np.eye(2), iters=-1)
    with pytest.raises(ValueError, match="lr must"):
        rcn_perceptron(X, y, np.eye(2), lr=0.0)
    with pytest.raises(ValueError, match="y_noisy must take values"):
        rcn_perceptron(X, y + 1, np.eye(2))
    with pytest.raises(ValueError, match="y_noisy must have length 50"):
        rcn_perceptron(X, y[:10], np.eye(2))
    with pytest.raises(ValueError, match="full-rank"):
        rcn_perceptron(np.hstack([X, X[:, :1]]), y, np.eye(2))
    with pytest.raises(ValueError, match="X must be"):
        rcn_perceptron(X[:, 0], y, np.eye(2))
