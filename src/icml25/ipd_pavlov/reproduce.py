"""Reproduction: self-play Q-learners in the iterated prisoner's dilemma end up playing Pavlov.

Cells: the paper's grid of step sizes alpha x exploration rates epsilon, each cell ``runs``
independent tabular learners from the always-defect start ``Q0``, run for a horizon that follows
the learning dynamics (``horizon_steps``); two controls over the same alphas and the small
epsilons (<= 0.05): ``Q0`` halved (phase 1 never ends: the learners never leave always-defect),
and ``g = 1.5, gamma = 0.4``, where phases 1 and 2 still end but Pavlov is not a fixed point
(``gamma (R - P) = 0.4 <= T - R = 0.5``); the small-epsilon grid again at the first review's
horizon ``alpha T = 20`` (a diagnostic); and the paper's deep Q-learning self-play (its Fig. 5),
one cell per seed.

Every setting is measured over time, not by a final snapshot: the share of a final window of
steps that the greedy policy spends in Pavlov, and the switches between lose-shift and Pavlov
inside that window.

Figures: Q(s, C) - Q(s, D) over time for states DD, CC, DC (the paper's Fig. 3), the Pavlov share
over alpha x epsilon (its Fig. 4), the share of runs in Pavlov over time with and without the
fixed point, and the deep Q-network's cooperation per state over iterations (its Fig. 5).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from icml25.ipd_pavlov.deep import deep_self_play
from icml25.ipd_pavlov.qlearning import (
    ALWAYS_DEFECT,
    LOSE_SHIFT,
    PAVLOV,
    STATES,
    count_switches,
    initial_q,
    policy,
    self_play,
    time_in_policy,
)
from icml25.lab.reproduction import Summary

CELL_THREADS = 1
MAIN, Q0_HALVED, NOT_FIXED_POINT = "paper", "q0_halved", "g1.5_gamma0.4"
SETTINGS = {  # setting -> (g, gamma, scale of Q0)
    MAIN: (1.8, 0.6, 1.0),
    Q0_HALVED: (1.8, 0.6, 0.5),
    NOT_FIXED_POINT: (1.5, 0.4, 1.0),
}
DQN = "dqn"  # the official code's setting: payoffs T, R, P, S = 1, 0, -2, -3 and gamma = 0.8
DYNAMICS, FIRST_REVIEW = "dynamics", "alpha*T=20"  # the two horizons
SMALL_EPSILON = 0.05
THREE_PHASES = [ALWAYS_DEFECT, LOSE_SHIFT, PAVLOV]
WORDS = ["".join("C" if code >> s & 1 else "D" for s in range(4)) for code in range(16)]


@dataclass(frozen=True)
class Config:
    alphas: tuple[float, ...]
    epsilons: tuple[float, ...]
    runs: int
    alpha_steps: float = 20.0  # alpha * T >= 20: the three phases take alpha * T of about 1-2
    explore_steps: float = 100.0  # alpha * epsilon * T >= 100: entries moved only by exploration
    max_steps: int = 200_000  # the cap on both
    window: float = 0.2  # the final share of steps in which the policy is measured
    records: int = 200  # points kept for the curves over time
    dqn_seeds: int = 5  # the paper's Fig. 5 shows 5 runs
    dqn_iterations: int = 10_000
    dqn_pretrain: int = 600
    dqn_games: int = 16_384


SCALES = {
    "smoke": Config(
        alphas=(1e-2,),
        epsilons=(0.0, 0.05),
        runs=50,
        max_steps=10_000,
        dqn_seeds=1,
        dqn_iterations=200,
        dqn_pretrain=50,
        dqn_games=1024,
    ),
    "default": Config(alphas=(1e-3, 1e-2, 1e-1), epsilons=(0.0, 0.01, 0.05, 0.1, 0.2), runs=100),
    "paper": Config(
        alphas=(1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1),
        epsilons=(0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2),
        runs=100,
        max_steps=2_000_000,
        dqn_seeds=5,
        dqn_iterations=30_000,
    ),
}


def horizon_steps(config: Config, alpha: float, epsilon: float, horizon: str = DYNAMICS) -> int:
    """Steps of a run. ``DYNAMICS``: ``T = max(alpha_steps / alpha, explore_steps / (alpha
    epsilon))``, capped at ``max_steps``; the second term is the time an entry visited only after
    an exploratory move (states DC, CD; action D in CC) needs to settle. ``FIRST_REVIEW``:
    ``alpha_steps / alpha`` alone, the first review's horizon."""
    steps = math.ceil(config.alpha_steps / alpha)
    if horizon == DYNAMICS and epsilon > 0:
        steps = max(steps, math.ceil(config.explore_steps / (alpha * epsilon)))
    return min(steps, config.max_steps)


