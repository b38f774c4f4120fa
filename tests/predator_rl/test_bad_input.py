"""Bad input to the agent, buffer, metrics, arena and training loop is refused, naming it."""

import numpy as np
import pytest
import torch

from icml25.predator_rl import (
    AgentConfig,
    AmplifiedReplayBuffer,
    ArenaConfig,
    EnsembleDQN,
    EnsembleQ,
    Layout,
    PreyArenaEnv,
    TrainConfig,
    VecPreyArena,
    episode_metrics,
    evaluate,
    line_of_sight,
    make_layout,
    render_arena,
    train,
    variance_penalised_target,
)

LAYOUT = make_layout("occluded")
Q = torch.randn(3, 4, 5)
R = torch.zeros(4)
OBS = np.zeros((2, 3), np.float32)
SMALL = AgentConfig(heads=2, hidden=8, batch=4, buffer=50)
AGENT = EnsembleDQN(2 * len(LAYOUT.cells) + 1, 5, SMALL, seed=0)
QUICK = TrainConfig(num_envs=2, steps=2, warmup=0, eval_episodes=2)
EMPTY = np.zeros((3, 3), bool)


def vpt(reward=R, done=R, q=Q, gamma=0.9, penalty=0.1):
    return lambda: variance_penalised_target(reward, done, q, q, gamma, penalty)


def buffer():
    b = AmplifiedReplayBuffer(10, 3, negative_fraction=0.5, seed=0)
    b.add(OBS, [0, 1], [0.0, -1.0], OBS, [0, 1], [0, 1])
    return b


def add(**changes):
    kwargs = dict(obs=OBS, action=[0, 1], reward=[0.0, 0.0], next_obs=OBS, done=[0, 0]) | changes
    return lambda: buffer().add(episode=kwargs.pop("episode", [0, 1]), **kwargs)


