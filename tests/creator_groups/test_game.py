"""The top-K game: matching, welfare and rewards against closed forms, and bad input."""

import numpy as np
import pytest
from scipy.special import logsumexp, softmax

from icml25.creator_groups import (
    creator_rewards,
    equal_groups,
    group_utilities,
    sample_sphere,
    top_k_matching,
    user_welfare,
)


def _instance(n=6, m=5, d=4, seed=0):
    S, X = sample_sphere(n, d, [seed, 0]), sample_sphere(m, d, [seed, 1])
    p = np.random.default_rng(seed).dirichlet(np.ones(m))
    return S @ X.T, p  # (n, m), (m,)


@pytest.mark.parametrize("K", [1, 2, 4, 6])
def test_matching_is_the_softmax_over_the_top_k(K):
    sigma, _ = _instance()
    beta = 0.3
    P, value = top_k_matching(sigma, K, beta)
    for j in range(sigma.shape[1]):  # the definition, user by user
        top = np.argsort(sigma[:, j])[-K:]
        expected = np.zeros(sigma.shape[0])
        expected[top] = softmax(sigma[top, j] / beta)
        np.testing.assert_allclose(P[:, j], expected, atol=1e-14)
        assert value[j] == pytest.approx(beta * logsumexp(sigma[top, j] / beta), abs=1e-13)
    np.testing.assert_allclose(P.sum(axis=0), 1.0, atol=1e-14)


def test_welfare_closed_forms():
    sigma, p = _instance()
    # K = 1: the user takes the most relevant content, W = sum_j p_j max_i sigma_ij
    assert user_welfare(sigma, p, 1, 0.2) == pytest.approx(p @ sigma.max(axis=0), abs=1e-14)
    # K = n: the log-partition function over all contents
    full = p @ (0.2 * logsumexp(sigma / 0.2, axis=0))
    assert user_welfare(sigma, p, 6, 0.2) == pytest.approx(full, abs=1e-13)
    # max_i sigma <= beta log sum_{T_K} e^{sigma/beta} <= max_i sigma + beta log K
    for K in (2, 3):
        W = user_welfare(sigma, p, K, 0.2)
        assert p @ sigma.max(axis=0) <= W <= p @ sigma.max(axis=0) + 0.2 * np.log(K) + 1e-14
    # welfare grows with K at a fixed profile
    Ws = [user_welfare(sigma, p, K, 0.2) for K in range(1, 7)]
    assert np.all(np.diff(Ws) > 0)


def test_ties_at_the_kth_place_are_shared_uniformly():
    """Five creators with the same content, K = 2: each is shown w.p. 2/5 and chosen w.p. 1/5;
    the user's welfare is sigma + beta log K."""
    sigma = np.full((5, 1), 0.4)
    P, value = top_k_matching(sigma, 2, 0.1)
    np.testing.assert_allclose(P[:, 0], 0.2, atol=1e-15)
    assert value[0] == pytest.approx(0.4 + 0.1 * np.log(2), abs=1e-15)
    # one strictly better creator and three tied below it, K = 2: one slot for three
    sigma = np.array([[1.0], [0.5], [0.5], [0.5]])
    P, _ = top_k_matching(sigma, 2, 0.5)
    a, b = np.exp(1.0 / 0.5), np.exp(0.5 / 0.5)
    np.testing.assert_allclose(P[:, 0], [a / (a + b), *(3 * [b / (a + b) / 3])], atol=1e-15)


def test_rewards_closed_forms():
    sigma, p = _instance()
    for K in (1, 3):
        exposure = creator_rewards(sigma, p, K, 0.2, "exposure")
        engagement = creator_rewards(sigma, p, K, 0.2, "engagement")
        # total exposure is the users' total weight, whatever the profile
        assert exposure.sum() == pytest.approx(p.sum(), abs=1e-14)
        # total engagement = sum_j p_j E_P[sigma] = W - beta sum_j p_j H(P_j) <= W
        P, _ = top_k_matching(sigma, K, 0.2)
        entropy = -np.sum(np.where(P > 0, P * np.log(np.where(P > 0, P, 1)), 0), axis=0)
        W = user_welfare(sigma, p, K, 0.2)
        assert engagement.sum() == pytest.approx(W - 0.2 * p @ entropy, abs=1e-13)
    # K = 1, tiny beta: creator i earns p_j sigma_ij on the users it is the best for
    engagement = creator_rewards(sigma, p, 1, 1e-4, "engagement")
    best = sigma.argmax(axis=0)
    expected = np.array([np.sum((p * sigma[i])[best == i]) for i in range(sigma.shape[0])])
    np.testing.assert_allclose(engagement, expected, atol=1e-12)


def test_batched_profiles_match_one_at_a_time():
    sigmas = np.stack([_instance(seed=s)[0] for s in range(3)])  # (3, n, m)
    p = _instance()[1]
    batch = user_welfare(sigmas, p, 2, 0.1)
    np.testing.assert_allclose(batch, [user_welfare(s, p, 2, 0.1) for s in sigmas], atol=1e-15)


def test_groups():
    np.testing.assert_array_equal(equal_groups(5, 2), [0, 0, 1, 1, 2])
    np.testing.assert_array_equal(equal_groups(4, 4), [0, 0, 0, 0])
    U = group_utilities(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), equal_groups(5, 2))
    np.testing.assert_allclose(U, [3.0, 7.0, 5.0])
    X = sample_sphere(7, 3, 0)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    np.testing.assert_array_equal(X, sample_sphere(7, 3, 0))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sigma": np.zeros(3)}, "sigma"),
        ({"sigma": np.full((2, 2), np.nan)}, "sigma"),
        ({"sigma": np.zeros((0, 2))}, "sigma"),
        ({"p": np.ones(3)}, "p must"),
        ({"p": np.array([1.0, -1.0])}, "p must"),
        ({"K": 0}, "K must"),
        ({"K": 3}, "K must be at most"),
        ({"K": 1.0}, "K must"),
        ({"K": True}, "K must"),
        ({"beta": 0.0}, "beta"),
        ({"beta": -1.0}, "beta"),
        ({"beta": np.inf}, "beta"),
        ({"reward": "clicks"}, "reward"),
    ],
)
def test_bad_game_arguments(kwargs, match):
    args = {"sigma": np.eye(2), "p": np.ones(2), "K": 1, "beta": 0.1, "reward": "exposure"}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        creator_rewards(**args)


def test_bad_group_and_sampling_arguments():
    with pytest.raises(ValueError, match="groups"):
        group_utilities(np.ones(3), [0, 2, 2])  # label 1 unused
    with pytest.raises(ValueError, match="groups"):
        group_utilities(np.ones(3), [0, 0])
    with pytest.raises(ValueError, match="groups"):
        group_utilities(np.ones(2), [0.0, 1.0])
    with pytest.raises(ValueError, match="groups"):
        group_utilities(np.ones(2), [-1, 0])
    with pytest.raises(ValueError, match="size"):
        equal_groups(3, 4)
    with pytest.raises(ValueError, match="size"):
        equal_groups(3, 0)
    with pytest.raises(ValueError, match="n must"):
        equal_groups(0, 1)
    with pytest.raises(ValueError, match="d must"):
        sample_sphere(3, 1, 0)
    with pytest.raises(ValueError, match="count"):
        sample_sphere(0, 3, 0)
    with pytest.raises(ValueError, match="K must"):
        top_k_matching(np.eye(2), 0, 0.1)
