"""Solvers for max-min eigenvalue augmentation: the relaxation, its randomized rounding, greedy
and exact enumeration.

The relaxation (an SDP) replaces the 0/1 choice by a weight ``x_i`` in [0, 1]:

    maximise t   subject to   M + sum_i x_i A_i - t I  PSD,   0 <= x <= 1,   sum_i x_i <= k,

and its optimum ``t*`` bounds OPT from above. Randomized rounding (the paper's simple method)
keeps each ``i`` independently with probability ``x_i``. The paper proves that a draw increases
``lambda_min`` by a constant fraction of ``OPT - lambda_min(M)`` with constant probability once
that optimal increase is ``Omega(R ln k)``.

We could not obtain the paper's full text (only its abstract), so two details are our choices,
stated here and in the README: the probabilities are the relaxation's ``x`` unscaled, and a draw
that keeps more than ``k`` indices is trimmed to its ``k`` indices of largest ``x_i``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from icml25.common.validate import check_int
from icml25.maxmin_eig.problem import check_problem, selection_values, value

METHODS = ("rounding", "greedy", "exact")


def relax(M, As, k, *, solver: str | None = None) -> tuple[np.ndarray, float]:
    """Solve the SDP relaxation with cvxpy.

    The default solver is Clarabel (interior point) for ``n <= 40`` and SCS (first order) above,
    where Clarabel's time grows fastest (at n = 120, m = 150: 126 s against SCS's 13 s, both at
    the same optimum to 1e-6). Pass ``solver`` to choose.

    Parameters
    ----------
    M : array_like of float, shape (n, n)
        Base matrix, symmetric PSD.
    As : array_like of float, shape (m, n, n)
        Candidate matrices, symmetric PSD.
    k : int
        Most matrices to choose, ``1 <= k < m``.
    solver : str, optional
        A cvxpy solver name; default ``"CLARABEL"`` for ``n <= 40``, else ``"SCS"``.

    Returns
    -------
    x : ndarray, shape (m,)
        Fractional weights in [0, 1] summing to at most k.
    bound : float
        The relaxation's optimum ``t*`` >= OPT (up to the solver's tolerance).
    """
    import cvxpy as cp

    M, As, k = check_problem(M, As, k)
    m, n = As.shape[0], M.shape[0]
    x, t = cp.Variable(m), cp.Variable()
    total = M + cp.reshape(As.reshape(m, n * n).T @ x, (n, n), order="C")  # M + sum x_i A_i
    constraints = [(total + total.T) / 2 - t * np.eye(n) >> 0, x >= 0, x <= 1, cp.sum(x) <= k]
    problem = cp.Problem(cp.Maximize(t), constraints)
    with warnings.catch_warnings():  # cvxpy's own inaccuracy warning: we raise ours below
        warnings.simplefilter("ignore", UserWarning)
        problem.solve(solver=solver or ("CLARABEL" if n <= 40 else "SCS"))
    if x.value is None or problem.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"the relaxation was not solved (status {problem.status})")
    if problem.status == "optimal_inaccurate":
        warnings.warn("the relaxation's solver reports an inaccurate optimum", stacklevel=2)
    return np.clip(x.value, 0.0, 1.0), float(t.value)


def rounding_draws(x, M, As, k, *, trials: int, seed=0) -> tuple[np.ndarray, np.ndarray]:
    """``trials`` independent roundings of ``x`` and their values.

    Each index ``i`` is kept with probability ``x_i``; a draw keeping more than ``k`` is trimmed
    to its ``k`` kept indices of largest ``x_i``.

    Parameters
    ----------
    x : array_like of float, shape (m,)
        Keep probabilities in [0, 1], e.g. from ``relax``.
    M : array_like of float, shape (n, n)
        Base matrix, symmetric PSD.
    As : array_like of float, shape (m, n, n)
        Candidate matrices, symmetric PSD.
    k : int
        Most matrices to keep, ``1 <= k < m``.
    trials : int
        Independent draws, ``>= 1``.
    seed : int or numpy.random.Generator, default 0
        Seed of the draws.

    Returns
    -------
    selections : ndarray of int, shape (trials, k)
        Each row's kept indices padded with -1.
    values : ndarray, shape (trials,)
        ``lambda_min`` of each draw.
    """
    M, As, k = check_problem(M, As, k)
    x = np.asarray(x, dtype=float)
    if x.shape != (As.shape[0],) or not np.all((x >= 0) & (x <= 1)):
        raise ValueError(f"x must have shape ({As.shape[0]},) with entries in [0, 1]")
    trials = check_int("trials", trials, minimum=1)
    rng = np.random.default_rng(seed)
    kept = rng.random((trials, x.size)) < x  # (trials, m): independent Bernoulli(x_i)
    score = np.where(kept, x, -1.0)  # trimming keeps the k kept indices of largest x_i
    order = np.argsort(-score, axis=1, kind="stable")[:, :k]  # (trials, k)
    selections = np.where(np.take_along_axis(kept, order, axis=1), order, -1)
    return selections, selection_values(M, As, selections)


def randomized_rounding(x, M, As, k, *, trials: int = 20, seed=0) -> np.ndarray:
    """The best of ``trials`` roundings of ``x``: a sorted array of at most ``k`` indices.

    Parameters
    ----------
    x : array_like of float, shape (m,)
        Keep probabilities in [0, 1], e.g. from ``relax``.
    M : array_like of float, shape (n, n)
        Base matrix, symmetric PSD.
    As : array_like of float, shape (m, n, n)
        Candidate matrices, symmetric PSD.
    k : int
        Most matrices to keep, ``1 <= k < m``.
    trials : int, default 20
        Independent draws, ``>= 1``.
    seed : int or numpy.random.Generator, default 0
        Seed of the draws.

    Returns
    -------
    selection : ndarray of int, shape (j,)
        Sorted indices of the draw of largest ``lambda_min``, ``j <= k``.
    """
    selections, values = rounding_draws(x, M, As, k, trials=trials, seed=seed)
    best = selections[int(np.argmax(values))]
    return np.sort(best[best >= 0])


def greedy(M, As, k) -> np.ndarray:
    """Add, ``k`` times, the matrix that raises ``lambda_min`` the most (each step is one
    batched eigenvalue computation over the remaining candidates).

    Parameters
    ----------
    M : array_like of float, shape (n, n)
        Base matrix, symmetric PSD.
    As : array_like of float, shape (m, n, n)
        Candidate matrices, symmetric PSD.
    k : int
        Matrices to choose, ``1 <= k < m``.

    Returns
    -------
    selection : ndarray of int64, shape (k,)
        Sorted indices chosen.
    """
    M, As, k = check_problem(M, As, k)
    base = M.copy()  # (n, n): M plus the chosen, added in the order chosen
    free = np.ones(As.shape[0], dtype=bool)
    chosen: list[int] = []
    for _ in range(k):
        rest = np.flatnonzero(free)  # (r,) ascending
        values = np.linalg.eigvalsh(base + As[rest])[:, 0]  # (r,) lambda_min with each added
        pick = int(rest[np.argmax(values)])
        chosen.append(pick)
        free[pick] = False
        base += As[pick]
    return np.sort(np.array(chosen, dtype=np.int64))


def exact(M, As, k, *, max_subsets: int = 200_000) -> np.ndarray:
    """Enumerate every subset of size ``k`` (adding a PSD matrix never lowers lambda_min, so an
    optimal set of size exactly k exists). Refuses when there are more than ``max_subsets``.

    Parameters
    ----------
    M : array_like of float, shape (n, n)
        Base matrix, symmetric PSD.
    As : array_like of float, shape (m, n, n)
        Candidate matrices, symmetric PSD.
    k : int
        Matrices to choose, ``1 <= k < m``.
    max_subsets : int, default 200_000
        Largest ``C(m, k)`` enumerated; more raises ValueError.

    Returns
    -------
    selection : ndarray of int64, shape (k,)
        An optimal subset, sorted.
    """
    M, As, k = check_problem(M, As, k)
    m = As.shape[0]
    count = math.comb(m, k)
    if count > max_subsets:
        raise ValueError(
            f"exact enumeration needs C({m}, {k}) = {count} subsets, more than "
            f"max_subsets = {max_subsets}: use method='rounding' or 'greedy'"
        )
    subsets = np.array(list(combinations(range(m), k)), dtype=np.int64)  # (count, k)
    return subsets[int(np.argmax(selection_values(M, As, subsets)))]


@dataclass(frozen=True)
class Augmentation:
    """What ``augment`` returns.

    Parameters
    ----------
    selection : ndarray of int, shape (j,)
        Sorted indices chosen, ``j <= k``.
    value : float
        ``lambda_min(M + sum of the selected A_i)``.
    base : float
        ``lambda_min(M)``.
    bound : float or None
        The relaxation's upper bound on OPT, when computed (``method="rounding"``).
    """

    selection: np.ndarray  # (<= k,) sorted indices
    value: float  # lambda_min(M + sum of the selected A_i)
    base: float  # lambda_min(M)
    bound: float | None  # the relaxation's upper bound on OPT, when computed


def augment(M, As, k, method: str = "rounding", *, seed=0, trials: int = 20) -> Augmentation:
    """Choose at most ``k`` of the ``A_i`` to maximise ``lambda_min(M + sum A_i)``.

    Parameters
    ----------
    M : array_like of float, shape (n, n)
        Base matrix, symmetric PSD.
    As : array_like of float, shape (m, n, n)
        Candidate matrices, symmetric PSD.
    k : int
        Most matrices to choose, ``1 <= k < m``.
    method : str, default "rounding"
        ``"rounding"`` (relaxation, then the best of ``trials`` roundings), ``"greedy"`` or
        ``"exact"`` (small m only).
    seed : int or numpy.random.Generator, default 0
        Seed of the roundings.
    trials : int, default 20
        Roundings drawn with ``method="rounding"``.

    Returns
    -------
    Augmentation
        The selection, its value, ``lambda_min(M)`` and the relaxation's bound.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    M, As, k = check_problem(M, As, k)
    bound = None
    if method == "rounding":
        x, bound = relax(M, As, k)
        selection = randomized_rounding(x, M, As, k, trials=trials, seed=seed)
    elif method == "greedy":
        selection = greedy(M, As, k)
    else:
        selection = exact(M, As, k)
    return Augmentation(selection, value(M, As, selection), value(M, As, []), bound)
