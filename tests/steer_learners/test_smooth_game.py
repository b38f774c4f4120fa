"""Any game through its gradient map: a non-quadratic game, its equilibrium, its sensitivity,
and the decision-maker that estimates J online steering it."""

import numpy as np
import pytest

from icml25.steer_learners import (
    LeaderCost,
    SmoothGame,
    equilibrium,
    geometric_schedule,
    optimal_action,
    random_game,
    sensitivity,
    steer,
    stochastic_gradient_play,
)


def _tanh_game(beta=1.5):
    """g(z; theta) = M z + B theta + c + beta tanh(z) (componentwise): tanh' in (0, 1], so the
    game stays mu-strongly monotone with mu = mu(M) and L <= ||M|| + beta; not quadratic."""
    base = random_game((2, 2), action_dim=2, mu=1.0, coupling=0.5, seed=3)

    def grad(z, theta):
        return base.gradient(z, theta) + beta * np.tanh(z)

    return SmoothGame(grad, 4, 2, mu=1.0, lipschitz=base.lipschitz + beta, blocks=(2, 2)), base


def test_equilibrium_zeroes_the_gradient_and_agrees_with_the_quadratic_closed_form():
    game, base = _tanh_game()
    thetas = np.random.default_rng(0).normal(size=(5, 2))
    z = equilibrium(game, thetas)  # (5, D)
    np.testing.assert_allclose(game.gradient(z, thetas), 0.0, atol=1e-9)
    linear = SmoothGame(base.gradient, 4, 2, mu=base.mu, lipschitz=base.lipschitz)
    np.testing.assert_allclose(linear.equilibrium(thetas), base.equilibrium(thetas), atol=1e-9)
    np.testing.assert_allclose(linear.sensitivity(thetas), base.sensitivity(thetas), atol=1e-7)


def test_sensitivity_is_the_derivative_of_the_equilibrium():
    """Implicit function theorem = central differences of z*(theta) (z* is not affine here)."""
    game, base = _tanh_game()
    theta, h = np.array([0.4, -0.8]), 1e-5
    fd = np.stack(
        [
            (equilibrium(game, theta + h * e) - equilibrium(game, theta - h * e)) / (2 * h)
            for e in np.eye(2)
        ],
        axis=-1,
    )
    np.testing.assert_allclose(sensitivity(game, theta), fd, atol=1e-6)
    assert np.abs(sensitivity(game, theta) - base.sensitivity()).max() > 0.05  # not quadratic


def test_estimating_leader_steers_a_non_quadratic_game_to_its_stackelberg_optimum():
    game, _ = _tanh_game()
    r = equilibrium(game, np.array([1.0, -0.5])) + 0.05
    cost = LeaderCost(np.eye(4), np.zeros((4, 2)), r, gamma=0.05)
    theta_star, phi_star = optimal_action(game, cost)
    grad = cost.gradient(theta_star, equilibrium(game, theta_star), sensitivity(game, theta_star))
    np.testing.assert_allclose(grad, 0.0, atol=1e-7)
    eta0 = 0.5 * game.mu / game.lipschitz**2
    etas, alphas, lengths = geometric_schedule(eta0, 0.5 * eta0, int(5 / eta0), 5)
    runs = {
        J: steer(
            game,
            cost,
            etas,
            alphas,
            lengths,
            0.5,
            np.zeros(2),
            J_hat=J,
            forget=0.5,
            replicates=32,
            record_every=1000,
            seed=0,
        )
        for J in ("estimate", "exact")
    }
    est, exact = runs["estimate"], runs["exact"]
    assert est.suboptimality[-1] < 0.05 * est.suboptimality[0]  # it converges
    assert est.sensitivity_error[-1] < 0.5 * est.sensitivity_error[0]  # it learns J
    np.testing.assert_allclose(est.theta.mean(axis=0), theta_star, atol=0.1)
    assert exact.suboptimality[-1] < 0.05 * exact.suboptimality[0]
    assert exact.sensitivity_error[-1] < 1e-3  # J(theta) refreshed every 10 rounds


def test_play_and_bad_games():
    game, _ = _tanh_game()
    thetas = np.zeros((50, 2))
    play = stochastic_gradient_play(game, thetas, [0.05, 0.1], 0.3, replicates=4, seed=1)
    assert play.error.shape == (50, 2, 4) and np.all(np.isfinite(play.error))
    with pytest.raises(TypeError, match="gradient_map"):
        SmoothGame(None, 4, 2, mu=1.0, lipschitz=2.0)
    with pytest.raises(ValueError, match="gradient_map must return"):
        SmoothGame(lambda z, t: z[..., :2], 4, 2, mu=1.0, lipschitz=2.0)
    with pytest.raises(ValueError, match="lipschitz"):
        SmoothGame(lambda z, t: z, 4, 2, mu=1.0, lipschitz=0.5)
    with pytest.raises(ValueError, match="blocks"):
        SmoothGame(lambda z, t: z, 4, 2, mu=1.0, lipschitz=2.0, blocks=(1, 2))
    # a map that is not monotone: the equilibrium iteration diverges and says so
    bad = SmoothGame(lambda z, t: -z + t.sum(-1, keepdims=True), 4, 2, mu=1.0, lipschitz=1.0)
    with pytest.raises(ValueError, match="did not converge"):
        bad.equilibrium(np.ones(2))
