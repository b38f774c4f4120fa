"""steer_learners: against the field's libraries (no official code could be had: the paper cites
github.com/SewoongLab/stoch-stackelberg, of which no snapshot exists here).

1. Algorithm 3, projected stochastic gradient play along a fixed leader path (a straight line,
   ``rho = 1e-3`` per round) in a random strongly monotone game (two players in R^3, 2 leader
   actions): ours (``stochastic_gradient_play``, numpy, replicates vectorised) against
   ``torch.optim.SGD`` on the players' actions, the game's pseudo-gradient plus the noise set as
   ``.grad`` before each ``step()`` (a game's pseudo-gradient is no single loss's gradient, so
   this is how torch runs gradient play). Both read the noise from ``numpy.random.default_rng``
   with the same seed and in the same order, so the results must agree to rounding. Result: the
   mean tracking error ``|z_t - z*(theta_t)|^2`` over the second half and the replicates.
2. The leader's estimate of the sensitivity ``J = dz*/dtheta`` (``ResponseRegression``: ridge
   regression of the observed gradients ``(z_t - z_{t+1}) / eta`` on ``(z_t, theta_t, 1)``,
   shrunk towards ``(mu I, 0)``, offset free) against ``sklearn.linear_model.Ridge`` fitted per
   replicate on the same rounds (the prior moved into the targets, ``fit_intercept=True``
   leaves the offset unpenalised, as ours does). Result: ``|J_hat - J|_F / |J|_F``.
3. Extra (not an anchor): the steady-state tracking error in closed form (scipy's discrete
   Lyapunov solver, as ours uses) against estimating it by simulation.
4. ``--schedules``: the reproduction's steering at an equal budget of rounds under the paper's
   epoch-based schedule, constant steps and Robbins-Monro 1/t (the paper's own comparison, no
   anchor; about 5 minutes).

    python benchmarks/bench_steer_learners.py [--schedules]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import sklearn
import torch
from sklearn.linear_model import Ridge

sys.path.insert(0, str(Path(__file__).parent))
from harness import anchor_row, interleaved, measure, table  # noqa: E402

import icml25.steer_learners.reproduce as sl  # noqa: E402
from icml25.steer_learners import (  # noqa: E402
    ResponseRegression,
    equilibrium,
    random_game,
    sensitivity,
    steady_state_error,
    steer,
    stochastic_gradient_play,
)

GAME = {"blocks": (3, 3), "action_dim": 2, "mu": 1.0, "coupling": 0.5, "seed": 1}
RHO, SIGMA, REPLICATES = 1e-3, 1.0, 32


def straight_path(game, steps: int) -> np.ndarray:
    u = np.eye(game.action_dim)[0]
    return RHO * np.arange(steps + 1)[:, None] * u  # (T+1, p)


def ours_play(game, thetas, eta: float, seed: int) -> float:
    play = stochastic_gradient_play(game, thetas, eta, SIGMA, replicates=REPLICATES, seed=seed)
    return float(play.error[(thetas.shape[0] - 1) // 2 :].mean())


def torch_play(game, thetas, eta: float, seed: int) -> float:
    """``torch.optim.SGD`` on the actions, pseudo-gradient plus noise set as ``.grad``."""
    rng = np.random.default_rng(seed)
    M, B, c = (torch.tensor(a) for a in (game.M, game.B, game.c))
    th = torch.tensor(thetas)  # (T+1, p)
    targets = -torch.linalg.solve(M, (th @ B.T + c).T).T  # (T+1, D) equilibria
    z = torch.nn.Parameter(targets[0].expand(REPLICATES, -1).clone())  # (R, D)
    opt = torch.optim.SGD([z], lr=eta)
    scale = SIGMA / np.sqrt(game.dim)
    steps = thetas.shape[0] - 1
    error = torch.empty(steps + 1, REPLICATES, dtype=torch.float64)
    error[0] = ((z.detach() - targets[0]) ** 2).sum(-1)
    for t in range(steps):
        xi = torch.from_numpy(scale * rng.standard_normal((REPLICATES, game.dim)))
        with torch.no_grad():
            z.grad = z @ M.T + th[t] @ B.T + c + xi
        opt.step()
        error[t + 1] = ((z.detach() - targets[t + 1]) ** 2).sum(-1)
    return float(error[steps // 2 :].mean())


def play_rows(seeds: int = 3) -> list[list[object]]:
    torch.set_num_threads(1)
    game = random_game(**GAME)
    rows = []
    for eta in (0.003, 0.03):
        thetas = straight_path(game, int(10 / (game.mu * eta)))
        best, results = interleaved(
            {
                "ours": lambda seed, e=eta, th=thetas: ours_play(game, th, e, seed),
                "anchor": lambda seed, e=eta, th=thetas: torch_play(game, th, e, seed),
            },
            seeds,
        )
        ours, anchor = np.array(results["ours"]), np.array(results["anchor"])
        rows.append(
            anchor_row(
                f"gradient play, eta {eta}, {thetas.shape[0] - 1} rounds, {REPLICATES} replicates",
                f"torch.optim.SGD (torch {torch.__version__})",
                best["ours"],
                best["anchor"],
                float(ours.mean()),
                float(anchor.mean()),
                f"{ours.std():.2e} / {anchor.std():.2e} ({seeds} seeds); max per-seed "
                f"|ours/anchor - 1| = {np.abs(ours / anchor - 1).max():.1e}",
            )
        )
    return rows


def regression_data(game, rounds: int, eta: float, seed: int):
    """Play with a probing leader around a fixed action: ``z (R, n, D)``, ``theta (R, n, p)``,
    ``z_next (R, n, D)``, the rounds both estimators see."""
    rng = np.random.default_rng(seed)
    D, p = game.dim, game.action_dim
    theta = 0.5 + 0.1 * rng.standard_normal((REPLICATES, rounds, p))  # probing around 0.5
    z = np.empty((REPLICATES, rounds + 1, D))
    z[:, 0] = equilibrium(game, theta[:, 0])
    for t in range(rounds):
        xi = SIGMA / np.sqrt(D) * rng.standard_normal((REPLICATES, D))
        z[:, t + 1] = z[:, t] - eta * (game.gradient(z[:, t], theta[:, t]) + xi)
    return z[:, :-1], theta, z[:, 1:]


def ours_estimate(game, data, eta: float) -> np.ndarray:
    z, theta, z_next = data
    reg = ResponseRegression(REPLICATES, game.dim, game.action_dim, game.mu)
    for t in range(z.shape[1]):
        reg.update(z[:, t], theta[:, t], z_next[:, t], eta)
    return reg.sensitivity()  # (R, D, p)


def sklearn_estimate(game, data, eta: float) -> np.ndarray:
    """Per replicate, ``Ridge(alpha=1)`` of ``y - mu z`` on ``(z, theta)`` with a free
    intercept; ``J_hat = -M_hat^{-1} B_hat``."""
    z, theta, z_next = data
    D = game.dim
    out = []
    for r in range(REPLICATES):
        x = np.concatenate([z[r], theta[r]], axis=1)  # (n, D + p)
        y = (z[r] - z_next[r]) / eta - game.mu * z[r]  # (n, D), the prior moved into y
        coef = Ridge(alpha=1.0, fit_intercept=True).fit(x, y).coef_  # (D, D + p)
        M_hat = coef[:, :D] + game.mu * np.eye(D)
        out.append(-np.linalg.solve(M_hat, coef[:, D:]))
    return np.stack(out)


def estimate_rows(seeds: int = 3) -> list[list[object]]:
    game = random_game(**GAME)
    J = sensitivity(game)
    rows = []
    for rounds, eta in ((2_000, 0.03), (20_000, 0.03)):
        datas = [regression_data(game, rounds, eta, seed) for seed in range(seeds)]
        best, results = interleaved(
            {
                "ours": lambda seed, e=eta, d=datas: ours_estimate(game, d[seed], e),
                "anchor": lambda seed, e=eta, d=datas: sklearn_estimate(game, d[seed], e),
            },
            seeds,
        )

        def error(Js):
            return np.array([np.linalg.norm(j - J, axis=(-2, -1)).mean() for j in Js])

        ours, anchor = error(results["ours"]) / np.linalg.norm(J), error(results["anchor"])
        anchor = anchor / np.linalg.norm(J)
        gap = max(
            float(np.abs(o - a).max() / np.abs(a).max())
            for o, a in zip(results["ours"], results["anchor"], strict=True)
        )
        rows.append(
            anchor_row(
                f"estimate of J, {rounds} rounds, eta {eta}, {REPLICATES} replicates",
                f"sklearn Ridge ({sklearn.__version__})",
                best["ours"],
                best["anchor"],
                float(ours.mean()),
                float(anchor.mean()),
                f"{ours.std():.2e} / {anchor.std():.2e} ({seeds} seeds); max "
                f"|J_ours - J_sklearn| / max |J_sklearn| = {gap:.1e}",
            )
        )
    return rows


ANCHOR_HEADER = [
    "setting",
    "anchor",
    "ours CPU s",
    "anchor CPU s",
    "time ratio (anchor / ours)",
    "ours result",
    "anchor result",
    "result ratio (ours / anchor)",
    "seed spread (std over seeds, ours / anchor)",
]


def closed_form_rows() -> list[list[object]]:
    game = random_game((3, 3), 2, mu=1.0, coupling=0.5, seed=1)
    u, rho = np.eye(2)[0], 1e-3
    drift = sensitivity(game) @ u * rho
    rows = []
    for eta in (0.003, 0.03):
        t_exact, _, parts = measure(lambda e=eta: steady_state_error(game, e, 1.0, drift))
        steps = int(10 / (game.mu * eta))
        thetas = rho * np.arange(steps + 1)[:, None] * u

        def simulate(e=eta, th=thetas, n=steps):
            play = stochastic_gradient_play(game, th, e, 1.0, replicates=32, seed=0)
            return float(play.error[n // 2 :].mean())

        t_sim, _, estimate = measure(simulate, repeat=1)
        exact = sum(parts)
        rows.append([eta, steps, exact, t_exact, estimate, t_sim, abs(estimate - exact) / exact])
    return rows


STEER_HEADER = [
    "game",
    "schedule",
    "J",
    "rounds",
    "final tracking",
    "final suboptimality",
    "seconds",
]
CLOSED_HEADER = [
    "eta",
    "sim steps",
    "closed form",
    "closed form s",
    "simulation",
    "simulation s",
    "rel. diff",
]


def steering_rows() -> list[list[object]]:
    config = sl.SCALES["default"]
    rows = []
    for name, problem in (("synthetic", sl.synthetic_problem), ("rideshare", sl.rideshare_problem)):
        game, cost, sigma = problem(config)
        for kind, label in (
            ("geometric", "epoch-based (paper)"),
            ("constant", "constant steps"),
            ("robbins_monro", "Robbins-Monro 1/t"),
        ):
            etas, alphas, lengths = sl.schedule(config, game, kind)
            total = int(lengths.sum())
            for leader in ("estimate", "exact"):
                t0 = time.perf_counter()
                run = steer(
                    game,
                    cost,
                    etas,
                    alphas,
                    lengths,
                    sigma,
                    np.zeros(game.action_dim),
                    J_hat=leader,
                    probe=config.probe,
                    refit_every=config.refit_every,
                    replicates=config.steer_replicates,
                    record_every=total,
                    seed=0,
                )
                elapsed = time.perf_counter() - t0
                j = "estimated" if leader == "estimate" else "known"
                rows.append(
                    [
                        name,
                        label,
                        j,
                        total,
                        float(run.tracking[-1]),
                        float(run.suboptimality[-1]),
                        elapsed,
                    ]
                )
                print(table(STEER_HEADER, rows[-1:]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--schedules", action="store_true", help="also the schedule comparison")
    args = parser.parse_args()
    print(f"threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, torch 1")
    print(table(ANCHOR_HEADER, play_rows() + estimate_rows()), flush=True)
    print()
    print(table(CLOSED_HEADER, closed_form_rows()), flush=True)
    if args.schedules:
        print()
        print(table(STEER_HEADER, steering_rows()))


if __name__ == "__main__":
    main()
