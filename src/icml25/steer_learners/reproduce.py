"""Reproduction: steering learning agents, drift against noise (Frankel et al., ICML 2025).

Cells:

- ``path``: a random 1-strongly monotone game of two players in ``R^3`` (``coupling = 0.5``),
  the decision-maker moving on a straight line ``theta_t = t rho u`` (a fixed path: constant
  equilibrium drift ``Delta = rho |J u|`` per step); the agents run stochastic gradient play
  (``sigma = 1``) with a grid of step sizes ``eta`` for ``10 / (mu eta_min)`` steps; steady-state
  tracking error = the mean of ``|z_t - z*_t|^2`` over the second half and the replicates. One
  cell per path speed ``rho``.
- ``steer``: the epoch-based algorithm (geometric schedule, drift-to-noise cap ``kappa = 1``)
  and the constant-step baseline (same rounds, ``eta_0``, ``alpha_0`` throughout) on the
  synthetic game with a quadratic decision-maker cost, and on the ride-share game (two firms
  pricing 5 locations, the decision-maker's per-location demand signal, cost = squared gap of
  the mean price to a target 10% above the unsteered equilibrium plus ``gamma |theta|^2 / 2``).
  Per epoch end: mean tracking error and suboptimality ``Phi(theta) - Phi*``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.steer_learners.game import equilibrium, random_game, ride_share_game, sensitivity
from icml25.steer_learners.leader import LeaderCost, geometric_schedule, steer
from icml25.steer_learners.tracking import (
    steady_state_error,
    stochastic_gradient_play,
    tracking_bound,
)

GAMES = ("synthetic", "rideshare")


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
    gamma: float = 0.05
    steer_replicates: int = 256
    steer_seeds: int = 3
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
        steer_replicates=64,
        steer_seeds=1,
        n_locations=3,
    ),
    "default": Config(),
    "paper": Config(n_epochs=10, steer_replicates=1024, steer_seeds=5, path_replicates=128),
}


def cells(config: Config) -> list[dict]:
    path = [{"part": "path", "rho": rho} for rho in config.rhos]
    runs = [
        {"part": "steer", "game": g, "schedule": s, "replicate": r}
        for g in GAMES
        for s in ("geometric", "constant")
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
        drift_to_noise=config.drift_to_noise,
        replicates=config.steer_replicates,
        record_every=config.record_every,
        seed=seed,
    )
    return {
        "tracking": run.tracking.tolist(),
        "suboptimality": run.suboptimality.tolist(),
        "ends": run.ends.tolist(),
        "clipped": run.clipped.tolist(),
        "etas": etas.tolist(),
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


def _slope(x, y) -> float:
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    nan = float("nan")
    path = [(c, o) for c, o in results if c["part"] == "path"]
    noise_dev, drift_dev, rel_err, bound_ok = [], [], [], []
    for cell, out in path:
        eta, meas = np.array(out["etas"]), np.array(out["measured"])
        noise, drift = np.array(out["noise_term"]), np.array(out["drift_term"])
        closed = noise + drift
        rel_err.append(np.max(np.abs(meas - closed) / closed))
        bound = np.array(out["bound"])
        bound_ok.extend((closed <= bound)[np.isfinite(bound)].tolist())
        for name, mask, target, devs in (
            ("noise", noise >= config.regime_factor * drift, 1.0, noise_dev),
            ("drift", drift >= config.regime_factor * noise, -2.0, drift_dev),
        ):
            if mask.sum() >= 3:
                slope = _slope(eta[mask], meas[mask])
                m[f"{name}_slope_rho{cell['rho']:g}"] = slope
                devs.append(abs(slope - target))
    m["noise_slope_deviation"] = max(noise_dev, default=nan)
    m["drift_slope_deviation"] = max(drift_dev, default=nan)
    m["path_max_rel_error_vs_closed_form"] = float(max(rel_err, default=nan))
    m["path_bound_holds_fraction"] = float(np.mean(bound_ok)) if bound_ok else nan

    figures = {}
    if path:
        figures["tracking_regimes"] = _fig_regimes(path)
    for game in GAMES:
        runs = {
            s: [o for c, o in results if c.get("game") == game and c["schedule"] == s]
            for s in ("geometric", "constant")
        }
        if not runs["geometric"] or not runs["constant"]:
            continue
        mean = {
            s: {
                k: np.mean([o[k] for o in rows], axis=0)
                for k in ("tracking", "suboptimality", "trace_tracking", "trace_suboptimality")
            }
            for s, rows in runs.items()
        }
        geo, const = mean["geometric"], mean["constant"]
        m[f"{game}_n_epochs"] = float(len(geo["tracking"]))
        for k in ("tracking", "suboptimality"):
            ratios = geo[k][1:] / geo[k][:-1]
            m[f"{game}_{k}_max_ratio"] = float(np.max(ratios))
            m[f"{game}_{k}_mean_ratio"] = float(np.exp(np.mean(np.log(ratios))))
            m[f"{game}_{k}_final_geometric"] = float(geo[k][-1])
            m[f"{game}_{k}_final_constant"] = float(const[k][-1])
        m[f"{game}_constant_stall_ratio"] = float(
            min(const[k][-1] / const[k][1] for k in ("tracking", "suboptimality"))
        )
        m[f"{game}_constant_over_epoch_tracking"] = float(
            const["tracking"][-1] / geo["tracking"][-1]
        )
        m[f"{game}_clipped_fraction_epoch0"] = float(
            np.mean([o["clipped"][0] for o in runs["geometric"]])
        )
        figures[f"epochs_{game}"] = _fig_epochs(game, runs["geometric"][0], geo, const)
    return Summary(m, figures)


def _fig_regimes(path) -> Figure:
    fig = Figure(figsize=(5.5, 4))
    ax = fig.subplots()
    for j, (cell, out) in enumerate(path):
        eta = np.array(out["etas"])
        closed = np.array(out["noise_term"]) + np.array(out["drift_term"])
        ax.loglog(eta, out["measured"], "o", color=f"C{j}", ms=4, label=f"rho = {cell['rho']:g}")
        ax.loglog(eta, closed, "-", color=f"C{j}", lw=1)
        ax.loglog(eta, out["bound"], ":", color=f"C{j}", lw=1)
    ax.set_xlabel("agents' step size eta")
    ax.set_ylabel("steady-state E|z_t - z*_t|^2")
    ax.set_title("dots: simulation; lines: exact limit; dotted: bound", fontsize=8)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_epochs(game: str, first: dict, geo: dict, const: dict) -> Figure:
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2)
    rounds = np.array(first["trace_rounds"])[1:]  # round 0 (play at equilibrium) left out
    for ax, key, label in (
        (axes[0], "trace_tracking", "tracking error E|z - z*(theta)|^2"),
        (axes[1], "trace_suboptimality", "suboptimality Phi(theta) - Phi*"),
    ):
        ax.loglog(rounds, geo[key][1:], label="epoch-based (geometric)")
        ax.loglog(rounds, const[key][1:], label="constant steps")
        for end in first["ends"]:
            ax.axvline(end, color="grey", lw=0.5, ls=":")
        ax.set_xlabel("round")
        ax.set_ylabel(label)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{game} game: mean over replicates; dotted lines = epoch ends", fontsize=9)
    fig.tight_layout()
    return fig
