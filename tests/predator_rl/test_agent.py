"""The variance-penalised target and the amplified buffer against hand computations."""

import numpy as np
import pytest
import torch

from icml25.predator_rl import (
    AgentConfig,
    AmplifiedReplayBuffer,
    EnsembleQ,
    episode_metrics,
    variance_penalised_target,
)


def test_variance_penalised_target_on_a_hand_computed_ensemble():
    # K = 3 heads, B = 2 transitions, A = 2 actions
    online = torch.tensor(
        [[[1.0, 2.0], [0.0, -1.0]], [[1.0, 4.0], [0.0, -3.0]], [[1.0, 3.0], [3.0, -2.0]]]
    )
    target = online + torch.tensor([[[0.0, 0.5]], [[0.0, -1.0]], [[0.0, 0.0]]])
    reward, done = torch.tensor([0.5, -1.0]), torch.tensor([0.0, 1.0])
    y = variance_penalised_target(reward, done, online, target, gamma=0.9, penalty=0.2)
    # transition 0: greedy action 1 (mean 3 > 1); target heads there 2.5, 3, 3 -> min 2.5;
    # online values over heads and actions 1, 2, 1, 4, 1, 3: mean 2, sample variance 8 / 5
    # -> 0.5 + 0.9 (2.5 - 0.2 * 1.6); transition 1: done -> the reward alone
    torch.testing.assert_close(y, torch.tensor([0.5 + 0.9 * (2.5 - 0.2 * 1.6), -1.0]))
    plain = variance_penalised_target(reward, done, online, target, gamma=0.9, penalty=0.0)
    torch.testing.assert_close(plain, torch.tensor([0.5 + 0.9 * 2.5, -1.0]))


def test_penalty_lowers_the_target_where_heads_disagree():
    q = EnsembleQ(6, 3, heads=5, hidden=8, seed=0)(torch.rand(4, 6))  # (5, 4, 3)
    r, d = torch.zeros(4), torch.zeros(4)
    gap = variance_penalised_target(r, d, q, q, 0.9, 0.0) - variance_penalised_target(
        r, d, q, q, 0.9, 1.0
    )
    var = q.permute(1, 0, 2).reshape(4, -1).var(1)  # (4,) over the 5 heads x 3 actions
    torch.testing.assert_close(gap, 0.9 * var)


def test_the_variance_penalty_is_clipped_as_the_official_code_clips_it():
    q = torch.tensor([[[0.0, 100.0]], [[-100.0, 0.0]]])  # (K=2, B=1, A=2)
    r, d = torch.zeros(1), torch.zeros(1)
    # greedy action 1 (head mean 50 against -50): min over heads 0; the variance of
    # 0, 100, -100, 0 is 20000 / 3, clipped to 1000
    y = variance_penalised_target(r, d, q, q, 1.0, 1.0)
    torch.testing.assert_close(y, torch.tensor([-1000.0]))


def filled_buffer(fraction, scale=1.0, seed=0):
    buf = AmplifiedReplayBuffer(1000, 2, fraction, scale, seed=seed)
    # 20 episodes of 40 steps, two envs at a time; episodes 3 and 8 end in capture
    for step in range(400):
        eps = np.array([step // 40 * 2, step // 40 * 2 + 1])
        reward = np.where((step % 40 == 39) & np.isin(eps, [3, 8]), -1.0, 0.0)
        buf.add(np.zeros((2, 2)), np.zeros(2, int), reward, np.zeros((2, 2)), reward < 0, eps)
    buf.mark_captured([3, 8])
    return buf


def test_buffer_sampling_proportions():
    buf = filled_buffer(0.35)
    neg = buf.from_capture()
    assert neg.sum() == 80  # two episodes of 40 transitions
    idx = np.concatenate([buf.sample_indices(128) for _ in range(50)])
    assert abs(neg[idx].mean() - round(128 * 0.35) / 128) < 1e-12  # exact per batch
    # within the pools, uniform: each capture transition drawn about equally often
    counts = np.bincount(idx[neg[idx]], minlength=buf.size)[neg]
    assert counts.std() / counts.mean() < 0.3
    uniform = filled_buffer(None)
    share = uniform.from_capture()[np.concatenate([uniform.sample_indices(256) for _ in range(40)])]
    assert abs(share.mean() - 80 / 800) < 0.02  # about 10240 draws: 3 standard errors


def test_buffer_scales_negative_rewards_only_and_falls_back_without_captures():
    buf = filled_buffer(1.0, scale=200.0)
    batch = buf.sample(64)
    assert set(batch["reward"].tolist()) <= {0.0, -200.0} and (batch["reward"] < 0).any()
    empty = AmplifiedReplayBuffer(10, 2, 0.5, seed=0)
    empty.add(
        np.zeros((3, 2)), np.zeros(3, int), np.ones(3), np.zeros((3, 2)), np.zeros(3), [0, 1, 2]
    )
    assert len(empty.sample_indices(8)) == 8  # no capture yet: all from the other pool


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="penalty"):
        AgentConfig(penalty=-0.1)
    r = torch.zeros(2)
    q = torch.zeros(3, 2, 4)
    with pytest.raises(ValueError, match="penalty"):
        variance_penalised_target(r, r, q, q, 0.9, -1.0)
    with pytest.raises(ValueError, match="q_next"):
        variance_penalised_target(r, r, q, q[:2], 0.9, 0.1)
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="negative_fraction"):
            AmplifiedReplayBuffer(10, 2, bad)
        with pytest.raises(ValueError, match="negative_fraction"):
            AgentConfig(negative_fraction=bad)
    with pytest.raises(ValueError, match="negative_scale"):
        AmplifiedReplayBuffer(10, 2, 0.3, negative_scale=0.5)
    with pytest.raises(ValueError, match="outcome"):
        episode_metrics([], [], [], [])


def test_metrics_count_outcomes():
    m = episode_metrics([1, -1, 0, 1], [10, 5, 100, 20], [2, 1, 100, 4], [0, 0, 3, 1])
    assert m["capture_rate"] == 0.25 and m["success_rate"] == 0.5
    assert m["steps_to_goal"] == 15 and m["caution_success"] == 3
    # episode 3 never left cover (cover_steps == length): counted only by caution_all
    assert m["caution"] == pytest.approx(7 / 3) and m["caution_all"] == 26.75
    assert m["crossing_rate"] == 0.75
