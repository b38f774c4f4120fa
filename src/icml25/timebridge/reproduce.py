"""Reproduction: TimeBridge against DLinear and its own ablations on data whose co-integration is
known, and on statsmodels' macrodata.

Cells, one training run each, for every data seed ``s`` in ``range(config.seeds)``:
- ``cointegrated``: TimeBridge, TimeBridge without Cointegrated Attention (``no_ca``), DLinear
  (claims a, b);
- ``independent`` (no co-integration): TimeBridge, ``no_ca`` (the control of b);
- ``drifting`` (co-integrated plus a drifting common level): TimeBridge, TimeBridge with Q, K
  from raw tokens (``no_pn``) (claim c);
- ``macro``: TimeBridge, ``no_ca``, DLinear on the log macro series (input 24 quarters, horizon
  8), measured, not claimed.

Data seed ``s`` fixes the series, so that the models of one seed are compared on the same data;
the cell's own seed draws the network's weights and its batches. Every MSE is on the series
standardised by their training split's mean and standard deviation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.timebridge.data import cointegrated_series, macrodata
from icml25.timebridge.forecaster import TimeBridgeForecaster
from icml25.timebridge.linear import LinearForecaster
from icml25.timebridge.model import period_norm

# one thread per cell: small products, and equal numbers whatever the worker count
CELL_THREADS = 1

VARIANTS = {
    "timebridge": {},
    "no_ca": {"ca_layers": 0},
    "no_pn": {"period_norm": False},
    "pn_patch": {"period_norm_axis": "patch"},
    "dlinear": {"model": "dlinear"},
    "dlinear_tf": {"model": "dlinear", "loss": "time_frequency"},
}
# the claims' models first; then diagnostics, measured and not claimed: DLinear trained with
# TimeBridge's loss; closed-form ridge maps from a series' own past or from every series' past
# (how much cross-series information a linear model finds); Q, K normalised over patches
GRID = {
    "cointegrated": ("timebridge", "no_ca", "dlinear", "dlinear_tf", "linear_own", "linear_cross"),
    "independent": ("timebridge", "no_ca", "linear_own", "linear_cross"),
    "drifting": ("timebridge", "no_pn", "pn_patch"),
    "macro": ("timebridge", "no_ca", "dlinear"),
}
RIDGES = (0.1, 1.0, 10.0, 100.0, 1e3, 1e4, 1e5)


@dataclass(frozen=True)
class Config:
    seeds: int = 3
    data_seed: int = 0
    # synthetic data (see icml25.timebridge.data)
    n_steps: int = 4000
    train_steps: int = 3200  # its last 1/8 validates (early stopping); the rest is the test split
    n_series: int = 8
    n_trends: int = 2
    # models and training
    input_len: int = 192
    horizon: int = 96
    patch_len: int = 24
    d_model: int = 64
    steps: int = 1000
    batch_size: int = 32
    lr: float = 1e-3
    eval_stride: int = 8  # test windows start every 8 steps
    eval_every: int = 50  # updates between validation MSEs
    patience: int = 5  # validations without improvement before stopping
    # macrodata: 203 quarters, the last ``macro_test`` for testing
    macro: bool = True
    macro_input: int = 24
    macro_horizon: int = 8
    macro_patch: int = 4
    macro_test: int = 43
    macro_steps: int = 500
    macro_eval_every: int = 25


SCALES = {
    "smoke": Config(
        seeds=1,
        n_steps=900,
        train_steps=600,
        input_len=96,
        horizon=48,
        d_model=32,
        steps=25,
        batch_size=16,
        eval_stride=24,
        macro_steps=20,
    ),
    "default": Config(),
    "paper": Config(n_steps=20000, train_steps=14000, d_model=128, steps=20000, seeds=5),
}


def cells(config: Config) -> list[dict]:
    kinds = [k for k in GRID if k != "macro" or config.macro]
    return [
        {"data": kind, "model": model, "seed_index": s}
        for s in range(config.seeds)
        for kind in kinds
        for model in GRID[kind]
    ]


def _series(config: Config, kind: str, seed_index: int) -> np.ndarray:
    if kind == "macro":
        return macrodata()
    seed = np.random.SeedSequence([config.data_seed, seed_index]).generate_state(1)[0]
    return cointegrated_series(
        config.n_steps, config.n_series, config.n_trends, kind=kind, seed=int(seed)
    ).y


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    y = _series(config, cell["data"], cell["seed_index"])  # (T, N)
    if cell["data"] == "macro":
        n_in, n_out, train = config.macro_input, config.macro_horizon, len(y) - config.macro_test
        sizes = {"patch_len": config.macro_patch, "sampled_patches": 2, "stable_len": 2}
        steps, stride = config.macro_steps, 1
        sizes["eval_every"] = config.macro_eval_every
    else:
        n_in, n_out, train = config.input_len, config.horizon, config.train_steps
        sizes = {"patch_len": config.patch_len, "eval_every": config.eval_every}
        steps, stride = config.steps, config.eval_stride
    if cell["model"].startswith("linear"):
        forecaster, extra = _ridge(y[:train], n_in, n_out, cell["model"] == "linear_cross")
    else:
        forecaster = TimeBridgeForecaster(
            n_in,
            n_out,
            d_model=config.d_model,
            steps=steps,
            batch_size=config.batch_size,
            lr=config.lr,
            patience=config.patience,
            seed=seed % 2**31,
            **sizes,
            **VARIANTS[cell["model"]],
        )
        forecaster.fit(y[:train])
        extra = {
            "losses": forecaster.losses_,
            "val_mse": forecaster.val_mse_,
            "best_step": forecaster.best_step_,
            "updates": len(forecaster.losses_),
        }
        if forecaster.model == "timebridge":
            extra["level_retained"] = _level_retained(forecaster)
    test = y[train - n_in :]  # the test split with the input window of its first forecast
    windows = np.lib.stride_tricks.sliding_window_view(test, n_in + n_out, axis=0)[::stride]
    windows = windows.transpose(0, 2, 1)  # (W, I + H, N)
    pred = forecaster.predict_windows(windows[:, :n_in])  # (W, H, N)
    scale = y[:train].std(0)
    err = ((pred - windows[:, n_in:]) / scale) ** 2  # (W, H, N), standardised units
    if cell["model"].startswith("linear"):  # test MSE along the whole ridge path
        extra["mse_path"] = np.array(
            [
                (((f.predict_windows(windows[:, :n_in]) - windows[:, n_in:]) / scale) ** 2).mean()
                for f in extra.pop("path")
            ]
        )
    return {
        "mse": float(err.mean()),
        "mse_by_step": err.mean((0, 2)),  # (H,)
        "mse_by_series": err.mean((0, 1)),  # (N,)
        "example_input": windows[0, :n_in],
        "example_truth": windows[0, n_in:],
        "example_forecast": pred[0],
        **extra,
    }


def _ridge(y: np.ndarray, n_in: int, n_out: int, cross: bool):
    """Closed-form ridge, its penalty chosen on the last 1/8 of ``y`` (the validation split the
    networks use), refitted on all of ``y``; and the refitted models of every penalty (the
    path, whose test MSEs ``run_cell`` reports: the best of them is an oracle choice, a bound
    on what a linear map extracts, not a forecaster)."""
    cut = len(y) - len(y) // 8
    val = np.lib.stride_tricks.sliding_window_view(y[cut - n_in :], n_in + n_out, axis=0)
    val = val.transpose(0, 2, 1)  # (W, I + H, N)
    scores = []
    for lam in RIDGES:
        model = LinearForecaster(n_in, n_out, cross=cross, ridge=lam).fit(y[:cut])
        scores.append(((model.predict_windows(val[:, :n_in]) - val[:, n_in:]) ** 2).mean())
    path = [LinearForecaster(n_in, n_out, cross=cross, ridge=lam).fit(y) for lam in RIDGES]
    best = int(np.argmin(scores))
    return path[best], {"ridge": RIDGES[best], "path": path}


def _level_retained(forecaster: TimeBridgeForecaster) -> float:
    """How much of a level shared by a patch survives the feature-axis period norm: a shift
    ``c`` of every step of a patch adds ``c W 1`` to its token (``W`` the patch embedding);
    returns ``|PN(W 1)| / |W 1|`` with the trained ``W``."""
    import torch

    w1 = forecaster.network_.embed.weight.detach().sum(1)  # (d,)
    stable = forecaster.network_.config.stable_len
    return float(torch.linalg.norm(period_norm(w1, stable)) / torch.linalg.norm(w1))
