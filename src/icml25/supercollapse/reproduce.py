"""Reproduction: supercollapse of compute-optimal loss curves (Qiu et al., ICML 2025).

muP residual MLPs (3 blocks) on the Fourier regression task (8 inputs; fewer modes and a
steeper frequency spectrum than the paper's, so that the models reach their compute-optimal
horizons on a CPU), Adam(0.9, 0.95), batch 256 of fresh samples, muP base width 16. Cells:

- ``frontier`` (one per width): ``frontier_seeds`` members at a constant learning rate for
  ``frontier_steps`` steps (the official ``mlp_fit`` runs: every width the same number of
  samples); ``summarize`` fits ``c*(p) = kappa p^(1 + gamma)`` to their Pareto frontier
  (``fit_compute_optimal``), i.e. the horizons ``t*(p) = c*(p) / (6 p B)``;
- ``collapse`` (one per width): 3 x ``seeds`` members trained together for ``t*(p)`` steps:
  linear decay to zero (muP), constant learning rate (muP), linear decay without muP (the
  learning rates of the smallest width at every width);
- ``broken`` (one per width): linear decay, muP, horizon exponent ``1.2 gamma`` (same anchor);
- ``power_law``: the exact collapse of ``L = L0 + t^-mu + p^-nu`` at its own optimal horizon
  (numpy, no training).

Cells are independent, so the horizons of ``collapse`` and ``broken`` come from the config
(``gamma``, ``ref_steps``), whose values are the fit of the frontier cells (deterministic, so a
pilot run of the same cells gives the same fit); ``summarize`` refits them from this run's
frontier cells and measures the largest relative gap between the horizons used and the fitted
ones (a check).

Each member's test loss is recorded at ``x = k / n_x`` of its horizon, ``k = 1..n_x``.
``L0`` is fitted per variant on the seed-mean end points ``(c*(p), L(t*(p)))``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.supercollapse.collapse import (
    normalized_curves,
    optimal_horizon,
    power_law_collapse,
    power_law_loss,
    power_law_optimal_horizon,
)
from icml25.supercollapse.fourier import fourier_task
from icml25.supercollapse.mlp import parameter_count, train_members

# small batched matmuls: one thread is fastest on a shared CPU
CELL_THREADS = 1


VARIANTS = ("decay", "constant", "no_mup")


@dataclass(frozen=True)
class Config:
    widths: tuple[int, ...] = (12, 16, 20, 24)  # trained at t*(p): collapse, broken
    frontier_widths: tuple[int, ...] = (12, 16, 20, 24, 32)  # constant-rate frontier
    depth: int = 3
    seeds: int = 5
    dim: int = 8
    n_modes: int = 300  # the paper: 10,000
    alpha: float = 6.0  # frequency tail P(|s| > S) = S^-alpha; the paper: 2.0
    batch: int = 256
    base_width: int = 16
    base_lr: float = 0.01
    frontier_steps: int = 3000  # constant-rate steps of every width for the frontier
    frontier_seeds: int = 2
    frontier_points: int = 80  # log-spaced evaluations of a frontier curve
    gamma: float = 1.877  # horizon exponent t* ~ p^gamma: the frontier cells' fit (1.8771)
    ref_steps: int = 160  # t* of widths[0] in steps: the frontier cells' fit (160.2)
    broken_factor: float = 1.2
    n_x: int = 40
    eval_size: int = 2048
    task_seed: int = 0
    power_laws: tuple[tuple[float, float], ...] = ((0.3, 0.5), (0.5, 0.3), (1.0, 1.0))


SCALES = {
    "smoke": Config(
        widths=(16, 20, 24),
        frontier_widths=(16, 20, 24),
        seeds=2,
        n_modes=200,
        alpha=2.0,
        frontier_steps=60,
        frontier_points=20,
        ref_steps=16,
        n_x=20,
        eval_size=512,
    ),
    "default": Config(),
    # intermediate scale (about 11 min of cell time on one thread): the default plus width 32
    # in the collapse, horizons t*(32) = 5,553 and 11,288 steps (broken)
    "paper": Config(widths=(12, 16, 20, 24, 32)),
}


def cells(config: Config) -> list[dict]:
    front = [{"part": "frontier", "width": w} for w in config.frontier_widths]
    train = [{"part": p, "width": w} for p in ("collapse", "broken") for w in config.widths]
    return front + train + [{"part": "power_law"}]


def horizons(config: Config, gamma: float) -> dict[int, int]:
    """Steps ``t*(p)`` of each width under horizon exponent ``gamma``."""
    p = np.array([parameter_count(w, config.depth, config.dim) for w in config.widths])
    t = optimal_horizon(p, gamma, p[0], config.ref_steps)
    return {w: int(round(s)) for w, s in zip(config.widths, t, strict=True)}


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "power_law":
        return _power_law(config)
    if cell["part"] == "frontier":
        return _frontier_cell(config, cell, seed)
    return _train_cell(config, cell, seed)


def _frontier_cell(config: Config, cell: dict, seed: int) -> dict:
    """Constant-rate curves of one width, ``frontier_steps`` steps, seed-mean test loss on a
    log-spaced grid of steps."""
    n, steps = config.frontier_seeds, config.frontier_steps
    seeds = np.random.SeedSequence(seed).generate_state(n)
    record = np.unique(np.round(np.geomspace(1, steps, config.frontier_points)).astype(int))
    run = train_members(
        fourier_task(config.dim, config.n_modes, config.alpha, config.task_seed),
        cell["width"],
        seeds.tolist(),
        ["constant"] * n,
        steps,
        depth=config.depth,
        batch=config.batch,
        base_width=config.base_width,
        base_lr=config.base_lr,
        eval_steps=record,
        eval_size=config.eval_size,
        data_seed=config.task_seed + 1,
    )
    keep = run.steps > 0
    return {
        "params": run.params,
        "steps": run.steps[keep].tolist(),
        "compute": (6.0 * run.params * config.batch * run.steps[keep]).tolist(),
        "loss": run.loss[:, keep].mean(axis=0).tolist(),
    }


def _train_cell(config: Config, cell: dict, seed: int) -> dict:
    width, n = cell["width"], config.seeds
    gamma = config.gamma * (config.broken_factor if cell["part"] == "broken" else 1.0)
    steps = horizons(config, gamma)[width]
    seeds = np.random.SeedSequence(seed).generate_state(3 * n if cell["part"] == "collapse" else n)
    if cell["part"] == "collapse":
        schedules = ["linear"] * n + ["constant"] * n + ["linear"] * n
        lr_widths = [None] * 2 * n + [config.widths[0]] * n
    else:
        schedules, lr_widths = ["linear"] * n, [None] * n
    x = np.arange(1, config.n_x + 1) / config.n_x  # (X,)
    record = np.round(x * steps).astype(int)
    run = train_members(
        fourier_task(config.dim, config.n_modes, config.alpha, config.task_seed),
        width,
        seeds.tolist(),
        schedules,
        steps,
        lr_widths=lr_widths,
        depth=config.depth,
        batch=config.batch,
        base_width=config.base_width,
        base_lr=config.base_lr,
        eval_steps=record,
        eval_size=config.eval_size,
        data_seed=config.task_seed + 1,
    )
    loss = run.loss[:, np.searchsorted(run.steps, record)]  # (M, X)
    names = VARIANTS if cell["part"] == "collapse" else ("broken",)
    return {
        "params": run.params,
        "steps": steps,
        "compute": 6.0 * run.params * config.batch * steps,
        "x": x.tolist(),
        "initial_loss": run.loss[:, 0].tolist(),
        **{v: loss[i * n : (i + 1) * n].tolist() for i, v in enumerate(names)},
    }


def _power_law(config: Config) -> dict:
    """Normalized curves of the exact sum of power laws at its optimal horizon, against the
    closed form, for sizes spanning 3 decades."""
    p = np.geomspace(1e2, 1e5, 7)[:, None]  # (P, 1)
    x = np.linspace(0.05, 1.0, 96)[None, :]  # (1, X)
    errors, spreads = [], []
    for mu, nu in config.power_laws:
        t_star = power_law_optimal_horizon(p, mu, nu)  # (P, 1)
        L = power_law_loss(x * t_star, p, mu, nu, L0=0.5)  # (P, X)
        ell = normalized_curves(L, 0.5)
        errors.append(np.max(np.abs(ell - power_law_collapse(x, mu, nu))))
        spreads.append(np.max(np.ptp(ell, axis=0)))
    return {"max_error": float(max(errors)), "max_spread_over_sizes": float(max(spreads))}
