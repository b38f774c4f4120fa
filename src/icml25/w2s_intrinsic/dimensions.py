"""Intrinsic and correlation dimensions of real features (Dong et al., ICML 2025, Section 5).

The paper's theory needs three numbers from a strong/weak model pair: the intrinsic dimensions
``d_s``, ``d_w`` of their finetuning feature subspaces and the correlation dimension
``d_sw = ||V_s^T V_w||_F^2``. On real features the official code
(MarCO-COrle0NE/weak-to-strong, ``domainbed/scripts2/coloredmnist_var.py``) measures them as:

- intrinsic dimension: the smallest ``d`` whose top ``d`` squared singular values of the
  (uncentred) feature matrix hold a ``fraction`` (0.9) of the total;
- subspace: the top-``d`` eigenvectors of the feature second-moment matrix ``F^T F / m``;
- when the two models' feature widths differ, the wider features are first multiplied by a
  Gaussian matrix ``(D_big, D_small) / sqrt(D_small)`` so both live in one space
  (:func:`match_feature_dim`, kept for comparison).

That last step compares coordinate systems that do not correspond: feature ``i`` of one model
has nothing to do with feature ``i`` of another, even at equal widths. :func:`feature_dimensions`
compares the subspaces where they do live together, in sample space: on ``m`` shared samples the
model's fine-tuning functions ``x -> theta^T phi(x)`` are the column span of its feature matrix
``F`` (m, D), and its top-``d`` principal functions are the top-``d`` left singular vectors
``U`` (m, d) of ``F``, an orthonormal basis of a subspace of ``R^m`` (the empirical ``L2`` of the
inputs). ``d_sw = ||U_s^T U_w||_F^2`` then needs no common feature coordinates, holds for any
widths, and is unchanged by any orthogonal map of either model's features. In the Gaussian model
(``F = X V``, ``X`` (m, D) standard normal) ``U_s^T U_w -> V_s^T V_w`` as ``m`` grows, so it is
the paper's ``||V_s^T V_w||_F^2``.
"""

from __future__ import annotations

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real


def _features(name: str, features) -> np.ndarray:
    F = real_array(name, features, nonempty=False)
    if F.ndim != 2 or min(F.shape) < 1:
        raise ValueError(f"{name} must be a 2-d array (samples, features), got shape {F.shape}")
    return F


def _nonzero(name: str, F: np.ndarray) -> np.ndarray:
    if not F.any():
        raise ValueError(f"{name} must not be all zero: it has no principal directions")
    return F


def _gram_eigh(F: np.ndarray, vectors: bool = True):
    """Squared singular values of F (m, D), m >= D, by decreasing size (and right singular
    vectors): the eigendecomposition of the (D, D) Gram matrix ``F^T F`` in float64, several
    times cheaper than the SVD of F when m >> D (no (m, D) left factor to form).

    Through the Gram matrix, rounding errors scale with ``s_1^2`` rather than ``s_1``: an
    eigenvalue is off by about ``eps s_1^2`` (the energy sums below need ``1e-12`` relative), and
    a top-``d`` subspace by about ``eps s_1^2 / (s_d^2 - s_{d+1}^2)``, a factor ``s_1 / s_d``
    above the SVD's; for float64 that is ``1e-12`` at ``s_1 / s_d = 1e4`` with a 2x gap.
    """
    G = F.T @ F  # (D, D), symmetric (numpy forms A^T A by syrk)
    if not vectors:
        return np.clip(np.linalg.eigvalsh(G)[::-1], 0.0, None)
    lam, V = np.linalg.eigh(G)  # ascending
    return np.clip(lam[::-1], 0.0, None), V[:, ::-1]


