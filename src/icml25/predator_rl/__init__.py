"""Risk-averse RL against a predator (Han, Espinosa, Huang et al., *Of Mice and Machines: A
Comparison of Learning Between Real World Mice and RL Agents*, ICML 2025).

An arena to Gymnasium's API (``PreyArenaEnv``; ``VecPreyArena`` steps many at once), and the
paper's two mechanisms as parts of a value-based agent: the variance-penalised TD target and the
amplified negative memories (``AmplifiedReplayBuffer``).

>>> from icml25.predator_rl import PreyArenaEnv, AgentConfig, TrainConfig, train, make_layout
>>> env = PreyArenaEnv("occluded")  # any Gymnasium agent can be trained on it
>>> both = AgentConfig(penalty=0.2, negative_fraction=0.35, negative_scale=200.0)
>>> out = train(make_layout("occluded"), both, TrainConfig(steps=2000), seed=0)  # doctest: +SKIP
>>> out["final"]["capture_rate"], out["final"]["success_rate"]  # doctest: +SKIP
"""

from icml25.predator_rl.agent import (
    AgentConfig,
    AmplifiedReplayBuffer,
    EnsembleDQN,
    EnsembleQ,
    variance_penalised_target,
)
from icml25.predator_rl.arena import ACTION_NAMES, Layout, line_of_sight, make_layout
from icml25.predator_rl.env import ArenaConfig, PreyArenaEnv, VecPreyArena, render_arena
from icml25.predator_rl.metrics import episode_metrics
from icml25.predator_rl.training import TrainConfig, evaluate, train

__all__ = [
    "ACTION_NAMES",
    "AgentConfig",
    "AmplifiedReplayBuffer",
    "ArenaConfig",
    "EnsembleDQN",
    "EnsembleQ",
    "Layout",
    "PreyArenaEnv",
    "TrainConfig",
    "VecPreyArena",
    "episode_metrics",
    "evaluate",
    "line_of_sight",
    "make_layout",
    "render_arena",
    "train",
    "variance_penalised_target",
]
