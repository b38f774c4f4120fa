"""The task maps of the theory, built from a user's raw sequences.

Proca, Dominé, Shanahan & Mediano, ICML 2025, Sec. 2. For inputs ``x_i`` (i = 1..T) and a
target ``y`` at the end of the sequence, the mean squared error of a linear RNN is, up to a
constant,

    1/2 E||y - sum_i M_i x_i||^2 = 1/2 sum_i ||S(i) - M_i||_F^2   when E[x_i x_j^T] = delta_ij I,

with ``M_i = W_y W_h^{T-i} W_x`` and the input-output cross-covariance maps
``S(i) = E[y x_i^T]``. The reduced (mode-wise) dynamics further need the maps to share singular
vectors, ``S(i) = U diag(s(i)) V^T``. :func:`cross_covariance_maps` estimates ``S`` and says how
white the inputs are (the first condition); :func:`task_modes` finds the shared ``U, V``, the
profiles ``s (m, T)`` that :func:`~icml25.lrnn_dynamics.reduced.reduced_flow` takes, and how
much of ``S`` they leave out (the second condition).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from icml25.common.arrays import real_array

MAX_COVARIANCE = 2**30  # (T d_in)^2 second moments beyond this are refused as a size typo


@dataclass(frozen=True)
class TaskMaps:
    """Input-output cross-covariance maps estimated from sequences, with a whiteness check.

    Parameters
    ----------
    S : numpy.ndarray, shape (T, d_out, d_in)
        The maps in time order, ``S[t] = E[y x_{t+1}^T]`` (0-based ``t``).
    whiteness : float
        ``||C - I||_F / sqrt(T d_in)`` for the input second moments ``C`` over all ``T d_in``
        coordinates: 0 for white inputs; the exact loss needs it near 0.
    samples : int
        Number of sequences ``B`` the means were taken over.
    """

    S: np.ndarray
    whiteness: float
    samples: int


def cross_covariance_maps(x, y, center: bool = False) -> TaskMaps:
    """Estimate the task maps ``S(i) = E[y x_i^T]`` from raw sequences and targets.

    Sample means over the ``B`` sequences. ``center=False`` uses second moments, which is what
    a network without biases fits; ``center=True`` subtracts the sample means first
    (covariances).

    Parameters
    ----------
    x : array_like, shape (B, T, d_in)
        Finite input sequences, ``B >= 2``, ``T >= 1``, ``d_in >= 1``; ``(T d_in)^2`` at most
        ``2**30``.
    y : array_like, shape (B, d_out)
        Finite targets at the end of each sequence, ``d_out >= 1``.
    center : bool, default False
        Subtract the sample means of ``x`` and ``y`` first.

    Returns
    -------
    TaskMaps
        ``S`` (T, d_out, d_in), the whiteness of the inputs and the number of samples ``B``.
    """
    x = real_array("x", x, nonempty=False)
    y = real_array("y", y, nonempty=False)
    if not isinstance(center, bool | np.bool_):
        raise TypeError(f"center must be True or False, got {center!r}")
    if x.ndim != 3 or x.shape[0] < 2 or x.shape[1] < 1 or x.shape[2] < 1:
        raise ValueError(f"x must have shape (B, T, d_in) with B >= 2, got {x.shape}")
    if y.ndim != 2 or y.shape[0] != x.shape[0] or y.shape[1] < 1:
        raise ValueError(f"y must have shape (B, d_out) with B = {x.shape[0]}, got {y.shape}")
    if (x.shape[1] * x.shape[2]) ** 2 > MAX_COVARIANCE:
        raise ValueError(f"x is too large: T * d_in = {x.shape[1] * x.shape[2]} (at most 2**15)")
    if center:
        x = x - x.mean(axis=0)
        y = y - y.mean(axis=0)
    B, T, d_in = x.shape
    S = np.einsum("bo,bti->toi", y, x) / B  # (T, d_out, d_in)
    flat = x.reshape(B, T * d_in)  # (B, T d_in)
    C = flat.T @ flat / B  # (T d_in, T d_in)
    whiteness = float(np.linalg.norm(C - np.eye(T * d_in)) / np.sqrt(T * d_in))
    return TaskMaps(S, whiteness, B)


@dataclass(frozen=True)
class TaskModes:
    """Shared singular vectors of task maps and their profiles, ``S(i) ~ U diag(s(i)) V^T``.

    Parameters
    ----------
    U : numpy.ndarray, shape (d_out, m)
        Left singular vectors shared by all maps, ``m = min(d_out, d_in)``.
    s : numpy.ndarray, shape (m, T)
        Profiles in time order: ``s[a, t]`` is the value of mode ``a`` in ``S[t]``.
    V : numpy.ndarray, shape (d_in, m)
        Right singular vectors shared by all maps.
    residual : float
        ``||S - U diag(s) V^T||_F / ||S||_F``: 0 when the maps share singular vectors.
    """

    U: np.ndarray
    s: np.ndarray
    V: np.ndarray
    residual: float


def task_modes(S) -> TaskModes:
    """Shared singular vectors of the maps ``S (T, d_out, d_in)`` and their profiles.

    When ``S(i) = U diag(s(i)) V^T`` for all ``i``, ``U`` diagonalises ``sum_i S(i) S(i)^T``
    and ``V`` diagonalises ``sum_i S(i)^T S(i)`` (eigenvalues ``sum_i s_a(i)^2``). We take
    both eigenbases (descending), pair left and right vectors by the assignment that keeps the
    most of ``sum_i (u_a^T S(i) v_b)^2``, and sign each pair so that the largest ``|s_a(i)|``
    is positive. Modes whose ``sum_i s_a(i)^2`` coincide are not identifiable; the residual
    then says how much the chosen basis misses.

    Parameters
    ----------
    S : array_like, shape (T, d_out, d_in)
        Finite, not all zero, task maps in time order (for instance ``TaskMaps.S``).

    Returns
    -------
    TaskModes
        ``U`` (d_out, m), ``s`` (m, T), ``V`` (d_in, m) with ``m = min(d_out, d_in)``, and the
        relative residual of the fit.
    """
    S = real_array("S", S, nonempty=False)
    if S.ndim != 3 or min(S.shape) < 1 or not np.all(np.isfinite(S)):
        raise ValueError(f"S must be a finite (T, d_out, d_in) array, got shape {S.shape}")
    total = np.linalg.norm(S)
    if total == 0:
        raise ValueError("S is zero: the targets carry no linear information about the inputs")
    m = min(S.shape[1], S.shape[2])
    _, U = np.linalg.eigh(np.einsum("toi,tpi->op", S, S))  # (d_out, d_out), ascending
    _, V = np.linalg.eigh(np.einsum("toi,toj->ij", S, S))  # (d_in, d_in), ascending
    U, V = U[:, ::-1][:, :m], V[:, ::-1][:, :m]
    cross = np.einsum("oa,toi,ib->tab", U, S, V)  # (T, m, m)
    rows, cols = linear_sum_assignment(np.sum(cross**2, axis=0), maximize=True)
    V = V[:, cols[np.argsort(rows)]]
    s = np.einsum("om,toi,im->mt", U, S, V)  # (m, T)
    sign = np.sign(s[np.arange(m), np.argmax(np.abs(s), axis=1)])
    sign[sign == 0] = 1.0
    V, s = V * sign, s * sign[:, None]
    residual = float(np.linalg.norm(S - np.einsum("om,mt,im->toi", U, s, V)) / total)
    return TaskModes(U, s, V, residual)
