"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.predator_rl.arena import make_layout
from icml25.predator_rl.claims import SUCCESS_FLOOR
from icml25.predator_rl.env import CAPTURED, SUCCESS, render_arena
from icml25.predator_rl.reproduce import (
    AGENTS,
    Config,
)


def _curve(out: dict, total: int, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Capture and success rates of the training episodes ending in each of ``bins`` equal
    windows of transitions: (bins,), (bins,)."""
    edges = np.linspace(0, total, bins + 1)
    which = np.clip(np.searchsorted(edges, out["end_step"], side="left") - 1, 0, bins - 1)
    count = np.bincount(which, minlength=bins).clip(1)
    cap = np.bincount(which, weights=out["outcome"] == CAPTURED, minlength=bins) / count
    win = np.bincount(which, weights=out["outcome"] == SUCCESS, minlength=bins) / count
    return cap, win


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    by_agent: dict[str, list[dict]] = {a: [] for a in AGENTS}
    for _, out in sorted(results, key=lambda co: co[0]["replicate"]):
        for agent in AGENTS:
            by_agent[agent].append(out[agent])
    m: dict[str, float] = {}
    stats = {}
    for agent, outs in by_agent.items():
        train_cap = [float(np.mean(o["outcome"] == CAPTURED)) for o in outs]
        train_win = [float(np.mean(o["outcome"] == SUCCESS)) for o in outs]
        final = {k: [o["final"][k] for o in outs] for k in outs[0]["final"]}
        stats[agent] = {
            "train_capture": np.mean(train_cap),
            **{k: np.mean(v) for k, v in final.items()},
        }
        m[f"{agent}_train_capture_rate"] = float(np.mean(train_cap))
        m[f"{agent}_train_success_rate"] = float(np.mean(train_win))
        m[f"{agent}_train_capture_rate_sd"] = (
            float(np.std(train_cap, ddof=1)) if len(outs) > 1 else 0.0
        )
        # the last two windows of the training curve: has the behaviour settled?
        total = config.steps * config.num_envs
        curves = np.array([_curve(o, total, config.bins) for o in outs])  # (S, 2, bins)
        m[f"{agent}_train_capture_rate_last_window"] = float(curves[:, 0, -1].mean())
        m[f"{agent}_train_capture_rate_second_last_window"] = float(curves[:, 0, -2].mean())
        m[f"{agent}_train_success_rate_last_window"] = float(curves[:, 1, -1].mean())
        for s, (cap, fin) in enumerate(zip(train_cap, final["success_rate"], strict=True)):
            m[f"{agent}_seed{s}_train_capture_rate"] = cap
            m[f"{agent}_seed{s}_final_success_rate"] = float(fin)
        for key in (
            "capture_rate",
            "success_rate",
            "steps_to_goal",
            "caution",
            "caution_all",
            "crossing_rate",
            "caution_success",
            "waits",
        ):
            m[f"{agent}_final_{key}"] = (
                float(np.nanmean(final[key])) if np.isfinite(final[key]).any() else float("nan")
            )
    plain = stats["plain"]
    m["a_capture_reduction"] = 1.0 - stats["both"]["train_capture"] / plain["train_capture"]
    # plain's success floored at one evaluation episode, so that the ratio is defined at smoke
    # scale, where untrained agents may never reach the goal
    m["b_success_ratio"] = stats["both"]["success_rate"] / max(
        plain["success_rate"], 1.0 / config.eval_episodes
    )
    for a in ("vp", "amplified", "both"):
        m[f"{a}_capture_ratio_to_plain"] = stats[a]["train_capture"] / plain["train_capture"]
    m["c_max_single_capture_ratio"] = max(
        m["vp_capture_ratio_to_plain"], m["amplified_capture_ratio_to_plain"]
    )
    # caution over the episodes that cross open ground, averaged over the replicates that have
    # any (an agent frozen in cover has none); how many replicates count is reported beside it
    m["d_caution_difference_unfloored"] = m["both_final_caution"] - m["plain_final_caution"]
    m["d_success_floor_met"] = float(
        stats["both"]["success_rate"] >= SUCCESS_FLOOR * plain["success_rate"]
    )
    m["d_caution_difference"] = (
        m["d_caution_difference_unfloored"] if m["d_success_floor_met"] else 0.0
    )
    for a in AGENTS:
        m[f"{a}_final_caution_replicates"] = float(
            sum(np.isfinite(o[a]["final"]["caution"]) for _, o in results)
        )
    m["final_capture_reduction"] = (
        1.0 - stats["both"]["capture_rate"] / plain["capture_rate"]
        if plain["capture_rate"] > 0
        else float("nan")
    )
    figures = {
        "training_curves": _fig_curves(config, by_agent),
        "trajectories": _fig_trajectories(config, by_agent),
    }
    captions = {
        "training_curves": "Capture and success rates of the training episodes (exploring starts) "
        "against transitions, per agent: mean over seeds, band from min to max.",
        "trajectories": "Greedy evaluation episodes of replicate 0 from the start cell: prey path "
        "(solid) and predator path (dashed); pale yellow cells are open ground, grey cover.",
    }
    return Summary(m, figures, captions)


def _fig_curves(config: Config, by_agent: dict[str, list[dict]]) -> Figure:
    total = config.steps * config.num_envs
    x = (np.arange(config.bins) + 0.5) * total / config.bins
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2)
    for i, (agent, outs) in enumerate(by_agent.items()):
        curves = np.array([_curve(o, total, config.bins) for o in outs])  # (S, 2, bins)
        for ax, k in zip(axes, (0, 1), strict=True):
            ax.plot(x, curves[:, k].mean(0), color=f"C{i}", label=agent)
            ax.fill_between(x, curves[:, k].min(0), curves[:, k].max(0), color=f"C{i}", alpha=0.15)
    for ax, name in zip(axes, ("capture rate", "success rate"), strict=True):
        ax.set_xlabel("training transitions")
        ax.set_ylabel(name)
        ax.set_ylim(0, 1)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_trajectories(config: Config, by_agent: dict[str, list[dict]]) -> Figure:
    layout = make_layout(config.layout, size=config.size)
    image = render_arena(layout, scale=1)
    fig = Figure(figsize=(8, 4.2))
    axes = fig.subplots(1, 2)
    names = {SUCCESS: "goal", CAPTURED: "captured", 0: "timeout"}
    for ax, agent in zip(axes, ("plain", "both"), strict=True):
        ax.imshow(image)
        outs = by_agent[agent]
        for j, traj in enumerate(outs[0]["trajectories"]):
            prey = layout.cells[np.asarray(traj["prey"])]
            pred = layout.cells[np.asarray(traj["predator"])]
            jitter = (j - len(outs[0]["trajectories"]) / 2) * 0.08
            ax.plot(
                prey[:, 1] + jitter,
                prey[:, 0] + jitter,
                "-",
                color=f"C{j}",
                linewidth=2,
                label=f"{names[traj['outcome']]} ({len(prey) - 1} steps)",
            )
            ax.plot(pred[:, 1] + jitter, pred[:, 0] + jitter, "--", color=f"C{j}", linewidth=1)
        ax.set_title(f"{agent}", fontsize=10)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=2)
    fig.tight_layout()
    return fig
