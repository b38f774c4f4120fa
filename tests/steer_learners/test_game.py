"""The quadratic game: equilibrium, sensitivity, monotonicity, the ride-share construction."""

import numpy as np
import pytest

from icml25.steer_learners import (
    QuadraticGame,
    equilibrium,
    random_game,
    ride_share_game,
    sensitivity,
    strong_monotonicity,
)


def test_random_game_has_the_requested_modulus_and_zero_gradient_at_equilibrium():
    game = random_game((2, 3, 1), action_dim=3, mu=0.7, coupling=2.0, seed=4)
    assert game.mu == pytest.approx(0.7, abs=1e-10)
    assert game.dim == 6 and game.action_dim == 3 and game.blocks == (2, 3, 1)
    thetas = np.random.default_rng(0).normal(size=(5, 3))
    z = equilibrium(game, thetas)  # (5, D)
    np.testing.assert_allclose(game.gradient(z, thetas), 0.0, atol=1e-12)


def test_sensitivity_is_the_derivative_of_the_equilibrium():
    """z* is affine in theta: z*(theta + h e_j) - z*(theta) = h J e_j exactly."""
    game = random_game(seed=2)
    theta = np.array([0.3, -1.2])
    J = sensitivity(game)
    for j in range(2):
        step = 0.5 * np.eye(2)[j]
        np.testing.assert_allclose(
            equilibrium(game, theta + step) - equilibrium(game, theta), J @ step, atol=1e-12
        )


def test_strong_monotonicity_bounds_the_inner_product():
    """<g(z) - g(w), z - w> >= mu |z - w|^2 on random pairs, with equality attained."""
    game = random_game(seed=3, coupling=1.5)
    rng = np.random.default_rng(1)
    z, w = rng.normal(size=(2, 200, game.dim))
    inner = np.sum((game.gradient(z, np.zeros(2)) - game.gradient(w, np.zeros(2))) * (z - w), -1)
    assert np.all(inner >= game.mu * np.sum((z - w) ** 2, -1) - 1e-12)
    vecs = np.linalg.eigh(0.5 * (game.M + game.M.T))[1]
    assert vecs[:, 0] @ game.M @ vecs[:, 0] == pytest.approx(game.mu)


def test_ride_share_gradient_is_minus_the_revenue_gradient():
    """Firm i's block of g is d/dx_i of -x_i.z_i + lam/2 |x_i|^2 with linear demand."""
    game = ride_share_game(4, price=12.0, regularization=0.5, seed=1)
    rng = np.random.default_rng(0)
    x, theta = rng.uniform(1, 5, size=8), rng.normal(size=4)

    def firm_cost(i, xx):
        z = -game.c.reshape(2, 4)[i] + theta  # base demand q_i + theta
        own = -np.diag(game.M[4 * i : 4 * i + 4, 4 * i : 4 * i + 4])  # -(2 a_i + lam)
        a = (-own - 0.5) / 2
        b = -np.diag(game.M[4 * i : 4 * i + 4, 4 * (1 - i) : 4 * (1 - i) + 4])
        xi, xo = xx[4 * i : 4 * i + 4], xx[4 * (1 - i) : 4 * (1 - i) + 4]
        return -xi @ (z - a * xi + b * xo) + 0.25 * xi @ xi

    g = game.gradient(x, theta)
    h = 1e-6
    for k in range(8):
        e = np.zeros(8)
        e[k] = h
        fd = (firm_cost(k // 4, x + e) - firm_cost(k // 4, x - e)) / (2 * h)
        assert fd == pytest.approx(g[k], abs=1e-6)
    q = -game.c.reshape(2, 4)
    a = (np.diag(game.M).reshape(2, 4) - 0.5) / 2
    np.testing.assert_allclose(a, 3 * q / (2 * 12.0))  # Narang et al.'s own-price effect
    assert game.mu > 0 and np.all(equilibrium(game, np.zeros(4)) > 0)


def test_projection_is_the_box():
    game = ride_share_game(2, max_price=3.0)
    np.testing.assert_array_equal(game.project(np.array([-1.0, 2.0, 5.0, 3.0])), [0, 2, 3, 3])
    unbounded = random_game()
    z = np.full(6, 1e6)
    assert unbounded.project(z) is z


def test_bad_arguments_raise_value_error_naming_them():
    M = np.eye(2)
    with pytest.raises(ValueError, match="M must be a square"):
        QuadraticGame(np.ones((2, 3)), np.ones((2, 1)), np.ones(2), (2,))
    with pytest.raises(ValueError, match="B must"):
        QuadraticGame(M, np.ones((3, 1)), np.ones(2), (2,))
    with pytest.raises(ValueError, match="c must"):
        QuadraticGame(M, np.ones((2, 1)), np.ones(3), (2,))
    with pytest.raises(ValueError, match="blocks"):
        QuadraticGame(M, np.ones((2, 1)), np.ones(2), (1, 2))
    with pytest.raises(ValueError, match="strongly monotone"):
        QuadraticGame(np.array([[1.0, 0], [0, -1]]), np.ones((2, 1)), np.ones(2), (2,))
    with pytest.raises(ValueError, match="finite"):
        QuadraticGame(M, np.ones((2, 1)), np.array([1.0, np.nan]), (2,))
    with pytest.raises(ValueError, match="lower must have"):
        QuadraticGame(M, np.ones((2, 1)), np.ones(2), (2,), lower=np.zeros(3))
    with pytest.raises(ValueError, match="lower must be <= upper"):
        QuadraticGame(M, np.ones((2, 1)), np.ones(2), (2,), lower=np.ones(2), upper=np.zeros(2))
    with pytest.raises(ValueError, match="blocks"):
        random_game(blocks=(3, 0))
    with pytest.raises(ValueError, match="action_dim"):
        random_game(action_dim=0)
    with pytest.raises(ValueError, match="mu"):
        random_game(mu=0.0)
    with pytest.raises(ValueError, match="coupling"):
        random_game(coupling=-1.0)
    with pytest.raises(ValueError, match="n_locations"):
        ride_share_game(0)
    with pytest.raises(ValueError, match="price"):
        ride_share_game(price=0.0)
    with pytest.raises(ValueError, match="regularization"):
        ride_share_game(regularization=-0.1)
    with pytest.raises(ValueError, match="max_price"):
        ride_share_game(max_price=0.0)
    with pytest.raises(ValueError, match="theta"):
        equilibrium(random_game(), np.zeros(3))
    assert strong_monotonicity(np.array([[2.0, 5.0], [-5.0, 3.0]])) == pytest.approx(2.0)
