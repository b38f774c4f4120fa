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


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    outs = [o for _, o in results]
    m: dict[str, float] = {}
    unseen, seen, erank = {}, {}, {}
    for g in config.train_generators:
        others = [h for h in GENERATORS if h != g]
        for method in METHODS:
            key = f"{g}/{method}"
            for h in GENERATORS:
                m[f"auc_train_{g}_{method}_test_{h}"] = _mean(outs, "runs", key, "auc", h)
            unseen[key] = float(np.mean([m[f"auc_train_{g}_{method}_test_{h}"] for h in others]))
            seen[key] = m[f"auc_train_{g}_{method}_test_{g}"]
            erank[key] = _mean(outs, "runs", key, "erank")
            m[f"unseen_auc_train_{g}_{method}"] = unseen[key]
            m[f"erank_train_{g}_{method}"] = erank[key]
            m[f"erank_entropy_train_{g}_{method}"] = _mean(outs, "runs", key, "erank_entropy")
            m[f"final_loss_train_{g}_{method}"] = _mean(outs, "runs", key, "final_loss")
        best = max(unseen[f"{g}/full"], unseen[f"{g}/lora"])
        m[f"a_margin_train_{g}"] = unseen[f"{g}/effort"] - best
        m[f"b_erank_gap_train_{g}"] = erank[f"{g}/effort"] - erank[f"{g}/full"]
        for c, o in results:
            runs, k = o["runs"], c["seed"]
            effort = np.mean([runs[f"{g}/effort"]["auc"][h] for h in others])
            for rival in ("full", "lora"):
                m[f"a_margin[vs={g}/{rival},seed={k}]"] = float(
                    effort - np.mean([runs[f"{g}/{rival}"]["auc"][h] for h in others])
                )
            m[f"b_erank_gap[train={g},seed={k}]"] = float(
                runs[f"{g}/effort"]["erank"] - runs[f"{g}/full"]["erank"]
            )
    gs = config.train_generators
    m["a_min_margin"] = min(m[f"a_margin_train_{g}"] for g in gs)
    m["b_min_erank_gap"] = min(m[f"b_erank_gap_train_{g}"] for g in gs)
    for method in METHODS:
        m[f"unseen_auc_mean_{method}"] = float(np.mean([unseen[f"{g}/{method}"] for g in gs]))
        m[f"seen_auc_mean_{method}"] = float(np.mean([seen[f"{g}/{method}"] for g in gs]))
        m[f"erank_mean_{method}"] = float(np.mean([erank[f"{g}/{method}"] for g in gs]))
        m[f"seen_minus_unseen_auc_{method}"] = (
            m[f"seen_auc_mean_{method}"] - m[f"unseen_auc_mean_{method}"]
        )
        m[f"loss_change_last_quarter_{method}"] = float(
            np.mean([_mean(outs, "runs", f"{g}/{method}", "loss_change_last_quarter") for g in gs])
        )
        m[f"trainable_{method}"] = float(outs[0]["runs"][f"{gs[0]}/{method}"]["trainable"])
    m["pretrained_erank"] = _mean(outs, "pretrained_erank")
    m["pretrained_erank_entropy"] = _mean(outs, "pretrained_erank_entropy")
    m["pretrain_test_accuracy"] = outs[0]["pretrain_test_accuracy"]
    m["ddpm_final_loss"] = outs[0]["ddpm_final_loss"]
    m["vae_reconstruction_mse"] = outs[0]["vae_reconstruction_mse"]
    m["c_init_max_abs_diff"] = max(o["init_max_abs_diff"] for o in outs)
    m["c_frozen_max_change"] = max(
        o["runs"][f"{g}/effort"]["frozen_max_change"] for o in outs for g in gs
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
        "training_curves": "Fine-tuning loss per step (mean over seeds) and the DDPM's loss.",
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


def _fig_curves(config: Config, outs: list[dict]) -> Figure:
    gs = config.train_generators
    fig = Figure(figsize=(4 * (len(gs) + 1), 3.2))
    axes = fig.subplots(1, len(gs) + 1)
    for ax, g in zip(axes, gs, strict=False):
        for method in METHODS:
            curve = np.mean([o["runs"][f"{g}/{method}"]["losses"] for o in outs], axis=0)
            ax.plot(curve, color=COLORS[method], label=method, lw=0.8)
        ax.set_title(f"fine-tuning on {g}")
        ax.set_xlabel("step")
    axes[0].set_ylabel("BCE loss")
    axes[0].legend(fontsize=8)
    axes[-1].plot(outs[0]["ddpm_losses"], lw=0.5)
    axes[-1].set_title("DDPM training loss")
    axes[-1].set_xlabel("step")
    axes[-1].set_yscale("log")
    fig.tight_layout()
    return fig
