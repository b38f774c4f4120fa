"""The effective-rank measures on features with known spectra, and bad input."""

import numpy as np
import pytest
import torch

from icml25.effort_aigi import effective_rank, feature_spectrum


def features_with_spectrum(s, n=200, d=30, seed=0):
    """Centred features (n, d) whose singular values are ``s`` (then zeros)."""
    rng = np.random.default_rng(seed)
    k = len(s)
    A = rng.standard_normal((n, k))
    A -= A.mean(0)
    U, _ = np.linalg.qr(A)  # (n, k), columns orthogonal to the ones vector
    V, _ = np.linalg.qr(rng.standard_normal((d, k)))  # (d, k)
    return (U * np.asarray(s)) @ V.T + 5.0  # an offset: the measure centres


def test_pca_rank_counts_components_for_ninety_percent():
    var = np.array([0.5, 0.3, 0.15, 0.05])
    X = features_with_spectrum(np.sqrt(var))
    assert effective_rank(X) == 3  # 0.5, 0.8, 0.95
    assert effective_rank(X, threshold=0.8) == 2
    assert effective_rank(X, threshold=0.5) == 1
    np.testing.assert_allclose(feature_spectrum(X)[:4], var, atol=1e-10)
    np.testing.assert_allclose(feature_spectrum(X)[4:], 0, atol=1e-12)


@pytest.mark.parametrize("k", [1, 4, 10])
def test_flat_spectra(k):
    X = features_with_spectrum(np.ones(k))
    assert effective_rank(X) == int(np.ceil(0.9 * k))
    assert effective_rank(X, "entropy") == pytest.approx(k, rel=1e-8)


def test_entropy_rank_of_a_known_spectrum_and_torch_input():
    s = np.array([3.0, 2.0, 1.0])
    p = s / s.sum()
    X = features_with_spectrum(s)
    assert effective_rank(X, "entropy") == pytest.approx(np.exp(-(p * np.log(p)).sum()))
    assert effective_rank(torch.tensor(X), "entropy") == pytest.approx(effective_rank(X, "entropy"))
    assert effective_rank(np.ones((5, 3))) == 0.0


def test_bad_input():
    with pytest.raises(ValueError, match="features"):
        effective_rank(np.ones(5))
    with pytest.raises(ValueError, match="features"):
        effective_rank(np.array([[np.nan, 1.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="method"):
        effective_rank(np.eye(3), "nuclear")
    with pytest.raises(ValueError, match="threshold"):
        effective_rank(np.eye(3), threshold=1.5)
