"""Risk-averse RL against a predator (Han, Espinosa, Huang et al., *Of Mice and Machines: A
Comparison of Learning Between Real World Mice and RL Agents*, ICML 2025).

An arena to Gymnasium's API (``PreyArenaEnv``; ``VecPreyArena`` steps many at once), and the
paper's two mechanisms as parts of a value-based agent: the variance-penalised TD target and the
amplified negative memories (``AmplifiedReplayBuffer``).

>>> from icml25.predator_rl import PreyArenaEnv, AgentConfig, TrainConfig, train, make_layout
>>> env = PreyArenaEnv("occluded")  # any Gymnasium agent can be trained on it
>>> import gymnasium
>>> env = gymnasium.make("icml25/PreyArena-v0", layout="open")  # registered on import
>>> both = AgentConfig(penalty=0.2, negative_fraction=0.35, negative_scale=200.0)
>>> out = train(make_layout("occluded"), both, TrainConfig(steps=2000), seed=0)  # doctest: +SKIP
>>> out["final"]["capture_rate"], out["final"]["success_rate"]  # doctest: +SKIP

Importing the package registers ``PreyArenaEnv`` with Gymnasium as ``"icml25/PreyArena-v0"``
(its keyword arguments pass through ``gymnasium.make``; without the import,
``gymnasium.make("icml25.predator_rl:icml25/PreyArena-v0")`` imports it first), and
``train_on_env`` trains the paper's agent on any Gymnasium environment instance.
"""

import gymnasium

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
from icml25.predator_rl.own_env import ends_negative, train_on_env
from icml25.predator_rl.training import TrainConfig, evaluate, train

__all__ = [
    "ACTION_NAMES",
    "ENV_ID",
    "AgentConfig",
    "AmplifiedReplayBuffer",
    "ArenaConfig",
    "EnsembleDQN",
    "EnsembleQ",
    "Layout",
    "PreyArenaEnv",
    "TrainConfig",
    "VecPreyArena",
    "ends_negative",
    "episode_metrics",
    "evaluate",
    "line_of_sight",
    "make_layout",
    "render_arena",
    "train",
    "train_on_env",
    "variance_penalised_target",
]

ENV_ID = "icml25/PreyArena-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point=PreyArenaEnv)
