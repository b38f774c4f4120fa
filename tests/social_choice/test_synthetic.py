import math

import numpy as np
import pytest

from icml25.social_choice import (
    SyntheticOracles,
    enumerate_statements,
    random_profile,
    statement_costs,
    utility_matrix,
)


def test_universe_has_every_statement_once():
    statements = enumerate_statements(3, 4)
    assert statements.shape == (5**3 - 1, 3)
    assert len({tuple(s) for s in statements}) == statements.shape[0]
    assert statements.min() == 0 and statements.max() == 4
    assert np.all(statement_costs(statements) >= 1)
    assert (statement_costs(statements) == 3).sum() == 4**3


def test_utility_by_hand():
    # K = 5: each addressed issue adds 2 - |a - s|
    statements = np.array([[1, 0], [3, 5], [0, 2]])
    profile = np.array([[1, 1], [5, 3]])
    want = np.array([[2, -2], [2 - 2 + 2 - 4, 2 - 2 + 2 - 2], [1, 1]])
    np.testing.assert_array_equal(utility_matrix(statements, profile, 5), want)


def test_profile_is_seeded_and_in_range():
    a, b = random_profile(50, 4, 5, 3), random_profile(50, 4, 5, 3)
    np.testing.assert_array_equal(a, b)
    assert a.min() >= 1 and a.max() <= 5


def test_disc_is_beta_accurate_and_consistent():
    statements = enumerate_statements(3, 5)
    U = utility_matrix(statements, random_profile(20, 3, 5, 0), 5)
    oracles = SyntheticOracles(U, statement_costs(statements), beta=2, seed=1)
    agents = np.arange(20)
    for alpha in (0, 7, 100):
        d = oracles.disc(agents, alpha)
        assert np.all(np.abs(d - U[alpha]) <= 2)
        np.testing.assert_array_equal(d, oracles.disc(agents, alpha))
    assert set(np.unique(oracles.noise)) == {-2, -1, 0, 1, 2}


@pytest.mark.parametrize("level, x", [(4, 2), (2, 3), (0, 1)])
def test_gen_is_gamma_delta_mu_accurate(level, x):
    statements = enumerate_statements(3, 5)
    costs = statement_costs(statements)
    U = utility_matrix(statements, random_profile(30, 3, 5, 2), 5)
    gamma, delta, mu = 0.7, 1, 0.7
    oracles = SyntheticOracles(U, costs, 0, gamma, delta, mu, seed=3)
    agents = np.arange(5, 30)
    best = (U[costs <= math.ceil(mu * x)][:, agents] >= level).sum(axis=1).max()
    for _ in range(10):
        alpha = oracles.gen(agents, level, x)
        assert costs[alpha] <= x
        assert (U[alpha, agents] >= level - delta).sum() >= gamma * best


def test_exact_gen_returns_an_optimal_statement():
    statements = enumerate_statements(3, 5)
    costs = statement_costs(statements)
    U = utility_matrix(statements, random_profile(30, 3, 5, 4), 5)
    oracles = SyntheticOracles(U, costs, seed=0)
    agents = np.arange(30)
    alpha = oracles.gen(agents, 3, 2)
    support = (U[costs <= 2] >= 3).sum(axis=1)
    assert (U[alpha] >= 3).sum() == support.max()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"beta": -1}, "beta"),
        ({"delta": 0.5}, "delta"),
        ({"gamma": 0.0}, "gamma"),
        ({"mu": 1.5}, "mu"),
    ],
)
def test_bad_oracle_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SyntheticOracles(np.zeros((2, 3)), np.ones(2), **kwargs)


def test_bad_shapes():
    with pytest.raises(ValueError, match="costs"):
        SyntheticOracles(np.zeros((2, 3)), np.ones(3))
    with pytest.raises(ValueError, match="issues"):
        utility_matrix(np.zeros((2, 3)), np.ones((4, 2)), 5)
    with pytest.raises(ValueError, match="num_issues"):
        enumerate_statements(0, 3)
    with pytest.raises(ValueError, match="n must"):
        random_profile(0, 2, 3, 0)
