"""supercollapse: stacked training of seeds, and the L0 fit, against what a user would write.

1. Training ``M = 5`` seeds of one width of the muP residual MLP on the Fourier task (the
   reproduction's inner loop), same steps, same data stream, same initial weights:

   - ``ours``: :func:`icml25.supercollapse.train_members`, all seeds as one batched model
     (``torch.bmm``) with a stacked Adam;
   - ``torch loop``: the usual way, one model per seed trained in turn with ``torch.optim.Adam``
     (per-layer muP rates as parameter groups, the same linear-decay schedule).

   Agreement: largest relative difference of the final test losses.

2. Fitting ``L = L0 + a c^-b`` (Huber on log L) to five noisy end points:

   - ``ours``: :func:`icml25.supercollapse.fit_irreducible_loss`, ``least_squares(loss="huber")``
     from 9 starts;
   - ``minimize grid``: the official notebook's recipe, L-BFGS-B on the mean Huber loss from a
     10 x 10 x 10 grid of starts (numerical gradients).

    python benchmarks/bench_supercollapse.py [--steps 300]
"""

from __future__ import annotations

import argparse
import sys
import time
from itertools import product
from pathlib import Path

import numpy as np
import torch
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.supercollapse import (  # noqa: E402
    fit_irreducible_loss,
    fourier_targets,
    fourier_task,
    init_mlp,
    lr_schedule,
    mlp_forward,
    mup_learning_rates,
    sample_inputs,
    train_members,
)
from icml25.supercollapse.mlp import BETA1, BETA2, EPS  # noqa: E402

SEEDS, BATCH, EVAL = [0, 1, 2, 3, 4], 256, 2048


def torch_loop(task, width: int, steps: int) -> np.ndarray:
    """Each seed on its own: a model, torch.optim.Adam, LambdaLR with the linear decay."""
    finals = []
    factor = lr_schedule("linear", np.arange(steps + 1), steps)
    for seed in SEEDS:
        params = {k: v.clone().requires_grad_(True) for k, v in init_mlp(width, 3, [seed]).items()}
        rates = mup_learning_rates(width, 16, 0.01)
        opt = torch.optim.Adam(
            [{"params": [params[k]], "lr": rates[k]} for k in params],
            betas=(BETA1, BETA2),
            eps=EPS,
        )
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: float(factor[t]))
        gen = torch.Generator().manual_seed(1)
        x_test = sample_inputs(EVAL, 8, gen)
        y_test = fourier_targets(task, x_test)
        for _ in range(steps):
            x = sample_inputs(BATCH, 8, gen)
            loss = 0.5 * (mlp_forward(params, x)[0] - fourier_targets(task, x)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        with torch.no_grad():
            finals.append(0.5 * (mlp_forward(params, x_test)[0] - y_test).pow(2).mean().item())
    return np.array(finals)


def minimize_grid(c: np.ndarray, L: np.ndarray, n: int, delta: float = 1e-3) -> float:
    u = c / c.min()

    def objective(theta):
        r = np.log(theta[0] + theta[1] * u ** -theta[2]) - np.log(L)
        return np.mean(np.where(np.abs(r) <= delta, 0.5 * r**2, delta * (np.abs(r) - delta / 2)))

    starts = product(
        np.linspace(0.1 * L.min(), L.min(), n), np.linspace(0.1, 1, n), np.linspace(0.01, 0.3, n)
    )
    fits = [minimize(objective, s, method="L-BFGS-B", bounds=[(0, None)] * 3) for s in starts]
    return float(min(fits, key=lambda r: r.fun).x[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--grid", type=int, default=5, help="starts per parameter (official: 10)")
    parser.add_argument("--skip-training", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    task = fourier_task(8, 2000, 2.0, seed=0)
    rows = []
    for width in () if args.skip_training else (16, 32, 64):
        t0 = time.perf_counter()
        ours = train_members(task, width, SEEDS, ["linear"] * 5, args.steps, data_seed=1)
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        loop = torch_loop(task, width, args.steps)
        t_loop = time.perf_counter() - t0
        diff = float(np.max(np.abs(loop - ours.loss[:, -1]) / ours.loss[:, -1]))
        rows.append([width, args.steps, t_ours, t_loop / t_ours, diff])
        print(table(TRAIN_HEADER, rows[-1:]), flush=True)
    if rows:
        print(table(TRAIN_HEADER, rows))

    rng = np.random.default_rng(0)
    c = np.geomspace(1e10, 3e11, 5)
    fit_rows = []
    for noise in (0.0, 0.005, 0.02):
        L = (0.15 + 2.0 * c**-0.08) * np.exp(noise * rng.normal(size=5))
        t0 = time.perf_counter()
        ours = fit_irreducible_loss(c, L)
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        L0_grid = minimize_grid(c, L, args.grid)
        t_grid = time.perf_counter() - t0
        fit_rows.append([noise, t_ours, ours["L0"], t_grid / t_ours, L0_grid])
    print(table(FIT_HEADER, fit_rows))


TRAIN_HEADER = ["width", "steps", "ours s (5 seeds)", "torch loop time x", "max rel. loss diff"]
FIT_HEADER = ["noise (log sd)", "ours s", "ours L0 (true 0.15)", "minimize grid time x", "grid L0"]

if __name__ == "__main__":
    main()
