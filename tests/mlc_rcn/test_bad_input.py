"""Bad input to the noise, data and learners of multiclass RCN is refused, naming the argument."""

import numpy as np
import pytest

from icml25.mlc_rcn import (
    corrected_loss,
    excess_error,
    linear_classifier,
    noisy_error,
    optimal_error,
    random_classifier,
    sample_marginal,
    separation,
    symmetric_noise_matrix,
)

H = symmetric_noise_matrix(3, 0.2)
W = np.arange(12.0).reshape(3, 4) % 5 - 2
X = np.random.default_rng(0).normal(size=(6, 4))
Y = np.array([0, 1, 2, 0, 1, 2])
EMPTY = np.array([], dtype=int)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: separation([["a", "b"], ["c", "d"]]), "H must be a numeric array"),
        (lambda: separation([[1.0, 0.0], [1.0]]), "H must be a numeric array"),
        (lambda: linear_classifier(W, X.astype(str)), "X must be a numeric array"),
        (lambda: linear_classifier(W, X.astype(object)), "X must be a numeric array"),
        (lambda: linear_classifier([[1.0, 2.0], [3.0]], X), "W must be a numeric array"),
        (lambda: noisy_error(H, EMPTY, EMPTY), "y must not be empty"),
        (lambda: optimal_error(H, EMPTY), "y must not be empty"),
        (lambda: excess_error(H, [], []), "y must not be empty"),
        (lambda: optimal_error(H, [[0, 1], [2]]), "y must be a 1-d integer array"),
        (lambda: random_classifier(3, 4, 0, offset_scale=np.nan), "offset_scale must be"),
        (lambda: random_classifier(3, 4, 0, offset_scale=np.inf), "offset_scale must be"),
        (lambda: sample_marginal(10**12, 4, 0), r"n \* d is too large"),
        (lambda: random_classifier(10**12, 4, 0), r"k \* d is too large"),
        (lambda: symmetric_noise_matrix(10**6, 0.1), "k is too large"),
        (lambda: corrected_loss(W, X, Y, H, "x"), "correction must be one of"),
        (lambda: corrected_loss(W, X * np.nan, Y, H), "X must be finite"),
        (lambda: corrected_loss(W * np.nan, X, Y, H), "W must be finite"),
        (lambda: corrected_loss(W[:, :3], X, Y, H), r"W must have shape \(3, 4\)"),
        (lambda: corrected_loss(W, X, Y - 1, H), "y_noisy must take values in 0..2"),
        (lambda: corrected_loss(W, X, Y[:3], H), "y_noisy must have length 6"),
        (lambda: corrected_loss(W, X, Y * 1.0, H), "y_noisy must be a 1-d integer array"),
        (lambda: corrected_loss(W, X, Y, 2 * H), "H must be row-stochastic"),
        (lambda: corrected_loss(W, X, Y, H, l2=-1.0), "l2 must be"),
        (lambda: corrected_loss(W, X, Y, np.ones((3, 3)) / 3, "backward"), "H must be invert"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
