"""The decision-maker: its objective, the Stackelberg optimum, the schedule, the steering loop."""

import numpy as np
import pytest

from icml25.steer_learners import (
    LeaderCost,
    equilibrium,
    geometric_schedule,
    leader_objective,
    optimal_action,
    random_game,
    sensitivity,
    steer,
)


def _problem(gamma=0.05, R=None):
    game = random_game(seed=1, coupling=0.5)
    rng = np.random.default_rng(7)
    R = np.zeros((6, 2)) if R is None else R
    return game, LeaderCost(np.eye(6), R, rng.normal(size=6), gamma)


def _fd_grad(f, theta, h=1e-6):
    return np.array([(f(theta + h * e) - f(theta - h * e)) / (2 * h) for e in np.eye(theta.size)])


def test_optimal_action_is_the_stationary_minimum_of_phi():
    game, cost = _problem(R=np.random.default_rng(0).normal(size=(6, 2)))
    theta, phi = optimal_action(game, cost)
    np.testing.assert_allclose(
        _fd_grad(lambda t: leader_objective(game, cost, t), theta), 0.0, atol=1e-7
    )
    others = theta + np.random.default_rng(1).normal(size=(50, 2))
    assert np.all(leader_objective(game, cost, others) > phi)


def test_strategic_gradient_at_equilibrium_is_the_gradient_of_phi():
    """G(theta, z*(theta); J) = grad Phi(theta) (chain rule); the naive G drops J^T grad_z l."""
    game, cost = _problem(R=np.random.default_rng(2).normal(size=(6, 2)))
    theta = np.array([0.4, -0.9])
    z = equilibrium(game, theta)
    fd = _fd_grad(lambda t: leader_objective(game, cost, t), theta)
    np.testing.assert_allclose(cost.gradient(theta, z, sensitivity(game)), fd, atol=1e-7)
    naive = cost.gradient(theta, z, np.zeros((6, 2)))
    res = z + theta @ cost.R.T - cost.r
    np.testing.assert_allclose(naive, cost.R.T @ res + cost.gamma * theta, atol=1e-12)


def test_geometric_schedule_halves_steps_and_doubles_epochs():
    etas, alphas, lengths = geometric_schedule(0.2, 0.04, 30, 5)
    np.testing.assert_allclose(etas, 0.2 / 2 ** np.arange(5))
    np.testing.assert_allclose(alphas, 0.04 / 2 ** np.arange(5))
    np.testing.assert_array_equal(lengths, 30 * 2 ** np.arange(5))
    etas, alphas, lengths = geometric_schedule(0.2, 0.04, 30, 3, factor=1.0)
    np.testing.assert_array_equal(lengths, [30, 30, 30])
    np.testing.assert_allclose(etas, 0.2)


def test_noiseless_steering_converges_to_the_stackelberg_optimum():
    game, cost = _problem()
    theta_star, _ = optimal_action(game, cost)
    etas, alphas, lengths = geometric_schedule(0.2, 0.05, 400, 3, factor=1.0)
    run = steer(
        game, cost, etas, alphas, lengths, 0.0, np.zeros(2), J_hat="exact", drift_to_noise=np.inf
    )
    np.testing.assert_allclose(run.theta[0], theta_star, atol=1e-6)
    np.testing.assert_allclose(run.z[0], equilibrium(game, theta_star), atol=1e-6)
    assert run.trace_suboptimality[0] > 1e-2 and abs(run.suboptimality[-1]) < 1e-10


def test_naive_leader_settles_where_its_partial_gradient_vanishes():
    """J_hat = 0 with R = 0: G = gamma theta, so theta -> 0, not theta*."""
    game, cost = _problem()
    etas, alphas, lengths = geometric_schedule(0.2, 0.5, 400, 2, factor=1.0)
    run = steer(
        game,
        cost,
        etas,
        alphas,
        lengths,
        0.0,
        np.ones(2),
        J_hat=np.zeros((6, 2)),
        drift_to_noise=np.inf,
    )
    np.testing.assert_allclose(run.theta[0], 0.0, atol=1e-8)
    assert run.suboptimality[-1] > 1e-3