def intrinsic_dimension(features, fraction: float = 0.9) -> int:
    """Smallest ``d`` with ``sum_{i<=d} s_i^2 >= fraction * sum_i s_i^2`` (official definition).

    Parameters
    ----------
    features : array_like, shape (m, D)
        Feature matrix, one row per sample (not centred, as in the paper's code).
    fraction : float, default 0.9
        Share of the squared singular values to keep, in (0, 1].

    Returns
    -------
    int
        The intrinsic dimension ``d``, in ``[1, min(m, D)]``.

    Raises
    ------
    ValueError
        If ``features`` is not a finite 2-D array, is all zero, or ``fraction`` is out of range.

    Notes
    -----
    For ``m >= D`` the squared singular values are the eigenvalues of ``F^T F`` (float64); for
    ``m < D`` they come from the SVD of ``F``.
    """
    F = _features("features", features)
    fraction = check_real("fraction", fraction, low=0.0, high=1.0, low_open=True)
    if F.shape[0] >= F.shape[1]:  # squared singular values from the (D, D) Gram matrix
        energy = np.cumsum(_gram_eigh(F, vectors=False))  # (D,)
    else:
        energy = np.cumsum(np.linalg.svd(F, compute_uv=False) ** 2)  # (m,)
    if energy[-1] == 0:
        raise ValueError("features must not be all zero")
    # a relative tolerance so that an exact split (e.g. 9 equal values of 10 at 0.9) counts
    return int(np.searchsorted(energy, fraction * energy[-1] * (1 - 1e-12)) + 1)


def principal_subspace(features, dim: int) -> np.ndarray:
    """(D, dim) orthonormal top-``dim`` eigenvectors of ``F^T F / m`` for features F (m, D).

    All-zero features, NaN or inf are refused.

    Parameters
    ----------
    features : array_like, shape (m, D)
        Feature matrix, one row per sample.
    dim : int
        Number of eigenvectors, ``1 <= dim <= D``.

    Returns
    -------
    numpy.ndarray, shape (D, dim)
        Orthonormal columns, by decreasing eigenvalue.

    Raises
    ------
    ValueError
        If ``features`` is not finite and 2-D, is all zero, or ``dim`` is out of range.

    Notes
    -----
    For ``m >= D`` these are computed by ``eigh`` of ``F^T F`` (float64), for ``m < D`` as the
    right singular vectors of ``F``; the subspaces agree to about
    ``eps s_1^2 / (s_dim^2 - s_{dim+1}^2)``.
    """
    F = _nonzero("features", _features("features", features))
    dim = check_int("dim", dim, minimum=1)
    if dim > F.shape[1]:
        raise ValueError(f"dim must be <= the feature width {F.shape[1]}, got {dim}")
    if F.shape[0] >= F.shape[1]:  # eigenvectors of F^T F directly (see _gram_eigh)
        return np.ascontiguousarray(_gram_eigh(F)[1][:, :dim])
    _, _, Vt = np.linalg.svd(F, full_matrices=False)  # right singular vectors = eigenvectors
    return Vt[:dim].T


def correlation_dimension(Vs, Vw, *, atol: float = 1e-6) -> float:
    """``d_sw = ||V_s^T V_w||_F^2``: the sum of squared cosines of the principal angles.

    Parameters
    ----------
    Vs : array_like, shape (D, d_s)
        Orthonormal basis of the strong subspace.
    Vw : array_like, shape (D, d_w)
        Orthonormal basis of the weak subspace, in the same ambient space.
    atol : float, default 1e-6
        Tolerance of the orthonormality check.

    Returns
    -------
    float
        A number in ``[0, min(d_s, d_w)]``: ``d_sw`` equals the dimension of the
        intersection when the subspaces share some directions and are orthogonal otherwise.

    Raises
    ------
    ValueError
        If a basis is not orthonormal or the two have different numbers of rows.
    """
    Vs, Vw = _basis("Vs", Vs, atol), _basis("Vw", Vw, atol)
    if Vs.shape[0] != Vw.shape[0]:
        raise ValueError(
            f"Vs and Vw must have the same number of rows (ambient dimension), "
            f"got {Vs.shape[0]} and {Vw.shape[0]}"
        )
    return float(np.sum((Vs.T @ Vw) ** 2))


def _basis(name: str, V, atol: float) -> np.ndarray:
    V = _features(name, V)
    if V.shape[1] > V.shape[0]:
        raise ValueError(f"{name} must have at most as many columns as rows, got {V.shape}")
    if not np.allclose(V.T @ V, np.eye(V.shape[1]), atol=atol):
        raise ValueError(f"{name} must have orthonormal columns (V^T V = I)")
    return V


