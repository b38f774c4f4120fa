"""The rank of a detector's feature space, which Effort's analysis compares across fine-tuning
methods (Yan et al., ICML 2025, Section 2: naive fine-tuning makes the feature space "highly
constrained and low-ranked").

Two measures, both of the centred test-set features ``X - mean(X)`` (N, d) with singular values
``s_1 >= ... >= s_n``, ``n = min(N, d)``:

- :func:`entropy_effective_rank`, the effective rank of Roy & Vetterli (2007, *The effective
  rank: a measure of effective dimensionality*, EUSIPCO, Definition 1):
  ``erank(X) = exp(H(p))``, ``H(p) = -sum_k p_k log p_k``, ``p_k = s_k / sum_j s_j``, with
  ``0 log 0 = 0``. It reads the whole spectrum (no cut-off): ``1 <= erank <= rank(X)``, equal to
  ``m`` when ``X`` has ``m`` equal nonzero singular values. The term "Effective Rank" is the
  one the official code uses (``test.py``'s commented-out ``analyze_clip_effective_rank``, the
  commented ``erank_loss`` of ``effort_detector.py``).
- the PCA count of the official ``DeepfakeBench/analysis/pca_rank.py``: the number of principal
  components that explain 90% of the variance. It counts only the components up to the cut-off,
  so a direction carrying less than the last 10% of the variance never moves it.
"""

from __future__ import annotations

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_real

METHODS = ("pca", "entropy")
_ZERO = 1e-12  # singular values summing to less than this times the data's scale: constant


def _features(features, *, batched: bool = False) -> np.ndarray:
    if hasattr(features, "detach"):
        features = features.detach().cpu().numpy()
    X = real_array("features", features, nonempty=False)
    shape = "(..., N >= 2, d)" if batched else "(N >= 2, d)"
    if (X.ndim < 2 if batched else X.ndim != 2) or X.shape[-2] < 2 or X.shape[-1] < 1:
        raise ValueError(f"features must be an {shape} array, got shape {X.shape}")
    return X


def _singular_values(X: np.ndarray) -> np.ndarray:
    """Singular values of the centred features, (..., N, d) -> (..., min(N, d)), largest first."""
    return np.linalg.svd(X - X.mean(axis=-2, keepdims=True), compute_uv=False)


def feature_spectrum(features) -> np.ndarray:
    """Explained-variance ratios of the centred features, largest first.

    Parameters
    ----------
    features : ndarray or torch.Tensor, shape (N, d)
        Feature matrix, ``N >= 2`` rows, ``d >= 1`` columns, finite.

    Returns
    -------
    ratios : ndarray, shape (min(N, d),)
        Squared singular values over their sum, summing to 1 (all zeros if the features are
        constant).
    """
    var = _singular_values(_features(features)) ** 2
    return var / var.sum() if var.sum() > 0 else var


def entropy_effective_rank(features) -> float | np.ndarray:
    """Roy & Vetterli's effective rank of the centred features.

    ``erank = exp(-sum_k p_k log p_k)``, ``p_k = s_k / sum_j s_j``; 0 for constant features (no
    nonzero singular value).

    Parameters
    ----------
    features : ndarray or torch.Tensor, shape (..., N, d)
        One feature matrix or a batch of them, ``N >= 2``, ``d >= 1``, finite.

    Returns
    -------
    rank : float or ndarray, shape (...,)
        A float for one (N, d) matrix, one rank per matrix for a batch; in
        ``[1, min(N, d)]`` or 0.
    """
    X = _features(features, batched=True)
    s = _singular_values(X)  # (..., n)
    total = s.sum(axis=-1, keepdims=True)  # (..., 1)
    scale = np.maximum(1.0, np.abs(X).max(axis=(-2, -1)))[..., None]  # (..., 1)
    constant = total <= _ZERO * scale
    p = s / np.where(constant, 1.0, total)  # (..., n)
    plogp = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)  # 0 log 0 = 0
    rank = np.where(constant[..., 0], 0.0, np.exp(-plogp.sum(axis=-1)))  # (...,)
    return float(rank) if rank.ndim == 0 else rank


def pca_rank(features, threshold: float = 0.9) -> float:
    """The number of principal components that explain a share of the variance.

    As the official ``pca_rank.py`` prints it at 0.9.

    Parameters
    ----------
    features : ndarray or torch.Tensor, shape (N, d)
        Feature matrix, ``N >= 2``, ``d >= 1``, finite.
    threshold : float, default 0.9
        Share of the variance to explain, in ``(0, 1]``.

    Returns
    -------
    k : float
        The smallest ``k`` whose top ``k`` components explain at least ``threshold`` of the
        variance (a whole number, as a float); 0 for constant features.
    """
    threshold = check_real("threshold", threshold, low=0.0, high=1.0, low_open=True)
    X = _features(features)
    s = _singular_values(X)
    if s.sum() <= _ZERO * max(1.0, np.abs(X).max()):
        return 0.0
    cumulative = np.cumsum(s**2) / (s**2).sum()
    return float(np.searchsorted(cumulative, threshold - 1e-12) + 1)


def effective_rank(features, method: str = "entropy", threshold: float = 0.9) -> float:
    """The effective rank of a feature matrix (N, d).

    Parameters
    ----------
    features : ndarray or torch.Tensor, shape (N, d)
        Feature matrix, ``N >= 2``, ``d >= 1``, finite.
    method : str, default "entropy"
        One of ``METHODS``: ``"entropy"`` for :func:`entropy_effective_rank`, Roy & Vetterli's
        ``exp(H(p))`` of the normalised singular values; ``"pca"`` for :func:`pca_rank`.
    threshold : float, default 0.9
        Share of the variance for ``"pca"``, in ``(0, 1]``; checked but unused by
        ``"entropy"``.

    Returns
    -------
    rank : float
        The effective rank; 0 for constant features.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if method == "pca":
        return pca_rank(features, threshold)
    check_real("threshold", threshold, low=0.0, high=1.0, low_open=True)
    return float(entropy_effective_rank(_features(features)))
