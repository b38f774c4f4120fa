"""OmniBal's balance metrics: pad ratio and the vision and language imbalance per step.

With ``x_r`` the load of rank r at one step (vision: images; language: tokens computed,
padding included) and ``R`` ranks, the imbalance of the step is

    sum_r (max_r x_r - x_r) / (R max_r x_r),

the fraction of the step's compute that ranks spend waiting for the slowest one (official
``test_balanced_dynamic_batch.py``, ``get_pad_dist_ratio``); the metric is its mean over steps.
The pad ratio is the fraction of computed tokens that are padding: in a padded mini-batch each
sample is padded to the longest one (the official definition, 0 for a packed group); with
``fixed_length`` every packed group is padded to the budget ``T_max`` (what a pipeline with
fixed activation shapes pays, and the one that can grow when groups are not full).
"""

from __future__ import annotations

import numpy as np

from icml25.omnibal.balance import Batches, check_lengths


def group_loads(batches: Batches, vision, text) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group: images (G,), text tokens actually used (G,), tokens computed (G,).

    Parameters
    ----------
    batches : Batches
        The groups (mini-batches) of samples; ``batches.packed`` decides the tokens computed.
    vision, text : array_like of int, shape (n,)
        Per-sample vision size (images) and language size (tokens); non-negative, ``n >= 1``.

    Returns
    -------
    vis : ndarray of int, shape (G,)
        Images of each group.
    used : ndarray of int, shape (G,)
        Text tokens of each group, padding excluded.
    computed : ndarray of int, shape (G,)
        Tokens computed for each group: ``used`` for a packed group, else the longest sample
        times the samples of the group (padding included).
    """
    v, t = check_lengths(vision, text)
    starts = batches.offsets[:-1]
    tv = v[batches.members]
    tt = t[batches.members]
    vis = np.add.reduceat(tv, starts)
    used = np.add.reduceat(tt, starts)
    if batches.packed:
        computed = used
    else:
        computed = np.maximum.reduceat(tt, starts) * np.diff(batches.offsets)
    return vis, used, computed


def step_imbalance(loads: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Imbalance of each step: loads (G,) of the groups, steps (S, R) -> (S,).

    The imbalance of a step is ``sum_r (max_r x_r - x_r) / (R max_r x_r)``; a rank with no
    group (-1) counts as load 0.

    Parameters
    ----------
    loads : ndarray, shape (G,)
        Load of each group (images, or tokens computed).
    steps : ndarray of int, shape (S, R)
        Group index of each rank at each step, -1 for no group.

    Returns
    -------
    imbalance : ndarray of float, shape (S,)
        Fraction of each step's compute spent waiting for the slowest rank, in ``[0, 1)``; 0
        for a step whose largest load is 0.
    """
    x = np.where(steps >= 0, loads[np.maximum(steps, 0)], 0).astype(float)  # (S, R)
    top = x.max(axis=1)
    waste = (top[:, None] - x).sum(axis=1)
    return np.divide(waste, top * steps.shape[1], out=np.zeros_like(top), where=top > 0)


def balance_metrics(batches: Batches, vision, text, *, llm_max: int | None = None) -> dict:
    """Mean vision and language imbalance over steps, pad ratios, mean samples per group, and
    the per-step imbalance arrays (for figures).

    Parameters
    ----------
    batches : Batches
        The groups of samples and the steps that use them.
    vision, text : array_like of int, shape (n,)
        Per-sample vision size (images) and language size (tokens); non-negative, ``n >= 1``.
    llm_max : int, optional
        Token budget ``T_max``; given, and for packed batches, the fixed-length pad ratio (every
        group padded to ``llm_max``) is added.

    Returns
    -------
    metrics : dict
        ``vision_imbalance``, ``language_imbalance`` (float, means over steps), ``pad_ratio``
        (float), ``mean_batch`` (float, mean samples per group), ``vision_imbalance_steps``
        and ``language_imbalance_steps`` (ndarray, shape (S,)), and
        ``fixed_length_pad_ratio`` (float) when ``llm_max`` is given and the batches are
        packed.
    """
    vis, used, computed = group_loads(batches, vision, text)
    vis_steps = step_imbalance(vis, batches.steps)
    llm_steps = step_imbalance(computed, batches.steps)
    out = {
        "vision_imbalance": float(vis_steps.mean()),
        "language_imbalance": float(llm_steps.mean()),
        "pad_ratio": float(1 - used.sum() / computed.sum()),
        "mean_batch": float(np.diff(batches.offsets).mean()),
        "vision_imbalance_steps": vis_steps,
        "language_imbalance_steps": llm_steps,
    }
    if llm_max is not None and batches.packed:
        out["fixed_length_pad_ratio"] = float(1 - used.sum() / (llm_max * len(used)))
    return out
