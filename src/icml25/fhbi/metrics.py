"""Predictive metrics of an ensemble of probabilistic classifiers.

- ``nll``: mean over test points of ``-log p(y | x)`` of the averaged probabilities;
- ``accuracy`` of their argmax;
- ``ece``: expected calibration error with 15 equal-width confidence bins (Guo et al., 2017);
- ``diversity``: mean over pairs i < j of members of the mean over test inputs of the total
  variation distance ``(1/2) sum_c |p_i(c | x) - p_j(c | x)|`` (0: identical functions, 1: at
  most disjoint predictions);
- ``gradient_diversity``: the gradient diversity of Yin et al. (2018, *Gradient Diversity: a Key
  Ingredient for Scalable Distributed Learning*, AISTATS, Definition 1) taken over the
  particles, ``sum_i ||g_i||^2 / ||sum_i g_i||^2`` for the particles' loss gradients g_i.
"""

from __future__ import annotations

import math

import numpy as np

from icml25.common.arrays import labels, probabilities
from icml25.common.validate import check_int


def nll(proba: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log-likelihood of the true labels under the predicted probabilities.

    Parameters
    ----------
    proba : array_like, shape (n, C)
        Predicted class probabilities, rows in ``[0, 1]`` summing to 1 (checked to 1e-6).
    y : array_like of int, shape (n,)
        True labels in ``[0, C)``.

    Returns
    -------
    float
        ``mean_i -log p_i(y_i)``, each probability clipped below at 1e-12; ``>= 0``.
    """
    proba, y = _checked(proba, y)
    return float(-np.log(np.clip(proba[np.arange(len(y)), y], 1e-12, None)).mean())


def accuracy(proba: np.ndarray, y: np.ndarray) -> float:
    """Share of points whose most probable class is the true label.

    Parameters
    ----------
    proba : array_like, shape (n, C)
        Predicted class probabilities, rows in ``[0, 1]`` summing to 1 (checked to 1e-6).
    y : array_like of int, shape (n,)
        True labels in ``[0, C)``.

    Returns
    -------
    float
        Accuracy of ``proba.argmax(1)``, in ``[0, 1]``.
    """
    proba, y = _checked(proba, y)
    return float((proba.argmax(1) == y).mean())


def ece(proba: np.ndarray, y: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error with equal-width confidence bins (Guo et al., 2017).

    Parameters
    ----------
    proba : array_like, shape (n, C)
        Predicted class probabilities, rows in ``[0, 1]`` summing to 1 (checked to 1e-6).
    y : array_like of int, shape (n,)
        True labels in ``[0, C)``.
    bins : int, default 15
        Number of equal-width bins of the confidence ``max_c p(c)`` on ``(0, 1]``, ``>= 1``.

    Returns
    -------
    float
        ``sum_b (n_b / n) |accuracy_b - mean confidence_b|`` over the non-empty bins, in
        ``[0, 1]``.
    """
    proba, y = _checked(proba, y)
    bins = check_int("bins", bins, minimum=1)
    conf, pred = proba.max(1), proba.argmax(1)  # (n,)
    which = np.clip(np.ceil(conf * bins).astype(int) - 1, 0, bins - 1)
    total = 0.0
    for b in np.unique(which):
        sel = which == b
        total += sel.sum() * abs((pred[sel] == y[sel]).mean() - conf[sel].mean())
    return float(total / len(y))


def _checked(proba, y) -> tuple[np.ndarray, np.ndarray]:
    """Rows of probabilities (n, C) and n labels in [0, C), checked, in their own dtype (the
    metrics are computed on what was given, not on a float64 copy)."""
    checked = probabilities("proba", proba)
    y = labels("y", y, n=checked.shape[0], classes=checked.shape[1])
    return np.asarray(proba), y


def diversity(member_proba: np.ndarray) -> float:
    """Mean pairwise total-variation distance between the members' predictions.

    Parameters
    ----------
    member_proba : ndarray, shape (m, n, C)
        Class probabilities of each of the m members on the same n inputs (not checked).

    Returns
    -------
    float
        Mean over pairs ``i < j`` of the mean over inputs of
        ``(1/2) sum_c |p_i(c | x) - p_j(c | x)|``, in ``[0, 1]``; 0 when ``m < 2``.
    """
    m = member_proba.shape[0]
    if m < 2:
        return 0.0
    tv = 0.5 * np.abs(member_proba[:, None] - member_proba[None]).sum(-1).mean(-1)  # (m, m)
    return float(tv[np.triu_indices(m, 1)].mean())


def gradient_diversity(grads) -> float:
    """Gradient diversity of m particles (Yin et al., 2018, Definition 1, over particles).

    Parameters
    ----------
    grads : array_like, shape (m, d)
        Finite loss gradient ``g_i`` of each particle, one row per particle, ``m, d >= 1``;
        computed in float64.

    Returns
    -------
    float
        ``Delta = sum_i ||g_i||^2 / ||sum_i g_i||^2``, ``> 0``; ``inf`` when the gradients sum
        to zero but are not all zero.

    Raises
    ------
    ValueError
        When ``grads`` is not a finite (m, d) array, or every gradient is zero (Delta is then
        undefined).

    Notes
    -----
    Since ``||sum_i g_i||^2 = sum_i ||g_i||^2 + sum_{i != j} <g_i, g_j>``, Delta is ``1/m`` when
    all gradients are equal, 1 when they are pairwise orthogonal, and above 1 when they point
    against each other (it grows without bound as their sum vanishes). It does not change when
    every gradient is scaled by one factor.
    """
    g = np.asarray(grads, dtype=np.float64)
    if g.ndim != 2 or g.shape[0] < 1 or g.shape[1] < 1:
        raise ValueError(f"grads must be an (m, d) array with m, d >= 1, got shape {g.shape}")
    if not np.isfinite(g).all():
        raise ValueError("grads must be finite (it has NaN or inf)")
    own = float(np.einsum("md,md->", g, g))  # sum_i ||g_i||^2
    total = g.sum(0)  # (d,)
    together = float(total @ total)  # ||sum_i g_i||^2
    if own == 0.0:
        raise ValueError("grads are all zero: their gradient diversity is undefined")
    return own / together if together > 0.0 else math.inf
