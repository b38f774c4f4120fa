"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.effort_aigi.data import GENERATORS
from icml25.effort_aigi.detect import (
    METHODS,
)
from icml25.effort_aigi.reproduce import (
    Config,
)
from icml25.lab.reproduction import Summary


def _mean(outs: list[dict], *path) -> float:
    """Mean over the cells of ``out[path[0]][path[1]]...``."""
    values = []
    for o in outs:
        for p in path:
            o = o[p]
        values.append(o)
    return float(np.mean(values))


def _per_run(config: Config, outs: list[dict], m: dict, prefix: str = "") -> dict:
    """The per-(generator, method) means over ``outs`` into ``m`` (keys prefixed by
    ``prefix``); returns ``{"g/method": unseen AUC}``."""
    unseen = {}
    for g in config.train_generators:
        others = [h for h in GENERATORS if h != g]
        for method in METHODS:
            key, tag = f"{g}/{method}", f"train_{g}_{method}"
            for h in GENERATORS:
                m[f"{prefix}auc_{tag}_test_{h}"] = _mean(outs, "runs", key, "auc", h)
            unseen[key] = float(np.mean([m[f"{prefix}auc_{tag}_test_{h}"] for h in others]))
            m[f"{prefix}unseen_auc_{tag}"] = unseen[key]
            for name in ("entropy_erank", "pca90_rank", "final_loss", "steps", "loss_rel_change"):
                m[f"{prefix}{name}_{tag}"] = _mean(outs, "runs", key, name)
            m[f"{prefix}converged_share_{tag}"] = _mean(outs, "runs", key, "converged")
    return unseen


