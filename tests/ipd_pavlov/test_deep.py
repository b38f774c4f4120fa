import math

import numpy as np
import pytest
import torch

from icml25.ipd_pavlov.deep import (
    DQN_PAYOFFS,
    KIND_NEXT,
    KIND_STATE,
    MIRROR,
    _Buffer,
    _features,
    _network,
    _q,
    deep_self_play,
)

SMALL = {"iterations": 60, "pretrain_iterations": 20, "games": 256, "capacity": 4096}


def test_payoffs_are_the_official_prisoners_dilemma_and_pavlov_a_fixed_point():
    (P, T), (S, R) = DQN_PAYOFFS
    assert T > R > P > S
    assert 0.8 * (R - P) > T - R  # gamma = 0.8: Pavlov is a fixed point
    assert not 0.4 * (R - P) > T - R  # the control, gamma = 0.4


def test_features_are_one_hot_of_own_then_other_action():
    x = _features()
    assert x.shape == (5, 4)
    np.testing.assert_array_equal(x[3], [0, 1, 0, 1])  # CC
    np.testing.assert_array_equal(x[1], [1, 0, 0, 1])  # DC: own D, other C
    np.testing.assert_array_equal(x[4], [0, 0, 0, 0])  # before the first play
    # the other player's view swaps the two halves of the one-hot
    np.testing.assert_array_equal(x[MIRROR[:4]], torch.cat([x[:4, 2:], x[:4, :2]], dim=1))


def test_count_weighted_loss_equals_the_per_transition_loss():
    # a minibatch as a list of transitions (official) against its counts per kind (ours)
    gen = torch.Generator().manual_seed(0)
    net, target = _network(8, gen), _network(8, gen)
    for p in net:
        p.requires_grad_(True)
    rng = np.random.default_rng(1)
    kinds = rng.integers(0, 20, size=300)  # (n,)
    x, r, gamma = _features(), torch.tensor(DQN_PAYOFFS.ravel(), dtype=torch.float32), 0.8
    s, s2 = torch.from_numpy(KIND_STATE[kinds]), torch.from_numpy(KIND_NEXT[kinds])
    per_sample = torch.nn.functional.huber_loss(  # one forward per transition, as official
        _q(net, x[s])[torch.arange(300), s2 // 2], r[s2] + gamma * _q(target, x[s2]).max(1).values
    )
    grads = torch.autograd.grad(per_sample, net)
    counts = torch.from_numpy(np.bincount(kinds, minlength=20) / 300).float()
    ks, kn = torch.from_numpy(KIND_STATE), torch.from_numpy(KIND_NEXT)
    losses = torch.nn.functional.huber_loss(
        _q(net, x)[ks, kn // 2],
        r[kn] + gamma * _q(target, x).max(1).values[kn],
        reduction="none",
    )
    weighted = (counts * losses).sum()
    torch.testing.assert_close(weighted, per_sample)
    for a, b in zip(torch.autograd.grad(weighted, net), grads, strict=True):
        torch.testing.assert_close(a, b)


def test_buffer_keeps_the_newest_capacity_transitions():
    rng = np.random.default_rng(0)
    buffer = _Buffer(10, rng)
    first, second = np.zeros(20, np.int64), np.zeros(20, np.int64)
    first[0], second[5] = 6, 7
    buffer.push(first)
    buffer.push(second)  # 13 > 10: three of the first push are overwritten
    assert buffer.total.sum() == 10
    assert buffer.total[0] == 3 and buffer.total[5] == 7
    buffer.push(second)  # now the first push is gone entirely
    assert buffer.total[0] == 0 and buffer.total.sum() == 10
    draw = buffer.sample(10)  # without replacement: the whole buffer
    np.testing.assert_array_equal(draw, buffer.total)


def test_shapes_determinism_and_schedule():
    out = deep_self_play(**SMALL, seed=3)
    assert out["policy"].shape == (60,) and out["q_gap"].shape == (60, 4)
    assert out["cooperation"].shape == (60, 4)
    assert set(np.unique(out["policy"])) <= set(range(16))
    np.testing.assert_allclose(out["epsilon"][0], 0.01 + 0.49 * math.exp(-1 / 600))
    again = deep_self_play(**SMALL, seed=3)
    np.testing.assert_array_equal(out["q_gap"], again["q_gap"])
    other = deep_self_play(**SMALL, seed=4)
    assert not np.array_equal(out["q_gap"], other["q_gap"])


def test_pretraining_against_a_random_opponent_gives_always_defect():
    # defection is the best response to a uniformly random opponent in every state
    out = deep_self_play(iterations=1, pretrain_iterations=300, games=4096, seed=0)
    assert out["pretrain_policy"] == 0  # DDDD


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"iterations": 0}, "iterations"),
        ({"pretrain_iterations": -1}, "pretrain_iterations"),
        ({"games": 0}, "games"),
        ({"hidden": 0}, "hidden"),
        ({"capacity": 100}, "capacity"),
        ({"lr": 0.0}, "lr"),
        ({"tau": 1.5}, "tau"),
        ({"gamma": 1.0}, "gamma"),
        ({"eps_start": 0.7}, "eps_start"),
        ({"eps_decay": 0.0}, "eps_decay"),
        ({"payoff": np.zeros(3)}, "payoff"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, word):
    with pytest.raises(ValueError, match=f"^{word} must"):
        deep_self_play(**{**SMALL, **kwargs})
