"""The data generator: linear classifier convention, marginals, bad input."""

import numpy as np
import pytest

from icml25.mlc_rcn import (
    linear_classifier,
    make_rcn_data,
    random_classifier,
    sample_marginal,
    symmetric_noise_matrix,
)


def test_argmax_breaks_ties_to_the_smallest_index():
    W = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    np.testing.assert_array_equal(linear_classifier(W, X), [0, 2, 0])


def test_marginals_have_constant_last_coordinate_and_the_stated_moments():
    for kind in ("gaussian", "skewed"):
        X = sample_marginal(200_000, 4, seed=0, marginal=kind)
        assert X.shape == (200_000, 4)
        np.testing.assert_array_equal(X[:, -1], 1.0)
    z = sample_marginal(200_000, 4, seed=0, marginal="skewed")[:, :-1]
    mu = np.array([1.0, 0.5, 0.0])
    np.testing.assert_allclose(z.mean(axis=0), 0.7 * mu + 0.3 * (-2 * mu), atol=0.01)
    # third central moment of coordinate 0: sum_c w_c (delta_c^3 + 3 delta_c s_c^2), delta_c the
    # component mean minus the mixture mean 0.1: not symmetric about its mean
    third = 0.7 * (0.9**3 + 3 * 0.9) + 0.3 * ((-2.1) ** 3 + 3 * (-2.1) * 0.25)
    assert np.mean((z[:, 0] - 0.1) ** 3) == pytest.approx(third, abs=0.1)
    assert third < -0.8


def test_make_rcn_data_is_seeded_and_clean_labels_are_the_classifier():
    W = random_classifier(3, 5, seed=0)
    H = symmetric_noise_matrix(3, 0.3)
    X, y, y_n = make_rcn_data(1000, W, H, seed=4, marginal="skewed")
    np.testing.assert_array_equal(y, linear_classifier(W, X))
    X2, _, y_n2 = make_rcn_data(1000, W, H, seed=4, marginal="skewed")
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y_n, y_n2)
    assert 0.2 < np.mean(y_n != y) < 0.4  # eta = 0.3


def test_bad_arguments():
    W = random_classifier(3, 5, seed=0)
    H = symmetric_noise_matrix(3, 0.3)
    with pytest.raises(ValueError, match="n must"):
        sample_marginal(0, 4, 0)
    with pytest.raises(ValueError, match="d must"):
        sample_marginal(10, 2, 0)
    with pytest.raises(ValueError, match="marginal must"):
        sample_marginal(10, 4, 0, marginal="uniform")
    with pytest.raises(ValueError, match="k must"):
        random_classifier(1, 4, 0)
    with pytest.raises(ValueError, match="W must be a"):
        linear_classifier(np.ones(3), np.ones((2, 3)))
    with pytest.raises(ValueError, match="X must have 5 columns"):
        linear_classifier(W, np.ones((2, 3)))
    with pytest.raises(ValueError, match="X must be finite"):
        linear_classifier(W, np.full((2, 5), np.inf))
    with pytest.raises(ValueError, match="H must be"):
        make_rcn_data(10, W, symmetric_noise_matrix(2, 0.1), 0)
    with pytest.raises(ValueError, match="W must be finite"):
        make_rcn_data(10, np.full((3, 5), np.nan), H, 0)
