"""steer_learners: the paper's epoch-based steering and the exact tracking error, against what a
user would otherwise do.

1. Steering at an equal budget of rounds (the reproduction's default problems, 8 epochs,
   256 replicates, seed 0): the epoch-based drift-to-noise control (geometric schedule) against
   constant steps (``eta_0``, ``alpha_0`` throughout) and against the textbook diminishing
   Robbins-Monro schedule ``eta_t = eta_0 / (1 + t / T_0)``, ``alpha_t = alpha_0 / (1 + t / T_0)``
   (same drift cap), each with the decision-maker that estimates J online (the default) and
   the one that knows J. Final tracking error and suboptimality, and wall time.
2. The steady-state tracking error of a leader on a straight path: our closed form (discrete
   Lyapunov equation + steady lag) against estimating it by simulation (32 replicates,
   ``10 / (mu eta)`` steps, the second half averaged), as a user without the decoupling would.

    python benchmarks/bench_steer_learners.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

import icml25.steer_learners.reproduce as sl  # noqa: E402
from icml25.steer_learners import (  # noqa: E402
    random_game,
    sensitivity,
    steady_state_error,
    steer,
    stochastic_gradient_play,
)


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

if __name__ == "__main__":
    steer_rows = steering_rows()
    closed = closed_form_rows()
    print(table(STEER_HEADER, steer_rows))
    print()
    print(table(CLOSED_HEADER, closed))
