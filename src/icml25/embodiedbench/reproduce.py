"""Reproduction: EB-Navigation's capability subsets with planners that are not language models.

Cells: one per (planner, batch of base tasks). A cell builds its batch of base tasks from
``(task_seed, batch)``, so every planner meets the same tasks, derives the five subsets from
them, and runs the planner on each: the oracle (privileged state), the random planner, and the
perception-limited heuristic, all labelled "not an LLM". The ``explain`` cells (one per batch)
run the heuristic with a tighter step limit or fewer scanning turns on the batch's base and
long-horizon tasks: the diagnostics of claim (b). With a model endpoint in ``config.llm``
(``icml25 run embodiedbench --llm-model NAME``), each batch also runs the vision-language
planner on its first ``llm_tasks`` tasks of every subset; with a model whose server says it
reads text only, the language-only planner (planner ``lm``: the same prompt, no image) instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.llm import Endpoint, LLMClient
from icml25.embodiedbench.env import NavigationEnv
from icml25.embodiedbench.episode import run_episode
from icml25.embodiedbench.explain import explain
from icml25.embodiedbench.planners import HeuristicPlanner, OraclePlanner, RandomPlanner
from icml25.embodiedbench.tasks import SUBSETS, base_tasks, subset
from icml25.embodiedbench.vlm import VLMPlanner

CELL_THREADS = 1
MODEL_NEEDS_IMAGES = True  # the planner sees the rendered scene
TEXT_ONLY_VARIANT = (
    "the language-only planner: the same prompt without the image (the no-vision ablation)"
)
OFFLINE_PLANNERS = ("oracle", "random", "heuristic")


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
    llm_max_tokens: int = 1024  # of each plan the model writes
    llm_max_steps: int | None = None  # the model's episode limit (None: max_steps)


SCALES = {
    "smoke": Config(tasks_per_batch=4, batches=1, llm_tasks=1, llm_max_tokens=96, llm_max_steps=3),
    "default": Config(),
    "paper": Config(batches=3),  # EB-Navigation's 60 tasks per subset
}


def cells(config: Config) -> list[dict]:
    planners = OFFLINE_PLANNERS + ("explain",)
    if config.llm is not None:
        planners += ("lm",) if config.llm.reads_images is False else ("vlm",)
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
    if cell["planner"] == "explain":
        tasks = benchmark(config, cell["batch"])
        return {"explain": explain(tasks, config.width, config.height)}
    steps = config.max_steps
    if cell["planner"] in ("vlm", "lm") and config.llm_max_steps is not None:
        steps = config.llm_max_steps
    env = NavigationEnv(config.width, config.height, steps)
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
        planner = VLMPlanner(
            client, rng, sees_image=cell["planner"] == "vlm", max_tokens=config.llm_max_tokens
        )
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
