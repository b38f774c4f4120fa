"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.disco.data import FRAME_TYPES, MODEL_KEYS
from icml25.disco.reproduce import (
    SCORE_KINDS,
    Config,
)
from icml25.lab.reproduction import Summary

STRONGEST = "gpt-4o-2024-08-06"  # the paper's strongest model, declared before the run


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    measurements: dict[str, float] = {}
    per_model = {c["model"]: o for c, o in results if c["part"] == "model"}
    differences, floor_excess = [], []
    for model, out in per_model.items():
        key = MODEL_KEYS[model]
        labels = out["labels"]
        for frame_type in config.frame_types:
            part = out[frame_type]
            tag = f"{key}_{frame_type}"
            for kind, auc in zip(SCORE_KINDS, part["auc"], strict=True):
                measurements[f"auc_{kind}_{tag}"] = float(auc)
            image, caption = part["scores"][0], part["scores"][1]
            for name, s in (("image", image), ("caption", caption)):
                measurements[f"mean_score_{name}_suspect_{tag}"] = float(s[labels == 1].mean())
                measurements[f"mean_score_{name}_clean_{tag}"] = float(s[labels == 0].mean())
                # separation margin: lowest suspect score minus highest clean score
                margin = s[labels == 1].min() - s[labels == 0].max()
                measurements[f"margin_{name}_{tag}"] = float(margin)
            boot = part["bootstrap"]  # (B, 4)
            low, high = np.percentile(boot[:, 0], [2.5, 97.5])
            measurements[f"auc_image_ci_low_{tag}"] = float(low)
            measurements[f"auc_image_ci_high_{tag}"] = float(high)
            measurements[f"auc_caption_bootstrap_mean_{tag}"] = float(boot[:, 1].mean())
            gap = boot[:, 0] - boot[:, 1]  # paired
            measurements[f"image_minus_caption_bootstrap_mean_{tag}"] = float(gap.mean())
            measurements[f"image_above_caption_fraction_{tag}"] = float((gap > 0).mean())
            measurements[f"caption_above_image_fraction_{tag}"] = float((gap < 0).mean())
            measurements[f"image_minus_caption_auc_{tag}"] = float(part["auc"][0] - part["auc"][1])
            measurements[f"floor_rules_differ_frames_{tag}"] = float(part["floor_rules_differ"])
            measurements[f"suspect_films_image_above_caption_{tag}"] = float(
                (image[labels == 1] > caption[labels == 1]).sum()
            )
            differences.append(part["auc"][0] - part["auc"][1])
            floor_excess.append(float((part["scores"][2] - image).max()))
    if STRONGEST in per_model and all(
        f"auc_image_{MODEL_KEYS[STRONGEST]}_{f}" in measurements for f in FRAME_TYPES
    ):
        measurements["a_gpt4o_image_auc_min_frame_type"] = min(
            measurements[f"auc_image_{MODEL_KEYS[STRONGEST]}_{f}"] for f in FRAME_TYPES
        )
    if len(per_model) == len(MODEL_KEYS) and set(config.frame_types) == set(FRAME_TYPES):
        measurements["b_min_image_minus_caption_auc"] = float(min(differences))
    if floor_excess:
        measurements["check_max_floor_minus_image"] = max(floor_excess)
    probes = [o for c, o in results if c["part"] == "null_probe"]
    for out in probes:
        measurements["llm_null_hit_rate"] = out["null_hit_rate"]
        measurements["llm_null_films_named"] = float(out["films_named"])
        measurements["llm_malformed_replies"] = float(out["malformed"])
        measurements["llm_empty_replies"] = float(out["empty"])
    figures, captions = {}, {}
    if per_model:
        figures["auc_by_model"] = _fig_aucs(config, per_model)
        captions["auc_by_model"] = (
            "Detection AUC, suspect against clean films, from the answers the paper released "
            "(offline; no model queried): image answers (bars with 95% bootstrap intervals), "
            "caption-only answers and the floor variant, per model and frame type."
        )
    if STRONGEST in per_model:
        figures["film_scores_gpt4o"] = _fig_scores(config, per_model[STRONGEST])
        captions["film_scores_gpt4o"] = (
            "GPT-4o, per film: fraction of frames named from the image against from the caption "
            "alone (released answers, offline); suspect films (before 2023-09-01) and clean ones."
        )
    return Summary(measurements, figures, captions)


def _fig_aucs(config: Config, per_model: dict) -> Figure:
    fig = Figure(figsize=(9, 3.6))
    axes = np.atleast_1d(fig.subplots(1, len(config.frame_types), sharey=True))
    width = 0.26
    for ax, frame_type in zip(axes, config.frame_types, strict=True):
        x = np.arange(len(per_model))
        for j, kind in enumerate(("image", "caption", "floor")):
            aucs = [per_model[m][frame_type]["auc"][SCORE_KINDS.index(kind)] for m in per_model]
            ax.bar(x + (j - 1) * width, aucs, width, color=f"C{j}", label=kind)
        boot = [per_model[m][frame_type]["bootstrap"][:, 0] for m in per_model]
        lows = [np.percentile(b, 2.5) for b in boot]
        highs = [np.percentile(b, 97.5) for b in boot]
        centre = [per_model[m][frame_type]["auc"][0] for m in per_model]
        ax.errorbar(
            x - width,
            centre,
            yerr=[np.subtract(centre, lows), np.subtract(highs, centre)],
            fmt="none",
            color="k",
            linewidth=1,
        )
        ax.axhline(0.9, color="grey", linestyle=":", linewidth=1)
        ax.set_xticks(x, [MODEL_KEYS[m] for m in per_model], fontsize=7)
        ax.set_ylim(0.5, 1.01)
        ax.set_title(f"{frame_type} frames", fontsize=9)
    axes[0].set_ylabel("AUC, suspect vs clean")
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle("Answers released with the paper (offline, no model queried)", fontsize=9)
    fig.tight_layout()
    return fig


def _fig_scores(config: Config, out: dict) -> Figure:
    fig = Figure(figsize=(8, 3.8))
    axes = np.atleast_1d(fig.subplots(1, len(config.frame_types), sharey=True))
    labels = out["labels"]
    for ax, frame_type in zip(axes, config.frame_types, strict=True):
        image, caption = out[frame_type]["scores"][0], out[frame_type]["scores"][1]
        for lab, colour, name in ((1, "C3", "suspect"), (0, "C0", "clean")):
            ax.scatter(
                caption[labels == lab],
                image[labels == lab],
                s=12,
                color=colour,
                label=f"{name} ({(labels == lab).sum()})",
            )
        ax.plot([0, 1], [0, 1], "k--", linewidth=0.8)
        ax.set_xlabel("fraction named from the caption")
        ax.set_title(f"{frame_type} frames", fontsize=9)
    axes[0].set_ylabel("fraction named from the image")
    axes[0].legend(fontsize=7)
    fig.suptitle("GPT-4o, answers released with the paper (offline)", fontsize=9)
    fig.tight_layout()
    return fig
