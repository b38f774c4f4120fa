"""RCN closed forms: separation, sampling, noisy posterior, Bayes classifier, opt, bad input."""

import numpy as np
import pytest

from icml25.mlc_rcn import (
    apply_rcn,
    excess_error,
    noisy_bayes_classifier,
    noisy_error,
    noisy_posterior,
    optimal_error,
    random_noise_matrix,
    separation,
    symmetric_noise_matrix,
)

H3 = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5]])


def test_separation_is_min_row_gap():
    # row gaps: 0.5, 0.5 (0.7-0.2, 0.7-0.1 -> 0.5); 0.3; 0.25 -> sigma = 0.25
    assert separation(H3) == pytest.approx(0.25)
    assert separation(np.eye(4)) == 1.0
    assert separation([[0.4, 0.6], [0.0, 1.0]]) == pytest.approx(-0.2)


@pytest.mark.parametrize("k, eta", [(2, 0.2), (3, 0.3), (5, 0.5)])
def test_symmetric_matrix_closed_form(k, eta):
    H = symmetric_noise_matrix(k, eta)
    np.testing.assert_allclose(H.sum(axis=1), 1.0, atol=1e-15)
    np.testing.assert_allclose(np.diag(H), 1 - eta)
    assert separation(H) == pytest.approx(1 - eta * k / (k - 1))


def test_random_matrix_is_row_stochastic_and_alpha_zero_is_identity():
    H = random_noise_matrix(4, 0.6, seed=1)
    np.testing.assert_allclose(H.sum(axis=1), 1.0, atol=1e-14)
    assert (H >= 0).all()
    np.testing.assert_array_equal(random_noise_matrix(3, 0.0, seed=1), np.eye(3))
    np.testing.assert_array_equal(random_noise_matrix(3, 0.6, 7), random_noise_matrix(3, 0.6, 7))


def test_apply_rcn_transition_frequencies_match_H():
    """Empirical transition matrix of 300,000 draws per class within 5 standard errors."""
    m = 300_000
    y = np.repeat(np.arange(3), m)
    y_n = apply_rcn(y, H3, seed=0)
    T = np.stack([np.bincount(y_n[y == i], minlength=3) / m for i in range(3)])
    np.testing.assert_allclose(T, H3, atol=5 * np.sqrt(0.25 / m))
    np.testing.assert_array_equal(apply_rcn(y[:50], np.eye(3), seed=0), y[:50])


def test_posterior_bayes_and_opt_closed_forms():
    y = np.array([0, 1, 2, 2, 1])
    np.testing.assert_array_equal(noisy_posterior(H3, y), H3[y])
    np.testing.assert_array_equal(noisy_bayes_classifier(H3, y), y)  # sigma > 0
    assert optimal_error(H3, y) == pytest.approx(1 - np.mean([0.7, 0.6, 0.5, 0.5, 0.6]))
    h = np.array([1, 1, 0, 2, 2])
    # err(h) - opt = mean(H_yy - H_yh) = (0.5 + 0 + 0.25 + 0 + 0.3) / 5
    assert excess_error(H3, y, h) == pytest.approx(1.05 / 5)
    assert noisy_error(H3, y, y) == pytest.approx(optimal_error(H3, y))


def test_bayes_classifier_differs_when_separation_is_negative():
    H = np.array([[0.3, 0.5, 0.2], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])  # row 0: H_01 > H_00
    assert separation(H) < 0
    np.testing.assert_array_equal(noisy_bayes_classifier(H, [0, 1, 2]), [1, 1, 2])


def test_clean_classifier_minimises_noisy_error_over_all_labelings():
    """Exhaustive over the 3^4 labelings of 4 points: the clean labels attain the minimum, and
    excess >= sigma * disagreement (the closed-form lower bound)."""
    y = np.array([0, 1, 2, 1])
    sigma = separation(H3)
    grid = np.stack(np.meshgrid(*[np.arange(3)] * 4, indexing="ij"), -1).reshape(-1, 4)
    ex = np.array([excess_error(H3, y, h) for h in grid])
    assert ex.min() == pytest.approx(0.0, abs=1e-15)
    assert np.all(ex >= sigma * (grid != y).mean(axis=1) - 1e-12)


@pytest.mark.parametrize(
    "H, match",
    [
        (np.ones((2, 3)) / 3, "square"),
        (np.array([[1.0]]), "k >= 2"),
        (np.array([[0.5, 0.6], [0.5, 0.5]]), "row-stochastic"),
        (np.array([[1.2, -0.2], [0.5, 0.5]]), "row-stochastic"),
        (np.array([[np.nan, 0.5], [0.5, 0.5]]), "row-stochastic"),
    ],
)
def test_bad_noise_matrix(H, match):
    with pytest.raises(ValueError, match=match):
        separation(H)


def test_bad_arguments():
    with pytest.raises(ValueError, match="k must"):
        symmetric_noise_matrix(1, 0.1)
    with pytest.raises(ValueError, match="eta must"):
        symmetric_noise_matrix(3, 1.5)
    with pytest.raises(ValueError, match="alpha must"):
        random_noise_matrix(3, -0.1, 0)
    with pytest.raises(ValueError, match="k must"):
        random_noise_matrix(2.5, 0.1, 0)
    with pytest.raises(ValueError, match="y must take values"):
        apply_rcn([0, 3], H3, 0)
    with pytest.raises(ValueError, match="y must be a 1-d integer"):
        noisy_posterior(H3, [0.5, 1.0])
    with pytest.raises(ValueError, match="h must have length 2"):
        noisy_error(H3, [0, 1], [0, 1, 2])
    with pytest.raises(ValueError, match="y must be a 1-d"):
        optimal_error(H3, [[0, 1]])