def _min_margin(config: Config, m: dict, unseen: dict, prefix: str = "") -> None:
    """(a)'s and (b)'s metrics from the per-(generator, method) means of ``_per_run``."""
    gs = config.train_generators
    for g in gs:
        m[f"{prefix}a_margin_train_{g}"] = unseen[f"{g}/effort"] - max(
            unseen[f"{g}/full"], unseen[f"{g}/lora"]
        )
        for name in ("entropy_erank", "pca90_rank"):
            m[f"{prefix}b_{name}_gap_train_{g}"] = (
                m[f"{prefix}{name}_train_{g}_effort"] - m[f"{prefix}{name}_train_{g}_full"]
            )
    m[f"{prefix}a_min_margin"] = min(m[f"{prefix}a_margin_train_{g}"] for g in gs)
    for name in ("entropy_erank", "pca90_rank"):
        m[f"{prefix}b_min_{name}_gap"] = min(m[f"{prefix}b_{name}_gap_train_{g}"] for g in gs)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    main = [(c, o) for c, o in results if "ft_lr" not in c]  # the seeds, at ft_lr
    probe = [o for c, o in results if "ft_lr" in c]  # the probe cell, at probe_lr
    outs = [o for _, o in main]
    gs = config.train_generators
    m: dict[str, float] = {}
    unseen = _per_run(config, outs, m)
    _min_margin(config, m, unseen)
    for c, o in main:
        runs, k = o["runs"], c["seed"]
        for g in gs:
            others = [h for h in GENERATORS if h != g]
            effort = np.mean([runs[f"{g}/effort"]["auc"][h] for h in others])
            for rival in ("full", "lora"):
                m[f"a_margin[vs={g}/{rival},seed={k}]"] = float(
                    effort - np.mean([runs[f"{g}/{rival}"]["auc"][h] for h in others])
                )
            for name in ("entropy_erank", "pca90_rank"):
                m[f"b_{name}_gap[train={g},seed={k}]"] = float(
                    runs[f"{g}/effort"][name] - runs[f"{g}/full"][name]
                )
            for method in METHODS:
                run = runs[f"{g}/{method}"]
                m[f"ft_steps[train={g},method={method},seed={k}]"] = float(run["steps"])
                m[f"ft_converged[train={g},method={method},seed={k}]"] = float(run["converged"])
    for method in METHODS:
        per_g = {
            name: [m[f"{name}_train_{g}_{method}"] for g in gs]
            for name in ("entropy_erank", "pca90_rank", "steps", "converged_share", "final_loss")
        }
        m[f"unseen_auc_mean_{method}"] = float(np.mean([unseen[f"{g}/{method}"] for g in gs]))
        m[f"seen_auc_mean_{method}"] = float(
            np.mean([m[f"auc_train_{g}_{method}_test_{g}"] for g in gs])
        )
        m[f"seen_minus_unseen_auc_{method}"] = (
            m[f"seen_auc_mean_{method}"] - m[f"unseen_auc_mean_{method}"]
        )
        for name, values in per_g.items():
            m[f"{name}_mean_{method}"] = float(np.mean(values))
        m[f"trainable_{method}"] = float(outs[0]["runs"][f"{gs[0]}/{method}"]["trainable"])

    # convergence: the rule's last-window relative fall of the adapters, and who met the rule
    every_run = [o["runs"][f"{g}/{method}"] for o in outs for g in gs for method in METHODS]
    m["conv_worst_rel_change_adapters"] = float(
        max(
            o["runs"][f"{g}/{method}"]["loss_rel_change"]
            for o in outs
            for g in gs
            for method in ("lora", "effort")
        )
    )
    m["conv_worst_rel_change_all"] = float(max(r["loss_rel_change"] for r in every_run))
    m["conv_share_met"] = float(np.mean([r["converged"] for r in every_run]))
    m["conv_max_steps_used"] = float(max(r["steps"] for r in every_run))

    m["pretrained_entropy_erank"] = _mean(outs, "pretrained_entropy_erank")
    m["pretrained_pca90_rank"] = _mean(outs, "pretrained_pca90_rank")
    m["pretrain_test_accuracy"] = outs[0]["pretrain_test_accuracy"]
    m["ddpm_final_loss"] = outs[0]["ddpm_final_loss"]
    m["vae_reconstruction_mse"] = outs[0]["vae_reconstruction_mse"]
    m["c_init_max_abs_diff"] = max(o["init_max_abs_diff"] for o in outs)
    m["c_frozen_max_change"] = max(
        o["runs"][f"{g}/effort"]["frozen_max_change"] for o in outs for g in gs
    )

    # the probe at probe_lr (one seed): does full fine-tuning collapse, and what of (a) and (b)
    p = "lr_probe_"
    probe_unseen = _per_run(config, probe, m, p)
    _min_margin(config, m, probe_unseen, p)
    m[f"{p}full_entropy_erank_ratio"] = float(
        np.mean([m[f"{p}entropy_erank_train_{g}_full"] for g in gs]) / m["pretrained_entropy_erank"]
    )
    m[f"{p}full_pca90_rank_mean"] = float(np.mean([m[f"{p}pca90_rank_train_{g}_full"] for g in gs]))
    probe_runs = [o["runs"][f"{g}/{method}"] for o in probe for g in gs for method in METHODS]
    m[f"{p}conv_share_met"] = float(np.mean([r["converged"] for r in probe_runs]))
    for method in METHODS:
        m[f"{p}unseen_auc_mean_{method}"] = float(
            np.mean([probe_unseen[f"{g}/{method}"] for g in gs])
        )

    if config.timing:
        m["ddpm_train_seconds"] = outs[0]["ddpm_train_seconds"]
        m["pretrain_seconds"] = outs[0]["pretrain_seconds"]
        for method in METHODS:
            m[f"finetune_seconds_{method}"] = float(
                np.mean([_mean(outs, "runs", f"{g}/{method}", "seconds") for g in gs])
            )
    figures = {
        "auc_unseen": _fig_auc(config, m),
        "feature_spectra": _fig_spectra(config, outs),
        "samples": _fig_samples(outs[0]),
        "training_curves": _fig_curves(config, outs),
    }
    captions = {
        "auc_unseen": "Test AUC of each detector against each generator (mean over seeds); "
        "the hatched bar is the generator it was trained on.",
        "feature_spectra": "Explained-variance spectrum of the test-set features, before "
        "(pre-trained backbone) and after fine-tuning, mean over seeds.",
        "samples": "Real digits and quantised fakes of the three generators.",
        "training_curves": "Fine-tuning loss per step, one line per seed, smoothed over the "
        "convergence rule's window; a dot where the rule stopped the run, a cross where the "
        "step cap did; and the DDPM's loss.",
    }
    return Summary(m, figures, captions)