def cells(config: Config) -> list[dict]:
    """The grid, the two controls, the first review's horizon, and the deep Q-learning seeds."""
    small = [e for e in config.epsilons if e <= SMALL_EPSILON]
    grid = [(MAIN, a, e, DYNAMICS) for a in config.alphas for e in config.epsilons]
    for setting in (Q0_HALVED, NOT_FIXED_POINT):
        grid += [(setting, a, e, DYNAMICS) for a in config.alphas for e in small]
    grid += [(MAIN, a, e, FIRST_REVIEW) for a in config.alphas for e in small]
    tabular = [{"setting": s, "alpha": a, "epsilon": e, "horizon": h} for s, a, e, h in grid]
    deep = [{"setting": DQN, "replicate": k} for k in range(config.dqn_seeds)]
    return tabular + deep


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["setting"] == DQN:
        return _run_deep(config, cell, seed)
    g, gamma, q0_scale = SETTINGS[cell["setting"]]
    steps = horizon_steps(config, cell["alpha"], cell["epsilon"], cell["horizon"])
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
    start = steps - math.ceil(config.window * steps)  # the window is steps start+1 .. steps
    switches = count_switches(trajectory, LOSE_SHIFT, PAVLOV, start)  # (runs,)
    dq = trajectory["q"][..., 1] - trajectory["q"][..., 0]  # (K, runs, 4)
    return {
        "steps": steps,
        "pavlov_rate": float(np.mean(final == PAVLOV)),
        "pavlov_share": float(time_in_policy(trajectory, PAVLOV, steps, start).mean()),
        "switching_rate": float(np.mean(switches > 0)),
        "mean_switches": float(switches.mean()),
        "policies": dict(Counter(final.tolist())),
        "three_phase_rate": float(np.mean([p == THREE_PHASES for p in trajectory["policy_path"]])),
        "record_step": trajectory["step"],  # (K,)
        "pavlov_over_time": np.mean(policy(trajectory["q"]) == PAVLOV, axis=1),  # (K,)
        "dq_mean": dq.mean(axis=1),  # (K, 4)
        "dq_std": dq.std(axis=1),  # (K, 4)
    }


