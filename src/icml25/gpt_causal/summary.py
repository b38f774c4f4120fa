"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score

from icml25.gpt_causal.claims import B_FOLDS
from icml25.gpt_causal.othello import SIZE
from icml25.gpt_causal.reproduce import (
    Config,
)
from icml25.lab.reproduction import Summary


def _auc(labels: np.ndarray, score: np.ndarray) -> float:
    if labels.all() or not labels.any():
        return float("nan")
    return float(roc_auc_score(labels, score))


def _quintile_rates(confidence: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Legal-move rate per confidence quintile, lowest first: (5,)."""
    rank = np.argsort(np.argsort(confidence, kind="stable"), kind="stable")
    q = rank * 5 // len(confidence)  # (n,) in 0..4, equal-count bins
    return np.array([legal[q == k].mean() for k in range(5)])


def _spearman(confidence: np.ndarray, legal: np.ndarray) -> float:
    """Spearman correlation of confidence with the 0/1 legal outcome, over prefixes; NaN when
    every outcome is the same."""
    if legal.all() or not legal.any():
        return float("nan")
    return float(spearmanr(confidence, legal).statistic)


def _within_length_auc(part: dict, score: np.ndarray, bins: tuple[int, ...]) -> float:
    """AUC of ``score`` inside prefix-length bins, averaged with the bins' sizes as weights:
    the association that prefix length (which drives both) cannot explain."""
    total, weight = 0.0, 0
    for lo, hi in zip(bins[:-1], bins[1:], strict=True):
        sel = (part["lengths"] >= lo) & (part["lengths"] < hi)
        auc = _auc(part["legal"][sel], score[sel])
        if np.isfinite(auc):
            total, weight = total + auc * sel.sum(), weight + sel.sum()
    return total / weight if weight else float("nan")


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    measurements: dict[str, float] = {}
    figures: dict[str, Figure] = {}
    by_run = {cell["run"]: out for cell, out in results}
    for run, out in by_run.items():
        prefix = "" if run == "main" else f"{run}_"
        _measure(config, out, measurements, prefix)
    main = by_run["main"]
    figures["legal_rate_by_confidence_quintile"] = _fig_quintiles(main)
    figures["training_curves"] = _fig_curves(main)
    if main["examples"]:
        figures["example_structures"] = _fig_structures(main["examples"])
    return Summary(measurements, figures)


def _measure(config: Config, out: dict, m: dict[str, float], prefix: str) -> None:
    ind, ood, curves = out["id"], out["ood"], out["curves"]
    m[f"{prefix}a_id_legal_rate"] = float(ind["legal"].mean())
    m[f"{prefix}ood_legal_rate"] = float(ood["legal"].mean())
    rates = _quintile_rates(ood["confidence"], ood["legal"])
    for k, rate in enumerate(rates):
        m[f"{prefix}ood_legal_rate_q{k + 1}"] = float(rate)
    m[f"{prefix}b_spearman_quintiles"] = float(spearmanr(np.arange(5), rates).statistic)
    fold = np.arange(len(ood["legal"])) % B_FOLDS  # (n,) disjoint folds of independent games
    rho = [_spearman(ood["confidence"][fold == f], ood["legal"][fold == f]) for f in range(B_FOLDS)]
    m.update({f"{prefix}b_spearman[fold={f}]": r for f, r in enumerate(rho)})
    m[f"{prefix}b_spearman"] = float(np.mean(rho))
    m[f"{prefix}b_gap"] = float(rates[-1] - rates[0])
    scores = {
        "confidence": ood["confidence"],
        "top_probability": ood["top_probability"],
        # low entropy = focused attention; the sign is fixed before looking: higher score,
        # more confident
        "attention_entropy": -ood["attention_entropy"],
    }
    for name, score in scores.items():
        m[f"{prefix}auc_{name}"] = _auc(ood["legal"], score)
        m[f"{prefix}auc_{name}_within_length"] = _within_length_auc(ood, score, config.length_bins)
    m[f"{prefix}c_auc_gap"] = m[f"{prefix}auc_confidence"] - m[f"{prefix}auc_top_probability"]
    control = _quintile_rates(ood["control_confidence"], ood["legal"])
    m[f"{prefix}control_untrained_b_gap"] = float(control[-1] - control[0])
    m[f"{prefix}control_untrained_auc_confidence"] = _auc(ood["legal"], ood["control_confidence"])
    m[f"{prefix}auc_id_confidence"] = _auc(ind["legal"], ind["confidence"])
    m[f"{prefix}mean_confidence_id"] = float(ind["confidence"].mean())
    m[f"{prefix}mean_confidence_ood"] = float(ood["confidence"].mean())
    m[f"{prefix}mean_edges_ood"] = float(ood["edges"].mean())
    m[f"{prefix}mean_tests_ood"] = float(ood["tests"].mean())
    m[f"{prefix}corr_confidence_length_ood"] = float(
        spearmanr(ood["confidence"], ood["lengths"]).statistic
    )
    val = curves["val_loss"]
    last = val[-max(2, len(val) // 4) :]
    m[f"{prefix}final_train_loss"] = float(curves["train_loss"][-1])
    m[f"{prefix}final_val_loss"] = float(val[-1])
    m[f"{prefix}val_loss_rel_change_last_quarter"] = float(abs(last[0] - last[-1]) / last[-1])
    if config.timing:
        m[f"{prefix}train_seconds"] = float(out["train_seconds"])
        m[f"{prefix}discovery_ms_per_prefix"] = (
            1000
            * (ind["discovery_seconds"] + ood["discovery_seconds"])
            / (len(ind["legal"]) + len(ood["legal"]))
        )


def _fig_quintiles(out: dict) -> Figure:
    ood = out["ood"]
    rates = _quintile_rates(ood["confidence"], ood["legal"])
    fig = Figure(figsize=(5, 3.5))
    ax = fig.subplots()
    ax.bar(np.arange(1, 6), rates, color="tab:blue")
    ax.axhline(ood["legal"].mean(), color="k", ls="--", lw=1, label="all OOD prefixes")
    ax.set_xlabel("structural confidence quintile (stand-in score; 1 = lowest)")
    ax.set_ylabel("legal-move rate")
    ax.set_ylim(max(0.0, rates.min() - 0.1), 1.0)
    ax.set_title("OOD prefixes (random legal games)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig


def _fig_curves(out: dict) -> Figure:
    c = out["curves"]
    fig = Figure(figsize=(5, 3.5))
    ax = fig.subplots()
    ax.plot(c["step"], c["train_loss"], label="train")
    ax.plot(c["step"], c["val_loss"], label="validation")
    ax.set_xlabel("step")
    ax.set_ylabel("next-move cross-entropy")
    ax.set_title("GPT training on greedy-with-noise games")
    ax.legend()
    fig.tight_layout()
    return fig


def _fig_structures(examples: dict) -> Figure:
    fig = Figure(figsize=(4.2 * len(examples), 4.4))
    axes = np.atleast_1d(fig.subplots(1, len(examples)))
    for ax, (name, ex) in zip(axes, examples.items(), strict=True):
        moves, adj = np.asarray(ex["moves"]), np.asarray(ex["adjacency"])
        rc = np.stack([moves // SIZE, moves % SIZE], axis=1)  # (t, 2) row, column
        for k in range(SIZE + 1):
            ax.plot([k - 0.5, k - 0.5], [-0.5, SIZE - 0.5], color="0.8", lw=0.8)
            ax.plot([-0.5, SIZE - 0.5], [k - 0.5, k - 0.5], color="0.8", lw=0.8)
        for i, j in zip(*np.nonzero(adj), strict=True):
            (ri, ci), (rj, cj) = rc[i], rc[j]
            ax.annotate(
                "",
                xy=(cj, rj),
                xytext=(ci, ri),
                arrowprops={
                    "arrowstyle": "-|>",
                    "color": "tab:red",
                    "alpha": 0.7,
                    "lw": 1,
                    "shrinkA": 9,
                    "shrinkB": 9,
                },
            )
        for t, (r, c) in enumerate(rc):
            ax.text(
                c,
                r,
                str(t + 1),
                ha="center",
                va="center",
                fontsize=9,
                bbox={"boxstyle": "circle", "fc": "white", "ec": "k", "lw": 0.6},
            )
        ax.set_xlim(-0.5, SIZE - 0.5)
        ax.set_ylim(SIZE - 0.5, -0.5)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(f"{name.replace('_', ', ')}: confidence {ex['confidence']:.2f}", fontsize=9)
    fig.suptitle("Structures learned from attention over a prefix's moves (move t on its square)")
    fig.tight_layout()
    return fig
