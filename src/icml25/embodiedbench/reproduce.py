"""Reproduction: EB-Navigation's capability subsets with planners that are not language models.

Cells: one per (planner, batch of base tasks). A cell builds its batch of base tasks from
``(task_seed, batch)``, so every planner meets the same tasks, derives the five subsets from
them, and runs the planner on each: the oracle (privileged state), the random planner, and the
perception-limited heuristic, all labelled "not an LLM". With a model endpoint in ``config.llm``
(``icml25 run embodiedbench --llm-model NAME``), each batch also runs the vision-language
planner on its first ``llm_tasks`` tasks of every subset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from icml25.common.llm import Endpoint, LLMClient
from icml25.embodiedbench.env import NavigationEnv
from icml25.embodiedbench.episode import run_episode
from icml25.embodiedbench.planners import HeuristicPlanner, OraclePlanner, RandomPlanner
from icml25.embodiedbench.render import render
from icml25.embodiedbench.tasks import SUBSETS, base_tasks, subset
from icml25.embodiedbench.vlm import VLMPlanner
from icml25.lab.reproduction import Summary

CELL_THREADS = 1
OFFLINE_PLANNERS = ("oracle", "random", "heuristic")
LABELS = {
    "oracle": "oracle (privileged state)",
    "random": "random",
    "heuristic": "perception-limited heuristic",
    "vlm": "vision-language model",
}


@dataclass(frozen=True)
class Config:
    tasks_per_batch: int = 20
    batches: int = 6  # 120 base tasks per subset (EB-Navigation has 60): cheap, and halves the
    # binomial standard error of a difference of success rates
    width: int = 128
    height: int = 96
    max_steps: int = 20  # the official episode limit
    max_path: int = 14  # longest shortest path, in moves, of a base task
    task_seed: int = 0
    llm: Endpoint | None = None
    llm_tasks: int = 5  # per subset and batch, for the vision-language planner


SCALES = {
    "smoke": Config(tasks_per_batch=4, batches=1),
    "default": Config(),
    "paper": Config(batches=3),  # EB-Navigation's 60 tasks per subset
}


def cells(config: Config) -> list[dict]:
    planners = OFFLINE_PLANNERS + (("vlm",) if config.llm is not None else ())
    return [{"planner": p, "batch": b} for p in planners for b in range(config.batches)]


def benchmark(config: Config, batch: int) -> dict[str, list]:
    """The tasks of one batch, by subset: the same base tasks reworded or turned round."""
    rng = np.random.default_rng([config.task_seed, batch])
    base = base_tasks(
        config.tasks_per_batch,
        rng,
        max_path=config.max_path,
        width=config.width,
        height=config.height,
    )
    words = np.random.default_rng([config.task_seed, batch, 1])
    return {name: subset(base, name, words) for name in SUBSETS}


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    env = NavigationEnv(config.width, config.height, config.max_steps)
    rng = np.random.default_rng(seed)
    client = None
    if cell["planner"] == "oracle":
        planner = OraclePlanner(env)
    elif cell["planner"] == "random":
        planner = RandomPlanner(rng)
    elif cell["planner"] == "heuristic":
        planner = HeuristicPlanner()
    else:
        client = LLMClient.from_endpoint(config.llm)
        planner = VLMPlanner(client, rng)
    out: dict = {}
    for name, tasks in benchmark(config, cell["batch"]).items():
        if client is not None:
            tasks = tasks[: config.llm_tasks]
        episodes = [run_episode(env, planner, task) for task in tasks]
        out[name] = {
            "success": np.array([e.success for e in episodes], dtype=np.int64),
            "steps": np.array([e.steps for e in episodes], dtype=np.int64),
            "calls": np.array([e.planner_calls for e in episodes], dtype=np.int64),
            "invalid": np.array([e.invalid_outputs for e in episodes], dtype=np.int64),
        }
    if client is not None:
        out["llm_usage"] = client.usage()
    return out


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    pooled: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    for cell, out in sorted(results, key=lambda r: (r[0]["planner"], r[0]["batch"])):
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
            if planner == "vlm":
                calls = np.concatenate(parts["calls"]).sum()
                m[f"invalid_output_rate_vlm_{name}"] = float(
                    np.concatenate(parts["invalid"]).sum() / max(calls, 1)
                )
    m["oracle_min_success"] = min(rates["oracle"].values())
    m["random_max_success"] = max(rates["random"].values())
    h = rates["heuristic"]
    m["heuristic_base_minus_long_horizon"] = h["base"] - h["long_horizon"]
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
