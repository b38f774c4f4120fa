"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.embodiedbench.render import render
from icml25.embodiedbench.reproduce import (
    Config,
    benchmark,
)
from icml25.embodiedbench.tasks import SUBSETS
from icml25.lab.reproduction import Summary

LABELS = {
    "oracle": "oracle (privileged state)",
    "random": "random",
    "heuristic": "perception-limited heuristic",
    "vlm": "vision-language model",
    "lm": "language model, no image",
}


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    pooled: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    variants: dict[str, dict[str, list]] = {}
    for cell, out in sorted(results, key=lambda r: (r[0]["planner"], r[0]["batch"])):
        if cell["planner"] == "explain":
            for setting, by_subset in out["explain"].items():
                for name, success in by_subset.items():
                    variants.setdefault(setting, {}).setdefault(name, []).append(success)
            continue
        mine = pooled.setdefault(cell["planner"], {})
        for name in SUBSETS:
            for key, values in out[name].items():
                mine.setdefault(name, {}).setdefault(key, []).append(values)
    rates: dict[str, dict[str, float]] = {}
    m: dict[str, float] = {}
    for planner, by_subset in pooled.items():
        rates[planner] = {}
        for name, parts in by_subset.items():
            success = np.concatenate(parts["success"])
            rates[planner][name] = float(success.mean())
            m[f"success_{planner}_{name}"] = float(success.mean())
            m[f"mean_steps_{planner}_{name}"] = float(np.concatenate(parts["steps"]).mean())
            m[f"tasks_{planner}_{name}"] = float(success.size)
            if planner in ("vlm", "lm"):
                calls = np.concatenate(parts["calls"]).sum()
                m[f"invalid_output_rate_{planner}_{name}"] = float(
                    np.concatenate(parts["invalid"]).sum() / max(calls, 1)
                )
    m["oracle_min_success"] = min(rates["oracle"].values())
    m["random_max_success"] = max(rates["random"].values())
    h = rates["heuristic"]
    m["heuristic_base_minus_long_horizon"] = h["base"] - h["long_horizon"]
    # The same difference per batch: every batch has the same number of tasks per subset, so
    # the pooled difference is the mean of these.
    for cell, out in results:
        if cell["planner"] == "heuristic":
            gap = out["base"]["success"].mean() - out["long_horizon"]["success"].mean()
            m[f"heuristic_base_minus_long_horizon[batch={cell['batch']}]"] = float(gap)
    # the diagnostics of (b): the same gap with a tighter budget or less exploration
    gaps = {}
    for setting, by_subset in variants.items():
        rate = {name: float(np.concatenate(parts).mean()) for name, parts in by_subset.items()}
        for name, value in rate.items():
            m[f"success_heuristic_{name}[{setting}]"] = value
        gaps[setting] = rate["base"] - rate["long_horizon"]
        m[f"heuristic_base_minus_long_horizon[{setting}]"] = gaps[setting]
    tight = [g for s, g in gaps.items() if s.endswith("turns=3")]
    if tight:
        m["gap_tight_step_limit_min"] = min(tight)
    if "steps=20,turns=1" in gaps:
        m["gap_one_scan_turn"] = gaps["steps=20,turns=1"]
    figures = {"success_by_subset": _success_figure(rates, m), "views": _views_figure(config)}
    captions = {
        "success_by_subset": "Success rate by planner and capability subset (none of the "
        "planners is a language model unless labelled so); bars are +- 1 binomial standard "
        "error.",
        "views": "The agent's first view in one task: base (target in view) and long horizon "
        "(the same task, turned 180 degrees).",
    }
    return Summary(m, figures, captions)


def _success_figure(rates: dict, m: dict) -> Figure:
    fig = Figure(figsize=(8, 3.6))
    ax = fig.subplots()
    planners = list(rates)
    width = 0.8 / len(planners)
    x = np.arange(len(SUBSETS))
    for k, planner in enumerate(planners):
        p = np.array([rates[planner][s] for s in SUBSETS])
        n = np.array([m[f"tasks_{planner}_{s}"] for s in SUBSETS])
        ax.bar(
            x + (k - (len(planners) - 1) / 2) * width,
            p,
            width,
            yerr=np.sqrt(p * (1 - p) / n),
            label=LABELS[planner],
            capsize=2,
        )
    ax.set_xticks(x, [s.replace("_", "\n") for s in SUBSETS])
    ax.set_ylabel("success rate")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7, loc="upper right")
    ax.set_title("EB-Navigation-style tasks, 20-step limit")
    fig.tight_layout()
    return fig


def _views_figure(config: Config) -> Figure:
    tasks = benchmark(config, 0)
    fig = Figure(figsize=(7, 2.8))
    for ax, name in zip(fig.subplots(1, 2), ("base", "long_horizon"), strict=True):
        task = tasks[name][0]
        ax.imshow(render(task.room, task.start, config.width, config.height))
        ax.set_title(f"{name}: {task.target_type.name}", fontsize=9)
        ax.axis("off")
    fig.tight_layout()
    return fig
