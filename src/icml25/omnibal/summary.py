"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.omnibal.distributed import idle_at_allreduce
from icml25.omnibal.reproduce import (
    Config,
)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    figures: dict[str, Figure] = {}
    draws = [o for c, o in results if c["part"] == "balance"]
    if draws:
        _summarize_balance(draws, m)
        figures["imbalance_over_steps"] = _fig_imbalance(draws[0])
    part = [o for c, o in results if c["part"] == "partition"]
    if part:
        _summarize_partition(config, part[0], m)
        figures["pipeline_gantt"] = _fig_gantt(config, part[0])
    ranks = [o for c, o in results if c["part"] == "ranks"]
    if ranks:
        per_rank = _summarize_ranks(config, ranks[0], m)
        figures["idle_per_rank"] = _fig_idle(config, per_rank)
    return Summary(m, figures)


SCALARS = ("vision_imbalance", "language_imbalance", "pad_ratio", "mean_batch")


def _summarize_balance(draws: list[dict], m: dict) -> None:
    for method in ("random", "isf", "language_only", "vision_only", "ffd"):
        if method in draws[0]:
            for key in (*SCALARS, "fixed_length_pad_ratio"):
                if key in draws[0][method]:
                    m[f"a_{method}_{key}"] = float(np.mean([d[method][key] for d in draws]))
    vis = [d["random"]["vision_imbalance"] / d["isf"]["vision_imbalance"] for d in draws]
    lang = [d["random"]["language_imbalance"] / d["isf"]["language_imbalance"] for d in draws]
    m["a_vision_reduction"] = float(min(vis))
    m["a_language_reduction"] = float(min(lang))
    m["a_fixed_length_pad_ratio"] = float(max(d["isf"]["fixed_length_pad_ratio"] for d in draws))
    m["a_placed_once_fraction"] = float(min(d["placed_once"] for d in draws))
    for variant in ("language_only", "vision_only"):
        for key in ("vision", "language"):
            m[f"a_{variant}_{key}_reduction"] = float(
                min(d["random"][f"{key}_imbalance"] / d[variant][f"{key}_imbalance"] for d in draws)
            )
    m["a_isf_groups_closed_by_vision"] = float(np.mean([d["closed_by_vision"] for d in draws]))
    m["a_isf_tokens_of_groups_closed_by_vision"] = float(
        np.mean([d["tokens_closed_by_vision"] for d in draws])
    )
    for i, name in enumerate(("vit_max", "llm_max", "vit_thresh", "llm_thresh")):
        m[f"a_searched_{name}"] = float(draws[0]["args"][i])


def _summarize_partition(config: Config, out: dict, m: dict) -> None:
    times = out["times"]
    m["b_time_reduction_vs_equal_layer"] = float(1 - times["searched"] / times["equal_layer"])
    m["b_time_reduction_vs_param_balanced"] = float(1 - times["searched"] / times["param_balanced"])
    m["b_search_over_optimum"] = float(times["searched"] / out["optimum"])
    m["b_time_reduction_vs_equal_layer_flops"] = float(
        1 - out["flops_times"][1] / out["flops_times"][0]
    )
    for k, b in out["bubble"].items():
        m[f"b_bubble_fraction_{k}"] = float(b)
    m["c_max_memory_over_budget"] = float(np.max(out["memory_ratio"]))
    m["c_recompute_ratio_adaptive_over_full"] = float(
        out["recompute_adaptive"] / out["recompute_full"]
    )
    m["c_time_reduction_adaptive_vs_full"] = float(1 - out["time_adaptive"] / out["time_full"])


