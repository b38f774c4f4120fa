import math

import numpy as np
import pytest

from icml25.social_choice import (
    SyntheticOracles,
    democratic_process,
    enumerate_statements,
    group_size,
    random_profile,
    statement_costs,
    utility_matrix,
)


def _instance(seed, n=12, issues=3, opinions=3, beta=0, gamma=1.0, delta=0, mu=1.0):
    statements = enumerate_statements(issues, opinions)
    costs = statement_costs(statements)
    U = utility_matrix(statements, random_profile(n, issues, opinions, seed), opinions)
    return U, costs, SyntheticOracles(U, costs, beta, gamma, delta, mu, seed=seed)


def test_group_size_is_the_ceiling_of_the_cost_share():
    assert group_size(1, 60, 15) == 4
    assert group_size(3, 10, 7) == math.ceil(30 / 7) == 5
    assert group_size(0, 10, 7) == 1  # a free statement still represents one agent


@pytest.mark.parametrize("seed", range(5))
def test_budget_and_group_sizes_hold(seed):
    n, budget = 12, 5
    U, costs, oracles = _instance(seed, n=n)
    slate = democratic_process(
        n, budget, range(4), range(1, 4), oracles.disc, oracles.gen, oracles.cost
    )
    assert slate.costs.sum() <= budget
    for k, c in enumerate(slate.costs):
        members = np.flatnonzero(slate.assignment == k)
        assert members.size == group_size(c, n, budget)
        # every member approves her statement at the level it was chosen at (exact Disc)
        assert np.all(U[slate.statements[k], members] >= slate.levels[k])
    np.testing.assert_array_equal(slate.costs, costs[slate.statements])


def test_hand_made_two_camps():
    # 4 agents, statements "A" (cost 1, liked 2 by agents 0,1) and "B" (cost 1, agents 2,3), B=2
    U = np.array([[2.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 2.0]])
    costs = np.array([1.0, 1.0])
    oracles = SyntheticOracles(U, costs, seed=0)
    slate = democratic_process(4, 2, [2, 1, 0], [1], oracles.disc, oracles.gen, oracles.cost)
    assert sorted(slate.statements) == [0, 1]
    np.testing.assert_array_equal(U[np.array(slate.statements)[slate.assignment], range(4)], 2.0)


def test_oracle_returning_too_long_a_statement_is_refused():
    with pytest.raises(ValueError, match="cost"):
        democratic_process(
            2, 2, [1], [1], lambda s, a: np.ones(len(s)), lambda s, level, x: "x", lambda a: 3
        )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n": 0}, "n must be"),
        ({"n": 2.5}, "n must be"),
        ({"budget": 0}, "budget"),
        ({"budget": float("inf")}, "budget"),
        ({"levels": []}, "levels"),
        ({"costs": [[1, 2]]}, "costs"),
        ({"levels": [1, float("nan")]}, "levels"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = {"n": 4, "budget": 2, "levels": [1], "costs": [1]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        democratic_process(
            args["n"],
            args["budget"],
            args["levels"],
            args["costs"],
            lambda s, a: np.ones(len(s)),
            lambda s, level, x: None,
            lambda a: 1,
        )
