"""Brute-force group PNE and PoA: against a naive search, closed forms, and bad input."""

import itertools

import numpy as np
import pytest

from icml25.creator_groups import (
    all_profiles,
    brute_force_equilibria,
    creator_rewards,
    equal_groups,
    exposure_trap,
    self_greedy,
    user_welfare,
)


def _naive_pne(R, p, n, K, beta, groups, reward, tol=1e-10):
    """Every profile, every group, every joint deviation of the group, in plain loops."""
    q = R.shape[0]
    out = []
    for profile in itertools.product(range(q), repeat=n):
        u = creator_rewards(R[list(profile)], p, K, beta, reward)
        stable = True
        for g in np.unique(groups):
            idx = np.flatnonzero(groups == g)
            for dev in itertools.product(range(q), repeat=idx.size):
                other = np.array(profile)
                other[idx] = dev
                gain = creator_rewards(R[other], p, K, beta, reward)[idx].sum() - u[idx].sum()
                stable &= gain <= tol
        out.append(stable)
    return np.array(out)


@pytest.mark.parametrize("reward", ["exposure", "engagement"])
@pytest.mark.parametrize("size", [1, 2, 3])
def test_vectorised_pne_equals_the_naive_search(reward, size):
    rng = np.random.default_rng(size)
    R, p = rng.random((3, 3)), rng.dirichlet(np.ones(3))
    groups = equal_groups(3, size)
    eq = brute_force_equilibria(R, p, 3, 2, 0.2, groups, reward)
    np.testing.assert_array_equal(eq.is_pne, _naive_pne(R, p, 3, 2, 0.2, groups, reward))
    np.testing.assert_allclose(eq.welfare, user_welfare(R[eq.profiles], p, 2, 0.2), atol=1e-15)


def test_profiles_are_every_assignment_once():
    P = all_profiles(3, 4)
    assert P.shape == (64, 3) and len({tuple(r) for r in P}) == 64
    np.testing.assert_array_equal(P[1], [0, 0, 1])


def test_one_group_under_exposure_makes_every_profile_an_equilibrium():
    rng = np.random.default_rng(0)
    R, p = rng.random((4, 3)), rng.dirichlet(np.ones(3))
    eq = brute_force_equilibria(R, p, 3, 2, 0.1, np.zeros(3, int), "exposure")
    assert eq.is_pne.all()
    assert eq.price_of_anarchy == pytest.approx(eq.welfare.max() / eq.welfare.min())


@pytest.mark.parametrize("K", [1, 2, 3])
def test_exposure_trap_closed_form(K):
    """Worst PNE: everyone on the generic content, W = epsilon + beta log K; the optimum is at
    least the 'one creator per user' profile, beta log(e^{1/beta} + K - 1)."""
    eps, beta = 0.01, 0.05
    R, p, n = exposure_trap(K, eps)
    eq = brute_force_equilibria(R, p, n, K, beta, np.zeros(n, int), "exposure")
    assert eq.pne_welfare.min() == pytest.approx(eps + beta * np.log(K), abs=1e-14)
    assert eq.optimum >= beta * np.log(np.exp(1 / beta) + K - 1) - 1e-12
    assert eq.price_of_anarchy > K + 1
    # engagement rewards on the same instance stay within K + 1
    eng = brute_force_equilibria(R, p, n, K, beta, np.zeros(n, int), "engagement")
    assert eng.price_of_anarchy <= K + 1


def test_engagement_poa_within_the_bounds_on_small_instances():
    rng = np.random.default_rng(5)
    for i in range(12):
        binary = i % 2 == 0
        R = (rng.random((3, 3)) < 0.5).astype(float) if binary else rng.random((3, 3))
        p, K, size = rng.dirichlet(np.ones(3)), 1 + i % 3, 1 + i % 3
        eq = brute_force_equilibria(R, p, 3, K, 0.1, equal_groups(3, size), "engagement")
        if eq.is_pne.any():
            assert eq.price_of_anarchy <= (2 if binary else K + 1)


