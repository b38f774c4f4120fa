"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.timebridge.reproduce import (
    DIAGNOSTIC_GRID,
    GRID,
    KINDS,
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
    "timebridge_lr2e4": "TimeBridge, lr 2e-4",
    "dlinear_lr2e4": "DLinear, lr 2e-4",
    "linear_own": "ridge, own past",
    "linear_cross": "ridge, all series' past",
}


def _models(kind: str, table) -> tuple[str, ...]:
    """The models of ``kind`` that the run has (``Config``'s switches leave some out)."""
    models = GRID.get(kind, ()) + DIAGNOSTIC_GRID.get(kind, ())
    return tuple(model for model in models if (kind, model) in table)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    table: dict[tuple[str, str], list[dict]] = {}
    for cell, out in sorted(results, key=lambda r: r[0]["seed_index"]):
        table.setdefault((cell["data"], cell["model"]), []).append(out)
    m: dict[str, float] = {}

    def mse(kind: str, model: str, n: int | None = None) -> float:
        """Mean test MSE over the first ``n`` data seeds (all by default)."""
        return float(np.mean([o["mse"] for o in table[kind, model][:n]]))

    def reduction(kind: str, model: str, anchor: str) -> float:
        """``1 - MSE(model) / MSE(anchor)``, seed means over the seeds both have."""
        n = min(len(table[kind, model]), len(table[kind, anchor]))
        return 1.0 - mse(kind, model, n) / mse(kind, anchor, n)

    converged = []
    for (kind, model), outs in table.items():
        m[f"mse_{kind}_{model}"] = mse(kind, model)
        for s, o in enumerate(outs):
            m[f"mse_{kind}_{model}_seed{s}"] = o["mse"]
        if "best_step" in outs[0]:
            m[f"best_step_{kind}_{model}"] = float(np.mean([o["best_step"] for o in outs]))
            m[f"updates_{kind}_{model}"] = float(np.mean([o["updates"] for o in outs]))
            m[f"converged_{kind}_{model}"] = float(np.mean([o["converged"] for o in outs]))
            converged += [o["converged"] for o in outs]
        if "level_retained" in outs[0]:
            m[f"level_retained_{kind}_{model}"] = float(
                np.mean([o["level_retained"] for o in outs])
            )
    m["converged_share"] = float(np.mean(converged))
    m["converged_runs"] = float(np.sum(converged))
    m["network_runs"] = float(len(converged))

    # the claims: per data seed, then their mean (the replicates of the claims' intervals)
    def per_seed(name: str, kind: str, model: str, anchor: str, ratio) -> None:
        pairs = zip(table[kind, model], table[kind, anchor], strict=True)
        values = [ratio(a["mse"], b["mse"]) for a, b in pairs]
        for s, v in enumerate(values):
            m[f"{name}[seed={s}]"] = v
        m[name] = float(np.mean(values))

    def gain(x: float, anchor: float) -> float:
        return 1.0 - x / anchor

    per_seed("a_mse_reduction_vs_dlinear", "cointegrated", "timebridge", "dlinear", gain)
    if config.wide:  # claim b and its control (21 series)
        per_seed("b_mse_reduction_vs_no_ca", "wide_cointegrated", "timebridge", "no_ca", gain)
        per_seed("b_control_rel_diff_no_ca", "wide_independent", "timebridge", "no_ca", gain)
        m["b_control_abs_rel_diff_no_ca"] = abs(m["b_control_rel_diff_no_ca"])
    per_seed(
        "c_mse_increase_without_period_norm",
        "drifting",
        "no_pn",
        "timebridge",
        lambda x, anchor: x / anchor - 1.0,
    )
    # the same comparisons as ratios of seed means (the form of the earlier claims)
    m["a_ratio_of_means"] = reduction("cointegrated", "timebridge", "dlinear")
    if config.wide:
        m["b_ratio_of_means"] = reduction("wide_cointegrated", "timebridge", "no_ca")
    m["c_ratio_of_means"] = -reduction("drifting", "no_pn", "timebridge")

    # diagnostics
    m["b8_mse_reduction_vs_no_ca"] = reduction("cointegrated", "timebridge", "no_ca")
    for s, (a, b) in enumerate(
        zip(table["cointegrated", "timebridge"], table["cointegrated", "no_ca"], strict=False)
    ):
        m[f"b8_mse_reduction_vs_no_ca_seed{s}"] = gain(a["mse"], b["mse"])
    m["no_ca_mse_reduction_vs_dlinear"] = reduction("cointegrated", "no_ca", "dlinear")
    if config.wide:
        m["wide_mse_reduction_vs_dlinear"] = reduction("wide_cointegrated", "timebridge", "dlinear")
        m["wide_no_ca_mse_reduction_vs_dlinear"] = reduction(
            "wide_cointegrated", "no_ca", "dlinear"
        )
    if config.official_lr:
        m["lr2e4_mse_reduction_vs_dlinear"] = reduction(
            "cointegrated", "timebridge_lr2e4", "dlinear_lr2e4"
        )
        m["lr2e4_timebridge_mse_reduction_vs_lr1e3"] = reduction(
            "cointegrated", "timebridge_lr2e4", "timebridge"
        )
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
    m["tf_loss_dlinear_mse_increase"] = -reduction("cointegrated", "dlinear_tf", "dlinear")
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
    kinds = [k for k in (*KINDS, "macro") if any(key[0] == k for key in table)]
    fig = Figure(figsize=(3.6 * len(kinds), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(kinds)))
    for ax, kind in zip(axes, kinds, strict=True):
        for i, model in enumerate(_models(kind, table)):
            curve = np.mean([o["mse_by_step"] for o in table[kind, model]], axis=0)
            ax.plot(np.arange(1, len(curve) + 1), curve, color=f"C{i}", label=LABELS[model])
        ax.set_title(kind, fontsize=9)
        ax.set_xlabel("forecast step")
        ax.set_ylabel("MSE")
        ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def _fig_examples(table, kind: str) -> Figure:
    models = _models(kind, table)
    first = {model: table[kind, model][0] for model in models[:3]}
    ref = first[models[0]]
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
    kinds = [
        k
        for k in (*KINDS, "macro")
        if any(key[0] == k and "val_mse" in outs[0] for key, outs in table.items())
    ]
    fig = Figure(figsize=(3.6 * len(kinds), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(kinds)))
    for ax, kind in zip(axes, kinds, strict=True):
        every = config.macro_eval_every if kind == "macro" else config.eval_every
        for i, model in enumerate(_models(kind, table)):
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
