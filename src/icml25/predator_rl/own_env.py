"""The paper's agent on any Gymnasium environment: an ``EnsembleDQN`` with the variance-penalised
TD target and the amplified replay of negative episodes, trained on one environment instance a
user brings (``PreyArenaEnv``, ``gymnasium.make("icml25/PreyArena-v0")``, or their own task).

``train`` (``training.py``) steps many of our arenas at once for the reproduction; this loop
steps one ``gymnasium.Env`` with its own ``reset`` and ``step``, so it works with any task whose
actions are ``Discrete`` and whose observations ``gymnasium.spaces.flatten`` can turn into a
vector. An episode is *negative* (its transitions join the amplified pool, the analogue of a
capture) when ``negative(reward, terminated, info)`` is true at its last step: by default when it
terminates (not truncated) on a negative reward.
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import numpy as np

from icml25.common.validate import check_int
from icml25.predator_rl.agent import AgentConfig, AmplifiedReplayBuffer, EnsembleDQN


def ends_negative(reward: float, terminated: bool, info: dict) -> bool:
    """The default test of a negative episode: it terminated on a negative reward.

    Parameters
    ----------
    reward : float
        The reward of the episode's last step.
    terminated : bool
        Whether the episode ended in a terminal state (not by truncation).
    info : dict
        The ``info`` of the last step (unused by this test).

    Returns
    -------
    negative : bool
        True when ``terminated`` and ``reward < 0``.
    """
    return bool(terminated) and reward < 0


def train_on_env(
    env: gym.Env,
    agent_config: AgentConfig,
    *,
    steps: int = 20_000,
    warmup: int = 500,
    updates_per_step: int = 1,
    eval_episodes: int = 50,
    negative: Callable[[float, bool, dict], bool] = ends_negative,
    seed: int = 0,
) -> dict:
    """Train the paper's agent on one Gymnasium environment instance, then evaluate it greedily.

    Each step takes an epsilon-greedy action on the ensemble's mean Q, stores the transition
    with its episode id, and after ``warmup`` steps makes ``updates_per_step`` updates on
    batches of ``AmplifiedReplayBuffer`` (a share ``agent_config.negative_fraction`` drawn from
    negative episodes, their negative rewards times ``agent_config.negative_scale``) towards the
    variance-penalised target ``y = r + gamma (min_k Qbar_k(s', a*) - lambda Var Q(s'))``
    (``variance_penalised_target``: ``a*`` greedy on the online heads' mean, ``Qbar`` the target
    heads, the variance over the online heads and actions).

    Parameters
    ----------
    env : gymnasium.Env
        The environment; its ``action_space`` must be ``Discrete`` and its
        ``observation_space`` one that ``gymnasium.spaces.flatten`` maps to a vector.
    agent_config : AgentConfig
        The agent: ``penalty`` (lambda) and ``negative_fraction`` (rho) switch the two
        mechanisms; the epsilon schedule decays over ``eps_fraction * steps``.
    steps : int, default 20000
        Environment steps (transitions) of training, ``>= 1``.
    warmup : int, default 500
        Steps before the first update, ``>= 0``.
    updates_per_step : int, default 1
        Gradient updates per step after the warm-up, ``>= 0``.
    eval_episodes : int, default 50
        Greedy episodes of the final evaluation, ``>= 1``.
    negative : callable, default ends_negative
        ``negative(reward, terminated, info) -> bool`` at an episode's last step: whether the
        episode joins the amplified pool.
    seed : int, default 0
        Seeds the environment's first reset, the exploration and the network, ``>= 0``.

    Returns
    -------
    result : dict
        ``episodes``: dict of (n,) arrays over the training episodes (``end_step``,
        ``return``, ``length``, ``negative``); ``final``: the greedy evaluation's
        ``mean_return``, ``mean_length``, ``negative_rate`` and ``success_rate`` (from
        ``info["is_success"]``, NaN when the environment does not report it); ``agent``: the
        trained ``EnsembleDQN``; ``buffer``: its ``AmplifiedReplayBuffer``.
    """
    if not isinstance(env, gym.Env):
        raise TypeError(f"env must be a gymnasium.Env instance, got {type(env).__name__}")
    if not isinstance(env.action_space, gym.spaces.Discrete):
        raise ValueError(f"env.action_space must be Discrete, got {env.action_space}")
    if not isinstance(agent_config, AgentConfig):
        raise TypeError(f"agent_config must be an AgentConfig, got {type(agent_config).__name__}")
    if not callable(negative):
        raise TypeError(f"negative must be callable, got {type(negative).__name__}")
    check_int("steps", steps, minimum=1)
    check_int("warmup", warmup, minimum=0)
    check_int("updates_per_step", updates_per_step, minimum=0)
    check_int("eval_episodes", eval_episodes, minimum=1)
    check_int("seed", seed, minimum=0)
    space, start = env.observation_space, int(env.action_space.start)
    try:
        obs_dim = gym.spaces.flatdim(space)
    except NotImplementedError as error:
        raise ValueError(f"env.observation_space cannot be flattened: {space}") from error

    def vector(obs) -> np.ndarray:  # (1, obs_dim) float32
        return np.asarray(gym.spaces.flatten(space, obs), np.float32).reshape(1, obs_dim)

    seeds = np.random.SeedSequence(seed).spawn(3)
    rng = np.random.default_rng(seeds[0])
    buffer = AmplifiedReplayBuffer(
        agent_config.buffer,
        obs_dim,
        agent_config.negative_fraction,
        agent_config.negative_scale,
        seed=np.random.default_rng(seeds[1]),
    )
    agent = EnsembleDQN(
        obs_dim, int(env.action_space.n), agent_config, seed=int(seeds[2].generate_state(1)[0])
    )
    log: dict[str, list] = {k: [] for k in ("end_step", "return", "length", "negative")}
    obs, _ = env.reset(seed=seed)
    obs, episode, total, length = vector(obs), 0, 0.0, 0
    decay = max(1, int(agent_config.eps_fraction * steps))
    for step in range(steps):
        frac = min(1.0, step / decay)
        epsilon = agent_config.eps_start + frac * (agent_config.eps_end - agent_config.eps_start)
        action = agent._act(obs, epsilon, rng)  # (1,)
        next_obs, reward, terminated, truncated, info = env.step(int(action[0]) + start)
        next_obs, reward = vector(next_obs), float(reward)
        buffer._add(
            obs,
            action,
            np.array([reward], np.float32),
            next_obs,
            np.array([float(terminated)], np.float32),
            np.array([episode]),
        )
        total, length = total + reward, length + 1
        if terminated or truncated:
            bad = negative(reward, bool(terminated), info)
            if bad:
                buffer.mark_captured(np.array([episode]))
            for key, value in zip(log, (step + 1, total, length, bad), strict=True):
                log[key].append(value)
            obs, _ = env.reset()
            obs, episode, total, length = vector(obs), episode + 1, 0.0, 0
        else:
            obs = next_obs
        if step >= warmup:
            for _ in range(updates_per_step):
                agent._update(buffer.sample(agent_config.batch))
    episodes = {k: np.asarray(v) for k, v in log.items()}
    return {
        "episodes": episodes,
        "final": _evaluate(env, agent, eval_episodes, negative, rng),
        "agent": agent,
        "buffer": buffer,
    }


def _evaluate(env, agent, episodes, negative, rng) -> dict[str, float]:
    space, start = env.observation_space, int(env.action_space.start)
    returns, lengths, bad, success = [], [], [], []
    for _ in range(episodes):
        obs, _ = env.reset()
        total, length, done = 0.0, 0, False
        while not done:
            flat = np.asarray(gym.spaces.flatten(space, obs), np.float32)[None]  # (1, obs_dim)
            action = int(agent._act(flat, 0.0, rng)[0]) + start
            obs, reward, terminated, truncated, info = env.step(action)
            total, length, done = total + float(reward), length + 1, terminated or truncated
        returns.append(total)
        lengths.append(length)
        bad.append(negative(float(reward), bool(terminated), info))
        success.append(float(info["is_success"]) if "is_success" in info else np.nan)
    return {
        "mean_return": float(np.mean(returns)),
        "mean_length": float(np.mean(lengths)),
        "negative_rate": float(np.mean(bad)),
        "success_rate": float(np.mean(success)),
    }
