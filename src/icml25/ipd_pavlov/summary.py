"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from icml25.ipd_pavlov.qlearning import (
    STATES,
)
from icml25.ipd_pavlov.reproduce import (
    DQN,
    DYNAMICS,
    MAIN,
    NOT_FIXED_POINT,
    Q0_HALVED,
    SETTINGS,
    SHORT_HORIZON,
    SMALL_EPSILON,
    Config,
)
from icml25.lab.reproduction import Summary


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    tabular = [
        (c, {**o, "pavlov_share": float(np.mean(o["pavlov_share_runs"]))})
        for c, o in results
        if c["setting"] in SETTINGS
    ]
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
        # not claims: the same grid judged on a final snapshot at the shorter horizon alpha T = 20
        "min_pavlov_rate_small_epsilon_short_horizon": _extreme(
            min, values("pavlov_rate", MAIN, small, horizon=SHORT_HORIZON)
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
    # per-run outcomes behind claims (e), (f): each is the fraction of a cell's runs with a
    # yes/no outcome, so its runs' 0/1 values are fixed by that fraction and the number of runs
    # (``run`` numbers the outcomes, ones first, not the learners); and the per-run Pavlov
    # shares of the final window behind (a), (b), (c), run by run.
    for cell, out in tabular:
        if cell["horizon"] != DYNAMICS:
            continue
        label = f"cell=a{cell['alpha']:g}_e{cell['epsilon']:g}"
        group = {
            MAIN: "small_epsilon" if small(cell) else None,
            Q0_HALVED: "q0_halved",
            NOT_FIXED_POINT: "not_fixed_point" if explored(cell) else None,
        }[cell["setting"]]
        if group is not None:
            for k, share in enumerate(out["pavlov_share_runs"]):
                measurements[f"pavlov_share[{group},{label},run={k}]"] = float(share)
        if cell["setting"] == MAIN and cell["epsilon"] == 0:
            _runs(measurements, f"three_phase[epsilon0,{label}", out["three_phase_rate"], config)
        if cell["setting"] == MAIN and explored(cell):
            _runs(measurements, f"switching[fixed_point,{label}", out["switching_rate"], config)
        if cell["setting"] == NOT_FIXED_POINT and explored(cell):
            _runs(measurements, f"switching[not_fixed_point,{label}", out["switching_rate"], config)
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


def _runs(measurements: dict, prefix: str, rate: float, config: Config) -> None:
    """The 0/1 outcomes of a cell's ``config.runs`` runs whose mean is ``rate``, as
    ``<prefix>,run=<k>]``, ones first."""
    ones = round(rate * config.runs)
    if not math.isclose(ones, rate * config.runs, abs_tol=1e-6):
        raise ValueError(f"{prefix}: {rate} is not a fraction of {config.runs} runs")
    for k in range(config.runs):
        measurements[f"{prefix},run={k}]"] = float(k < ones)


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