COLORS = {"full": "tab:red", "lora": "tab:orange", "effort": "tab:blue"}


def _fig_auc(config: Config, m: dict) -> Figure:
    gs = config.train_generators
    fig = Figure(figsize=(4 * len(gs), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(gs), sharey=True))
    width = 0.27
    for ax, g in zip(axes, gs, strict=True):
        for j, method in enumerate(METHODS):
            for i, h in enumerate(GENERATORS):
                ax.bar(
                    i + (j - 1) * width,
                    m[f"auc_train_{g}_{method}_test_{h}"],
                    width,
                    color=COLORS[method],
                    hatch="//" if h == g else None,
                    label=method if i == 0 else None,
                )
        ax.set_xticks(range(len(GENERATORS)), GENERATORS)
        ax.set_title(f"trained on {g}")
        ax.set_ylim(0.4, 1.0)
        ax.axhline(0.5, color="k", lw=0.5)
    axes[0].set_ylabel("test AUC")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_spectra(config: Config, outs: list[dict]) -> Figure:
    gs = config.train_generators
    fig = Figure(figsize=(4 * len(gs), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(gs), sharey=True))
    before = np.mean([o["pretrained_spectrum"] for o in outs], axis=0)
    k = np.arange(1, len(before) + 1)
    for ax, g in zip(axes, gs, strict=True):
        ax.semilogy(k, before, "k--", label="pre-trained")
        for method in METHODS:
            spec = np.mean([o["runs"][f"{g}/{method}"]["spectrum"] for o in outs], axis=0)
            ax.semilogy(k, spec, color=COLORS[method], label=method)
        ax.set_title(f"trained on {g}")
        ax.set_xlabel("principal component")
        ax.set_ylim(1e-5, 1)
    axes[0].set_ylabel("explained variance ratio")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_samples(out: dict) -> Figure:
    rows = ["real", *GENERATORS]
    fig = Figure(figsize=(8, 4.4))
    axes = fig.subplots(len(rows), 8)
    for r, name in enumerate(rows):
        for c in range(8):
            axes[r, c].imshow(out["samples"][name][c], cmap="gray_r", vmin=-1, vmax=1)
            axes[r, c].set_xticks([])
            axes[r, c].set_yticks([])
        axes[r, 0].set_ylabel(name)
    return fig


def _smooth(x: np.ndarray, window: int) -> np.ndarray:
    """Trailing mean over ``window`` steps (fewer at the start): the rule's smoothed loss."""
    c = np.cumsum(np.r_[0.0, x])
    lo = np.maximum(np.arange(1, len(x) + 1) - window, 0)
    return (c[1:] - c[lo]) / (np.arange(1, len(x) + 1) - lo)


def _fig_curves(config: Config, outs: list[dict]) -> Figure:
    gs = config.train_generators
    fig = Figure(figsize=(4 * (len(gs) + 1), 3.2))
    axes = fig.subplots(1, len(gs) + 1)
    for ax, g in zip(axes, gs, strict=False):
        for method in METHODS:
            for i, o in enumerate(outs):
                run = o["runs"][f"{g}/{method}"]
                curve = _smooth(np.asarray(run["losses"]), config.ft_window)
                ax.plot(curve, color=COLORS[method], label=method if i == 0 else None, lw=0.8)
                ax.plot(
                    len(curve) - 1,
                    curve[-1],
                    "o" if run["converged"] else "x",
                    color=COLORS[method],
                    ms=4,
                )
        ax.set_title(f"fine-tuning on {g}")
        ax.set_xlabel("step")
    axes[0].set_ylabel(f"BCE loss (mean of the last {config.ft_window} steps)")
    axes[0].legend(fontsize=8)
    axes[-1].plot(outs[0]["ddpm_losses"], lw=0.5)
    axes[-1].set_title("DDPM training loss")
    axes[-1].set_xlabel("step")
    axes[-1].set_yscale("log")
    fig.tight_layout()
    return fig
