"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.selective_iv.reproduce import (
    Config,
)

METHODS = ("selected", "ipw", "full", "point", "partial")


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    nan = float("nan")
    acc = {
        s: {k: np.array([o[k] for c, o in results if c["setting"] == s]) for k in METHODS}
        for s in config.settings
    }
    m["replications_per_grid_point"] = float(config.seeds)
    m["datasets"] = float(len(results))
    strong = [(c, o) for c, o in results if c["strength_y"] in config.strong_y]
    for s in config.settings:
        region = {k: np.array([o[k] for c, o in strong if c["setting"] == s]) for k in METHODS}
        m[f"{s}_strong_datasets"] = float(region["selected"].size)
        m[f"{s}_strong_oracle_margin"] = _mean_gap(region["full"], region["selected"])
        for k in ("point", "partial"):
            m[f"{s}_strong_{k}_minus_selected"] = _mean_gap(region[k], region["selected"])
            m[f"{s}_strong_se_{k}_minus_selected"] = _se(region[k] - region["selected"])
        for key in ("weak_share_true", "weak_share_estimated"):
            vals = [o[key] for c, o in results if c["setting"] == s]
            m[f"{s}_{key}"] = float(np.mean(vals)) if vals else nan
    for s in config.settings:
        for k in METHODS:
            m[f"{s}_acc_{k}"] = float(acc[s][k].mean()) if acc[s][k].size else nan
        for k in ("point", "partial"):
            m[f"{s}_{k}_minus_selected"] = _mean_gap(acc[s][k], acc[s]["selected"])
            m[f"{s}_{k}_minus_full"] = _mean_gap(acc[s][k], acc[s]["full"])
        m[f"{s}_partial_minus_point"] = _mean_gap(acc[s]["partial"], acc[s]["point"])
        # standard error of the paired differences behind the claims
        m[f"{s}_se_point_minus_selected"] = _se(acc[s]["point"] - acc[s]["selected"])
        m[f"{s}_se_partial_minus_selected"] = _se(acc[s]["partial"] - acc[s]["selected"])
        m[f"{s}_se_partial_minus_point"] = _se(acc[s]["partial"] - acc[s]["point"])
    # the replicates: paired differences per data set (one per grid point and replicate)
    for c, o in results:
        s = c["setting"]
        data = f"data=sy{c['strength_y']}_sd{c['strength_d']}_r{c['replicate']}"
        m[f"partial_minus_point[{s},{data}]"] = o["partial"] - o["point"]
        for k in ("point", "partial"):
            m[f"ucl_minus_oracle[{s}_{k},{data}]"] = o[k] - o["full"]
            if c["strength_y"] in config.strong_y:
                m[f"{k}_minus_selected[{s}_strong,{data}]"] = o[k] - o["selected"]
    gaps = [m[f"{s}_{k}_minus_full"] for s in config.settings for k in ("point", "partial")]
    m["ucl_minus_oracle_max"] = max(gaps) if gaps else nan
    for s in config.settings:  # the claims' metric names, nan where a setting did not run
        m.setdefault(f"{s}_point_minus_selected", nan)
    m.setdefault("uc_partial_minus_point", nan)
    m.setdefault("nucem_partial_minus_selected", nan)
    for k in ("point", "partial"):
        m.setdefault(f"nucem_strong_{k}_minus_selected", nan)
    figures = {"accuracy": _fig_accuracy(config, results)} if results else {}
    return Summary(m, figures)


def grid_means(config: Config, results, setting: str) -> dict[str, np.ndarray]:
    """Mean accuracy of each method at each ``(s_Y, s_D)``, ``(len(sY), len(sD))`` each."""
    out = {}
    for k in METHODS:
        table = np.full((len(config.strengths_y), len(config.strengths_d)), np.nan)
        for i, sy in enumerate(config.strengths_y):
            for j, sd in enumerate(config.strengths_d):
                vals = [
                    o[k]
                    for c, o in results
                    if c["setting"] == setting and c["strength_y"] == sy and c["strength_d"] == sd
                ]
                table[i, j] = np.mean(vals) if vals else np.nan
        out[k] = table
    return out


def _mean_gap(a: np.ndarray, b: np.ndarray) -> float:
    return float(a.mean() - b.mean()) if a.size and b.size else float("nan")


def _se(diff: np.ndarray) -> float:
    return float(diff.std(ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else float("nan")


def _fig_accuracy(config: Config, results) -> Figure:
    settings = [s for s in config.settings if any(c["setting"] == s for c, _ in results)]
    fig = Figure(figsize=(5.2 * len(settings), 3.8))
    axes = np.atleast_1d(fig.subplots(1, len(settings), sharey=True, squeeze=False)).ravel()
    points = [(sy, sd) for sy in config.strengths_y for sd in config.strengths_d]
    for ax, s in zip(axes, settings, strict=True):
        means = grid_means(config, results, s)
        x = np.arange(len(points))
        for j, k in enumerate(METHODS):
            ax.plot(x, means[k].ravel(), "o-", color=f"C{j}", label=k, ms=4)
        ax.set_xticks(x, [f"sY {sy}\nsD {sd}" for sy, sd in points], fontsize=7)
        ax.set_title(f"{s}: mean test accuracy over seeds", fontsize=9)
    axes[0].set_ylabel("accuracy")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig
