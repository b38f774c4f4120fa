"""The alternatives a user would otherwise pick, for the reproduction and the benchmark.

- ``exact_cost``: POT's network simplex ``ot.emd`` on the dense ``n x n`` cost (the anchor);
- ``sinkhorn_plan``: POT's ``ot.sinkhorn`` (dense, entropic, not a bijection);
- ``minibatch_ot``: mini-batch OT, exact OT between random batches of ``B`` points of each cloud,
  which is a bijection of cost above the optimum;
- ``lowrank_coupling_cost``: a single rank-``r`` coupling (our ``lowrank_ot``), linear in ``n`` but
  no one-to-one map.
"""

from __future__ import annotations

import warnings

import numpy as np
import ot
import torch

from icml25.hiref.costs import check_cost, sqeuclidean_factors
from icml25.hiref.lowrank import _objective, _solve, random_start

__all__ = ["exact_cost", "sinkhorn_plan", "minibatch_ot", "lowrank_coupling_cost"]


def exact_cost(X: np.ndarray, Y: np.ndarray, cost: str = "sqeuclidean") -> float:
    """Optimal mean cost (squared Euclidean or Euclidean) by ``ot.emd`` (uniform weights)."""
    check_cost(cost)
    n = len(X)
    M = ot.dist(X, Y, metric=cost)  # (n, n)
    w = np.full(n, 1.0 / n)
    plan = ot.emd(w, w, M, numItermax=100 * n * n)
    return float(np.sum(plan * M))


def sinkhorn_plan(X: np.ndarray, Y: np.ndarray, rel_reg: float = 0.05) -> tuple[float, int]:
    """Entropic OT, ``ot.sinkhorn`` with ``reg = rel_reg * mean(C)`` (ott-jax's default rule).

    Returns the plan's transport cost ``<C, P>`` and its number of non-zero entries.
    """
    n = len(X)
    M = ot.dist(X, Y)
    w = np.full(n, 1.0 / n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = ot.sinkhorn(w, w, M / M.mean(), rel_reg, numItermax=1000, stopThr=1e-6)
    return float(np.sum(plan * M)), int(np.count_nonzero(plan))


def minibatch_ot(X: np.ndarray, Y: np.ndarray, batch: int, seed: int) -> np.ndarray:
    """Mini-batch OT as a bijection: random equal batches of X and Y, matched by ``ot.emd``.

    Returns ``perm`` (a permutation of ``0..n-1``); the last batch may be smaller.
    """
    n = len(X)
    rng = np.random.default_rng(seed)
    ix, iy = rng.permutation(n), rng.permutation(n)
    perm = np.empty(n, dtype=np.int64)
    for start in range(0, n, batch):
        bx, by = ix[start : start + batch], iy[start : start + batch]
        M = ot.dist(X[bx], Y[by])
        w = np.full(len(bx), 1.0 / len(bx))
        plan = ot.emd(w, w, M, numItermax=100 * len(bx) ** 2)
        perm[bx] = by[plan.argmax(1)]  # a vertex of the Birkhoff polytope: a permutation
    return perm


def lowrank_coupling_cost(X: np.ndarray, Y: np.ndarray, rank: int, seed: int) -> float:
    """Transport cost of one rank-``r`` coupling ``Q diag(1/g) R^T`` on the whole problem."""
    n = len(X)
    centre = 0.5 * (X.mean(0) + Y.mean(0))
    Xt = torch.from_numpy(X - centre).to(torch.float32).unsqueeze(0)
    Yt = torch.from_numpy(Y - centre).to(torch.float32).unsqueeze(0)
    A, B = sqeuclidean_factors(Xt, Yt)  # (1, n, d + 2)
    A, B = A.transpose(1, 2).contiguous(), B.transpose(1, 2).contiguous()  # (1, d + 2, n)
    a = torch.full((1, n), 1.0 / n)
    g = torch.full((1, rank), 1.0 / rank)
    start = random_start(1, n, rank, torch.Generator().manual_seed(seed))  # (1, rank, n)
    Q, R, *_ = _solve(
        A, B, a, a, g, start, gamma=1.0, max_iter=200, min_iter=20, inner_iter=5, tol=1e-6
    )
    return float(_objective(A.double(), B.double(), Q.double(), R.double(), g.double())[0])
