"""Exact OT yardsticks between labelled datasets, computed with POT (independent of the sliced
distances the flow uses).

- ``W2(mu, nu) = sqrt(ot.emd2(a, b, M))`` with ``M`` the squared Euclidean cost and uniform
  weights: the 2-Wasserstein *distance* (not its square) between two classes;
- ``WoW(P, Q) = sqrt(ot.emd2(1/C, 1/C', W))`` with ``W[c, c'] = W2^2(mu_c, nu_c')``: the
  Wasserstein over Wasserstein distance between two datasets (the paper's metric, Eq. (5));
- :func:`match_classes`: the class of ``Q`` each class of ``P`` is sent to by that outer plan
  (the official ``get_labels``).

These loop over pairs of classes with one exact solver call each: used to evaluate, never in a
flow.
"""

from __future__ import annotations

import numpy as np
import ot

from icml25.common.arrays import real_array


def w2_squared_matrix(P, Q) -> np.ndarray:
    """Exact squared 2-Wasserstein distance between every pair of classes.

    Each entry is ``ot.emd2`` with uniform weights and the squared Euclidean cost, one exact solve
    per pair of classes (clipped at 0).

    Parameters
    ----------
    P : array_like, shape (C, n, d)
        Classes of the first dataset, finite.
    Q : array_like, shape (C', m, d)
        Classes of the second dataset, same ``d``.

    Returns
    -------
    W : ndarray, shape (C, C')
        ``W2^2(mu_c, nu_c')``.
    """
    P, Q = _datasets(P, Q)
    a, b = _uniform(P.shape[1]), _uniform(Q.shape[1])
    out = np.empty((len(P), len(Q)))
    for i, mu in enumerate(P):
        for j, nu in enumerate(Q):
            out[i, j] = ot.emd2(a, b, ot.dist(mu, nu, metric="sqeuclidean"))
    return np.maximum(out, 0.0)


def wow_distance(P, Q) -> float:
    """Exact Wasserstein over Wasserstein distance between two labelled datasets.

    ``WoW(P, Q) = sqrt(ot.emd2(1/C, 1/C', W))`` with ``W`` from :func:`w2_squared_matrix`: the
    paper's metric, Eq. (5), used to evaluate, never inside a flow.

    Parameters
    ----------
    P : array_like, shape (C, n, d)
        Classes of the first dataset, finite.
    Q : array_like, shape (C', m, d)
        Classes of the second dataset, same ``d``.

    Returns
    -------
    float
        The WoW distance (not its square).
    """
    cost = w2_squared_matrix(P, Q)  # (C, C')
    outer = ot.emd2(_uniform(cost.shape[0]), _uniform(cost.shape[1]), cost)
    return float(np.sqrt(max(outer, 0.0)))


def match_classes(P, Q, cost: np.ndarray | None = None) -> np.ndarray:
    """Match each class of one dataset to a class of another by the outer optimal plan.

    The plan of the outer OT problem between uniform weights on the classes, with cost ``W2^2``;
    each class of ``P`` goes to the class of ``Q`` that gets most of its mass. With equal class
    counts this is a permutation.

    Parameters
    ----------
    P : array_like, shape (C, n, d)
        Classes of the first dataset, finite.
    Q : array_like, shape (C', m, d)
        Classes of the second dataset, same ``d``.
    cost : ndarray, shape (C, C'), optional
        A precomputed cost (as from :func:`w2_squared_matrix`); None (default) computes it.

    Returns
    -------
    ndarray of int, shape (C,)
        Index of the matched class of ``Q`` for each class of ``P``.
    """
    if cost is None:
        cost = w2_squared_matrix(P, Q)
    else:
        P, Q = _datasets(P, Q)
        cost = real_array("cost", cost, ndim=2)
        if cost.shape != (len(P), len(Q)):
            raise ValueError(f"cost must have shape ({len(P)}, {len(Q)}), got {cost.shape}")
    plan = ot.emd(_uniform(cost.shape[0]), _uniform(cost.shape[1]), cost)  # (C, C')
    return plan.argmax(axis=1)


def _datasets(P, Q) -> tuple[np.ndarray, np.ndarray]:
    """Two labelled datasets (C, n, d) and (C', m, d) as finite float arrays of one ``d``."""
    P, Q = real_array("P", P, ndim=3), real_array("Q", Q, ndim=3)
    if P.shape[2] != Q.shape[2]:
        raise ValueError(
            f"P and Q must have points of one dimension, got {P.shape[2]} and {Q.shape[2]}"
        )
    return P, Q


def _uniform(n: int) -> np.ndarray:
    return np.full(n, 1.0 / n)