def _summarize_ranks(config: Config, out: dict, m: dict) -> dict:
    job, samples = out["job"], out["samples"]
    comm = float(np.median(job["comm"].max(axis=1))) if config.clock == "seconds" else 0.0
    stats: dict[str, dict[str, list]] = {}
    for name in ("random", "isf", "identical"):
        idle, thr, per_rank, wait_transfer = [], [], [], []
        for r in range(config.d_repeats):
            rows = job[f"{name}/{r}"]
            if config.clock == "seconds":
                wait = idle_at_allreduce(rows["t1"])  # (S, R)
                epoch = rows["t2"][-1].max() - rows["t0"][0].min()
                wait_transfer.append((rows["t2"] - rows["t1"]).mean())
            else:
                wait = idle_at_allreduce(rows["work"])
                epoch = rows["work"].max(axis=1).sum()
            idle.append(wait.mean())
            per_rank.append(wait.mean(axis=0))
            thr.append(samples[name] / epoch)
        stats[name] = {"idle": idle, "thr": thr, "per_rank": per_rank}
        m[f"d_{name}_mean_idle"] = float(np.median(idle))
        if name == "identical":
            continue
        pred = out["predicted"][name]  # (S, R)
        m[f"d_{name}_predicted_mean_idle"] = float(idle_at_allreduce(pred).mean())
        step = pred.max(axis=1) + comm + out["opt_seconds"]
        stats[name]["pred_thr"] = samples[name] / step.sum()
        if wait_transfer:
            m[f"d_{name}_mean_wait_with_transfer"] = float(np.median(wait_transfer))
        m[f"d_{name}_samples_per_second"] = float(np.median(thr))
        m[f"d_{name}_predicted_samples_per_second"] = float(stats[name]["pred_thr"])
        m[f"d_{name}_steps"] = float(pred.shape[0])
        m[f"d_{name}_samples"] = float(samples[name])
    # per repeat (the layouts alternate within a repeat, so each ratio pairs the two layouts
    # under the same load of the machine): the claims' replicates; their mean is the metric
    idle_ratio = [a / b for a, b in zip(stats["random"]["idle"], stats["isf"]["idle"], strict=True)]
    speed = [a / b for a, b in zip(stats["isf"]["thr"], stats["random"]["thr"], strict=True)]
    for r, (ratio, gain) in enumerate(zip(idle_ratio, speed, strict=True)):
        m[f"d_idle_reduction[rep={r}]"] = float(ratio)
        m[f"d_measured_speedup[rep={r}]"] = float(gain)
    m["d_idle_reduction"] = float(np.mean(idle_ratio))
    m["d_idle_reduction_median"] = float(np.median(idle_ratio))
    m["d_predicted_idle_reduction"] = (
        m["d_random_predicted_mean_idle"] / m["d_isf_predicted_mean_idle"]
    )
    floor = m["d_identical_mean_idle"]
    m["d_idle_reduction_above_noise_floor"] = float(
        (m["d_random_mean_idle"] - floor) / max(m["d_isf_mean_idle"] - floor, 1e-12)
    )
    # the share of random batching's step that balance could remove: its wait above the noise
    # floor (identical batches), over its step time; removing it all gives 1 / (1 - share)
    step = m["d_random_samples"] / m["d_random_samples_per_second"] / m["d_random_steps"]
    share = (m["d_random_mean_idle"] - floor) / step
    m["d_random_step_time"] = float(step)
    m["d_random_balanceable_idle_fraction"] = float(share)
    m["d_speedup_if_balanceable_wait_removed"] = float(1 / (1 - share))
    m["d_idle_reduction_min"] = float(np.min(idle_ratio))
    m["d_idle_reduction_max"] = float(np.max(idle_ratio))
    m["d_measured_speedup"] = float(np.mean(speed))
    m["d_measured_speedup_median"] = float(np.median(speed))
    m["d_measured_speedup_min"] = float(np.min(speed))
    m["d_measured_speedup_max"] = float(np.max(speed))
    m["d_predicted_speedup"] = float(stats["isf"]["pred_thr"] / stats["random"]["pred_thr"])
    m["d_model_relative_error"] = float(abs(m["d_predicted_speedup"] / m["d_measured_speedup"] - 1))
    m["d_cost_fit_relative_residual"] = out["fit_rel_residual"]
    for name, c in zip(
        ("intercept", "per_image", "per_token", "per_area"), out["coef"], strict=True
    ):
        m[f"d_cost_coef_{name}"] = float(c)
    m["d_allreduce_seconds"] = comm
    return stats


def _fig_imbalance(draw: dict) -> Figure:
    fig = Figure(figsize=(9, 3.4))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, key, title in zip(
        axes,
        ("vision_imbalance_steps", "language_imbalance_steps"),
        ("vision", "language"),
        strict=True,
    ):
        for name, color in (("random", "C3"), ("isf", "C0")):
            y = draw[name][key][:300]
            ax.plot(y, color=color, lw=0.8, label=f"{name} (mean {draw[name][key].mean():.3f})")
        ax.set_title(f"{title} imbalance per step, 8 ranks", fontsize=9)
        ax.set_xlabel("step")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("sum_r (max - x_r) / (R max)")
    fig.tight_layout()
    return fig


def _fig_gantt(config: Config, out: dict) -> Figure:
    fig = Figure(figsize=(10, 4.2))
    axes = fig.subplots(2, 1, sharex=True)
    unit = "s" if config.clock == "seconds" else "FLOP"
    for ax, name in zip(axes, ("equal_layer", "searched"), strict=True):
        for stage, kind, micro, start, end in out["ops"][name]:
            ax.barh(stage, end - start, left=start, color="C0" if kind == 0 else "C1",
                    edgecolor="k", linewidth=0.3)  # fmt: skip
            ax.text((start + end) / 2, stage, str(int(micro)), ha="center", va="center", fontsize=5)
        ax.set_yticks(range(config.b_stages))
        ax.invert_yaxis()
        ax.set_ylabel("stage")
        ax.set_title(
            f"{name} cuts {out['cuts'][name]}: iteration {out['times'][name]:.3g} {unit} "
            "(blue forward, orange backward)",
            fontsize=9,
        )
    axes[1].set_xlabel(f"time ({unit})")
    fig.tight_layout()
    return fig


def _fig_idle(config: Config, stats: dict) -> Figure:
    fig = Figure(figsize=(5, 3.4))
    ax = fig.subplots()
    scale = 1e3 if config.clock == "seconds" else 1e-9
    x = np.arange(config.d_world)
    kinds = (("random", "C3"), ("isf", "C0"), ("identical", "0.6"))
    for i, (name, color) in enumerate(kinds):
        per = np.array(stats[name]["per_rank"]) * scale  # (repeats, R)
        mid = np.median(per, axis=0)
        err = [mid - per.min(axis=0), per.max(axis=0) - mid]
        label = "identical batches (noise floor)" if name == "identical" else name
        ax.bar(x + 0.27 * (i - 1), mid, 0.27, yerr=err, color=color, label=label, capsize=3)
    ax.set_xticks(x, [f"rank {r}" for r in x])
    unit = "ms" if config.clock == "seconds" else "GFLOP"
    ax.set_ylabel(f"mean idle per step at all-reduce ({unit})")
    ax.set_title("measured idle per rank (median, min-max over repeats)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