def _run_deep(config: Config, cell: dict, seed: int) -> dict:
    out = deep_self_play(
        iterations=config.dqn_iterations,
        pretrain_iterations=config.dqn_pretrain,
        games=config.dqn_games,
        seed=seed,
    )
    codes = out["policy"]  # (iterations,)
    start = config.dqn_iterations - math.ceil(config.window * config.dqn_iterations)
    window = codes[start:]
    first = max(start, 1)
    prev, cur = codes[first - 1 : -1], codes[first:]  # the moves inside the window
    pair = [WORDS.index(LOSE_SHIFT), WORDS.index(PAVLOV)]
    switch = (prev != cur) & np.isin(prev, pair) & np.isin(cur, pair)
    every = max(1, config.dqn_iterations // (5 * config.records))
    return {
        "pretrain_policy": WORDS[out["pretrain_policy"]],
        "final_policy": WORDS[codes[-1]],
        "pavlov_share": float(np.mean(window == WORDS.index(PAVLOV))),
        "switches": int(switch.sum()),
        "window_policies": {WORDS[c]: int(n) for c, n in Counter(window.tolist()).items()},
        "iteration": np.arange(1, config.dqn_iterations + 1)[::every],  # (K,)
        "q_gap": out["q_gap"][::every],  # (K, 4)
        "cooperation": out["cooperation"][::every],  # (K, 4)
    }


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    tabular = [(c, o) for c, o in results if c["setting"] in SETTINGS]
    deep = [o for c, o in results if c["setting"] == DQN]

    def values(key, setting, keep=lambda cell: True, horizon=DYNAMICS):
        return [
            out[key]
            for cell, out in tabular
            if cell["setting"] == setting and cell["horizon"] == horizon and keep(cell)
        ]

    small = lambda cell: cell["epsilon"] <= SMALL_EPSILON  # noqa: E731
    explored = lambda cell: 0 < cell["epsilon"] <= SMALL_EPSILON  # noqa: E731
    measurements = {
        "min_pavlov_share_small_epsilon": _extreme(min, values("pavlov_share", MAIN, small)),
        "max_pavlov_share_q0_halved": _extreme(max, values("pavlov_share", Q0_HALVED)),
        "max_pavlov_share_not_fixed_point": _extreme(
            max, values("pavlov_share", NOT_FIXED_POINT, explored)
        ),
        "three_phase_rate_epsilon0": _extreme(
            min, values("three_phase_rate", MAIN, lambda cell: cell["epsilon"] == 0)
        ),
        "min_switching_rate_not_fixed_point": _extreme(
            min, values("switching_rate", NOT_FIXED_POINT, explored)
        ),
        "max_switching_rate_fixed_point": _extreme(max, values("switching_rate", MAIN, explored)),
        "mean_pavlov_share_dqn": _mean([out["pavlov_share"] for out in deep]),
        # not claims: the same grid judged as the first review did (final snapshot, alpha T = 20)
        "min_pavlov_rate_small_epsilon_first_review": _extreme(
            min, values("pavlov_rate", MAIN, small, horizon=FIRST_REVIEW)
        ),
        "min_pavlov_rate_small_epsilon": _extreme(min, values("pavlov_rate", MAIN, small)),
        "pavlov_share_not_fixed_point_epsilon0": _extreme(
            min, values("pavlov_share", NOT_FIXED_POINT, lambda cell: cell["epsilon"] == 0)
        ),
    }
    for cell, out in tabular:
        key = (
            f"[{cell['setting']},alpha={cell['alpha']:g},epsilon={cell['epsilon']:g},"
            f"{cell['horizon']}]"
        )
        measurements[f"pavlov_rate{key}"] = out["pavlov_rate"]
        if cell["horizon"] == DYNAMICS:
            measurements[f"pavlov_share{key}"] = out["pavlov_share"]
            measurements[f"switching_rate{key}"] = out["switching_rate"]
            measurements[f"mean_switches{key}"] = out["mean_switches"]
    for k, out in enumerate(deep):
        measurements[f"pavlov_share[dqn,replicate={k}]"] = out["pavlov_share"]
        measurements[f"switches[dqn,replicate={k}]"] = float(out["switches"])
    main = [(c, o) for c, o in tabular if c["setting"] == MAIN and c["horizon"] == DYNAMICS]
    figures = {
        "q_gap_over_time": _fig_q_gap(main),
        "pavlov_heatmap": _fig_heatmap(main),
        "fixed_point_over_time": _fig_over_time(tabular),
        "deep_q_cooperation": _fig_deep(deep),
    }
    return Summary(measurements, figures)


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else math.nan


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
    """The paper's Fig. 4, measured over time: the share of the final window of steps spent in
    Pavlov (mean over runs), over alpha x epsilon."""
    alphas = sorted({cell["alpha"] for cell, _ in main})
    epsilons = sorted({cell["epsilon"] for cell, _ in main})
    grid = np.full((len(alphas), len(epsilons)), np.nan)  # (alphas, epsilons)
    for cell, out in main:
        grid[alphas.index(cell["alpha"]), epsilons.index(cell["epsilon"])] = out["pavlov_share"]
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
    ax.set_title("share of the final window in Pavlov")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    return fig


def _fig_over_time(tabular: list[tuple[dict, dict]]) -> Figure:
    """Share of runs whose greedy policy is Pavlov, over time, with Pavlov a fixed point
    (g = 1.8, gamma = 0.6) and not (g = 1.5, gamma = 0.4), for each small epsilon > 0."""
    panels = sorted({c["alpha"] for c, _ in tabular if c["setting"] == NOT_FIXED_POINT})
    fig = Figure(figsize=(4.2 * max(len(panels), 1), 3.4))
    axes = fig.subplots(1, max(len(panels), 1), sharey=True, squeeze=False)[0]
    for ax, alpha in zip(axes, panels, strict=False):
        for cell, out in tabular:
            keep = cell["alpha"] == alpha and cell["horizon"] == DYNAMICS and cell["epsilon"] > 0
            if keep and cell["setting"] in (MAIN, NOT_FIXED_POINT) and cell["epsilon"] <= 0.05:
                style = "-" if cell["setting"] == MAIN else "--"
                label = f"{cell['setting']}, epsilon = {cell['epsilon']:g}"
                ax.plot(out["record_step"], out["pavlov_over_time"], style, label=label)
        ax.set_title(f"alpha = {alpha:g}")
        ax.set_xlabel("step")
    axes[0].set_ylabel("share of runs in Pavlov")
    axes[0].legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    return fig


def _fig_deep(deep: list[dict]) -> Figure:
    """The paper's Fig. 5: the deep Q-network's share of C plays per state over self-play
    iterations, one line per seed, and its greedy gap Q(s, C) - Q(s, D) below."""
    fig = Figure(figsize=(13, 5.4))
    axes = fig.subplots(2, 4, sharex=True, squeeze=False)
    for out in deep:
        for s in range(len(STATES)):
            axes[0, s].plot(out["iteration"], out["cooperation"][:, s], linewidth=0.8)
            axes[1, s].plot(out["iteration"], out["q_gap"][:, s], linewidth=0.8)
    for s, state in enumerate(STATES):
        axes[0, s].set_title(f"P(C | {state}), one line per seed", fontsize=9)
        axes[1, s].set_title(f"Q({state}, C) - Q({state}, D)", fontsize=9)
        axes[1, s].axhline(0.0, color="black", linestyle="--", linewidth=0.8)
        axes[1, s].set_xlabel("self-play iteration")
    fig.tight_layout()
    return fig
