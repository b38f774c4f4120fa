"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.relu_threshold.reproduce import (
    Config,
)

LARGE_N, SMALL_N = 256, 24


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    by = {(cell["init"], cell["n"]): out for cell, out in results}

    def pooled(init, key, keep=lambda n: True):
        values = [by[i, n][key] for (i, n) in by if i == init and keep(n)]
        return np.concatenate(values) if values else np.array([])

    large = lambda n: n >= LARGE_N  # noqa: E731
    small = lambda n: n <= SMALL_N  # noqa: E731
    train_large = pooled("small", "train_ratio", large)
    fits_below_ols = [
        float(np.mean(by[i, n]["train_ratio"] < 0.8)) for (i, n) in by if i == "small" and small(n)
    ]
    lazy_train = pooled("lazy", "train_ratio", large)
    lazy_excess = pooled("lazy", "excess_over_rate", large)
    matches = _matches_ols(lazy_train, lazy_excess)
    measurements = {
        "min_train_ratio_large_n": _stat(np.min, train_large),
        "max_train_ratio_large_n": _stat(np.max, train_large),
        "max_excess_over_rate_tiny_large_n": _stat(
            np.max, pooled("tiny", "excess_over_rate", large)
        ),
        "min_fit_below_ols_fraction_small_n": min(fits_below_ols) if fits_below_ols else math.nan,
        "lazy_match_fraction": float(matches.mean()) if matches.size else math.nan,
        "median_top2_mass_after_alignment": _stat(
            np.median, pooled("small", "top2_mass_after_alignment")
        ),
        # not claims: test / OLS test above and below the threshold, and the excess over the
        # rate from the lambda = 1e-3 start
        "max_test_ratio_large_n": _stat(np.max, pooled("small", "test_ratio", large)),
        "max_test_ratio_tiny_large_n": _stat(np.max, pooled("tiny", "test_ratio", large)),
        "max_excess_over_rate_large_n": _stat(np.max, pooled("small", "excess_over_rate", large)),
        "min_test_ratio_small_n": _stat(np.min, pooled("small", "test_ratio", small)),
        # how far below OLS the runs at n <= 24 get, and whether they still move at the end
        "interpolating_fraction_small_n": _stat(
            np.mean, pooled("small", "train_ratio", small) < 0.01
        ),
        "max_late_loss_drop_small_n": _stat(np.max, pooled("small", "late_loss_drop", small)),
        "median_late_loss_drop_small_n": _stat(np.median, pooled("small", "late_loss_drop", small)),
    }
    for (init, n), out in sorted(by.items()):
        # the 0/1 outcome of each seed, the replicates of (b) and (c)
        if init == "small" and small(n):
            for seed, ratio in enumerate(out["train_ratio"]):
                measurements[f"fits_below_ols[n={n},seed={seed}]"] = float(ratio < 0.8)
        if init == "lazy" and large(n):
            match = _matches_ols(out["train_ratio"], out["excess_over_rate"])
            for seed, hit in enumerate(match):
                measurements[f"lazy_match[n={n},seed={seed}]"] = float(hit)
        if init == "stepsize":
            for name in ("default", "small"):
                escape = out[f"escape_time[{name}]"]
                measurements[f"escaped_fraction[stepsize {name},n={n}]"] = float(
                    np.isfinite(escape).mean()
                )
                measurements[f"median_escape_time[stepsize {name},n={n}]"] = (
                    float(np.median(escape)) if np.isfinite(escape).all() else math.nan
                )
                measurements[f"max_excess_over_rate[stepsize {name},n={n}]"] = float(
                    np.max(out[f"excess_over_rate[{name}]"])
                )
            measurements[f"max_prediction_gap_over_rate[stepsize,n={n}]"] = float(
                np.max(out["prediction_gap_over_rate"])
            )
            continue
        for key in ("train_ratio", "test_ratio", "excess_over_rate"):
            measurements[f"median_{key}[{init},n={n}]"] = float(np.median(out[key]))
        measurements[f"max_excess_over_rate[{init},n={n}]"] = float(np.max(out["excess_over_rate"]))
        # OLS's own test excess over the rate on the same data (test_ratio = excess / OLS's)
        measurements[f"max_ols_excess_over_rate[{init},n={n}]"] = float(
            np.max(out["excess_over_rate"] / out["test_ratio"])
        )
        escape = out["escape_time"]
        measurements[f"escaped_fraction[{init},n={n}]"] = float(np.isfinite(escape).mean())
    figures = {"ratios_vs_n": _fig_ratios(by)}
    show_n = max((n for (i, n) in by if i == "small"), default=None)
    if show_n is not None:
        figures["training_curves"] = _fig_curves(by, show_n)
    stepsize = [n for (i, n) in by if i == "stepsize"]
    if stepsize:
        figures["step_size"] = _fig_stepsize(by["stepsize", stepsize[0]], stepsize[0])
    return Summary(measurements, figures)


