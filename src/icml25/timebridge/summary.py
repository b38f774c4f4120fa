"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.timebridge.reproduce import (
    GRID,
    RIDGES,
    Config,
)

LABELS = {
    "timebridge": "TimeBridge",
    "no_ca": "TimeBridge without CA",
    "no_pn": "TimeBridge, Q K not period-normalised",
    "pn_patch": "TimeBridge, period norm over patches",
    "dlinear": "DLinear",
    "dlinear_tf": "DLinear, time-frequency loss",
    "linear_own": "ridge, own past",
    "linear_cross": "ridge, all series' past",
}


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    table: dict[tuple[str, str], list[dict]] = {}
    for cell, out in results:
        table.setdefault((cell["data"], cell["model"]), []).append(out)
    m: dict[str, float] = {}
    mse = {}
    for (kind, model), outs in table.items():
        values = [o["mse"] for o in outs]
        mse[kind, model] = float(np.mean(values))
        m[f"mse_{kind}_{model}"] = mse[kind, model]
        for s, v in enumerate(values):
            m[f"mse_{kind}_{model}_seed{s}"] = v
        if "best_step" in outs[0]:
            m[f"best_step_{kind}_{model}"] = float(np.mean([o["best_step"] for o in outs]))
            m[f"updates_{kind}_{model}"] = float(np.mean([o["updates"] for o in outs]))
        if "level_retained" in outs[0]:
            m[f"level_retained_{kind}_{model}"] = float(
                np.mean([o["level_retained"] for o in outs])
            )

    def reduction(kind: str, model: str, anchor: str) -> float:
        return 1.0 - mse[kind, model] / mse[kind, anchor]

    m["a_mse_reduction_vs_dlinear"] = reduction("cointegrated", "timebridge", "dlinear")
    m["b_mse_reduction_vs_no_ca"] = reduction("cointegrated", "timebridge", "no_ca")
    m["b_control_rel_diff_no_ca"] = reduction("independent", "timebridge", "no_ca")
    m["b_control_abs_rel_diff_no_ca"] = abs(m["b_control_rel_diff_no_ca"])
    m["c_mse_increase_without_period_norm"] = (
        mse["drifting", "no_pn"] / mse["drifting", "timebridge"] - 1.0
    )
    m["no_ca_mse_reduction_vs_dlinear"] = reduction("cointegrated", "no_ca", "dlinear")
    for kind in ("cointegrated", "independent"):
        m[f"{kind}_cross_ridge_reduction_vs_own"] = reduction(kind, "linear_cross", "linear_own")
        paths = {}
        for model in ("linear_own", "linear_cross"):
            paths[model] = np.mean([o["mse_path"] for o in table[kind, model]], axis=0)
            for lam, v in zip(RIDGES, paths[model], strict=True):
                m[f"mse_{kind}_{model}_ridge{lam:g}"] = float(v)
            m[f"mse_{kind}_{model}_oracle_ridge"] = float(paths[model].min())
        m[f"{kind}_cross_ridge_oracle_reduction_vs_own"] = 1.0 - (
            paths["linear_cross"].min() / paths["linear_own"].min()
        )
    m["tf_loss_dlinear_mse_increase"] = (
        mse["cointegrated", "dlinear_tf"] / mse["cointegrated", "dlinear"] - 1.0
    )
    m["timebridge_mse_reduction_vs_dlinear_tf"] = reduction(
        "cointegrated", "timebridge", "dlinear_tf"
    )
    m["c_patch_axis_mse_reduction"] = reduction("drifting", "pn_patch", "timebridge")
    if config.macro:
        m["macro_mse_reduction_vs_dlinear"] = reduction("macro", "timebridge", "dlinear")
        m["macro_mse_reduction_vs_no_ca"] = reduction("macro", "timebridge", "no_ca")
    figures = {
        "error_by_horizon": _fig_by_step(config, table),
        "forecasts_vs_truth": _fig_examples(table, "cointegrated"),
        "validation_mse": _fig_validation(config, table),
    }
    captions = {
        "error_by_horizon": "MSE (standardised units) at each forecast step, mean over seeds",
        "forecasts_vs_truth": "First test window of data seed 0 (co-integrated data), 3 series",
        "validation_mse": "Validation MSE during training, one line per seed; the weights at "
        "each line's minimum are kept (early stopping)",
    }
    if config.macro:
        figures["macro_forecasts_vs_truth"] = _fig_examples(table, "macro")
        captions["macro_forecasts_vs_truth"] = "First test window of the log macro series"
    return Summary(m, figures, captions)


def _fig_by_step(config: Config, table) -> Figure:
    kinds = [k for k in GRID if any(key[0] == k for key in table)]
    fig = Figure(figsize=(3.6 * len(kinds), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(kinds)))
    for ax, kind in zip(axes, kinds, strict=True):
        for i, model in enumerate(GRID[kind]):
            curve = np.mean([o["mse_by_step"] for o in table[kind, model]], axis=0)
            ax.plot(np.arange(1, len(curve) + 1), curve, color=f"C{i}", label=LABELS[model])
        ax.set_title(kind, fontsize=9)
        ax.set_xlabel("forecast step")
        ax.set_ylabel("MSE")
        ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def _fig_examples(table, kind: str) -> Figure:
    first = {model: table[kind, model][0] for model in GRID[kind][:3]}
    ref = first[GRID[kind][0]]
    n = min(3, ref["example_truth"].shape[1])
    fig = Figure(figsize=(4 * n, 3.2))
    axes = np.atleast_1d(fig.subplots(1, n))
    t_in = np.arange(-len(ref["example_input"]), 0)
    t_out = np.arange(len(ref["example_truth"]))
    for j, ax in enumerate(axes):
        ax.plot(t_in, ref["example_input"][:, j], color="0.5", linewidth=0.8, label="input")
        ax.plot(t_out, ref["example_truth"][:, j], color="k", linewidth=1, label="truth")
        for i, (model, out) in enumerate(first.items()):
            ax.plot(t_out, out["example_forecast"][:, j], color=f"C{i}", label=LABELS[model])
        ax.set_title(f"{kind}: series {j}", fontsize=9)
        ax.set_xlabel("step (0 = first forecast)")
    axes[0].legend(fontsize=6)
    fig.tight_layout()
    return fig


def _fig_validation(config: Config, table) -> Figure:
    kinds = [k for k in GRID if any(key[0] == k for key in table)]
    fig = Figure(figsize=(3.6 * len(kinds), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(kinds)))
    for ax, kind in zip(axes, kinds, strict=True):
        every = config.macro_eval_every if kind == "macro" else config.eval_every
        for i, model in enumerate(GRID[kind]):
            for s, out in enumerate(table[kind, model]):
                if "val_mse" not in out:
                    continue
                steps = every * np.arange(1, len(out["val_mse"]) + 1)
                label = LABELS[model] if s == 0 else None
                ax.plot(steps, out["val_mse"], color=f"C{i}", linewidth=0.8, label=label)
        ax.set_title(kind, fontsize=9)
        ax.set_xlabel("update")
        ax.set_ylabel("validation MSE (standardised)")
        ax.set_yscale("log")
        ax.legend(fontsize=6)
    fig.tight_layout()
    return fig
