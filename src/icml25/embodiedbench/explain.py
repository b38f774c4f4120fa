"""The experiment behind the README's "why (b) is not reproduced": the heuristic planner's
success on the base and long-horizon subsets of the default tasks, with the step limit and the
number of scanning turns varied (the committed planner: 20 steps, 3 turns).

    python -m icml25.embodiedbench.explain
"""

from __future__ import annotations

import numpy as np

from icml25.embodiedbench.env import NavigationEnv
from icml25.embodiedbench.episode import run_episode
from icml25.embodiedbench.planners import HeuristicPlanner
from icml25.embodiedbench.reproduce import SCALES, Config, benchmark

SETTINGS = ((20, 3), (16, 3), (14, 3), (12, 3), (20, 1), (20, 0))  # (step limit, scan turns)


def explain(config: Config = SCALES["default"], settings=SETTINGS) -> list[dict]:
    """Per (step limit, scan turns): heuristic success on base and long-horizon tasks."""
    tasks: dict[str, list] = {"base": [], "long_horizon": []}
    for batch in range(config.batches):
        built = benchmark(config, batch)
        for name in tasks:
            tasks[name] += built[name]
    rows = []
    for max_steps, turns in settings:
        env = NavigationEnv(config.width, config.height, max_steps)
        rate = {
            name: float(
                np.mean(
                    [run_episode(env, HeuristicPlanner(scan_turns=turns), t).success for t in ts]
                )
            )
            for name, ts in tasks.items()
        }
        rows.append({"max_steps": max_steps, "scan_turns": turns, **rate})
    return rows


if __name__ == "__main__":
    for row in explain():
        gap = row["base"] - row["long_horizon"]
        print(
            f"step limit {row['max_steps']}, scan turns {row['scan_turns']}: base "
            f"{row['base']:.3f}, long horizon {row['long_horizon']:.3f}, gap {gap:+.3f}"
        )