def _matches_ols(train_ratio: np.ndarray, excess_over_rate: np.ndarray) -> np.ndarray:
    """(a1)-(a3)'s criteria, per run: train / OLS train in [0.9, 1.05] and test excess
    below twice the rate."""
    return (train_ratio >= 0.9) & (train_ratio <= 1.05) & (excess_over_rate < 2)


def _stat(fn, values: np.ndarray) -> float:
    return float(fn(values)) if values.size else math.nan


STYLES = {
    "small": ("o", "C0", "lambda = 1e-3"),
    "tiny": ("^", "C2", "lambda = 1e-6"),
    "lazy": ("s", "C3", "lazy, lambda = 1"),
}


def _fig_ratios(by: dict) -> Figure:
    fig = Figure(figsize=(10, 3.8))
    axes = fig.subplots(1, 2)
    for ax, key, title in (
        (axes[0], "train_ratio", "train loss / OLS train loss"),
        (axes[1], "excess_over_rate", "test excess / (sigma^2 d / 2n)"),
    ):
        for init, (marker, color, label) in STYLES.items():
            points = [(n, v) for (i, n), out in by.items() if i == init for v in out[key]]
            if points:
                xs, ys = zip(*points, strict=True)
                ax.scatter(xs, ys, marker=marker, color=color, alpha=0.7, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("n")
        ax.set_title(title)
    axes[0].axhspan(0.9, 1.05, color="grey", alpha=0.15)
    axes[0].axhline(0.8, color="grey", linestyle=":")
    axes[1].axhline(2.0, color="grey", linestyle=":")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_curves(by: dict, n: int) -> Figure:
    fig = Figure(figsize=(10, 3.6))
    axes = fig.subplots(1, 2)
    for init, (_, color, label) in STYLES.items():
        if (init, n) not in by:
            continue
        out = by[init, n]
        axes[0].plot(out["step"], out["loss_over_ols"], color=color, alpha=0.6)
        axes[1].plot(out["step"], out["concentration"], color=color, alpha=0.6)
        axes[0].plot([], [], color=color, label=label)
    axes[0].set_yscale("log")
    axes[0].axhline(1.0, color="black", linewidth=0.8)
    axes[0].set_title(f"train loss / OLS train loss, n = {n}")
    axes[1].set_title("mass on the top-2 neuron directions")
    for ax in axes:
        ax.set_xlabel("step")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_stepsize(out: dict, n: int) -> Figure:
    fig = Figure(figsize=(5.5, 3.6))
    ax = fig.subplots()
    for name, color in (("default", "C0"), ("small", "C1")):
        ax.plot(out[f"flow_time[{name}]"], out[f"loss_over_ols[{name}]"], color=color, alpha=0.6)
        ax.plot([], [], color=color, label=f"{name} step")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("gradient-flow time lr x step")
    ax.set_title(f"train loss / OLS train loss, lambda = 1e-3, n = {n}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