def sample_subspace(features, dim: int) -> np.ndarray:
    """(m, dim) orthonormal top-``dim`` left singular vectors of features F (m, D).

    The span, in sample space ``R^m``, of the model's top ``dim`` principal feature functions:
    ``U[:, :dim] = F V[:, :dim] / s[:dim]`` for ``F = U diag(s) V^T``. All-zero features,
    NaN or inf are refused.

    Parameters
    ----------
    features : array_like, shape (m, D)
        Feature matrix, one row per sample.
    dim : int
        Number of singular vectors, ``1 <= dim <= min(m, D)``.

    Returns
    -------
    numpy.ndarray, shape (m, dim)
        Orthonormal columns, by decreasing singular value.

    Raises
    ------
    ValueError
        If ``features`` is not finite and 2-D, is all zero, or ``dim`` is out of range.
    """
    F = _nonzero("features", _features("features", features))
    dim = check_int("dim", dim, minimum=1)
    if dim > min(F.shape):
        raise ValueError(f"dim must be <= min(samples, width) = {min(F.shape)}, got {dim}")
    U, _, _ = np.linalg.svd(F, full_matrices=False)  # (m, min(m, D))
    return U[:, :dim]


def match_feature_dim(features_s, features_w, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Project the wider of two feature matrices to the narrower width by a Gaussian map.

    The official code's way to put two models' features in one space; returns
    ``(features_s, features_w)`` with equal widths.

    Parameters
    ----------
    features_s : array_like, shape (m, D_s)
        Strong model's features.
    features_w : array_like, shape (m, D_w)
        Weak model's features on the same samples.
    seed : int, numpy.random.Generator or None, optional
        Seed of the Gaussian map ``(D_big, D_small) / sqrt(D_small)``.

    Returns
    -------
    features_s : numpy.ndarray, shape (m, min(D_s, D_w))
        Strong features, projected if they were the wider.
    features_w : numpy.ndarray, shape (m, min(D_s, D_w))
        Weak features, projected if they were the wider.

    Raises
    ------
    ValueError
        If the inputs are not finite 2-D arrays with the same number of rows.
    """
    Fs, Fw = _features("features_s", features_s), _features("features_w", features_w)
    if Fs.shape[0] != Fw.shape[0]:
        raise ValueError(
            f"features_s and features_w must have the same samples (rows), "
            f"got {Fs.shape[0]} and {Fw.shape[0]}"
        )
    d = min(Fs.shape[1], Fw.shape[1])
    rng = np.random.default_rng(seed)
    if Fs.shape[1] > d:
        Fs = Fs @ rng.standard_normal((Fs.shape[1], d)) / np.sqrt(d)
    if Fw.shape[1] > d:
        Fw = Fw @ rng.standard_normal((Fw.shape[1], d)) / np.sqrt(d)
    return Fs, Fw


def feature_dimensions(features_s, features_w, fraction: float = 0.9) -> tuple[int, int, float]:
    """``(d_s, d_w, d_sw)`` of a strong/weak pair from their features on the same samples.

    Parameters
    ----------
    features_s : array_like, shape (m, D_s)
        Strong model's features on ``m`` samples.
    features_w : array_like, shape (m, D_w)
        Weak model's features on the same samples, in the same order;
        ``D_w`` may differ from ``D_s``.
    fraction : float, default 0.9
        Share of the squared singular values that defines the intrinsic dimensions.

    Returns
    -------
    d_s : int
        Intrinsic dimension of the strong features (:func:`intrinsic_dimension`).
    d_w : int
        Intrinsic dimension of the weak features.
    d_sw : float
        ``d_sw = ||U_s^T U_w||_F^2``, the correlation dimension of the two models' principal
        subspaces in sample space (:func:`sample_subspace`): coordinate-free, in
        ``[0, min(d_s, d_w)]``.

    Raises
    ------
    ValueError
        If the inputs are not finite 2-D arrays with the same rows, or are all zero.
    """
    Fs, Fw = _features("features_s", features_s), _features("features_w", features_w)
    if Fs.shape[0] != Fw.shape[0]:
        raise ValueError(
            f"features_s and features_w must have the same samples (rows), "
            f"got {Fs.shape[0]} and {Fw.shape[0]}"
        )
    d_s = intrinsic_dimension(Fs, fraction)
    d_w = intrinsic_dimension(Fw, fraction)
    return d_s, d_w, correlation_dimension(sample_subspace(Fs, d_s), sample_subspace(Fw, d_w))
