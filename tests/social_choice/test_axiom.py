import itertools

import numpy as np
import pytest

from icml25.social_choice import (
    SyntheticOracles,
    democratic_process,
    deviation_ratios,
    enumerate_statements,
    largest_deviations,
    random_profile,
    satisfies_cbjr,
    statement_costs,
    utility_matrix,
)


def _brute_force(U, costs, current, budget, c):
    """Every statement, every level on a fine grid, every subset of qualifying agents."""
    n = U.shape[1]
    best = 0.0
    for s in range(U.shape[0]):
        need = max(1, int(np.ceil(costs[s] * n / budget - 1e-9)))
        for level in np.arange(U.min() - 1, U.max() + 1.01, 0.25):
            group = [i for i in range(n) if U[s, i] >= level and current[i] < level - c]
            best = max(best, len(group) / need)
    return best


def test_hand_made_violation_is_found():
    # 4 agents, budget 4: statement 0 (cost 2) is loved (3) by agents 0, 1, 2, who hold 1.
    U = np.array([[3, 3, 3, 0], [1, 1, 1, 1]], dtype=float)
    costs = np.array([2.0, 1.0])
    current = np.array([1.0, 1.0, 1.0, 3.0])
    dev = largest_deviations(U, costs, current, 4.0, (0.0, 1.0, 2.0))
    assert dev[0].statement == 0 and dev[0].level == 3.0
    np.testing.assert_array_equal(dev[0].group, [0, 1, 2])
    assert dev[0].ratio == pytest.approx(3 / 2)  # |S| / ceil(2 * 4 / 4)
    assert dev[1].ratio == pytest.approx(3 / 2)  # 1 < 3 - 1
    assert dev[2].ratio == 0.0 and dev[2].statement == -1  # 1 < 3 - 2 fails
    assert not satisfies_cbjr(U, costs, current, 4.0)
    assert satisfies_cbjr(U, costs, current, 4.0, factor=1.6)
    assert satisfies_cbjr(U, costs, current, 4.0, slack=2.0)


@pytest.mark.parametrize("seed", range(4))
def test_matches_brute_force_on_small_random_cases(seed):
    rng = np.random.default_rng(seed)
    U = rng.integers(-2, 4, size=(6, 5)).astype(float)
    costs = rng.integers(1, 4, size=6).astype(float)
    current = rng.integers(-1, 3, size=5).astype(float)
    slacks = (0.0, 0.5, 1.0, 2.0)
    got = deviation_ratios(U, costs, current, 3.0, slacks)
    want = [_brute_force(U, costs, current, 3.0, c) for c in slacks]
    np.testing.assert_allclose(got, want)
    assert np.all(np.diff(got) <= 0)  # a larger slack can only shrink the groups


@pytest.mark.parametrize("seed", range(6))
def test_exact_queries_give_cbjr(seed):
    n, budget = 10, 4
    statements = enumerate_statements(3, 3)
    costs = statement_costs(statements)
    U = utility_matrix(statements, random_profile(n, 3, 3, seed), 3)
    oracles = SyntheticOracles(U, costs, seed=seed)
    slate = democratic_process(
        n, budget, range(3, -1, -1), range(3, 0, -1), oracles.disc, oracles.gen, oracles.cost
    )
    current = np.array(
        [U[slate.statements[k], i] if k >= 0 else 0.0 for i, k in enumerate(slate.assignment)]
    )
    assert satisfies_cbjr(U, costs, current, budget)


@pytest.mark.parametrize(
    "seed, beta, gamma, delta, mu", list(itertools.product(range(3), (1, 2), (0.7,), (1,), (0.7,)))
)
def test_approximate_queries_keep_the_guarantee(seed, beta, gamma, delta, mu):
    n, budget = 12, 4
    statements = enumerate_statements(3, 3)
    costs = statement_costs(statements)
    U = utility_matrix(statements, random_profile(n, 3, 3, seed), 3)
    oracles = SyntheticOracles(U, costs, beta, gamma, delta, mu, seed=seed)
    slate = democratic_process(
        n, budget, range(3, -1, -1), range(3, 0, -1), oracles.disc, oracles.gen, oracles.cost
    )
    current = np.array(
        [U[slate.statements[k], i] if k >= 0 else 0.0 for i, k in enumerate(slate.assignment)]
    )
    c = 2 * beta + delta + 0.5  # any slack above 2 beta + delta
    assert satisfies_cbjr(U, costs, current, budget, slack=c, factor=1 / (gamma * mu))


@pytest.mark.parametrize(
    "U, costs, current, budget, slacks, match",
    [
        (np.zeros((0, 2)), np.zeros(0), np.zeros(2), 1.0, (0,), "utilities"),
        (np.ones((2, 2)), np.ones(3), np.zeros(2), 1.0, (0,), "costs"),
        (np.ones((2, 2)), -np.ones(2), np.zeros(2), 1.0, (0,), "costs"),
        (np.ones((2, 2)), np.ones(2), np.zeros(3), 1.0, (0,), "slate_utility"),
        (np.ones((2, 2)), np.ones(2), np.zeros(2), 0.0, (0,), "budget"),
        (np.ones((2, 2)), np.ones(2), np.zeros(2), 1.0, (-1,), "slacks"),
        (np.full((2, 2), np.nan), np.ones(2), np.zeros(2), 1.0, (0,), "utilities"),
    ],
)
def test_bad_arguments(U, costs, current, budget, slacks, match):
    with pytest.raises(ValueError, match=match):
        deviation_ratios(U, costs, current, budget, slacks)


def test_bad_factor():
    with pytest.raises(ValueError, match="factor"):
        satisfies_cbjr(np.ones((1, 1)), np.ones(1), np.zeros(1), 1.0, factor=0)
