"""Reproduction: self-play Q-learners in the iterated prisoner's dilemma end up playing Pavlov.

Cells: the paper's grid of step sizes alpha x exploration rates epsilon, each cell ``runs``
independent learners from the always-defect start ``Q0``; and two controls over the same alphas
and the small epsilons (<= 0.05), where the theory says Pavlov should *not* be learnt:
``Q0`` halved (the learners never leave always-defect), and ``g = 1.1, gamma = 0.3`` (Pavlov is
then not a fixed point, since ``gamma (R - P) <= T - R``).

Figures: Q(s, C) - Q(s, D) over time for states DD, CC, DC (the paper's Fig. 3) and the rate of
Pavlov over alpha x epsilon (its Fig. 4).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from icml25.ipd_pavlov.qlearning import (
    ALWAYS_DEFECT,
    LOSE_SHIFT,
    PAVLOV,
    STATES,
    initial_q,
    policy,
    self_play,
)
from icml25.lab.reproduction import Summary

MAIN, Q0_HALVED, NOT_FIXED_POINT = "paper", "q0_halved", "g1.1_gamma0.3"
SETTINGS = {  # setting -> (g, gamma, scale of Q0)
    MAIN: (1.8, 0.6, 1.0),
    Q0_HALVED: (1.8, 0.6, 0.5),
    NOT_FIXED_POINT: (1.1, 0.3, 1.0),
}
SMALL_EPSILON = 0.05
THREE_PHASES = [ALWAYS_DEFECT, LOSE_SHIFT, PAVLOV]


@dataclass(frozen=True)
class Config:
    alphas: tuple[float, ...]
    epsilons: tuple[float, ...]
    runs: int
    alpha_steps: float = 20.0  # steps = alpha_steps / alpha, so every alpha gets the same alpha*T
    short_alpha_steps: float = 2.0  # the horizon of the paper's Fig. 3, for a diagnostic grid
    max_steps: int = 200_000
    records: int = 200  # points kept for the Fig. 3 curves


SCALES = {
    "smoke": Config(alphas=(1e-3,), epsilons=(0.0, 0.01), runs=50),
    "default": Config(alphas=(1e-3, 1e-2, 1e-1), epsilons=(0.0, 0.01, 0.05, 0.1, 0.2), runs=100),
    "paper": Config(
        alphas=(1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1),
        epsilons=(0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2),
        runs=100,
    ),
}


def steps_for(config: Config, alpha: float, horizon: float) -> int:
    """Steps for a horizon of ``alpha * steps = horizon``, capped at ``config.max_steps``."""
    return min(math.ceil(horizon / alpha), config.max_steps)


def cells(config: Config) -> list[dict]:
    """The grid, the two controls, and (not a claim) the small-epsilon grid at the short horizon."""
    small = [e for e in config.epsilons if e <= SMALL_EPSILON]
    grid = [(MAIN, a, e, config.alpha_steps) for a in config.alphas for e in config.epsilons]
    grid += [
        (s, a, e, config.alpha_steps)
        for s in (Q0_HALVED, NOT_FIXED_POINT)
        for a in config.alphas
        for e in small
    ]
    grid += [(MAIN, a, e, config.short_alpha_steps) for a in config.alphas for e in small]
    return [{"setting": s, "alpha": a, "epsilon": e, "horizon": h} for s, a, e, h in grid]


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    g, gamma, q0_scale = SETTINGS[cell["setting"]]
    steps = steps_for(config, cell["alpha"], cell["horizon"])
    q, trajectory = self_play(
        cell["alpha"],
        cell["epsilon"],
        steps,
        config.runs,
        g=g,
        gamma=gamma,
        q0=q0_scale * initial_q(g, gamma),
        seed=seed,
        record_every=max(1, steps // config.records),
    )
    final = policy(q)  # (runs,)
    dq = trajectory["q"][..., 1] - trajectory["q"][..., 0]  # (K, runs, 4)
    return {
        "steps": steps,
        "pavlov_rate": float(np.mean(final == PAVLOV)),
        "policies": dict(Counter(final.tolist())),
        "three_phase_rate": float(np.mean([p == THREE_PHASES for p in trajectory["policy_path"]])),
        "record_step": trajectory["step"],  # (K,)
        "dq_mean": dq.mean(axis=1),  # (K, 4)
        "dq_std": dq.std(axis=1),  # (K, 4)
    }


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    def rates(setting, keep=lambda cell: True, horizon=config.alpha_steps):
        return [
            out["pavlov_rate"]
            for cell, out in results
            if cell["setting"] == setting and cell["horizon"] == horizon and keep(cell)
        ]

    small = lambda cell: cell["epsilon"] <= SMALL_EPSILON  # noqa: E731
    measurements = {
        "min_pavlov_rate_small_epsilon": _extreme(min, rates(MAIN, small)),
        # not a claim: the same minimum over the alphas the theory calls small (<= 0.01)
        "min_pavlov_rate_small_epsilon_alpha_le_0.01": _extreme(
            min, rates(MAIN, lambda cell: small(cell) and cell["alpha"] <= 0.01)
        ),
        # not a claim: the same minimum at the horizon of the paper's Fig. 3 (alpha * T = 2)
        "min_pavlov_rate_small_epsilon_short_horizon": _extreme(
            min, rates(MAIN, small, horizon=config.short_alpha_steps)
        ),
        "max_pavlov_rate_q0_halved": _extreme(max, rates(Q0_HALVED)),
        "max_pavlov_rate_not_fixed_point": _extreme(max, rates(NOT_FIXED_POINT)),
        "three_phase_rate_epsilon0": _extreme(
            min,
            [
                out["three_phase_rate"]
                for cell, out in results
                if cell["setting"] == MAIN
                and cell["epsilon"] == 0
                and cell["horizon"] == config.alpha_steps
            ],
        ),
    }
    for cell, out in results:
        key = (
            f"pavlov_rate[{cell['setting']},alpha={cell['alpha']:g},"
            f"epsilon={cell['epsilon']:g},alpha*T={cell['horizon']:g}]"
        )
        measurements[key] = out["pavlov_rate"]
    main = [
        (cell, out)
        for cell, out in results
        if cell["setting"] == MAIN and cell["horizon"] == config.alpha_steps
    ]
    return Summary(
        measurements, {"q_gap_over_time": _fig_q_gap(main), "pavlov_heatmap": _fig_heatmap(main)}
    )


def _extreme(fn, values: list[float]) -> float:
    return fn(values) if values else math.nan


def _fig_q_gap(main: list[tuple[dict, dict]]) -> Figure:
    """The paper's Fig. 3: mean +- 1.96 sd of Q(s,C) - Q(s,D) at the smallest alpha."""
    alpha = min(cell["alpha"] for cell, _ in main)
    panels = [(c, o) for c, o in main if c["alpha"] == alpha and c["epsilon"] > 0][:3]
    fig = Figure(figsize=(4.2 * max(len(panels), 1), 3.4))
    axes = fig.subplots(1, max(len(panels), 1), sharey=True, squeeze=False)[0]
    for ax, (cell, out) in zip(axes, panels, strict=False):
        for state, color in (("DD", "C0"), ("CC", "C2"), ("DC", "C1")):
            s = STATES.index(state)
            mean, sd = out["dq_mean"][:, s], out["dq_std"][:, s]
            ax.plot(out["record_step"], mean, color=color, label=f"s = {state}")
            ax.fill_between(
                out["record_step"], mean - 1.96 * sd, mean + 1.96 * sd, color=color, alpha=0.25
            )
        ax.axhline(0.0, color="black", linestyle="--", linewidth=0.8)
        ax.set_title(f"alpha = {alpha:g}, epsilon = {cell['epsilon']:g}")
        ax.set_xlabel("step")
    axes[0].set_ylabel("Q(s, C) - Q(s, D)")
    axes[0].legend(loc="lower right")
    fig.tight_layout()
    return fig


def _fig_heatmap(main: list[tuple[dict, dict]]) -> Figure:
    """The paper's Fig. 4: the fraction of runs that end in Pavlov, over alpha x epsilon."""
    alphas = sorted({cell["alpha"] for cell, _ in main})
    epsilons = sorted({cell["epsilon"] for cell, _ in main})
    grid = np.full((len(alphas), len(epsilons)), np.nan)  # (alphas, epsilons)
    for cell, out in main:
        grid[alphas.index(cell["alpha"]), epsilons.index(cell["epsilon"])] = out["pavlov_rate"]
    fig = Figure(figsize=(1.1 * len(epsilons) + 2.5, 0.7 * len(alphas) + 1.8))
    ax = fig.subplots()
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    for (i, j), value in np.ndenumerate(grid):
        ax.text(
            j,
            i,
            f"{value:.2f}",
            ha="center",
            va="center",
            color="white" if value < 0.6 else "black",
        )
    ax.set_xticks(range(len(epsilons)), [f"{e:g}" for e in epsilons])
    ax.set_yticks(range(len(alphas)), [f"{a:g}" for a in alphas])
    ax.set_xlabel("epsilon")
    ax.set_ylabel("alpha")
    ax.set_title("fraction of runs ending in Pavlov")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    return fig