def metrics(outcome=(1, -1), length=(3, 3), cover=(1, 1), waits=(0, 0)):
    return lambda: episode_metrics(outcome, length, cover, waits)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (vpt(penalty=float("nan")), ValueError, r"penalty \(lambda\) must be"),
        (vpt(penalty=float("inf")), ValueError, r"penalty \(lambda\) must be"),
        (vpt(gamma="0.9"), ValueError, "gamma must be"),
        (vpt(reward=torch.zeros(3)), ValueError, r"reward must have shape \(4,\)"),
        (vpt(reward=torch.zeros(4, 1)), ValueError, "reward must be a non-empty 1-D"),
        (vpt(done=R + 2), ValueError, "done must hold 0 or 1"),
        (vpt(q=Q * np.nan), ValueError, "q_next_online must be finite"),
        (vpt(q=Q[:, :, :0]), ValueError, "q_next_online must be a non-empty 3-D"),
        (vpt(q=Q.numpy()), TypeError, "q_next_online must be a torch.Tensor"),
        (lambda: EnsembleQ(4, 5, 0, 8, 0), ValueError, "heads must be an integer >= 1"),
        (lambda: EnsembleQ(0, 5, 2, 8, 0), ValueError, "obs_dim must be an integer >= 1"),
        (lambda: EnsembleQ(4.0, 5, 2, 8, 0), ValueError, "obs_dim must be an integer"),
        (lambda: EnsembleQ(4, 5, 100, 10**5, 0), ValueError, "hidden is too large"),
        (lambda: EnsembleQ(4, 5, 2, 8, 0)(torch.zeros(2, 3)), ValueError, "obs must have D = 4"),
        (lambda: EnsembleQ(4, 5, 2, 8, 0)(np.zeros((2, 4))), TypeError, "obs must be a"),
        (lambda: AmplifiedReplayBuffer(2.5, 3), ValueError, "capacity must be an integer"),
        (lambda: AmplifiedReplayBuffer(10**12, 3), ValueError, "capacity is too large"),
        (lambda: AmplifiedReplayBuffer(10, 0), ValueError, "obs_dim must be an integer >= 1"),
        (
            lambda: AmplifiedReplayBuffer(10, 3, negative_scale=np.nan),
            ValueError,
            "negative_scale must be",
        ),
        (add(obs=np.zeros((3, 3))), ValueError, r"obs must have shape \(2, 3\)"),
        (add(next_obs=np.zeros((2, 4))), ValueError, r"next_obs must have shape \(2, 3\)"),
        (add(reward=[np.nan, 0.0]), ValueError, "reward must be finite"),
        (add(action=[-1, 1]), ValueError, "action must be >= 0"),
        (add(action=["a", "b"]), ValueError, "action must be a numeric array"),
        (add(episode=[-1, -5]), ValueError, "episode must be >= 0"),
        (add(episode=[0, 10**12]), ValueError, "episode must be <="),
        (add(done=[2, 5]), ValueError, "done must have shape"),
        (add(action=np.zeros(25, int)), ValueError, "at most capacity = 10"),
        (add(action=[]), ValueError, "action must not be empty"),
        (lambda: buffer().mark_captured([-1]), ValueError, "episodes must be >= 0"),
        (lambda: buffer().mark_captured([5000]), ValueError, "episodes must be <="),
        (lambda: buffer().mark_captured([0.5]), ValueError, "episodes must hold integers"),
        (lambda: buffer().sample(0), ValueError, "batch must be an integer >= 1"),
        (lambda: buffer().sample(2.5), ValueError, "batch must be an integer"),
        (lambda: buffer().sample(10**12), ValueError, "batch is too large"),
        (lambda: AgentConfig(gamma=2.0), ValueError, "gamma must be"),
        (lambda: AgentConfig(lr=-1.0), ValueError, "lr must be"),
        (lambda: AgentConfig(batch=0), ValueError, "batch must be an integer >= 1"),
        (lambda: AgentConfig(tau=2.0), ValueError, "tau must be"),
        (lambda: AgentConfig(penalty=np.nan), ValueError, r"penalty \(lambda\) must be"),
        (lambda: AgentConfig(hidden=0), ValueError, "hidden must be an integer >= 1"),
        (lambda: EnsembleDQN(4, 5, {}, 0), TypeError, "config must be an AgentConfig"),
        (
            lambda: AGENT.act(np.zeros((2, 3), np.float32), 0.1, np.random.default_rng(0)),
            ValueError,
            "obs must have shape",
        ),
        (
            lambda: AGENT.act(np.zeros((2, 189)), 0.1, np.random.default_rng(0)),
            TypeError,
            "obs must be a float32",
        ),
        (
            lambda: AGENT.act(np.full((2, 189), np.nan, np.float32), 0.0, np.random.default_rng(0)),
            ValueError,
            "obs must be finite",
        ),
        (
            lambda: AGENT.act(np.zeros((2, 189), np.float32), 2.0, np.random.default_rng(0)),
            ValueError,
            "epsilon must be",
        ),
        (lambda: AGENT.act(np.zeros((2, 189), np.float32), 0.1, 0), TypeError, "rng must be"),
        (lambda: AGENT.update({"obs": torch.zeros(2, 189)}), TypeError, "batch must be a dict"),
        (
            lambda: AGENT.update(
                {
                    "obs": torch.zeros(2, 189),
                    "action": torch.tensor([0, 9]),
                    "reward": torch.zeros(2),
                    "next_obs": torch.zeros(2, 189),
                    "done": torch.zeros(2),
                }
            ),
            ValueError,
            r"batch\['action'\]",
        ),
        (
            lambda: AGENT.update(
                {
                    "obs": torch.zeros(2, 189),
                    "action": torch.tensor([0, 1]),
                    "reward": torch.tensor([np.nan, 0.0]),
                    "next_obs": torch.zeros(2, 189),
                    "done": torch.zeros(2),
                }
            ),
            ValueError,
            r"batch\['reward'\] must be finite",
        ),
        (metrics(length=(3,)), ValueError, "length must hold 2 counts"),
        (metrics(outcome=(5, 5)), ValueError, "outcome must be <= 1"),
        (metrics(outcome=(0.5, -1)), ValueError, "outcome must hold integers"),
        (metrics(outcome=("a", "b")), ValueError, "outcome must be a numeric array"),
        (metrics(length=(np.nan, 3)), ValueError, "length must be finite"),
        (metrics(length=(-3, 3)), ValueError, "length must hold 2 counts >= 0"),
        (metrics(outcome=[[1, -1]]), ValueError, "outcome must have 1 dimensions"),
        (
            metrics(outcome=(1,), length=(3,), cover=(5,), waits=(0,)),
            ValueError,
            "cover_steps must be <= length",
        ),
        (
            lambda: line_of_sight(np.zeros(3, bool), np.zeros((1, 2)), np.zeros((1, 2))),
            ValueError,
            "walls must be a 2-D bool array",
        ),
        (
            lambda: line_of_sight(np.eye(3, dtype=bool), np.zeros(2), np.zeros((1, 2))),
            ValueError,
            "a must have 2 dimensions",
        ),
        (
            lambda: line_of_sight(np.eye(3, dtype=bool), np.full((1, 2), np.nan), np.zeros((1, 2))),
            ValueError,
            "a must be finite",
        ),
        (
            lambda: line_of_sight(np.eye(3, dtype=bool), np.zeros((1, 3)), np.zeros((1, 3))),
            ValueError,
            r"a must have shape \(A, 2\)",
        ),
        (
            lambda: line_of_sight(
                np.eye(300, dtype=bool), np.zeros((3000, 2)), np.zeros((3000, 2))
            ),
            ValueError,
            "a, b and walls are too large",
        ),
        (lambda: make_layout("open", size=10**5), ValueError, "size is too large"),
        (lambda: make_layout("random", blocks=-1), ValueError, "blocks must be an integer >= 0"),
        (lambda: make_layout("random", seed=-1), ValueError, "seed must be an integer >= 0"),
        (lambda: Layout(EMPTY, (1.5, 0), (1, 2)), ValueError, "start must be a .row, col. pair"),
        (lambda: Layout(EMPTY, "ab", (1, 2)), ValueError, "start must be a .row, col. pair"),
        (lambda: Layout(EMPTY, (1, 0, 0), (1, 2)), ValueError, "start must be a .row, col. pair"),
        (lambda: ArenaConfig(capture_radius=np.nan), ValueError, "capture_radius must be finite"),
        (lambda: ArenaConfig(goal_reward=np.nan), ValueError, "goal_reward must be finite"),
        (lambda: VecPreyArena(LAYOUT, 2, {"max_steps": 5}), TypeError, "config must be an Arena"),
        (lambda: VecPreyArena(LAYOUT, 2, {}), TypeError, "config must be an ArenaConfig"),
        (lambda: VecPreyArena(LAYOUT, 10**9), ValueError, "num_envs is too large"),
        (lambda: VecPreyArena(LAYOUT, 3).reset(np.ones(2, bool)), ValueError, r"mask must be"),
        (lambda: VecPreyArena(LAYOUT, 3).reset(np.array([0, 2, 1])), ValueError, "mask must be"),
        (lambda: PreyArenaEnv("open").step(1.5), ValueError, "action must be an integer"),
        (lambda: PreyArenaEnv("open").step("a"), ValueError, "action must be an integer"),
        (lambda: render_arena(LAYOUT, prey=1000), ValueError, "prey must be a free-cell number"),
        (lambda: render_arena(LAYOUT, prey=-1), ValueError, "prey must be a free-cell number"),
        (lambda: render_arena(LAYOUT, predator=1.5), ValueError, "predator must be a free-cell"),
        (lambda: render_arena(LAYOUT, scale=0), ValueError, "scale must be an integer >= 1"),
        (lambda: render_arena(LAYOUT, scale=10**5), ValueError, "scale is too large"),
        (lambda: render_arena("occluded"), TypeError, "layout must be a Layout"),
        (
            lambda: train(LAYOUT, SMALL, TrainConfig(steps=2, warmup=-1), 0),
            ValueError,
            "warmup must be an integer >= 0",
        ),
        (
            lambda: train(LAYOUT, SMALL, TrainConfig(steps=2, updates_per_step=-1), 0),
            ValueError,
            "updates_per_step must be an integer >= 0",
        ),
        (lambda: train(LAYOUT, SMALL, QUICK, -1), ValueError, "seed must be an integer >= 0"),
        (lambda: train(LAYOUT, SMALL, QUICK, 0, record=5), ValueError, "record must be <="),
        (lambda: train(LAYOUT, SMALL, QUICK, 0, record=-1), ValueError, "record must be an int"),
        (lambda: train(LAYOUT, {}, QUICK, 0), TypeError, "agent_config must be an AgentConfig"),
        (lambda: train(LAYOUT, SMALL, {}, 0), TypeError, "train_config must be a TrainConfig"),
        (lambda: evaluate(AGENT, LAYOUT, 3, 0, epsilon=2.0), ValueError, "epsilon must be"),
        (lambda: evaluate(AGENT, LAYOUT, 3, 0, record=10), ValueError, "record must be <="),
        (lambda: evaluate(AGENT, LAYOUT, 3, 0, record=-1), ValueError, "record must be an"),
        (lambda: evaluate(AGENT, LAYOUT, 3, "a"), ValueError, "seed must be an integer"),
        (
            lambda: evaluate(AGENT, make_layout("open", size=7), 3, 0),
            ValueError,
            "layout gives observations of size 99",
        ),
        (lambda: evaluate("x", LAYOUT, 3, 0), TypeError, "agent must be an EnsembleDQN"),
    ],
)
def test_bad_input_is_refused_by_name(call, error, message):
    with pytest.raises(error, match=message):
        call()
