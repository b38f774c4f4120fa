"""The feature-rank measures on features with known spectra, and bad input.

Roy & Vetterli's effective rank is checked against hand-computed values to a relative 1e-9 (the
SVD of a 200 x 30 matrix returns the planted singular values to about 1e-13); the PCA-90% count
is an integer and checked exactly."""

import math

import numpy as np
import pytest
import torch

from icml25.effort_aigi import effective_rank, entropy_effective_rank, feature_spectrum, pca_rank


def features_with_spectrum(s, n=200, d=30, seed=0):
    """Centred features (n, d) whose singular values are ``s`` (then zeros), plus an offset."""
    rng = np.random.default_rng(seed)
    k = len(s)
    A = rng.standard_normal((n, k))
    A -= A.mean(0)
    U, _ = np.linalg.qr(A)  # (n, k), columns orthogonal to the ones vector
    V, _ = np.linalg.qr(rng.standard_normal((d, k)))  # (d, k)
    return (U * np.asarray(s)) @ V.T + 5.0  # an offset: the measures centre


def test_entropy_rank_of_a_hand_computed_spectrum():
    # s = (3, 2, 1): p = (1/2, 1/3, 1/6), H = ln2 / 2 + ln3 / 3 + ln6 / 6
    H = math.log(2) / 2 + math.log(3) / 3 + math.log(6) / 6
    X = features_with_spectrum([3.0, 2.0, 1.0])
    assert entropy_effective_rank(X) == pytest.approx(math.exp(H), rel=1e-9)
    assert math.exp(H) == pytest.approx(2.749459, abs=1e-6)  # the hand value, to 6 places
    assert effective_rank(X) == pytest.approx(math.exp(H), rel=1e-9)  # the default method


@pytest.mark.parametrize("k", [1, 4, 10])
def test_flat_spectra(k):
    X = features_with_spectrum(np.ones(k))
    assert pca_rank(X) == int(np.ceil(0.9 * k))
    assert entropy_effective_rank(X) == pytest.approx(k, rel=1e-9)  # m equal values: rank m


def test_entropy_rank_invariances_and_bounds():
    s = np.array([4.0, 2.0, 1.0, 0.5, 0.25])
    X = features_with_spectrum(s, seed=1)
    r = entropy_effective_rank(X)
    assert 1.0 <= r <= len(s)  # 1 <= erank <= rank(X)
    Q, _ = np.linalg.qr(np.random.default_rng(2).standard_normal((30, 30)))
    assert entropy_effective_rank(X @ Q) == pytest.approx(r, rel=1e-9)  # rotation of the space
    assert entropy_effective_rank(7.5 * X - 3.0) == pytest.approx(r, rel=1e-9)  # scale, shift
    assert entropy_effective_rank(X[::-1]) == pytest.approx(r, rel=1e-9)  # order of the samples
    # a zero singular value adds 0 log 0 = 0: the same rank as without it
    assert entropy_effective_rank(features_with_spectrum([2.0, 2.0, 0.0])) == pytest.approx(
        2.0, rel=1e-9
    )


def test_entropy_rank_sees_the_tail_that_the_pca_count_cuts_off():
    # nine equal directions and a tenth at half their singular value: the PCA-90% count is 9
    # with or without the tenth (8/9 < 0.9 <= 9/9.25), Roy & Vetterli's rank rises above 9
    nine = [1.0] * 9
    ten = nine + [0.5]
    p = np.array(ten) / 9.5
    expected = math.exp(-(p * np.log(p)).sum())  # = exp(ln 9.5 - (0.5 / 9.5) ln 0.5)
    assert expected == pytest.approx(math.exp(math.log(9.5) - 0.5 / 9.5 * math.log(0.5)))
    assert pca_rank(features_with_spectrum(nine)) == pca_rank(features_with_spectrum(ten)) == 9
    assert entropy_effective_rank(features_with_spectrum(nine)) == pytest.approx(9, rel=1e-9)
    assert entropy_effective_rank(features_with_spectrum(ten)) == pytest.approx(expected, rel=1e-9)
    assert expected > 9.5


def test_entropy_rank_is_vectorised_over_leading_axes():
    spectra = [[3.0, 2.0, 1.0], [1.0, 1.0, 1.0], [5.0, 0.0, 0.0]]
    stack = np.stack([features_with_spectrum(s, seed=i) for i, s in enumerate(spectra)])
    ranks = entropy_effective_rank(stack.reshape(3, 1, 200, 30))  # (3, 1, N, d) -> (3, 1)
    assert ranks.shape == (3, 1)
    one_by_one = [entropy_effective_rank(x) for x in stack]
    np.testing.assert_allclose(ranks[:, 0], one_by_one, rtol=1e-12)
    np.testing.assert_allclose(ranks[1:, 0], [3.0, 1.0], rtol=1e-9)
    constant = np.ones((2, 5, 3))
    constant[1] += np.arange(5)[:, None] * np.array([1.0, 0.0, 0.0])  # rank 1
    np.testing.assert_allclose(entropy_effective_rank(constant), [0.0, 1.0], atol=1e-9)


def test_pca_count_for_ninety_percent_and_the_spectrum():
    var = np.array([0.5, 0.3, 0.15, 0.05])
    X = features_with_spectrum(np.sqrt(var))
    assert pca_rank(X) == effective_rank(X, "pca") == 3  # 0.5, 0.8, 0.95
    assert pca_rank(X, threshold=0.8) == 2
    assert effective_rank(X, "pca", threshold=0.5) == 1
    np.testing.assert_allclose(feature_spectrum(X)[:4], var, atol=1e-10)
    np.testing.assert_allclose(feature_spectrum(X)[4:], 0, atol=1e-12)


def test_torch_input_and_constant_features():
    X = features_with_spectrum([3.0, 2.0, 1.0])
    assert entropy_effective_rank(torch.tensor(X)) == pytest.approx(entropy_effective_rank(X))
    assert effective_rank(np.ones((5, 3))) == 0.0
    assert pca_rank(np.ones((5, 3))) == 0.0


def test_bad_input():
    with pytest.raises(ValueError, match="features"):
        effective_rank(np.ones(5))
    with pytest.raises(ValueError, match="features"):
        entropy_effective_rank(np.ones((1, 4)))
    with pytest.raises(ValueError, match="features"):
        pca_rank(np.ones((2, 2, 2)))  # one matrix only
    with pytest.raises(ValueError, match="features"):
        effective_rank(np.array([[np.nan, 1.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="method"):
        effective_rank(np.eye(3), "nuclear")
    with pytest.raises(ValueError, match="threshold"):
        effective_rank(np.eye(3), "pca", threshold=1.5)
