"""Steering learning agents toward equilibria: drift against noise (Frankel et al., ICML 2025).

Frankel, Kulkarni, Drusvyatskiy, Oh & Ratliff, *Finite-Time Convergence Rates in Stochastic
Stackelberg Games with Smooth Algorithmic Agents*, PMLR 267:17575-17656. Official code:
SewoongLab/stoch-stackelberg (not available to our tools; nothing below is taken from it).
The decision-maker learns the agents' sensitivity ``J`` from their play by default; any game
enters through its gradient map (:class:`SmoothGame`), quadratic ones in closed form.

>>> import numpy as np
>>> from icml25.steer_learners import (LeaderCost, geometric_schedule, optimal_action,
...     random_game, steer)
>>> game = random_game((3, 3), action_dim=2, mu=1.0, coupling=0.5, seed=1)
>>> cost = LeaderCost(np.eye(6), np.zeros((6, 2)), np.ones(6), gamma=0.1)
>>> etas, alphas, lengths = geometric_schedule(0.1, 0.02, 50, n_epochs=6)
>>> run = steer(game, cost, etas, alphas, lengths, sigma=1.0, theta0=np.zeros(2),
...     replicates=64, seed=0)
>>> bool(run.tracking[-1] < 0.1 * run.tracking[0])
True
"""

from icml25.steer_learners.estimate import ResponseRegression
from icml25.steer_learners.game import (
    Game,
    QuadraticGame,
    SmoothGame,
    equilibrium,
    random_game,
    ride_share_game,
    sensitivity,
    strong_monotonicity,
)
from icml25.steer_learners.leader import (
    LeaderCost,
    Steering,
    geometric_schedule,
    leader_objective,
    optimal_action,
    robbins_monro_schedule,
    steer,
)
from icml25.steer_learners.tracking import (
    Play,
    expected_tracking_error,
    steady_state_error,
    stochastic_gradient_play,
    tracking_bound,
)

__all__ = [
    "Game",
    "LeaderCost",
    "Play",
    "QuadraticGame",
    "ResponseRegression",
    "SmoothGame",
    "Steering",
    "equilibrium",
    "expected_tracking_error",
    "geometric_schedule",
    "leader_objective",
    "optimal_action",
    "random_game",
    "ride_share_game",
    "robbins_monro_schedule",
    "sensitivity",
    "steady_state_error",
    "steer",
    "stochastic_gradient_play",
    "strong_monotonicity",
    "tracking_bound",
]
