"""Reproduction: overparameterized RF ensembles are single infinite-width (kernel) regressors in
expectation, close to one bigger model at equal budget, and their spread is r_perp^2(x).

Cells:
- ``mean_var``: Gaussian-universality ensembles on a 1-D sinusoid (N = 6) at widths 20, 50, 200;
  the members' mean and variance at a few test inputs against ``h_inf`` and the closed-form
  variance (claims a1, a2);
- ``budget``: ``M`` models of width ``D`` against one of width ``M D`` on the same feature draws,
  8-D smooth target (N = 12), Gaussian mode (claim b) and ReLU mode (measured, not claimed);
- ``width``: ReLU ensembles on the 8-D data, mean |ensemble - h_inf| against width (claim c);
- ``variance``: ReLU ensembles of width 200 on 1-D sinusoids (N = 6), members' variance over a
  grid of inputs against r_perp^2(x), on several training sets (claim d; Fig. 1 and Fig. 4).

The training sets come from ``Config.data_seed``, so every cell of a part sees the same data;
the cell's own seed draws the random features.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from icml25.rf_ensembles.data import sinusoid_1d, smooth_target
from icml25.rf_ensembles.ensembles import ensemble_and_single, rf_ensemble
from icml25.rf_ensembles.theory import (
    kernel_predictor,
    r_perp_squared,
)

# one BLAS thread per cell, whatever the worker count: with two OpenBLAS threads (one worker on
# 2 cores) the solves round differently in the 15th digit, and a rerun must give equal numbers
CELL_THREADS = 1


@dataclass(frozen=True)
class Config:
    data_seed: int = 0
    noise: float = 0.05
    # (a) Gaussian mode, 1-D sinusoid
    a_n_train: int = 6
    a_widths: tuple[int, ...] = (20, 50, 200)
    a_test_points: int = 6
    a_members: int = 8000
    a_chunks: int = 2  # cells per width
    # (b) equal budget, 8-D smooth target; (c) uses the same data
    b_n_train: int = 12
    b_dim: int = 8
    b_test: int = 50
    b_width: int = 24
    b_members: tuple[int, ...] = (2, 4, 8, 16)
    b_replicates: int = 1000  # per chunk
    b_chunks: int = 2
    b_relu: bool = True
    # (c) ReLU mode, widths above N = b_n_train
    c_widths: tuple[int, ...] = (16, 32, 64, 128, 256)
    c_members: int = 4000
    # (d) ReLU mode, 1-D sinusoid, variance over a grid (Fig. 4: N = 6, D = 200)
    d_width: int = 200
    d_grid: int = 200
    d_members: int = 20000  # the paper's Fig. 4
    d_datasets: int = 5
    # ReLU-mode fits add this ridge, as the official code does for its "ridgeless" models (its
    # ZERO_REGULARIZATION): a ReLU Gram matrix can be nearly singular, and the few members that
    # hit one then dominate the variance. Gaussian-mode fits are exactly ridgeless.
    relu_ridge: float = 1e-8


SCALES = {
    "smoke": Config(
        a_widths=(20, 50),
        a_test_points=4,
        a_members=2000,
        a_chunks=1,
        b_test=20,
        b_width=24,
        b_members=(2, 4),
        b_replicates=300,
        b_chunks=1,
        b_relu=False,
        c_widths=(16, 32, 64, 128),
        c_members=600,
        d_grid=100,
        d_members=800,
        d_datasets=2,
    ),
    "default": Config(),
    "paper": Config(
        a_widths=(20, 50, 200, 1000),
        a_test_points=12,
        a_members=20000,
        a_chunks=4,
        b_width=200,
        b_members=(2, 4, 8, 16, 35),
        b_replicates=1250,
        b_chunks=2,
        c_widths=(14, 16, 20, 25, 32, 50, 64, 128, 256),
        c_members=10000,
        d_grid=1000,
        d_members=20000,
        d_datasets=10,
    ),
}


def cells(config: Config) -> list[dict]:
    mean_var = [
        {"part": "mean_var", "width": w, "chunk": c}
        for w in config.a_widths
        for c in range(config.a_chunks)
    ]
    modes = ("gaussian", "relu") if config.b_relu else ("gaussian",)
    budget = [
        {"part": "budget", "mode": mode, "members": m, "chunk": c}
        for mode in modes
        for m in config.b_members
        for c in range(config.b_chunks)
    ]
    width = [{"part": "width", "width": w} for w in config.c_widths]
    variance = [{"part": "variance", "dataset": j} for j in range(config.d_datasets)]
    return mean_var + budget + width + variance


@lru_cache(maxsize=32)
def _data_1d(config: Config, dataset: int):
    """Training set ``dataset`` of the 1-D parts: X (N, 1), y (N,)."""
    rng = np.random.default_rng([config.data_seed, 1, dataset])
    return sinusoid_1d(config.a_n_train, rng, noise=config.noise)


@lru_cache(maxsize=4)
def _data_8d(config: Config):
    """The 8-D training and test sets: X (N, d), y (N,), X_test (T, d), y_test (T,)."""
    rng = np.random.default_rng([config.data_seed, 8])
    X, y, u = smooth_target(config.b_n_train, config.b_dim, rng, noise=config.noise)
    X_test, y_test, _ = smooth_target(
        config.b_test, config.b_dim, rng, noise=config.noise, direction=u
    )
    return X, y, X_test, y_test


def _a_test_inputs(config: Config) -> np.ndarray:
    return np.linspace(-4.5, 4.5, config.a_test_points)[:, None]  # (T, 1)


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    part = cell["part"]
    if part == "mean_var":
        X, y = _data_1d(config, 0)
        ens = rf_ensemble(
            X,
            y,
            _a_test_inputs(config),
            cell["width"],
            config.a_members,
            mode="gaussian",
            seed=seed,
        )
        return {
            "moments": _power_sums(ens.predictions - kernel_predictor(X, y, _a_test_inputs(config)))
        }
    if part == "budget":
        X, y, X_test, y_test = _data_8d(config)
        ens, single = ensemble_and_single(
            X,
            y,
            X_test,
            config.b_width,
            cell["members"],
            config.b_replicates,
            mode=cell["mode"],
            ridge=config.relu_ridge if cell["mode"] == "relu" else 0.0,
            seed=seed,
        )
        mse_ens = ((ens - y_test) ** 2).mean(axis=1)  # (R,)
        mse_single = ((single - y_test) ** 2).mean(axis=1)
        return {"mse_ensemble": mse_ens, "mse_single": mse_single}
    if part == "width":
        X, y, X_test, _ = _data_8d(config)
        ens = rf_ensemble(
            X,
            y,
            X_test,
            cell["width"],
            config.c_members,
            mode="relu",
            ridge=config.relu_ridge,
            seed=seed,
        )
        h = kernel_predictor(X, y, X_test)
        return {"mean": ens.mean, "variance": ens.variance, "h_inf": h}
    X, y = _data_1d(config, cell["dataset"])
    grid = np.linspace(-5, 5, config.d_grid)[:, None]  # (G, 1)
    args = (X, y, grid, config.d_width, config.d_members)
    ens = rf_ensemble(*args, mode="relu", ridge=config.relu_ridge, seed=seed)
    exact = rf_ensemble(*args, mode="relu", ridge=0.0, seed=seed)  # same draws
    med = np.median(ens.predictions, axis=0)  # (G,)
    mad = np.median(np.abs(ens.predictions - med), axis=0)
    return {
        "variance": ens.variance,
        "robust_variance": (1.4826 * mad) ** 2,  # MAD^2, normal-consistent: a tail-proof spread
        "exact_variance": exact.variance,  # ridge exactly 0 (pseudo-inverse)
        "mean": ens.mean,
        "examples": ens.predictions[:5],
        "r_perp2": r_perp_squared(X, grid),
        "h_inf": kernel_predictor(X, y, grid),
    }


def _power_sums(dev: np.ndarray) -> np.ndarray:
    """Count and sums of powers 1..4 of deviations: (members, T) -> (5, T)."""
    return np.stack(
        [np.full(dev.shape[1], dev.shape[0], float)] + [(dev**p).sum(0) for p in range(1, 5)]
    )
