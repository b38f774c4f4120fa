"""The decision-maker's online regression of the agents' gradient map and its J_hat."""

import numpy as np
import pytest

from icml25.steer_learners import (
    LeaderCost,
    ResponseRegression,
    geometric_schedule,
    random_game,
    robbins_monro_schedule,
    sensitivity,
    steer,
)


def test_regression_recovers_the_game_and_its_sensitivity_from_noisy_steps():
    """y = (z - z_next)/eta = M z + B theta + c + xi: least squares gives M, B, c and J."""
    game = random_game((2, 2), action_dim=2, mu=1.0, coupling=0.5, seed=5)
    rng = np.random.default_rng(0)
    R, eta = 3, 0.05
    est = ResponseRegression(R, game.dim, game.action_dim, game.mu, ridge=1e-6)
    for _ in range(2000):
        z, theta = rng.normal(size=(R, 4)), rng.normal(size=(R, 2))
        xi = 0.1 * rng.normal(size=(R, 4))
        est.update(z, theta, z - eta * (game.gradient(z, theta) + xi), eta)
    M, B, c = est.coefficients()
    np.testing.assert_allclose(M, np.broadcast_to(game.M, M.shape), atol=0.02)
    np.testing.assert_allclose(B, np.broadcast_to(game.B, B.shape), atol=0.02)
    np.testing.assert_allclose(c, np.broadcast_to(game.c, c.shape), atol=0.02)
    np.testing.assert_allclose(
        est.sensitivity(), np.broadcast_to(sensitivity(game), (R, 4, 2)), atol=0.05
    )
    est.forget(0.0)  # no data left: the prior, J_hat = 0 (the naive decision-maker)
    np.testing.assert_allclose(est.sensitivity(), 0.0, atol=1e-9)


def test_estimating_leader_learns_j_and_steers_a_quadratic_game():
    game = random_game(seed=1, coupling=0.5)
    cost = LeaderCost(np.eye(6), np.zeros((6, 2)), np.ones(6), gamma=0.1)
    etas, alphas, lengths = geometric_schedule(0.1, 0.02, 60, 5)
    run = steer(game, cost, etas, alphas, lengths, 1.0, np.zeros(2), replicates=32, seed=0)
    assert run.sensitivity_error[-1] < 0.5 * run.sensitivity_error[0]
    assert run.suboptimality[-1] < 0.1 * run.suboptimality[0]
    naive = steer(
        game,
        cost,
        etas,
        alphas,
        lengths,
        1.0,
        np.zeros(2),
        J_hat=np.zeros((6, 2)),
        replicates=32,
        seed=0,
    )
    assert naive.suboptimality[-1] > 10 * run.suboptimality[-1]  # knowing nothing of J fails


def test_robbins_monro_schedule_runs_per_round():
    etas, alphas = robbins_monro_schedule(0.2, 0.04, 10, 30)
    np.testing.assert_allclose(etas, 0.2 / (1 + np.arange(30) / 10))
    np.testing.assert_allclose(alphas / etas, 0.2)
    game = random_game(seed=1)
    cost = LeaderCost(np.eye(6), np.zeros((6, 2)), np.ones(6), gamma=0.1)
    run = steer(game, cost, etas, alphas, [10, 20], 1.0, np.zeros(2), J_hat="exact", seed=0)
    np.testing.assert_array_equal(run.ends, [10, 30])
    for bad in ({"eta0": 0.0}, {"alpha0": -1.0}, {"epoch0": 0}, {"n_rounds": 0}):
        args = {"eta0": 0.2, "alpha0": 0.04, "epoch0": 10, "n_rounds": 30} | bad
        with pytest.raises(ValueError, match=next(iter(bad))):
            robbins_monro_schedule(**args)


def test_bad_estimator_arguments_raise_value_error_naming_them():
    game = random_game(seed=1)
    cost = LeaderCost(np.eye(6), np.zeros((6, 2)), np.ones(6), gamma=0.1)
    e, a, n = geometric_schedule(0.1, 0.02, 10, 2)
    z2 = np.zeros(2)
    for kwargs, name in (
        ({"J_hat": "guess"}, "J_hat"),
        ({"probe": -1.0}, "probe"),
        ({"forget": 1.5}, "forget"),
        ({"ridge": 0.0}, "ridge"),
        ({"refit_every": 0}, "refit_every"),
        ({"sensitivity_bound": 0.0}, "sensitivity_bound"),
    ):
        with pytest.raises(ValueError, match=name):
            steer(game, cost, e, a, n, 1.0, z2, **kwargs)
    with pytest.raises(ValueError, match="etas"):
        steer(game, cost, np.full(7, 0.1), a, n, 1.0, z2)  # neither K = 2 nor N = 30
    with pytest.raises(ValueError, match="mu"):
        ResponseRegression(2, 3, 1, mu=0.0)
