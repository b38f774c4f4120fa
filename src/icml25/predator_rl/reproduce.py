"""Reproduction: risk-averse mechanisms make RL agents avoid the predator like mice do.

Cells: one per replicate; a cell trains all four agents from the runner's seed, the same seed for
the four, so that within a replicate they share the network initialisation and the arenas'
random streams (common random numbers) while replicates, and runs with another master seed, are
independent. The four agents have the same network, budget and exploration: ``plain``
(ensemble-minimum target, uniform replay), ``vp`` (variance-penalised target, lambda = 0.2),
``amplified`` (35% of each batch from capture episodes, negative rewards x 200) and ``both``.
Each trains on ``num_envs`` arenas stepped together, with exploring starts, then is
evaluated greedily from the start cell on ``eval_episodes`` episodes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from icml25.predator_rl.agent import AgentConfig
from icml25.predator_rl.arena import make_layout
from icml25.predator_rl.env import ArenaConfig
from icml25.predator_rl.training import TrainConfig, train

CELL_THREADS = 1
AGENTS = ("plain", "vp", "amplified", "both")


@dataclass(frozen=True)
class Config:
    layout: str = "occluded"
    size: int = 11
    seeds: int = 5
    steps: int = 6000  # vector steps per agent (3000 do not converge)
    num_envs: int = 16
    warmup: int = 100
    eval_episodes: int = 200
    heads: int = 5
    hidden: int = 64
    penalty: float = 0.2  # lambda, official VP-TD-MPC2
    negative_fraction: float = 0.35  # official PTSDBuffer2
    negative_scale: float = 200.0  # official negative_amplification
    max_steps: int = 100
    predator_speed: float = 1.0
    record: int = 4  # evaluation trajectories kept per cell
    bins: int = 10  # points of the training curves


SCALES = {
    "smoke": Config(seeds=1, steps=150, warmup=30, eval_episodes=40, record=2, bins=3),
    "default": Config(),
    "paper": Config(seeds=10, steps=20000, eval_episodes=1000),
}


def cells(config: Config) -> list[dict]:
    return [{"replicate": r} for r in range(config.seeds)]


def agent_config(config: Config, agent: str) -> AgentConfig:
    """The agent's configuration: the two switches, all else equal."""
    if agent not in AGENTS:
        raise ValueError(f"agent must be one of {AGENTS}, got {agent!r}")
    vp = agent in ("vp", "both")
    amplified = agent in ("amplified", "both")
    return AgentConfig(
        heads=config.heads,
        hidden=config.hidden,
        penalty=config.penalty if vp else 0.0,
        negative_fraction=config.negative_fraction if amplified else None,
        negative_scale=config.negative_scale if amplified else 1.0,
    )


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    """Train the four agents of one replicate, each from ``seed`` (common random numbers)."""
    torch.set_num_threads(1)
    layout = make_layout(config.layout, size=config.size)
    arena = ArenaConfig(max_steps=config.max_steps, predator_speed=config.predator_speed)
    train_config = TrainConfig(
        num_envs=config.num_envs,
        steps=config.steps,
        warmup=config.warmup,
        eval_episodes=config.eval_episodes,
    )
    agents = {}
    for agent in AGENTS:
        begin = time.perf_counter()
        out = train(
            layout,
            agent_config(config, agent),
            train_config,
            seed=seed,
            arena_config=arena,
            record=config.record,
        )
        ep = out["episodes"]
        agents[agent] = {
            "end_step": ep["end_step"],
            "outcome": ep["outcome"],
            "length": ep["length"],
            "final": out["final"],
            "trajectories": out["trajectories"],
            "seconds": time.perf_counter() - begin,
        }
    return agents
