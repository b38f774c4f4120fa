"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.icl_denoising.reproduce import (
    MAIN,
    PAPER_MODEL,
    TASKS,
    Config,
)
from icml25.lab.reproduction import Summary


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    nan = float("nan")
    m: dict[str, float] = {}
    main = [(c, o) for c, o in results if c["multiplier"] == 1]
    ablation = [(c, o) for c, o in results if c["multiplier"] > 1]

    def rows(task, kind, pool=main):
        return [o for c, o in pool if c["task"] == task and c["model"] == kind]

    for c, o in main:  # the replicates of (a) and (d3): one trained layer per seed
        key = c["task"] if c["model"] == PAPER_MODEL[c["task"]] else f"{c['task']}_{c['model']}"
        m[f"mse_ratio[{key},seed={c['replicate']}]"] = o["test_mse"] / o["bayes_mse"]
        if "trained_vs_one_step_rel" in o:
            m[f"trained_vs_one_step_rel[{key},seed={c['replicate']}]"] = o[
                "trained_vs_one_step_rel"
            ]

    for task, kind in MAIN:
        outs = rows(task, kind)
        if not outs:
            continue
        key = task if kind == PAPER_MODEL[task] else f"{task}_{kind}"
        ratios = [o["test_mse"] / o["bayes_mse"] for o in outs]
        m[f"mse_ratio_{key}"] = float(np.mean(ratios))
        m[f"mse_ratio_{key}_max"] = float(np.max(ratios))
        m[f"mse_ratio_{key}_min"] = float(np.min(ratios))
        # standard error of the seed mean: seed-to-seed spread (training and test prompts)
        m[f"mse_ratio_{key}_se"] = (
            float(np.std(ratios, ddof=1) / np.sqrt(len(ratios))) if len(ratios) > 1 else nan
        )
        m[f"mse_ratio_{key}_se_prompts"] = float(
            np.sqrt(np.mean([o["ratio_se_prompts"] ** 2 for o in outs]) / len(outs))
        )
        m[f"train_ratio_{key}"] = float(
            np.mean([o["train_loss"][-1] / o["train_bayes_mse"] for o in outs])
        )
        m[f"mse_ratio_{key}_best_scalar"] = float(
            np.mean([o["best_scalar_mse"] / o["bayes_mse"] for o in outs])
        )
        for name in ("test_mse", "bayes_mse", "query_mse", "zero_mse"):
            m[f"{name}_{key}"] = float(np.mean([o[name] for o in outs]))
        for name in ("alpha", "beta"):  # up to the sign flip (alpha, beta) -> (-alpha, -beta)
            m[f"abs_{name}_{key}"] = float(np.mean([abs(o[name]) for o in outs]))
        m[f"negative_scalars_{key}"] = float(sum(o["alpha"] < 0 for o in outs))
        steps = [o["trained_vs_one_step_rel"] for o in outs if "trained_vs_one_step_rel" in o]
        if steps:
            m[f"trained_vs_one_step_rel_{key}"] = float(np.mean(steps))
            m[f"trained_vs_one_step_rel_{key}_max"] = float(np.max(steps))
    for task in TASKS:
        outs = rows(task, PAPER_MODEL[task], ablation)
        if outs:
            ratios = [o["test_mse"] / o["bayes_mse"] for o in outs]
            m[f"mse_ratio_{task}_x{config.data_multiplier}"] = float(np.mean(ratios))
    target = 1.0 / (config.linear_sigma_0_sq + config.linear_sigma_z_sq)
    for kind in ("linear", "softmax"):
        products = [o["alpha"] * o["beta"] for o in rows("linear", kind)]
        if products:
            suffix = "" if kind == "linear" else "_softmax"
            m[f"alpha_beta{suffix}"] = float(np.mean(products))
            m[f"alpha_beta_rel_error{suffix}"] = float(
                np.max(np.abs(np.array(products) / target - 1))
            )
    m["offdiag_ratio_max"] = max(
        (max(o["offdiag_kq"], o["offdiag_pv"]) for _, o in main), default=nan
    )
    energy = [o for _, o in main if "descent_mse" in o]
    m["energy_step_max_abs_diff"] = max(
        (o["energy_step_max_abs_diff"] for o in energy), default=nan
    )
    m["trained_vs_one_step_rel_max"] = max(
        (o["trained_vs_one_step_rel"] for o in energy), default=nan
    )
    m["energy_cells"] = float(len(energy))
    m["energy_cells_reflected"] = float(sum(o["reflected"] for o in energy))
    m["further_steps_min_ratio"] = min(
        (min(o["descent_mse"][2:]) / o["descent_mse"][1] for o in energy), default=nan
    )
    figures = {}
    if main:
        figures["loss_curves"] = _fig_losses(config, main)
        figures["weights"] = _fig_weights(main)
    if energy:
        figures["energy_descent"] = _fig_descent(main)
    return Summary(m, figures)


