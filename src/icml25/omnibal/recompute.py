"""OmniBal's adaptive recomputation: per pipeline stage, recompute the fewest-seconds set of
layers whose saved activations bring the stage within its memory budget.

Under 1F1B stage p keeps the activations of ``k_p = min(P - p, M)`` micro-batches. Layer l
saves ``a_l`` bytes per micro-batch, or only its input, ``min(c_l, a_l)``, if it is recomputed,
which costs its forward ``f_l`` again in the backward. With ``s`` static bytes (weights,
gradients, optimizer state), the plan is the 0/1 covering knapsack

    min sum_{l in R} f_l   s.t.   s + k_p (sum_{l not in R} a_l + sum_{l in R} c_l) <= budget,

solved exactly on memory rounded to ``units`` steps (savings rounded down, the need rounded up,
so a returned plan always fits). Full recomputation (every layer, Megatron's ``full``) is the
anchor: the knapsack's most expensive feasible plan.
"""

from __future__ import annotations

import numpy as np


def stage_memory(act, ckpt, static: float, in_flight: int, recompute) -> float:
    """Peak bytes of a stage: static + in_flight x saved activations.

    Parameters
    ----------
    act : array_like of float, shape (L,)
        Activation bytes each layer saves per micro-batch.
    ckpt : array_like of float, shape (L,)
        Input bytes of each layer (kept instead, up to ``act``, if it is recomputed).
    static : float
        Static bytes (weights, gradients, optimizer state).
    in_flight : int
        Micro-batches whose activations the stage holds at once.
    recompute : array_like of bool, shape (L,)
        Which layers are recomputed.

    Returns
    -------
    peak : float
        Peak bytes of the stage.
    """
    act, ckpt, r = np.asarray(act, float), np.asarray(ckpt, float), np.asarray(recompute, bool)
    return float(static + in_flight * np.where(r, np.minimum(ckpt, act), act).sum())


def adaptive_recompute(
    forward, act, ckpt, static: float, in_flight: int, budget: float, *, units: int = 2000
) -> np.ndarray | None:
    """The layers to recompute (bool (L,)) at least forward time, or None if even full
    recomputation does not fit the budget.

    Parameters
    ----------
    forward : array_like of float, shape (L,)
        Forward time of each layer (the cost of recomputing it).
    act : array_like of float, shape (L,)
        Activation bytes each layer saves per micro-batch.
    ckpt : array_like of float, shape (L,)
        Input bytes of each layer.
    static : float
        Static bytes of the stage.
    in_flight : int
        Micro-batches in flight on the stage, ``k_p``.
    budget : float
        Memory budget of the stage, in bytes.
    units : int, default 2000
        Memory steps of the exact knapsack.

    Returns
    -------
    recompute : ndarray of bool, shape (L,) or None
        The layers to recompute (all False if the stage fits without), or None if even full
        recomputation does not fit.
    """
    f = np.asarray(forward, float)
    act, ckpt = np.asarray(act, float), np.asarray(ckpt, float)
    if not (f.shape == act.shape == ckpt.shape) or f.ndim != 1:
        raise ValueError("forward, act and ckpt must be (L,) arrays of equal length")
    save = in_flight * np.maximum(act - ckpt, 0)  # (L,) bytes freed by recomputing each layer
    need = stage_memory(act, ckpt, static, in_flight, np.zeros(len(f), bool)) - budget
    if need <= 0:
        return np.zeros(len(f), bool)
    if need > save.sum():
        return None
    unit = need / units
    s = np.floor(save / unit).astype(int)  # (L,) savings in units, rounded down
    target = units if s.sum() >= units else None
    if target is None:  # rounding lost the slack: only full recomputation is sure to fit
        return np.ones(len(f), bool)
    best = np.full(target + 1, np.inf)  # best[c]: least time saving >= c units
    best[0] = 0.0
    take = np.zeros((len(f), target + 1), bool)
    idx = np.arange(target + 1)
    for layer in range(len(f)):
        cand = best[np.maximum(idx - s[layer], 0)] + f[layer]
        take[layer] = cand < best
        best = np.minimum(best, cand)
    chosen = np.zeros(len(f), bool)
    c = target
    for layer in range(len(f) - 1, -1, -1):
        if take[layer, c]:
            chosen[layer] = True
            c = max(c - s[layer], 0)
    return chosen
