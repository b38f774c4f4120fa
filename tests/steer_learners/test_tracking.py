"""Stochastic gradient play along a fixed path: exact moments, their limit, the bound."""

import numpy as np
import pytest

from icml25.steer_learners import (
    QuadraticGame,
    equilibrium,
    expected_tracking_error,
    random_game,
    sensitivity,
    steady_state_error,
    stochastic_gradient_play,
    tracking_bound,
)


def _isotropic(mu=0.8, D=4, p=1):
    return QuadraticGame(mu * np.eye(D), np.ones((D, p)), np.zeros(D), (D,))


def test_steady_state_closed_form_for_an_isotropic_game():
    """M = mu I: noise eta sigma^2 / (mu (2 - mu eta)), drift |v|^2 / (mu eta)^2."""
    mu, eta, sigma = 0.8, 0.05, 1.3
    v = np.array([0.01, -0.02, 0.0, 0.005])
    noise, drift = steady_state_error(_isotropic(mu), eta, sigma, v)
    assert noise == pytest.approx(eta * sigma**2 / (mu * (2 - mu * eta)), rel=1e-12)
    assert drift == pytest.approx(v @ v / (mu * eta) ** 2, rel=1e-12)


def test_exact_moments_converge_to_the_steady_state():
    game = random_game(seed=1, coupling=0.5)
    v = sensitivity(game) @ np.array([1e-3, 0.0])
    traj = expected_tracking_error(game, 0.05, 1.0, v, np.ones(6), steps=3000)
    assert traj[0] == pytest.approx(6.0)
    assert traj[-1] == pytest.approx(sum(steady_state_error(game, 0.05, 1.0, v)), rel=1e-9)


def test_simulation_matches_the_exact_moments():
    """4,000 replicates on a straight leader path: Monte Carlo mean of |e_t|^2 within 5 standard
    errors of the exact value at every recorded step."""
    game = random_game(seed=1, coupling=0.5)
    rho, eta, sigma, T = 2e-3, 0.08, 1.0, 150
    u = np.array([0.6, 0.8])
    thetas = rho * np.arange(T + 1)[:, None] * u
    z0 = equilibrium(game, thetas[0]) + 0.5
    play = stochastic_gradient_play(game, thetas, eta, sigma, z0=z0, replicates=4000, seed=3)
    exact = expected_tracking_error(game, eta, sigma, sensitivity(game) @ u * rho, z0 * 0 + 0.5, T)
    err = play.error[:, 0, :]  # (T+1, R)
    se = err.std(axis=1) / np.sqrt(err.shape[1])
    assert np.all(np.abs(err.mean(axis=1) - exact) <= 5 * se + 1e-12)
    assert play.z.shape == (1, 4000, 6)


def test_noise_and_drift_regimes_have_slopes_one_and_minus_two():
    game = random_game(seed=1, coupling=0.5)
    v = sensitivity(game) @ np.array([1e-3, 0.0])
    noise = [steady_state_error(game, e, 1.0, np.zeros(6))[0] for e in (0.001, 0.002)]
    drift = [steady_state_error(game, e, 0.0, v)[1] for e in (0.001, 0.002)]
    assert np.log2(noise[1] / noise[0]) == pytest.approx(1.0, abs=0.01)
    assert np.log2(drift[1] / drift[0]) == pytest.approx(-2.0, abs=1e-12)


@pytest.mark.parametrize("eta", [0.02, 0.1, 0.3])
def test_bound_dominates_the_exact_error(eta):
    game = random_game(seed=5, coupling=0.8)
    v = sensitivity(game) @ np.array([3e-3, -1e-3])
    e0 = np.full(6, 0.7)
    exact = expected_tracking_error(game, eta, 0.9, v, e0, steps=400)
    bound = tracking_bound(
        game.mu,
        game.lipschitz,
        eta,
        0.9,
        float(np.linalg.norm(v)),
        float(np.linalg.norm(e0)),
        np.arange(401),
    )
    assert np.all(exact <= bound * (1 + 1e-12))


