"""The feature-space rank that Effort's analysis uses (Yan et al., ICML 2025, Section 2 and the
official ``DeepfakeBench/analysis/pca_rank.py``): PCA of the detector's features, and the number
of principal components that explain a share ``threshold`` (90% there) of the variance. The
entropy effective rank of Roy & Vetterli (2007), ``exp(-sum_i p_i log p_i)`` with
``p_i = s_i / sum_j s_j`` the normalised singular values of the centred features, is offered too.
"""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_real

METHODS = ("pca", "entropy")


def _features(features) -> np.ndarray:
    if hasattr(features, "detach"):
        features = features.detach().cpu().numpy()
    X = np.asarray(features, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
        raise ValueError(f"features must be an (N >= 2, d) array, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("features must be finite")
    return X


def feature_spectrum(features) -> np.ndarray:
    """Explained-variance ratios of the centred features, largest first.

    Shapes: features (N, d) -> (min(N, d),), summing to 1 (all zeros if the features are constant).
    """
    X = _features(features)
    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)  # (min(N, d),)
    var = s**2
    return var / var.sum() if var.sum() > 0 else var


def effective_rank(features, method: str = "pca", threshold: float = 0.9) -> float:
    """The effective rank of a feature matrix (N, d).

    ``method="pca"``: the smallest ``k`` whose top ``k`` principal components explain at least
    ``threshold`` of the variance (an integer, as a float); ``"entropy"``: Roy & Vetterli's
    ``exp(H(p))`` of the normalised singular values. Constant features have rank 0.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    threshold = check_real("threshold", threshold, low=0.0, high=1.0, low_open=True)
    X = _features(features)
    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    if s.sum() <= 1e-12 * max(1.0, np.abs(X).max()):
        return 0.0
    if method == "entropy":
        p = s / s.sum()
        p = p[p > 0]
        return float(np.exp(-(p * np.log(p)).sum()))
    cumulative = np.cumsum(s**2) / (s**2).sum()
    return float(np.searchsorted(cumulative, threshold - 1e-12) + 1)
