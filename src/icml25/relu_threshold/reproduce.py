"""Reproduction: above an optimization threshold in n, a small-initialised two-layer ReLU network
stops fitting the training data better than OLS and lands near ordinary least squares; below it,
it fits the noise.

Cells: one per (sample size n, initialisation), each training ``seeds`` networks at once on a
linear target with noise. Initialisations: ``small`` (lambda = 1e-3), ``tiny`` (lambda = 1e-6,
closer to the vanishing start the paper's result is about) and ``lazy`` (lambda = 1, the
control). A ``stepsize`` cell (smoke and paper scales; the default's time budget left it out)
trains the same networks with the default step and with a step 4x smaller (closer to gradient
flow) to the same gradient-flow time, to tell whether a departure from OLS comes from the
discretisation.

Test excess risk is judged against ``sigma^2 d / (2n)``, the expected excess of OLS with our loss
``1/2 (f - y)^2`` and the rate of the paper's estimator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.relu_threshold.network import (
    BETA_STAR,
    balanced_init,
    forward,
    linear_data,
    ols,
    train,
)

CELL_THREADS = 1
SCALES_OF_INIT = {"small": 1e-3, "lazy": 1.0, "tiny": 1e-6, "stepsize": 1e-3}
LARGE_N, SMALL_N = 256, 24
ALIGNED_LOSS = 0.9  # the alignment phase ends when the loss first falls below 90% of its start
ESCAPED = 0.999  # a run has left OLS's point when its train loss falls below 0.999 x OLS's


@dataclass(frozen=True)
class Config:
    ns: tuple[int, ...] = (8, 16, 24, 64, 128, 256)
    lazy_ns: tuple[int, ...] = (256,)
    tiny_ns: tuple[int, ...] = (256,)
    stepsize_ns: tuple[int, ...] = ()
    seeds: int = 5
    width: int = 200
    lr: float = 0.05
    steps: int = 40_000
    small_lr: float = 0.0125  # the stepsize cell's smaller step
    stepsize_time: float = 1000.0  # gradient-flow time lr x steps of the stepsize cell
    noise: float = 0.5
    test_size: int = 4000


SCALES = {
    "smoke": Config(
        ns=(8, 24, 256),
        stepsize_ns=(256,),
        seeds=3,
        width=50,
        steps=2000,
        stepsize_time=25.0,
    ),
    "default": Config(),
    "paper": Config(
        ns=(8, 12, 16, 24, 32, 64, 128, 256, 512, 1024),
        lazy_ns=(256, 512, 1024),
        tiny_ns=(256, 512, 1024),
        stepsize_ns=(256,),
        seeds=10,
        width=2000,
        steps=200_000,
        stepsize_time=4000.0,
    ),
}


def cells(config: Config) -> list[dict]:
    return (
        [{"n": n, "init": "small"} for n in config.ns]
        + [{"n": n, "init": "lazy"} for n in config.lazy_ns]
        + [{"n": n, "init": "tiny"} for n in config.tiny_ns]
        + [{"n": n, "init": "stepsize"} for n in config.stepsize_ns]
    )


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    generator = torch.Generator().manual_seed(seed)
    X, y = linear_data(cell["n"], config.seeds, noise=config.noise, generator=generator)
    X_test, _ = linear_data(config.test_size, config.seeds, noise=0.0, generator=generator)
    W, a = balanced_init(
        config.seeds, config.width, X.shape[-1], SCALES_OF_INIT[cell["init"]], generator=generator
    )
    beta_hat = ols(X, y)  # (seeds, d)
    target = X_test @ torch.tensor(BETA_STAR, dtype=torch.float64)  # (seeds, n_test), noiseless
    ols_train = 0.5 * ((X @ beta_hat.unsqueeze(-1)).squeeze(-1) - y).pow(2).mean(-1)  # (seeds,)
    ols_test = 0.5 * ((X_test @ beta_hat.unsqueeze(-1)).squeeze(-1) - target).pow(2).mean(-1)
    rate = config.noise**2 * X.shape[-1] / (2 * cell["n"])  # sigma^2 d / (2n)

    def measured(run, lr):
        f_test = forward(run.W, run.a, X_test)  # (seeds, n_test)
        excess = 0.5 * (f_test - target).pow(2).mean(-1)  # (seeds,)
        loss_over_ols = run.loss / ols_train.numpy()  # (K, seeds)
        return f_test, {
            "train_ratio": loss_over_ols[-1],  # (seeds,)
            "test_ratio": (excess / ols_test).numpy(),  # (seeds,)
            "excess_over_rate": excess.numpy() / rate,  # (seeds,)
            "flow_time": lr * run.step,  # (K,)
            "loss_over_ols": loss_over_ols,  # (K, seeds)
            # first gradient-flow time below ESCAPED x OLS after the alignment phase
            "escape_time": _escape_time(loss_over_ols, lr * run.step),  # (seeds,)
        }

    if cell["init"] == "stepsize":
        out = {}
        f = {}
        for name, lr in (("default", config.lr), ("small", config.small_lr)):
            steps = round(config.stepsize_time / lr)
            f[name], values = measured(train(W, a, X, y, lr=lr, steps=steps), lr)
            out.update({f"{key}[{name}]": value for key, value in values.items()})
        gap = (f["default"] - f["small"]).pow(2).mean(-1).sqrt()  # (seeds,) rms over test points
        out["prediction_gap_over_rate"] = gap.pow(2).numpy() / (2 * rate)  # (seeds,)
        return out

    run = train(W, a, X, y, lr=config.lr, steps=config.steps)
    _, out = measured(run, config.lr)
    aligned = np.argmax(run.loss <= ALIGNED_LOSS * run.loss[:1], axis=0)  # (seeds,) record index
    late = np.searchsorted(run.step, 3 * config.steps // 4)  # record index at 3/4 of the run
    out.update(
        {
            "ols_test": ols_test.numpy(),
            "late_loss_drop": 1 - run.loss[-1] / run.loss[late],  # (seeds,) over the last quarter
            "top2_mass_after_alignment": run.concentration[aligned, np.arange(config.seeds)],
            "alignment_step": run.step[aligned],
            "step": run.step,  # (K,)
            "concentration": run.concentration,  # (K, seeds)
        }
    )
    return out


def _escape_time(loss_over_ols: np.ndarray, time: np.ndarray) -> np.ndarray:
    """Per seed, the first time in ``time`` (K,) at which train loss / OLS's (K, seeds) falls
    below ``ESCAPED`` after it has once been within 1e-3 of 1 (the run sat at OLS's point); inf
    when that never happens."""
    reached = np.maximum.accumulate(np.abs(loss_over_ols - 1) < 1e-3, axis=0)  # (K, seeds)
    after = (loss_over_ols < ESCAPED) & reached
    return np.where(after.any(0), time[np.argmax(after, axis=0)], np.inf)


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
    matches = (lazy_train >= 0.9) & (lazy_train <= 1.05) & (lazy_excess < 2)
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
        # the first look's (a3) and (b) measures, kept to compare
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