def _models(main) -> list[tuple[str, str]]:
    present = {(c["task"], c["model"]) for c, _ in main}
    return [pair for pair in MAIN if pair in present]


def _fig_losses(config: Config, main) -> Figure:
    models = _models(main)
    fig = Figure(figsize=(3.3 * len(models), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(models)))
    for ax, (task, kind) in zip(axes, models, strict=True):
        outs = [o for c, o in main if c["task"] == task and c["model"] == kind]
        if not outs:
            continue
        test = np.mean([o["test_loss"] for o in outs], axis=0)
        train = np.mean([o["train_loss"] for o in outs], axis=0)
        ax.plot(test, label="test", color="C0")
        ax.plot(train, label="train", color="C0", ls="--", lw=0.8)
        for name, label, color in (
            ("bayes_mse", "Bayes", "k"),
            ("query_mse", "x~ (no denoising)", "C3"),
            ("zero_mse", "0", "C2"),
        ):
            ax.axhline(np.mean([o[name] for o in outs]), color=color, ls=":", label=label)
        ax.set_yscale("log")
        ax.set_title(f"{task} task, {kind} attention", fontsize=9)
        ax.set_xlabel("epoch")
    axes[0].set_ylabel(f"MSE per coordinate (mean of {config.seeds} seeds)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_weights(main) -> Figure:
    models = _models(main)
    fig = Figure(figsize=(3 * len(models), 5.6))
    axes = fig.subplots(2, len(models), squeeze=False)
    for j, (task, kind) in enumerate(models):
        out = next((o for c, o in main if (c["task"], c["model"]) == (task, kind)), None)
        if out is None:
            continue
        for i, name in enumerate(("W_KQ", "W_PV")):
            W = np.array(out[name])
            lim = np.max(np.abs(W))
            im = axes[i, j].imshow(W, cmap="RdBu_r", vmin=-lim, vmax=lim)
            axes[i, j].set_title(f"{name}, {task} / {kind}", fontsize=9)
            axes[i, j].set_xticks([])
            axes[i, j].set_yticks([])
            fig.colorbar(im, ax=axes[i, j], fraction=0.046)
    fig.tight_layout()
    return fig


def _fig_descent(main) -> Figure:
    fig = Figure(figsize=(5, 3.6))
    ax = fig.subplots()
    for j, task in enumerate(TASKS):
        outs = [
            o
            for c, o in main
            if c["task"] == task and c["model"] == "softmax" and "descent_mse" in o
        ]
        if outs:
            curve = np.mean([np.array(o["descent_mse"]) / o["bayes_mse"] for o in outs], axis=0)
            ax.plot(range(len(curve)), curve, "o-", color=f"C{j}", label=task)
    ax.axhline(1.0, color="k", ls=":", lw=1, label="Bayes")
    ax.set_yscale("log")
    ax.set_xlabel("gradient steps on the energy from s(0) = x~ (step = alpha)")
    ax.set_ylabel("test MSE / Bayes MSE")
    ax.set_title("softmax attention = step 1", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
