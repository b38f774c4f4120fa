"""Reproduction: steering learning agents, drift against noise (Frankel et al., ICML 2025).

Cells:

- ``path``: a random 1-strongly monotone game of two players in ``R^3`` (``coupling = 0.5``),
  the decision-maker moving on a straight line ``theta_t = t rho u`` (a fixed path: constant
  equilibrium drift ``Delta = rho |J u|`` per step); the agents run stochastic gradient play
  (``sigma = 1``) with a grid of step sizes ``eta`` for ``10 / (mu eta_min)`` steps; steady-state
  tracking error = the mean of ``|z_t - z*_t|^2`` over the second half and the replicates. One
  cell per path speed ``rho``.
- ``steer``: on the synthetic game with a quadratic decision-maker cost, and on the ride-share
  game (two firms pricing 5 locations, the decision-maker's per-location demand signal, cost =
  squared gap of the mean price to a target 10% above the unsteered equilibrium plus
  ``gamma |theta|^2 / 2``), one cell per (schedule, decision-maker, seed):
  the epoch-based algorithm (geometric schedule, drift-to-noise cap ``kappa = 1``), the
  constant-step baseline (same rounds, ``eta_0``, ``alpha_0`` throughout), the ``1/t``
  Robbins-Monro schedule (same ``eta_0``, ``alpha_0``, time scale ``T_0``, cap and rounds) and,
  to test why it wins, Robbins-Monro with time scale ``2 T_0`` (its last step equals the epoch
  schedule's last step); the decision-maker estimates the agents' sensitivity ``J`` online
  (the default, :class:`~icml25.steer_learners.estimate.ResponseRegression`) or knows it
  (the reference line). Per epoch end: mean tracking error, suboptimality
  ``Phi(theta) - Phi*`` and the relative error of ``J_hat``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.steer_learners.game import equilibrium, random_game, ride_share_game, sensitivity
from icml25.steer_learners.leader import (
    LeaderCost,
    geometric_schedule,
    robbins_monro_schedule,
    steer,
)
from icml25.steer_learners.tracking import (
    steady_state_error,
    stochastic_gradient_play,
    tracking_bound,
)

GAMES = ("synthetic", "rideshare")
# (schedule, decision-maker): the default first, then its reference and comparisons
RUNS = (
    ("geometric", "estimate"),
    ("geometric", "exact"),
    ("constant", "estimate"),
    ("robbins_monro", "estimate"),
    ("robbins_monro", "exact"),
    ("robbins_monro_matched", "estimate"),
)


@dataclass(frozen=True)
class Config:
    # part (a): fixed path
    blocks: tuple[int, ...] = (3, 3)
    action_dim: int = 2
    mu: float = 1.0
    coupling: float = 0.5
    game_seed: int = 1
    sigma: float = 1.0
    etas: tuple[float, ...] = tuple(
        float(e) for e in np.logspace(np.log10(5e-4), -1.0, 12).round(6)
    )
    rhos: tuple[float, ...] = (1e-4, 1e-3, 1e-2)
    path_replicates: int = 32
    regime_factor: float = 20.0
    # parts (b), (c): epoch-based steering
    n_epochs: int = 8
    contraction: float = 5.0  # mu eta_0 T_0
    step_fraction: float = 0.5  # eta_0 = step_fraction * mu / L^2
    leader_ratio: float = 1.0  # alpha_0 = leader_ratio * mu eta_0 / ||J||^2
    drift_to_noise: float = 1.0
    probe: float = 0.5  # the estimating decision-maker's probe, relative to the agents' noise
    refit_every: int = 10  # rounds between refits of J_hat
    gamma: float = 0.05
    steer_replicates: int = 256
    steer_seeds: int = 2
    record_every: int = 50
    n_locations: int = 5
    demand_noise: float = 5.0  # per-location demand std (rides); sigma = this * sqrt(D)
    rideshare_gamma: float = 0.01
    price_uplift: float = 1.1


SCALES = {
    "smoke": Config(
        etas=tuple(float(e) for e in np.logspace(np.log10(2e-3), -1.0, 8).round(6)),
        rhos=(1e-4, 1e-2),
        path_replicates=8,
        n_epochs=6,
        contraction=3.0,
        steer_replicates=16,
        steer_seeds=1,
        record_every=200,
        n_locations=3,
    ),
    "default": Config(),
    "paper": Config(n_epochs=10, steer_replicates=1024, steer_seeds=5, path_replicates=128),
}


def cells(config: Config) -> list[dict]:
    path = [{"part": "path", "rho": rho} for rho in config.rhos]
    runs = [
        {"part": "steer", "game": g, "schedule": s, "leader": leader, "replicate": r}
        for g in GAMES
        for s, leader in RUNS
        for r in range(config.steer_seeds)
    ]
    return path + runs


def synthetic_problem(config: Config):
    """The synthetic game and the decision-maker's cost: ``Q = I``, ``R = 0``; target
    ``r = z*(theta_target) + 0.1 N(0, I)`` with ``|theta_target| = 1``."""
    game = random_game(
        config.blocks, config.action_dim, config.mu, config.coupling, config.game_seed
    )
    rng = np.random.default_rng(config.game_seed + 1)
    direction = rng.normal(size=config.action_dim)
    r = equilibrium(game, direction / np.linalg.norm(direction)) + 0.1 * rng.normal(size=game.dim)
    cost = LeaderCost(np.eye(game.dim), np.zeros((game.dim, game.action_dim)), r, config.gamma)
    return game, cost, config.sigma


def rideshare_problem(config: Config):
    """Ride-share game; cost ``1/2 |(x_1 + x_2)/2 - 1.1 p0|^2 + gamma/2 |theta|^2`` with ``p0``
    the unsteered equilibrium's mean price per location."""
    game = ride_share_game(config.n_locations, seed=config.game_seed)
    d = config.n_locations
    Q = 0.5 * np.hstack([np.eye(d), np.eye(d)])  # (d, 2d): mean price per location
    target = config.price_uplift * Q @ equilibrium(game, np.zeros(d))
    cost = LeaderCost(Q, np.zeros((d, d)), target, config.rideshare_gamma)
    return game, cost, config.demand_noise * np.sqrt(game.dim)


