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

from dataclasses import dataclass

import numpy as np
import torch

from icml25.relu_threshold.network import (
    BETA_STAR,
    balanced_init,
    forward,
    linear_data,
    ols,
    train,
)

CELL_THREADS = 1
SCALES_OF_INIT = {"small": 1e-3, "lazy": 1.0, "tiny": 1e-6, "tinier": 1e-12, "stepsize": 1e-3}
ALIGNED_LOSS = 0.9  # the alignment phase ends when the loss first falls below 90% of its start
ESCAPED = 0.999  # a run has left OLS's point when its train loss falls below 0.999 x OLS's


@dataclass(frozen=True)
class Config:
    ns: tuple[int, ...] = (8, 16, 24, 64, 128, 256)
    lazy_ns: tuple[int, ...] = (256,)
    tiny_ns: tuple[int, ...] = (256,)
    tinier_ns: tuple[int, ...] = (256,)  # a diagnostic of (a3): a 10^6 times smaller start
    stepsize_ns: tuple[int, ...] = (256,)  # a diagnostic of (a3): a 4x smaller step
    seeds: int = 20  # (b), (c) are 0/1 outcomes per seed: 5 seeds' Wilson intervals decide neither
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
        + [{"n": n, "init": "tinier"} for n in config.tinier_ns]
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
