"""The diagnostic behind the README's "why (b) is not reproduced": the heuristic planner's
success on the base and long-horizon subsets of a batch of the default tasks, with the step
limit and the number of scanning turns varied (the committed planner: 20 steps, 3 turns). It
runs as the ``explain`` cells of ``icml25 run embodiedbench``, one per batch.
"""

from __future__ import annotations

import numpy as np

from icml25.embodiedbench.env import NavigationEnv
from icml25.embodiedbench.episode import run_episode
from icml25.embodiedbench.planners import HeuristicPlanner

# (step limit, scan turns): a tighter budget, then less exploration, at the committed planner's
# other setting
SETTINGS = ((16, 3), (14, 3), (12, 3), (20, 1), (20, 0))
SUBSETS = ("base", "long_horizon")


def setting_key(max_steps: int, scan_turns: int) -> str:
    return f"steps={max_steps},turns={scan_turns}"


def explain(
    tasks: dict[str, list], width: int, height: int, settings=SETTINGS
) -> dict[str, dict[str, np.ndarray]]:
    """Per setting (``setting_key``) and subset: the heuristic's 0/1 success on ``tasks``
    (``{subset: [Task]}``, the base and long-horizon subsets of a batch)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for max_steps, turns in settings:
        env = NavigationEnv(width, height, max_steps)
        planner = HeuristicPlanner(scan_turns=turns)
        out[setting_key(max_steps, turns)] = {
            name: np.array(
                [run_episode(env, planner, task).success for task in tasks[name]], dtype=np.int64
            )  # (tasks,)
            for name in SUBSETS
        }
    return out
