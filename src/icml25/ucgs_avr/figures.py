"""Figures of the ucgs_avr reproduction: example puzzles with the solver's scores, accuracy by
format and by rule, training losses."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.ucgs_avr.rules import ALLOWED, ATTRIBUTES, RULES

CHANCE = {
    "matrix": 1 / 8,
    "held-out rule": 1 / 8,
    "odd-one-out": 1 / 9,
    "analogy": 1 / 8,
    "I-RAVEN sets": 1 / 8,
    "RAVEN sets": 1 / 8,
}


def _tile(images: np.ndarray, cols: int, pad: int = 2) -> np.ndarray:
    """``(n, h, w)`` uint8 -> one grid image with grey separators."""
    n, h, w = images.shape
    rows = -(-n // cols)
    out = np.full((rows * (h + pad) + pad, cols * (w + pad) + pad), 120, dtype=np.uint8)
    for k, img in enumerate(images):
        r, c = divmod(k, cols)
        out[pad + r * (h + pad) : pad + r * (h + pad) + h, pad + c * (w + pad) :][:, :w] = img
    return out


def _scored(ax, images, scores, answer, cols, title, best):
    h = images.shape[1] + 2
    ax.imshow(_tile(images, cols), cmap="gray", vmin=0, vmax=255)
    for k, s in enumerate(scores):
        r, c = divmod(k, cols)
        colour = "green" if k == answer else "black"
        mark = "*" if k == best else ""
        ax.text(
            c * h + h / 2,
            (r + 1) * h + 1.5,
            f"{s:.1f}{mark}",
            ha="center",
            va="top",
            fontsize=6,
            color=colour,
        )
    ax.set_title(title, fontsize=8)
    ax.axis("off")


def fig_examples(ex: dict) -> Figure:
    n = len(ex["matrix_answer"])
    fig = Figure(figsize=(11, 2.6 * n))
    axes = fig.subplots(n, 5, gridspec_kw={"width_ratios": [3, 4, 3, 3, 4]}, squeeze=False)
    for i in range(n):
        blank = np.full_like(ex["matrix_panels"][i, 0], 255)
        grid = np.concatenate([ex["matrix_panels"][i, :8], blank[None]])
        axes[i, 0].imshow(_tile(grid, 3), cmap="gray", vmin=0, vmax=255)
        axes[i, 0].set_title("matrix (? = last panel)", fontsize=8)
        axes[i, 0].axis("off")
        s = ex["matrix_scores"][i]
        _scored(
            axes[i, 1],
            ex["matrix_candidates"][i],
            s,
            ex["matrix_answer"][i],
            4,
            "candidates: log p(answer | context)",
            int(np.argmax(s)),
        )
        s = ex["odd_scores"][i]
        _scored(
            axes[i, 2],
            ex["odd_panels"][i],
            s,
            ex["odd_answer"][i],
            3,
            "odd-one-out: lowest wins",
            int(np.argmin(s)),
        )
        abc = np.concatenate([ex["analogy_panels"][i], blank[None]])
        axes[i, 3].imshow(_tile(abc, 2), cmap="gray", vmin=0, vmax=255)
        axes[i, 3].set_title("analogy A : B :: C : ?", fontsize=8)
        axes[i, 3].axis("off")
        s = ex["analogy_scores"][i]
        _scored(
            axes[i, 4],
            ex["analogy_candidates"][i],
            s,
            ex["analogy_answer"][i],
            4,
            "analogy candidates",
            int(np.argmax(s)),
        )
    fig.tight_layout()
    return fig


def fig_accuracy_by_format(acc: dict) -> Figure:
    keys = list(acc)
    fig = Figure(figsize=(9, 3.8))
    ax = fig.subplots()
    colours = {"generative": "C0", "discriminative": "C1", "answer-only": "C2"}
    for k, (model, fmt) in enumerate(keys):
        values = acc[(model, fmt)]
        ax.bar(k, np.mean(values), color=colours[model], label=model)
        ax.plot([k] * len(values), values, "k_", markersize=10)
        ax.plot([k - 0.4, k + 0.4], [CHANCE[fmt]] * 2, "k--", linewidth=1)
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=False))
    ax.legend(unique.values(), unique.keys(), fontsize=8)
    ax.set_xticks(range(len(keys)), [f"{m}\n{f}" for m, f in keys], fontsize=7)
    ax.set_ylabel("accuracy")
    ax.set_ylim(0, 1)
    fig.tight_layout()
    return fig


def _by_rule(outs: list[dict], correct_key: str, rules_key: str) -> np.ndarray:
    correct = np.concatenate([o[correct_key] for o in outs])  # (n,)
    rules = np.concatenate([o[rules_key] for o in outs])  # (n, 5)
    table = np.full((len(ATTRIBUTES), len(RULES)), np.nan)
    for a in range(len(ATTRIBUTES)):
        for r in range(len(RULES)):
            hit = rules[:, a] == r
            if hit.any():
                table[a, r] = correct[hit].mean()
    return table


def fig_accuracy_by_rule(gens: list[dict], discs: list[dict]) -> Figure:
    fig = Figure(figsize=(10, 3.4))
    axes = fig.subplots(1, 2)
    for ax, outs, name in ((axes[0], gens, "generative"), (axes[1], discs, "discriminative")):
        table = _by_rule(outs, "correct_matrix", "rules_matrix")
        novel = _by_rule(outs, "correct_novel", "rules_novel")
        held = ~np.isfinite(table) & np.isfinite(novel)
        table[held] = novel[held]
        ax.imshow(table, vmin=0, vmax=1, cmap="viridis")
        for a in range(len(ATTRIBUTES)):
            for r in range(len(RULES)):
                if np.isfinite(table[a, r]):
                    text = f"{table[a, r]:.2f}" + (" (held out)" if held[a, r] else "")
                    ax.text(r, a, text, ha="center", va="center", fontsize=7, color="w")
                elif RULES[r] not in ALLOWED[ATTRIBUTES[a]]:
                    ax.text(r, a, "n/a", ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(RULES)), RULES, fontsize=7)
        ax.set_yticks(range(len(ATTRIBUTES)), ATTRIBUTES, fontsize=7)
        ax.set_title(f"{name} solver: matrix accuracy by rule", fontsize=9)
    fig.tight_layout()
    return fig


def fig_losses(gens: list[dict], discs: list[dict]) -> Figure:
    fig = Figure(figsize=(9, 3.2))
    axes = fig.subplots(1, 2)
    kernel = np.ones(100) / 100
    for ax, outs, name in ((axes[0], gens, "generative"), (axes[1], discs, "discriminative")):
        for i, o in enumerate(outs):
            losses = o["losses"]
            smooth = np.convolve(losses, kernel[: len(losses)], mode="valid")
            ax.plot(smooth, label=f"seed {i}")
        ax.set_xlabel("step")
        ax.set_ylabel("training cross-entropy")
        ax.set_title(name, fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