def schedule(config: Config, game, kind: str):
    """``(etas, alphas, lengths)`` from the game's constants (``mu``, ``L``, ``||J||``)."""
    eta0 = config.step_fraction * game.mu / game.lipschitz**2
    alpha0 = config.leader_ratio * game.mu * eta0 / np.linalg.norm(sensitivity(game), 2) ** 2
    T0 = int(np.ceil(config.contraction / (game.mu * eta0)))
    etas, alphas, lengths = geometric_schedule(eta0, alpha0, T0, config.n_epochs)
    if kind == "constant":
        etas, alphas = np.full_like(etas, eta0), np.full_like(alphas, alpha0)
    elif kind.startswith("robbins_monro"):  # per round; matched: last step = the epochs' last
        scale = 2 * T0 if kind == "robbins_monro_matched" else T0
        etas, alphas = robbins_monro_schedule(eta0, alpha0, scale, int(lengths.sum()))
    return etas, alphas, lengths


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "path":
        return _path(config, cell["rho"], seed)
    problem = synthetic_problem if cell["game"] == "synthetic" else rideshare_problem
    game, cost, sigma = problem(config)
    etas, alphas, lengths = schedule(config, game, cell["schedule"])
    run = steer(
        game,
        cost,
        etas,
        alphas,
        lengths,
        sigma,
        np.zeros(game.action_dim),
        J_hat=cell["leader"],
        drift_to_noise=config.drift_to_noise,
        probe=config.probe,
        refit_every=config.refit_every,
        replicates=config.steer_replicates,
        record_every=config.record_every,
        seed=seed,
    )
    return {
        "tracking": run.tracking.tolist(),
        "suboptimality": run.suboptimality.tolist(),
        "sensitivity_error": run.sensitivity_error.tolist(),
        "ends": run.ends.tolist(),
        "clipped": run.clipped.tolist(),
        "eta_sum": float(np.sum(np.repeat(etas, lengths) if etas.size == lengths.size else etas)),
        "trace_rounds": run.trace_rounds.tolist(),
        "trace_tracking": run.trace_tracking.tolist(),
        "trace_suboptimality": run.trace_suboptimality.tolist(),
    }


def _path(config: Config, rho: float, seed: int) -> dict:
    game = random_game(
        config.blocks, config.action_dim, config.mu, config.coupling, config.game_seed
    )
    etas = np.array(config.etas)
    steps = int(np.ceil(10.0 / (game.mu * etas.min())))
    u = np.eye(config.action_dim)[0]
    thetas = rho * np.arange(steps + 1)[:, None] * u  # (T+1, p)
    play = stochastic_gradient_play(
        game, thetas, etas, config.sigma, replicates=config.path_replicates, seed=seed
    )
    measured = play.error[steps // 2 :].mean(axis=(0, 2))  # (E,)
    drift = sensitivity(game) @ u * rho  # (D,) equilibrium drift per step
    parts = np.array([steady_state_error(game, e, config.sigma, drift) for e in etas])  # (E, 2)
    bound = [
        float(
            tracking_bound(
                game.mu, game.lipschitz, e, config.sigma, float(np.linalg.norm(drift)), 0.0, 0
            )
        )
        if e < 2 * game.mu / game.lipschitz**2
        else float("nan")
        for e in etas
    ]
    return {
        "etas": etas.tolist(),
        "measured": measured.tolist(),
        "noise_term": parts[:, 0].tolist(),
        "drift_term": parts[:, 1].tolist(),
        "bound": bound,
        "steps": steps,
    }
