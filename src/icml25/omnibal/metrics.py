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
    """Per group: images (G,), text tokens actually used (G,), tokens computed (G,)."""
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
    """Imbalance of each step: loads (G,) of the groups, steps (S, R) -> (S,)."""
    x = np.where(steps >= 0, loads[np.maximum(steps, 0)], 0).astype(float)  # (S, R)
    top = x.max(axis=1)
    waste = (top[:, None] - x).sum(axis=1)
    return np.divide(waste, top * steps.shape[1], out=np.zeros_like(top), where=top > 0)


def balance_metrics(batches: Batches, vision, text, *, llm_max: int | None = None) -> dict:
    """Mean vision and language imbalance over steps, pad ratios, mean samples per group, and
    the per-step imbalance arrays (for figures)."""
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