def test_no_equilibrium_gives_nan():
    from icml25.creator_groups.discrete import Equilibria

    eq = Equilibria(np.zeros((2, 1)), np.ones(2), np.ones((2, 1)), np.zeros(2, bool))
    assert np.isnan(eq.price_of_anarchy) and eq.pne_welfare.size == 0


def test_bad_arguments():
    R, p = np.eye(3), np.ones(3) / 3
    with pytest.raises(ValueError, match="R must"):
        brute_force_equilibria(np.ones(3), p, 2, 1, 0.1, [0, 1])
    with pytest.raises(ValueError, match="q\\^n"):
        brute_force_equilibria(R, p, 40, 1, 0.1, np.arange(40))
    with pytest.raises(ValueError, match="n must"):
        brute_force_equilibria(R, p, 0, 1, 0.1, [])
    with pytest.raises(ValueError, match="K must be at most"):
        brute_force_equilibria(R, p, 2, 3, 0.1, [0, 1])
    with pytest.raises(ValueError, match="groups"):
        brute_force_equilibria(R, p, 2, 1, 0.1, [0, 0, 1])
    with pytest.raises(ValueError, match="reward"):
        brute_force_equilibria(R, p, 2, 1, 0.1, [0, 1], "likes")
    with pytest.raises(ValueError, match="tol"):
        brute_force_equilibria(R, p, 2, 1, 0.1, [0, 1], tol=-1.0)
    with pytest.raises(ValueError, match="p must"):
        brute_force_equilibria(R, np.ones(2), 2, 1, 0.1, [0, 1])
    with pytest.raises(ValueError, match="epsilon"):
        exposure_trap(2, 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        exposure_trap(2, 1.0)
    with pytest.raises(ValueError, match="K must"):
        exposure_trap(0, 0.1)


@pytest.mark.parametrize("reward", ["exposure", "engagement"])
@pytest.mark.parametrize("size", [1, 2, 4])
def test_self_greedy_stops_only_at_a_pne_the_brute_force_confirms(reward, size):
    rng = np.random.default_rng(10 + size)
    stopped = 0
    for _ in range(8):
        q, m = int(rng.integers(3, 5)), int(rng.integers(2, 5))
        R, p = rng.random((q, m)), rng.dirichlet(np.ones(m))
        for K in (1, 2, 3):
            groups = equal_groups(4, size)
            sg = self_greedy(R, p, 4, K, 0.1, groups, reward)
            eq = brute_force_equilibria(R, p, 4, K, 0.1, groups, reward)
            at = np.ravel_multi_index(tuple(sg.profile), (q,) * 4)
            assert sg.welfare == pytest.approx(eq.welfare[at], abs=1e-12)
            if sg.converged:
                stopped += 1
                assert eq.is_pne[at]
    assert stopped > 0


def test_self_greedy_places_groups_in_turn():
    """One creator, K = 1: the greedy placement alone picks the most engaging content, and the
    first repair sweep is quiet."""
    R = np.array([[0.2, 0.1], [0.9, 0.8], [0.5, 0.5]])
    sg = self_greedy(R, [0.5, 0.5], 1, 1, 0.1, [0], "engagement")
    assert sg.profile.tolist() == [1] and sg.converged and sg.sweeps == 1


def test_self_greedy_without_sweeps_does_not_claim_an_equilibrium():
    R = np.array([[1.0, 0.0], [0.0, 1.0]])
    sg = self_greedy(R, [0.5, 0.5], 2, 1, 0.1, [0, 1], "exposure", max_sweeps=0)
    assert not sg.converged and sg.sweeps == 0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"R": np.ones(3)}, "R must"),
        ({"n": 0}, "n must"),
        ({"K": 3}, "K must be at most"),
        ({"groups": [0, 2]}, "groups"),
        ({"reward": "views"}, "reward"),
        ({"max_sweeps": -1}, "max_sweeps"),
        ({"tol": -1.0}, "tol"),
    ],
)
def test_self_greedy_bad_arguments(kwargs, match):
    args = dict(R=np.eye(2), p=[0.5, 0.5], n=2, K=1, beta=0.1, groups=[0, 1])
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        self_greedy(**args)