def test_drift_cap_bounds_every_leader_move():
    """One round per epoch: |theta_1 - theta_0| <= kappa sqrt(mu) eta^{3/2} sigma / ||J||."""
    game, cost = _problem()
    L_theta = np.linalg.norm(sensitivity(game), 2)
    for eta in (0.1, 0.01):
        run = steer(
            game,
            cost,
            [eta],
            [10.0],
            [1],
            1.0,
            np.zeros(2),
            J_hat="exact",
            drift_to_noise=0.5,
            replicates=20,
            seed=0,
        )
        moves = np.linalg.norm(run.theta, axis=1)
        assert np.all(moves <= 0.5 * np.sqrt(game.mu) * eta**1.5 / L_theta * (1 + 1e-12))
        assert run.clipped[0] == 1.0


def test_steering_is_deterministic_given_the_seed_and_records_traces():
    game, cost = _problem()
    etas, alphas, lengths = geometric_schedule(0.1, 0.02, 20, 3)
    a, b = (
        steer(
            game,
            cost,
            etas,
            alphas,
            lengths,
            1.0,
            np.zeros(2),
            replicates=4,
            record_every=7,
            seed=11,
        )
        for _ in range(2)
    )
    np.testing.assert_array_equal(a.tracking, b.tracking)
    np.testing.assert_array_equal(a.ends, [20, 60, 140])
    assert a.trace_rounds[0] == 0 and a.trace_rounds[-1] == 140 // 7 * 7
    assert a.trace_tracking.shape == a.trace_rounds.shape == a.trace_suboptimality.shape


def test_bad_arguments_raise_value_error_naming_them():
    game, cost = _problem()
    e, a, n = geometric_schedule(0.1, 0.02, 10, 2)
    z2 = np.zeros(2)
    with pytest.raises(ValueError, match="Q and R"):
        LeaderCost(np.eye(2), np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="first dimension"):
        LeaderCost(np.eye(2), np.zeros((3, 1)), np.zeros(2))
    with pytest.raises(ValueError, match="gamma"):
        LeaderCost(np.eye(2), np.zeros((2, 1)), np.zeros(2), gamma=-1.0)
    with pytest.raises(ValueError, match="cost must have Q"):
        optimal_action(game, LeaderCost(np.eye(2), np.zeros((2, 2)), np.zeros(2)))
    with pytest.raises(ValueError, match="strongly convex"):
        optimal_action(game, LeaderCost(np.eye(6)[:1], np.zeros((1, 2)), np.zeros(1)))
    with pytest.raises(ValueError, match="eta0"):
        geometric_schedule(0.0, 0.1, 10, 2)
    with pytest.raises(ValueError, match="alpha0"):
        geometric_schedule(0.1, -0.1, 10, 2)
    with pytest.raises(ValueError, match="epoch0"):
        geometric_schedule(0.1, 0.1, 0, 2)
    with pytest.raises(ValueError, match="n_epochs"):
        geometric_schedule(0.1, 0.1, 10, 0)
    with pytest.raises(ValueError, match="factor"):
        geometric_schedule(0.1, 0.1, 10, 2, factor=1.5)
    with pytest.raises(ValueError, match="etas"):
        steer(game, cost, [-0.1, 0.1], a, n, 1.0, z2)
    with pytest.raises(ValueError, match="alphas"):
        steer(game, cost, e, a[:1], n, 1.0, z2)
    with pytest.raises(ValueError, match="lengths"):
        steer(game, cost, e, a, [10, 0], 1.0, z2)
    with pytest.raises(ValueError, match="lengths"):
        steer(game, cost, e, a, [10.0, 20.0], 1.0, z2)
    with pytest.raises(ValueError, match="sigma"):
        steer(game, cost, e, a, n, -1.0, z2)
    with pytest.raises(ValueError, match="drift_to_noise"):
        steer(game, cost, e, a, n, 1.0, z2, drift_to_noise=0.0)
    with pytest.raises(ValueError, match="replicates"):
        steer(game, cost, e, a, n, 1.0, z2, replicates=0)
    with pytest.raises(ValueError, match="record_every"):
        steer(game, cost, e, a, n, 1.0, z2, record_every=0)
    with pytest.raises(ValueError, match="theta0"):
        steer(game, cost, e, a, n, 1.0, np.zeros(3))
    with pytest.raises(ValueError, match="J_hat"):
        steer(game, cost, e, a, n, 1.0, z2, J_hat=np.zeros((2, 6)))
    with pytest.raises(ValueError, match="z0"):
        steer(game, cost, e, a, n, 1.0, z2, z0=np.zeros(2))
