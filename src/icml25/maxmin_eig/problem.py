"""The max-min eigenvalue augmentation problem and its objective.

Lamperski, Yang & Prokopyev, "Simple Randomized Rounding for Max-Min Eigenvalue Augmentation",
ICML 2025 (PMLR 267:32406-32419). Given symmetric PSD matrices ``M, A_1, ..., A_m`` of size
``n x n`` and an integer ``k < m``, choose ``I`` with ``|I| <= k`` maximising

    lambda_min(M + sum_{i in I} A_i).

``R = max_i trace(A_i)`` sets the scale of the paper's guarantee.
"""

from __future__ import annotations

import numpy as np

from icml25.common.arrays import int_array
from icml25.common.validate import check_int

PSD_TOLERANCE = 1e-8  # relative to the largest absolute entry


def check_problem(M, As, k=None) -> tuple[np.ndarray, np.ndarray, int | None]:
    """``M`` (n, n), ``As`` (m, n, n) as float arrays, symmetric PSD; ``1 <= k < m``.

    Parameters
    ----------
    M : array_like of float, shape (n, n)
        Base matrix, symmetric PSD, finite, ``n >= 1``.
    As : array_like of float, shape (m, n, n)
        Candidate matrices, each symmetric PSD, finite, ``m >= 1``.
    k : int, optional
        Most matrices to choose, ``1 <= k < m``; not checked if None.

    Returns
    -------
    M : ndarray, shape (n, n)
        ``M`` as a float array.
    As : ndarray, shape (m, n, n)
        ``As`` as a float array.
    k : int or None
        ``k`` as checked.
    """
    M = _as_float_array("M", M)
    As = _as_float_array("As", As)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
        raise ValueError(f"M must be a square non-empty matrix, got shape {M.shape}")
    n = M.shape[0]
    if As.ndim != 3 or As.shape[1:] != (n, n) or As.shape[0] == 0:
        raise ValueError(f"As must have shape (m, {n}, {n}) with m >= 1, got shape {As.shape}")
    _check_symmetric_psd("M", M[None])
    _check_symmetric_psd("As", As)
    if k is not None:
        k = check_int("k", k, minimum=1)
        if k >= As.shape[0]:
            raise ValueError(f"k must be smaller than m = {As.shape[0]}, got {k}")
    return M, As, k


def _as_float_array(name: str, value) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a numeric array") from err
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return array


def _check_symmetric_psd(name: str, mats: np.ndarray) -> None:
    scale = max(1.0, float(np.abs(mats).max()))
    if not np.allclose(mats, mats.transpose(0, 2, 1), atol=PSD_TOLERANCE * scale):
        raise ValueError(f"{name} must be symmetric")
    low = np.linalg.eigvalsh(mats)[:, 0]  # (m,)
    if low.min() < -1e-7 * scale:
        bad = int(low.argmin())
        raise ValueError(
            f"{name} must be positive semidefinite: matrix {bad} has eigenvalue {low[bad]:.3g}"
        )


def max_trace(As: np.ndarray) -> float:
    """``R = max_i trace(A_i)``.

    Parameters
    ----------
    As : ndarray, shape (m, n, n)
        Candidate matrices.

    Returns
    -------
    R : float
        Largest trace of the candidates.
    """
    return float(np.trace(As, axis1=1, axis2=2).max())


def selection_values(M: np.ndarray, As: np.ndarray, selections: np.ndarray) -> np.ndarray:
    """``lambda_min(M + sum_{i in I} A_i)`` for many selections at once.

    The sums are built by adding ``k`` gathered slices (cost s k n^2), never an
    (s, m) x (m, n^2) product, and the eigenvalues come from one batched ``eigvalsh``.
    The inputs are not checked (see :func:`check_problem`).

    Parameters
    ----------
    M : ndarray, shape (n, n)
        Base matrix.
    As : ndarray, shape (m, n, n)
        Candidate matrices.
    selections : ndarray of int, shape (s, k)
        Row t lists the indices of one selection, padded with -1.

    Returns
    -------
    values : ndarray, shape (s,)
        ``lambda_min`` of each selection's sum.
    """
    n = M.shape[0]
    padded = np.concatenate([As, np.zeros((1, n, n))])  # index -1 is the zero matrix
    selections = np.asarray(selections, dtype=np.int64).reshape(len(selections), -1)
    out = np.empty(len(selections))
    chunk = max(1, 2**24 // (n * n))
    for start in range(0, len(selections), chunk):
        rows = selections[start : start + chunk]  # (c, k)
        total = np.broadcast_to(M, (len(rows), n, n)).copy()  # (c, n, n)
        for j in range(rows.shape[1]):
            total += padded[rows[:, j]]
        out[start : start + chunk] = np.linalg.eigvalsh(total)[:, 0]
    return out


def value(M: np.ndarray, As: np.ndarray, selection) -> float:
    """``lambda_min(M + sum_{i in selection} A_i)`` for one selection (distinct indices into
    ``As``). ``M`` and ``As`` are checked for shape and finiteness here; that they are
    symmetric PSD is :func:`check_problem`'s to check (an eigendecomposition of each).

    Parameters
    ----------
    M : array_like of float, shape (n, n)
        Base matrix.
    As : array_like of float, shape (m, n, n)
        Candidate matrices.
    selection : array_like of int, shape (j,)
        Distinct indices into ``As`` (may be empty: then ``lambda_min(M)``).

    Returns
    -------
    float
        ``lambda_min(M + sum_{i in selection} A_i)``.
    """
    M, As = _as_float_array("M", M), _as_float_array("As", As)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
        raise ValueError(f"M must be a square non-empty matrix, got shape {M.shape}")
    n = M.shape[0]
    if As.ndim != 3 or As.shape[1:] != (n, n) or As.shape[0] == 0:
        raise ValueError(f"As must have shape (m, {n}, {n}) with m >= 1, got shape {As.shape}")
    selection = int_array("selection", selection, low=0, high=As.shape[0] - 1, nonempty=False)
    if selection.ndim > 1 or len(np.unique(selection)) != selection.size:
        raise ValueError(f"selection must be distinct indices into As, got {selection.tolist()}")
    selection = selection.reshape(1, -1)
    if selection.size == 0:
        return float(np.linalg.eigvalsh(M)[0])
    return float(selection_values(M, As, selection)[0])
