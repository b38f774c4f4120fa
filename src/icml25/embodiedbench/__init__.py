"""EmbodiedBench (Yang et al., ICML 2025): multi-modal LLMs as vision-driven embodied agents.

The agent side of the benchmark for its navigation environment: the planner loop that sends
the first-person image and the instruction to a planner and executes its JSON plan with
feedback (:func:`run_episode`), the environment interface a simulator plugs into
(:class:`EmbodiedEnv`), our numpy EB-Navigation environment (:class:`NavigationEnv`, rooms,
first-person ray-cast views, the eight atomic actions, success within 1 m), the five capability
subsets built from one set of base tasks (:func:`base_tasks`, :func:`subset`), planners that are
not language models (oracle, random, perception-limited heuristic), and a vision-language-model
planner through any OpenAI-compatible endpoint (:class:`VLMPlanner`).

>>> import numpy as np
>>> from icml25.embodiedbench import NavigationEnv, HeuristicPlanner, base_tasks, run_episode
>>> task = base_tasks(1, np.random.default_rng(0))[0]
>>> episode = run_episode(NavigationEnv(), HeuristicPlanner(), task)
"""

from icml25.embodiedbench.env import ACTIONS, EmbodiedEnv, NavigationEnv, Step
from icml25.embodiedbench.episode import Episode, run_episode
from icml25.embodiedbench.planners import (
    HeuristicPlanner,
    OraclePlanner,
    Plan,
    RandomPlanner,
    read_target,
)
from icml25.embodiedbench.render import render
from icml25.embodiedbench.tasks import SUBSETS, Task, base_tasks, subset
from icml25.embodiedbench.vlm import VLMPlanner, parse_plan
from icml25.embodiedbench.world import Pose, Room, generate_room

__all__ = [
    "ACTIONS",
    "SUBSETS",
    "EmbodiedEnv",
    "Episode",
    "HeuristicPlanner",
    "NavigationEnv",
    "OraclePlanner",
    "Plan",
    "Pose",
    "RandomPlanner",
    "Room",
    "Step",
    "Task",
    "VLMPlanner",
    "base_tasks",
    "generate_room",
    "parse_plan",
    "read_target",
    "render",
    "run_episode",
    "subset",
]
