"""Bad input to the games, the decision-maker and the tracking tools is refused by name."""

import numpy as np
import pytest

from icml25.steer_learners import (
    LeaderCost,
    QuadraticGame,
    ResponseRegression,
    SmoothGame,
    equilibrium,
    expected_tracking_error,
    geometric_schedule,
    leader_objective,
    optimal_action,
    random_game,
    ride_share_game,
    robbins_monro_schedule,
    sensitivity,
    steady_state_error,
    steer,
    stochastic_gradient_play,
    strong_monotonicity,
    tracking_bound,
)

GAME = random_game((2, 2), action_dim=2, mu=1.0, coupling=0.5, seed=1)
M, B, C = GAME.M, GAME.B, GAME.c
COST = LeaderCost(np.eye(4), np.zeros((4, 2)), np.ones(4), gamma=0.1)
SMOOTH = SmoothGame(lambda z, t: z @ M.T + t @ B.T + C, 4, 2, GAME.mu, GAME.lipschitz)
E, A, N = geometric_schedule(0.1, 0.02, 5, 2)
NAN2, NAN4 = np.array([np.nan, 0.0]), np.full(4, np.nan)


def run(**kwargs):
    return steer(GAME, COST, E, A, N, 1.0, kwargs.pop("theta0", np.zeros(2)), **kwargs)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: QuadraticGame(M.astype(str), B, C, (4,)), "M must be a numeric array"),
        (lambda: QuadraticGame(M, B, C, (1.5, 2.5)), "blocks must be positive sizes"),
        (lambda: QuadraticGame(M, B, C, 4), "blocks must be positive sizes"),
        (lambda: QuadraticGame(M, B, C, (4,), lower=NAN4), "lower must not hold NaN"),
        (lambda: SmoothGame(SMOOTH.gradient_map, 4, 2, 1.0, 2.0, upper=NAN4), "upper must not"),
        (lambda: SmoothGame(SMOOTH.gradient_map, 10**12, 2, 1.0, 2.0), "dim is too large"),
        (lambda: equilibrium(GAME, NAN2), "theta must be finite"),
        (lambda: equilibrium(SMOOTH, NAN2), "theta must be finite"),
        (lambda: equilibrium(GAME, np.array(["1", "0"])), "theta must be a numeric array"),
        (lambda: sensitivity(SMOOTH, np.array([np.inf, 0.0])), "theta must be finite"),
        (lambda: strong_monotonicity(M * np.nan), "M must be finite"),
        (lambda: strong_monotonicity(np.ones((2, 3))), "M must be a square"),
        (lambda: random_game((10**6, 10**6)), "blocks is too large"),
        (lambda: random_game(blocks=3), "blocks must be a non-empty tuple"),
        (lambda: random_game(seed=-1), "seed must be an integer >= 0"),
        (lambda: ride_share_game(10**7), "n_locations is too large"),
        (lambda: LeaderCost(np.eye(4) * np.nan, np.zeros((4, 2)), np.ones(4)), "Q must be finite"),
        (lambda: leader_objective(GAME, COST, NAN2), "theta must be finite"),
        (lambda: optimal_action(SMOOTH, COST, NAN2), "theta0 must be finite"),
        (lambda: robbins_monro_schedule(0.1, 0.1, 10, 10**12), "n_rounds is too large"),
        (lambda: geometric_schedule(0.1, 0.1, 10, 100), "n_epochs is too large"),
        (lambda: run(theta0=NAN2), "theta0 must be finite"),
        (lambda: run(z0=NAN4), "z0 must be finite"),
        (lambda: run(J_hat=np.full((4, 2), np.nan)), "J_hat must be finite"),
        (lambda: run(seed=-1), "seed must be an integer >= 0"),
        (lambda: steer(GAME, COST, E, A, [10**12, 10**12], 1.0, np.zeros(2)), "lengths is too"),
        (lambda: steer(GAME, COST, ["0.1", "0.05"], A, N, 1.0, np.zeros(2)), "etas must be a num"),
        (lambda: ResponseRegression(10**12, 4, 2, 1.0), "replicates is too large"),
        (lambda: stochastic_gradient_play(GAME, np.full((3, 2), np.nan), 0.1, 1.0), "thetas must"),
        (lambda: stochastic_gradient_play(GAME, np.zeros((3, 2)), 0.1, 1.0, z0=NAN4), "z0 must"),
        (lambda: stochastic_gradient_play(GAME, np.zeros((3, 2)), "0.1", 1.0), "eta must be a num"),
        (lambda: expected_tracking_error(GAME, 0.1, 1.0, NAN4, np.zeros(4), 3), "drift must be"),
        (lambda: expected_tracking_error(GAME, 0.1, 1.0, C, C, 10**12), "steps is too large"),
        (lambda: steady_state_error(GAME, 0.1, 1.0, NAN4), "drift must be finite"),
        (lambda: tracking_bound(1.0, 2.0, 0.1, 1.0, 0.1, 1.0, np.array([np.nan])), "t must not"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
