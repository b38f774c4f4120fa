"""The arena is registered with Gymnasium, and the paper's agent trains on an environment
instance a user brings: negative episodes (terminated on a negative reward) fill the amplified
pool, transition for transition."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from icml25.predator_rl import ENV_ID, AgentConfig, PreyArenaEnv, train_on_env


def test_gymnasium_make_builds_the_arena_with_its_keywords():
    env = gymnasium.make(ENV_ID, layout="open", size=9)
    assert ENV_ID == "icml25/PreyArena-v0"
    assert isinstance(env.unwrapped, PreyArenaEnv)
    assert env.unwrapped.layout.walls.shape == (9, 9)
    check_env(env.unwrapped)


def test_the_module_prefix_form_imports_and_registers():
    env = gymnasium.make("icml25.predator_rl:icml25/PreyArena-v0")
    assert isinstance(env.unwrapped, PreyArenaEnv)


def test_negative_episodes_fill_the_amplified_pool():
    env = gymnasium.make(ENV_ID, layout="open")
    both = AgentConfig(penalty=0.2, negative_fraction=0.35, negative_scale=200.0, batch=16)
    out = train_on_env(env, both, steps=400, warmup=50, eval_episodes=3, seed=0)
    ep, agent, buffer = out["episodes"], out["agent"], out["buffer"]
    assert set(ep) == {"end_step", "return", "length", "negative"}
    assert ep["end_step"][-1] <= 400 and (np.diff(ep["end_step"]) == ep["length"][1:]).all()
    assert ep["negative"].any()
    assert buffer.size == 400 and buffer.from_capture().sum() == ep["length"][ep["negative"]].sum()
    # a capture ends an arena episode with capture_reward = -1: exactly the negative ones
    np.testing.assert_array_equal(ep["negative"], ep["return"] < -0.5)
    assert 0.0 <= out["final"]["success_rate"] <= 1.0
    assert agent.q.weights[0].shape[1] == env.observation_space.shape[0]


def test_discrete_observations_are_flattened_and_the_action_start_kept():
    env = gymnasium.make("FrozenLake-v1", is_slippery=False)  # Discrete(16) observations
    out = train_on_env(env, AgentConfig(batch=8), steps=200, warmup=20, eval_episodes=2, seed=1)
    assert out["agent"].q.weights[0].shape[1] == 16
    assert np.isnan(out["final"]["success_rate"]) or 0 <= out["final"]["success_rate"] <= 1


def test_an_env_the_agent_cannot_act_in_is_refused():
    with pytest.raises(ValueError, match="action_space must be Discrete"):
        train_on_env(gymnasium.make("Pendulum-v1"), AgentConfig(), steps=10)
    with pytest.raises(TypeError, match="env must be a gymnasium.Env"):
        train_on_env("CartPole-v1", AgentConfig(), steps=10)
