"""Reproduction: above an optimization threshold in n, a small-initialised two-layer ReLU network
stops interpolating and lands near ordinary least squares; below it, it interpolates.

Cells: one per (sample size n, initialisation), each training ``seeds`` networks at once on a
linear target with noise. Initialisations: ``small`` (lambda = 1e-3, the paper's regime),
``lazy`` (lambda = 1, the control) and, as a diagnostic that is not a claim, ``tiny``
(lambda = 1e-6), which tells whether a departure from OLS comes from lambda being finite.
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

SCALES_OF_INIT = {"small": 1e-3, "lazy": 1.0, "tiny": 1e-6}
LARGE_N, SMALL_N = 256, 24
ALIGNED_LOSS = 0.9  # the alignment phase ends when the loss first falls below 90% of its start


@dataclass(frozen=True)
class Config:
    ns: tuple[int, ...] = (8, 16, 24, 64, 128, 256, 512)
    lazy_ns: tuple[int, ...] = (256, 512)
    tiny_ns: tuple[int, ...] = (256,)
    seeds: int = 5
    width: int = 200
    lr: float = 0.05
    steps: int = 40_000
    noise: float = 0.5
    test_size: int = 4000


SCALES = {
    "smoke": Config(ns=(8, 24, 256), lazy_ns=(256,), tiny_ns=(), seeds=3, width=50, steps=2000),
    "default": Config(),
    "paper": Config(
        ns=(8, 12, 16, 24, 32, 64, 128, 256, 512, 1024),
        lazy_ns=(256, 512, 1024),
        tiny_ns=(256, 512),
        seeds=10,
        width=2000,
        steps=200_000,
    ),
}


def cells(config: Config) -> list[dict]:
    return (
        [{"n": n, "init": "small"} for n in config.ns]
        + [{"n": n, "init": "lazy"} for n in config.lazy_ns]
        + [{"n": n, "init": "tiny"} for n in config.tiny_ns]
    )


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    generator = torch.Generator().manual_seed(seed)
    X, y = linear_data(cell["n"], config.seeds, noise=config.noise, generator=generator)
    X_test, _ = linear_data(config.test_size, config.seeds, noise=0.0, generator=generator)
    W, a = balanced_init(
        config.seeds, config.width, X.shape[-1], SCALES_OF_INIT[cell["init"]], generator=generator
    )
    run = train(W, a, X, y, lr=config.lr, steps=config.steps)
    beta = torch.tensor(BETA_STAR, dtype=torch.float64)
    beta_hat = ols(X, y)  # (seeds, d)
    target = X_test @ beta  # (seeds, n_test): the noiseless test target
    ols_train = 0.5 * ((X @ beta_hat.unsqueeze(-1)).squeeze(-1) - y).pow(2).mean(-1)
    ols_test = 0.5 * ((X_test @ beta_hat.unsqueeze(-1)).squeeze(-1) - target).pow(2).mean(-1)
    net_test = 0.5 * (forward(run.W, run.a, X_test) - target).pow(2).mean(-1)
    aligned = np.argmax(run.loss <= ALIGNED_LOSS * run.loss[:1], axis=0)  # (seeds,) record index
    return {
        "train_ratio": (torch.as_tensor(run.loss[-1]) / ols_train).numpy(),  # (seeds,)
        "test_ratio": (net_test / ols_test).numpy(),  # (seeds,)
        "ols_test": ols_test.numpy(),
        "top2_mass_after_alignment": run.concentration[aligned, np.arange(config.seeds)],
        "alignment_step": run.step[aligned],
        "step": run.step,  # (K,)
        "loss_over_ols": run.loss / ols_train.numpy(),  # (K, seeds)
        "concentration": run.concentration,  # (K, seeds)
    }


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    by = {(cell["init"], cell["n"]): out for cell, out in results}

    def pooled(init, key, keep):
        values = [by[i, n][key] for (i, n) in by if i == init and keep(n)]
        return np.concatenate(values) if values else np.array([])

    large = lambda n: n >= LARGE_N  # noqa: E731
    train_large, test_large = (
        pooled("small", "train_ratio", large),
        pooled("small", "test_ratio", large),
    )
    overfit = [
        float(np.mean((by[i, n]["train_ratio"] < 0.8) & (by[i, n]["test_ratio"] >= 3)))
        for (i, n) in by
        if i == "small" and n <= SMALL_N
    ]
    lazy_train, lazy_test = (
        pooled("lazy", "train_ratio", large),
        pooled("lazy", "test_ratio", large),
    )
    matches = (lazy_train >= 0.9) & (lazy_train <= 1.05) & (lazy_test < 2)
    measurements = {
        "min_train_ratio_large_n": _stat(np.min, train_large),
        "max_train_ratio_large_n": _stat(np.max, train_large),
        "max_test_ratio_large_n": _stat(np.max, test_large),
        "min_overfit_fraction_small_n": min(overfit) if overfit else math.nan,
        "lazy_match_fraction": float(matches.mean()) if matches.size else math.nan,
        "median_top2_mass_after_alignment": _stat(
            np.median, pooled("small", "top2_mass_after_alignment", lambda n: True)
        ),
    }
    for (init, n), out in sorted(by.items()):
        measurements[f"median_train_ratio[{init},n={n}]"] = float(np.median(out["train_ratio"]))
        measurements[f"median_test_ratio[{init},n={n}]"] = float(np.median(out["test_ratio"]))
    figures = {"ratios_vs_n": _fig_ratios(by)}
    show_n = max((n for (i, n) in by if i == "small"), default=None)
    if show_n is not None:
        figures["training_curves"] = _fig_curves(by, show_n)
    return Summary(measurements, figures)


def _stat(fn, values: np.ndarray) -> float:
    return float(fn(values)) if values.size else math.nan


def _fig_ratios(by: dict) -> Figure:
    fig = Figure(figsize=(10, 3.8))
    axes = fig.subplots(1, 2)
    styles = {
        "small": ("o", "C0", "lambda = 1e-3"),
        "lazy": ("s", "C3", "lazy, lambda = 1"),
        "tiny": ("^", "C2", "lambda = 1e-6"),
    }
    for ax, key, title in (
        (axes[0], "train_ratio", "train loss / OLS train loss"),
        (axes[1], "test_ratio", "test loss / OLS test loss"),
    ):
        for init, (marker, color, label) in styles.items():
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
    axes[1].axhline(2.0, color="grey", linestyle=":")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_curves(by: dict, n: int) -> Figure:
    fig = Figure(figsize=(10, 3.6))
    axes = fig.subplots(1, 2)
    for init, color in (("small", "C0"), ("tiny", "C2"), ("lazy", "C3")):
        if (init, n) not in by:
            continue
        out = by[init, n]
        axes[0].plot(out["step"], out["loss_over_ols"], color=color, alpha=0.6)
        axes[1].plot(out["step"], out["concentration"], color=color, alpha=0.6)
        axes[0].plot([], [], color=color, label=f"{init} init")
    axes[0].set_yscale("log")
    axes[0].axhline(1.0, color="black", linewidth=0.8)
    axes[0].set_title(f"train loss / OLS train loss, n = {n}")
    axes[1].set_title("mass on the top-2 neuron directions")
    for ax in axes:
        ax.set_xlabel("step")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig
