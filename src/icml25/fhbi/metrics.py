"""Predictive metrics of an ensemble of probabilistic classifiers.

- ``nll``: mean over test points of ``-log p(y | x)`` of the averaged probabilities;
- ``accuracy`` of their argmax;
- ``ece``: expected calibration error with 15 equal-width confidence bins (Guo et al., 2017);
- ``diversity``: mean over pairs i < j of members of the mean over test inputs of the total
  variation distance ``(1/2) sum_c |p_i(c | x) - p_j(c | x)|`` (0: identical functions, 1: at
  most disjoint predictions).
"""

from __future__ import annotations

import numpy as np


def nll(proba: np.ndarray, y: np.ndarray) -> float:
    """proba (n, C), y (n,)."""
    return float(-np.log(np.clip(proba[np.arange(len(y)), y], 1e-12, None)).mean())


def accuracy(proba: np.ndarray, y: np.ndarray) -> float:
    return float((proba.argmax(1) == y).mean())


def ece(proba: np.ndarray, y: np.ndarray, bins: int = 15) -> float:
    conf, pred = proba.max(1), proba.argmax(1)  # (n,)
    which = np.clip(np.ceil(conf * bins).astype(int) - 1, 0, bins - 1)
    total = 0.0
    for b in np.unique(which):
        sel = which == b
        total += sel.sum() * abs((pred[sel] == y[sel]).mean() - conf[sel].mean())
    return float(total / len(y))


def diversity(member_proba: np.ndarray) -> float:
    """member_proba (m, n, C) -> mean pairwise total-variation distance."""
    m = member_proba.shape[0]
    if m < 2:
        return 0.0
    tv = 0.5 * np.abs(member_proba[:, None] - member_proba[None]).sum(-1).mean(-1)  # (m, m)
    return float(tv[np.triu_indices(m, 1)].mean())
