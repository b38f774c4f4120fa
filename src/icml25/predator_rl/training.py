"""Training an ``EnsembleDQN`` on many arenas at once, and evaluating it.

The loop steps E arenas together (``VecPreyArena``), stores the E transitions with their episode
ids, marks the episodes that end in capture (so that an amplified buffer can over-sample them),
and makes ``updates_per_step`` gradient updates per vector step after ``warmup`` vector steps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from icml25.common.progress import report_progress
from icml25.common.validate import check_int, check_real
from icml25.predator_rl.agent import AgentConfig, AmplifiedReplayBuffer, EnsembleDQN
from icml25.predator_rl.arena import Layout
from icml25.predator_rl.env import CAPTURED, ArenaConfig, VecPreyArena
from icml25.predator_rl.metrics import episode_metrics


@dataclass(frozen=True)
class TrainConfig:
    """Settings of the training loop of :func:`train` (checked there).

    Parameters
    ----------
    num_envs : int, default 16
        Arenas ``E`` stepped together, ``>= 1``.
    steps : int, default 4000
        Vector steps of training, ``>= 1`` (``steps * num_envs`` transitions).
    warmup : int, default 100
        Vector steps before the first gradient update, ``>= 0``.
    updates_per_step : int, default 1
        Gradient updates per vector step after the warm-up, ``>= 0``.
    eval_episodes : int, default 200
        Greedy evaluation episodes after training, ``>= 1``.
    random_start : float, default 0.5
        Share of exploring starts during training, in ``[0, 1]``; evaluation uses none.
    """

    num_envs: int = 16
    steps: int = 4000  # vector steps (transitions: steps * num_envs)
    warmup: int = 100
    updates_per_step: int = 1
    eval_episodes: int = 200
    random_start: float = 0.5  # share of exploring starts in training; evaluation: none


def train(
    layout: Layout,
    agent_config: AgentConfig,
    train_config: TrainConfig,
    seed: int,
    arena_config: ArenaConfig | None = None,
    record: int = 0,
) -> dict:
    """Train one ``EnsembleDQN`` on a layout, then evaluate its greedy policy.

    Parameters
    ----------
    layout : Layout
        The arena to train and evaluate on.
    agent_config : AgentConfig
        The agent and its risk-averse mechanisms.
    train_config : TrainConfig
        Arenas, steps, warm-up, updates and evaluation episodes.
    seed : int
        Seed of the whole run (arenas, buffer, exploration and weights), ``>= 0``.
    arena_config : ArenaConfig or None, default None
        The task's constants (None: ``ArenaConfig()``); training replaces its ``random_start``
        by ``train_config.random_start``, evaluation keeps it.
    record : int, default 0
        Number of evaluation episodes whose cells are recorded, in
        ``[0, train_config.eval_episodes]``.

    Returns
    -------
    dict
        ``"episodes"``: dict of (n,) arrays over the training episodes, ``end_step`` (in
        transitions), ``outcome``, ``length``, ``cover_steps`` and ``waits``; ``"final"``: the
        greedy evaluation's metrics (:func:`episode_metrics`); ``"trajectories"``: prey and
        predator cells of the first ``record`` evaluation episodes; ``"agent"``: the trained
        ``EnsembleDQN``.
    """
    if not isinstance(agent_config, AgentConfig):
        raise TypeError(f"agent_config must be an AgentConfig, got {type(agent_config).__name__}")
    if not isinstance(train_config, TrainConfig):
        raise TypeError(f"train_config must be a TrainConfig, got {type(train_config).__name__}")
    if train_config.steps < 1 or train_config.num_envs < 1:
        raise ValueError(f"steps and num_envs must be >= 1, got {train_config}")
    for name in ("steps", "num_envs", "eval_episodes"):
        check_int(name, getattr(train_config, name), minimum=1)
    for name in ("warmup", "updates_per_step"):
        check_int(name, getattr(train_config, name), minimum=0)
    check_int("seed", seed, minimum=0)
    check_int("record", record, minimum=0)
    if record > train_config.eval_episodes:
        raise ValueError(f"record must be <= eval_episodes = {train_config.eval_episodes}")
    seeds = np.random.SeedSequence(seed).spawn(4)
    rng = np.random.default_rng(seeds[0])
    arena_config = arena_config or ArenaConfig()
    train_arena = replace(arena_config, random_start=train_config.random_start)
    env = VecPreyArena(
        layout, train_config.num_envs, train_arena, seed=np.random.default_rng(seeds[1])
    )
    buffer = AmplifiedReplayBuffer(
        agent_config.buffer,
        env.obs_dim,
        agent_config.negative_fraction,
        agent_config.negative_scale,
        seed=np.random.default_rng(seeds[2]),
    )
    torch_seed = int(seeds[3].generate_state(1)[0])
    agent = EnsembleDQN(env.obs_dim, 5, agent_config, seed=torch_seed)
    E = train_config.num_envs
    episode = np.arange(E)
    next_episode = E
    log: dict[str, list] = {
        k: [] for k in ("end_step", "outcome", "length", "cover_steps", "waits")
    }
    obs = env.reset()
    decay = max(1, int(agent_config.eps_fraction * train_config.steps))
    for step in range(train_config.steps):
        report_progress(step, train_config.steps)
        frac = min(1.0, step / decay)
        epsilon = agent_config.eps_start + frac * (agent_config.eps_end - agent_config.eps_start)
        action = agent._act(obs, epsilon, rng)
        next_obs, reward, terminated, truncated, info = env.step(action)
        buffer._add(obs, action, reward, next_obs, terminated.astype(np.float32), episode)
        ended = terminated | truncated
        if ended.any():
            log["end_step"].append(np.full(ended.sum(), (step + 1) * E))
            for key in ("outcome", "length", "cover_steps", "waits"):
                log[key].append(info[key][ended])
            buffer.mark_captured(episode[ended & (info["outcome"] == CAPTURED)])
            episode[ended] = next_episode + np.arange(ended.sum())
            next_episode += int(ended.sum())
            obs = env.reset(ended)
        else:
            obs = next_obs
        if step >= train_config.warmup:
            for _ in range(train_config.updates_per_step):
                agent._update(buffer.sample(agent_config.batch))
    episodes = {k: np.concatenate(v) if v else np.zeros(0, int) for k, v in log.items()}
    final, trajectories = evaluate(
        agent,
        layout,
        train_config.eval_episodes,
        seed=seeds[1].generate_state(1)[0] + 1,
        arena_config=arena_config,
        record=record,
    )
    return {"episodes": episodes, "final": final, "trajectories": trajectories, "agent": agent}


def evaluate(
    agent: EnsembleDQN,
    layout: Layout,
    episodes: int,
    seed: int,
    arena_config: ArenaConfig | None = None,
    epsilon: float = 0.0,
    record: int = 0,
) -> tuple[dict[str, float], list[dict]]:
    """Run ``episodes`` episodes at once, one arena each, with the agent's policy.

    Parameters
    ----------
    agent : EnsembleDQN
        The agent; its observation size must match the layout's.
    layout : Layout
        The arena.
    episodes : int
        Number of episodes, ``>= 1``.
    seed : int
        Seed of the actions' generator, ``>= 0``; the arenas use ``seed + 1``.
    arena_config : ArenaConfig or None, default None
        The task's constants; None means ``ArenaConfig()``.
    epsilon : float, default 0.0
        Exploration rate, in ``[0, 1]``; 0 is the greedy policy.
    record : int, default 0
        Number of episodes whose cells are recorded, in ``[0, episodes]``.

    Returns
    -------
    metrics : dict of str to float
        The metrics of :func:`episode_metrics` over the episodes.
    trajectories : list of dict
        For each of the first ``record`` episodes: ``"prey"`` and ``"predator"``, the lists of
        free-cell numbers from the start, and ``"outcome"`` (1 goal, -1 captured, 0 timeout).
    """
    if not isinstance(agent, EnsembleDQN):
        raise TypeError(f"agent must be an EnsembleDQN, got {type(agent).__name__}")
    check_int("episodes", episodes, minimum=1)
    check_int("seed", seed, minimum=0)
    check_real("epsilon", epsilon, low=0.0, high=1.0)
    check_int("record", record, minimum=0)
    if record > episodes:
        raise ValueError(f"record must be <= episodes = {episodes}")
    rng = np.random.default_rng(seed)
    env = VecPreyArena(layout, episodes, arena_config, seed=np.random.default_rng(seed + 1))
    if env.obs_dim != agent.q.weights[0].shape[1]:
        raise ValueError(
            f"layout gives observations of size {env.obs_dim}; the agent was built for "
            f"{agent.q.weights[0].shape[1]}"
        )
    obs = env.reset()
    done = np.zeros(episodes, bool)
    result = {k: np.zeros(episodes, int) for k in ("outcome", "length", "cover_steps", "waits")}
    paths = [[(int(env.prey[i]), int(env.predator[i]))] for i in range(record)]
    while not done.all():
        action = agent._act(obs, epsilon, rng)
        obs, _, terminated, truncated, info = env.step(action)
        for i in range(record):
            if not done[i]:
                paths[i].append((int(env.prey[i]), int(env.predator[i])))
        new = (terminated | truncated) & ~done
        for key in result:
            result[key][new] = info[key][new]
        done |= terminated | truncated
    trajectories = [
        {"prey": [p for p, _ in path], "predator": [q for _, q in path], "outcome": int(o)}
        for path, o in zip(paths, result["outcome"][:record], strict=False)
    ]
    return episode_metrics(**result), trajectories
