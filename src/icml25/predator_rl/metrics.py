"""Metrics of predator-avoidance episodes (Han et al., *Of Mice and Machines*, ICML 2025).

- capture rate: share of episodes that end in capture;
- success rate: share that reach the goal;
- steps to goal: mean length of the successful episodes;
- caution: mean number of steps an episode spends in cover (or waiting there) before the prey
  first sets foot on open ground (``VecPreyArena``'s ``cover_steps``), the paper's "peeking and
  waiting near cover before crossing open space", over the episodes that do cross (``cover_steps
  < length``): an episode that never leaves cover is caution only in name, and counting its whole
  length would score an agent frozen in cover as the most cautious; ``caution_all`` counts every
  episode; ``waits``: mean wait/peek actions.
"""

from __future__ import annotations

import numpy as np

from icml25.common.arrays import int_array, real_array
from icml25.predator_rl.env import CAPTURED, SUCCESS


def episode_metrics(outcome, length, cover_steps, waits) -> dict[str, float]:
    """The metrics of the module over a set of episodes.

    Parameters
    ----------
    outcome : array_like of int
        Outcome (n,) of each episode: -1 captured, 1 goal, 0 otherwise; ``n >= 1``.
    length : array_like
        Steps (n,) of each episode, finite and ``>= 0``.
    cover_steps : array_like
        Steps (n,) spent in cover before first reaching open ground, at least 0 and at most
        ``length``.
    waits : array_like
        Wait/peek actions (n,) of each episode, at least 0 and at most ``length``.

    Returns
    -------
    dict of str to float
        ``capture_rate``, ``success_rate``, ``steps_to_goal`` (NaN without a success),
        ``caution`` (over the episodes that cross, NaN without a crossing), ``caution_all``,
        ``crossing_rate``, ``caution_success`` (over the successful episodes, NaN without
        one), ``waits`` (mean) and ``episodes`` (n).
    """
    n = len(int_array("outcome", outcome, ndim=1, low=-1, high=1, nonempty=False))
    if n == 0:
        raise ValueError("outcome must hold at least one episode")
    counts = {}
    for name, value in (("length", length), ("cover_steps", cover_steps), ("waits", waits)):
        counts[name] = real_array(name, value, ndim=1)
        if counts[name].shape != (n,) or (counts[name] < 0).any():
            raise ValueError(f"{name} must hold {n} counts >= 0, one per episode")
    for name in ("cover_steps", "waits"):
        if (counts[name] > counts["length"]).any():
            raise ValueError(f"{name} must be <= length in every episode")
    outcome = np.asarray(outcome)
    length, cover_steps, waits = (np.asarray(x, float) for x in (length, cover_steps, waits))
    won = outcome == SUCCESS
    crossed = cover_steps < length  # the prey set foot on open ground before the episode ended
    return {
        "capture_rate": float(np.mean(outcome == CAPTURED)),
        "success_rate": float(np.mean(won)),
        "steps_to_goal": float(length[won].mean()) if won.any() else float("nan"),
        "caution": float(cover_steps[crossed].mean()) if crossed.any() else float("nan"),
        "caution_all": float(cover_steps.mean()),
        "crossing_rate": float(crossed.mean()),
        "caution_success": float(cover_steps[won].mean()) if won.any() else float("nan"),
        "waits": float(waits.mean()),
        "episodes": float(outcome.size),
    }