def test_isotropic_bound_is_tight_without_noise_and_drift():
    """M = mu I, no noise, no drift: |e_t|^2 = (1 - mu eta)^{2t} D_0^2 = the bound."""
    game = _isotropic(0.5)
    exact = expected_tracking_error(game, 0.1, 0.0, np.zeros(4), np.full(4, 0.5), steps=50)
    bound = tracking_bound(0.5, 0.5, 0.1, 0.0, 0.0, 1.0, np.arange(51))
    np.testing.assert_allclose(exact, bound, rtol=1e-12)
    np.testing.assert_allclose(exact, 0.95 ** (2 * np.arange(51)), rtol=1e-12)


def test_projected_play_stays_in_the_box_and_step_sizes_share_noise():
    game = QuadraticGame(np.eye(2), np.eye(2), np.zeros(2), (1, 1), np.zeros(2), np.ones(2))
    thetas = np.tile([-0.5, -0.5], (201, 1))
    play = stochastic_gradient_play(game, thetas, [0.1, 0.1], 3.0, replicates=5, seed=0)
    assert np.all((play.z >= 0) & (play.z <= 1))
    np.testing.assert_array_equal(play.z[0], play.z[1])  # same noise draws per step size


def test_bad_arguments_raise_value_error_naming_them():
    game = random_game()
    thetas = np.zeros((5, 2))
    with pytest.raises(ValueError, match="thetas"):
        stochastic_gradient_play(game, np.zeros((5, 3)), 0.1, 1.0)
    with pytest.raises(ValueError, match="eta"):
        stochastic_gradient_play(game, thetas, -0.1, 1.0)
    with pytest.raises(ValueError, match="eta"):
        stochastic_gradient_play(game, thetas, [], 1.0)
    with pytest.raises(ValueError, match="sigma"):
        stochastic_gradient_play(game, thetas, 0.1, -1.0)
    with pytest.raises(ValueError, match="replicates"):
        stochastic_gradient_play(game, thetas, 0.1, 1.0, replicates=0)
    with pytest.raises(ValueError, match="z0"):
        stochastic_gradient_play(game, thetas, 0.1, 1.0, z0=np.zeros(3))
    with pytest.raises(ValueError, match="eta"):
        expected_tracking_error(game, 0.0, 1.0, np.zeros(6), np.zeros(6), 5)
    with pytest.raises(ValueError, match="steps"):
        expected_tracking_error(game, 0.1, 1.0, np.zeros(6), np.zeros(6), -1)
    with pytest.raises(ValueError, match="drift and e0"):
        expected_tracking_error(game, 0.1, 1.0, np.zeros(5), np.zeros(6), 5)
    with pytest.raises(ValueError, match="drift"):
        steady_state_error(game, 0.1, 1.0, np.zeros(2))
    with pytest.raises(ValueError, match="too large"):
        steady_state_error(game, 5.0, 1.0, np.zeros(6))
    with pytest.raises(ValueError, match="sigma"):
        steady_state_error(game, 0.1, np.inf, np.zeros(6))
    with pytest.raises(ValueError, match="eta"):
        tracking_bound(1.0, 2.0, 0.5, 1.0, 0.0, 1.0, 3)  # eta >= 2 mu / L^2
    with pytest.raises(ValueError, match="lipschitz"):
        tracking_bound(1.0, 0.5, 0.1, 1.0, 0.0, 1.0, 3)
    with pytest.raises(ValueError, match="mu"):
        tracking_bound(0.0, 1.0, 0.1, 1.0, 0.0, 1.0, 3)
    with pytest.raises(ValueError, match="drift"):
        tracking_bound(1.0, 1.0, 0.1, 1.0, -1.0, 1.0, 3)
    with pytest.raises(ValueError, match="d0"):
        tracking_bound(1.0, 1.0, 0.1, 1.0, 0.0, -1.0, 3)
    with pytest.raises(ValueError, match="t must"):
        tracking_bound(1.0, 1.0, 0.1, 1.0, 0.0, 1.0, -2)
