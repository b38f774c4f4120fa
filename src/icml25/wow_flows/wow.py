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
    """``W2^2`` between every class of ``P`` (C, n, d) and of ``Q`` (C', m, d): (C, C')."""
    P, Q = _datasets(P, Q)
    a, b = _uniform(P.shape[1]), _uniform(Q.shape[1])
    out = np.empty((len(P), len(Q)))
    for i, mu in enumerate(P):
        for j, nu in enumerate(Q):
            out[i, j] = ot.emd2(a, b, ot.dist(mu, nu, metric="sqeuclidean"))
    return np.maximum(out, 0.0)


def wow_distance(P, Q) -> float:
    """The WoW distance between two datasets (C, n, d) and (C', m, d)."""
    cost = w2_squared_matrix(P, Q)  # (C, C')
    outer = ot.emd2(_uniform(cost.shape[0]), _uniform(cost.shape[1]), cost)
    return float(np.sqrt(max(outer, 0.0)))


def match_classes(P, Q, cost: np.ndarray | None = None) -> np.ndarray:
    """For each class of ``P``, the index of the class of ``Q`` it is matched to by the optimal
    coupling of the outer OT problem (cost ``W2^2``); equal class counts give a permutation."""
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
