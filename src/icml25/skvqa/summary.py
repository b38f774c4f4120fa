"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.skvqa.reproduce import (
    Config,
)
from icml25.skvqa.stats import STATISTICS

FILTERS = ("answer_in_context", "needs_image", "dedup")


def precision_recall(removed: np.ndarray, defective: np.ndarray) -> tuple[float, float]:
    """Of what a filter removed, the share truly defective; of the defective, the share removed
    (NaN where there is nothing to divide by)."""
    hits = int((removed & defective).sum())
    precision = hits / removed.sum() if removed.sum() else float("nan")
    recall = hits / defective.sum() if defective.sum() else float("nan")
    return float(precision), float(recall)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    out = {cell["part"]: o for cell, o in results}
    m: dict[str, float] = {}
    rows = []
    for split in ("dev", "held_out"):
        for name in FILTERS:
            removed = out["filters"][f"{split}_{name}_removed"].astype(bool)
            defective = out["filters"][f"{split}_{name}_defective"].astype(bool)
            p, r = precision_recall(removed, defective)
            suffix = "" if split == "held_out" else "_dev"
            m[f"precision_{name}{suffix}"], m[f"recall_{name}{suffix}"] = p, r
            m[f"removed_{name}{suffix}"] = float(removed.sum())
            m[f"defective_{name}{suffix}"] = float(defective.sum())
            rows.append((split, name, p, r))
    why = out["explain"]
    for split in ("dev", "held_out"):
        suffix = "" if split == "held_out" else "_dev"
        for name in ("answer_stemmed", "image_or_scene"):
            p, r = precision_recall(
                why[f"{split}_{name}_removed"].astype(bool),
                why[f"{split}_{name}_defective"].astype(bool),
            )
            m[f"explain_precision_{name}{suffix}"], m[f"explain_recall_{name}{suffix}"] = p, r
        m[f"explain_min_cosine_duplicates{suffix}"] = float(why[f"{split}_cosine_same"].min())
        m[f"explain_max_cosine_different{suffix}"] = float(why[f"{split}_cosine_different"].max())
    m["explain_threshold_gap"] = min(
        m["explain_min_cosine_duplicates_dev"], m["explain_min_cosine_duplicates"]
    ) - max(m["explain_max_cosine_different_dev"], m["explain_max_cosine_different"])
    s = out["statistics"]
    for k in STATISTICS:
        m[f"varied_{k}"], m[f"templated_{k}"] = s[f"varied_{k}"], s[f"templated_{k}"]
        m[f"ratio_{k}"] = s[f"varied_{k}"] / s[f"templated_{k}"]
    pipe = out["pipeline"]
    for k in ("answer", "image", "duplicate"):
        m[f"pipeline_removed_{k}"] = float(pipe[f"removed_{k}"])
    for k, v in pipe["injected"].items():
        m[f"pipeline_injected_{k}"] = float(v)
    m["pipeline_kept_defects"] = float(pipe["kept_defects"])
    m["pipeline_n_before"], m["pipeline_n_after"] = float(pipe["n_before"]), float(pipe["n_after"])
    for k in STATISTICS:
        m[f"pipeline_before_{k}"], m[f"pipeline_after_{k}"] = (
            pipe[f"before_{k}"],
            pipe[f"after_{k}"],
        )
    if "model" in out:
        mod = out["model"]
        for k in (
            "generated",
            "unusable_replies",
            "kept",
            "removed_answer",
            "removed_image",
            "removed_duplicate",
        ):
            m[f"model_{k}"] = float(mod[k])
    figures = {"filters": _filters_figure(rows), "statistics": _statistics_figure(m)}
    captions = {
        "filters": "Precision and recall of each filter on the hand-labelled pairs (dev half: "
        "seen while building; held-out half: judged).",
        "statistics": "Diversity statistics of the scripted varied and templated sets "
        "(scripted generator, not a model), each relative to the varied set.",
    }
    return Summary(m, figures, captions)


def _filters_figure(rows) -> Figure:
    fig = Figure(figsize=(7, 3))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, split in zip(axes, ("dev", "held_out"), strict=True):
        mine = [r for r in rows if r[0] == split]
        x = np.arange(len(mine))
        ax.bar(x - 0.2, [np.nan_to_num(r[2]) for r in mine], 0.4, label="precision")
        ax.bar(x + 0.2, [np.nan_to_num(r[3]) for r in mine], 0.4, label="recall")
        ax.axhline(0.9, color="k", lw=0.8, ls="--")
        ax.set_xticks(x, [r[1].replace("_", "\n") for r in mine], fontsize=7)
        ax.set_title(f"{split} half", fontsize=9)
    axes[0].legend(fontsize=7)
    axes[0].set_ylim(0, 1.05)
    fig.tight_layout()
    return fig


def _statistics_figure(m: dict) -> Figure:
    fig = Figure(figsize=(6, 3))
    ax = fig.subplots()
    names = list(STATISTICS)
    x = np.arange(len(names))
    ax.bar(x - 0.2, [1.0] * len(names), 0.4, label="varied (scripted)")
    ax.bar(
        x + 0.2,
        [m[f"templated_{k}"] / m[f"varied_{k}"] for k in names],
        0.4,
        label="templated (scripted)",
    )
    ax.set_xticks(x, [k.replace("_", "\n") for k in names], fontsize=8)
    ax.set_ylabel("relative to the varied set")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
