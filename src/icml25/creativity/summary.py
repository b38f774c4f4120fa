"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.creativity.reproduce import (
    Config,
)
from icml25.lab.reproduction import Summary

CONSTRUCTION = ("line", "circle")


def _memorised_among_valid(score: dict) -> float | None:
    """The share of the valid answers that are memorised, (valid - novel valid) / valid, repeats
    counted; None when no answer is valid."""
    if score["valid"] == 0:
        return None
    return (score["valid"] - score["novel_valid"]) / score["valid"]


def _mode(method: str) -> str:
    return "sample" if method == "mdm" else "greedy"


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    by: dict[tuple[str, str], list[dict]] = {}
    for cell, out in results:
        by.setdefault((cell["task"], cell["method"]), []).append(out)

    def mean(task, method, mode, key="creativity"):
        outs = by.get((task, method), [])
        return float(np.mean([o[mode][key] for o in outs])) if outs else float("nan")

    floor = 1.0 / (config.seeds * config.n_test)

    def ratio(num, den):
        return 0.0 if num == 0 and den == 0 else num / max(den, floor)

    for (task, method), outs in sorted(by.items()):
        mode = _mode(method)
        for key in ("creativity", "memorised", "valid", "diversity"):
            m[f"{task}_{method}_{key}"] = mean(task, method, mode, key)
        finals = [float(o["losses"][-1]) for o in outs]
        m[f"{task}_{method}_final_loss"] = float(np.mean(finals))
        # plateau: relative change of the loss over the last quarter of training
        quarter = [max(1, len(o["losses"]) // 4) for o in outs]
        m[f"{task}_{method}_loss_change_last_quarter"] = float(
            np.mean(
                [
                    (o["losses"][-1] - o["losses"][-q]) / o["losses"][-q]
                    for o, q in zip(outs, quarter, strict=True)
                ]
            )
        )
        if method in ("ntp", "ntp_nohash"):
            for tau in config.temperatures:
                m[f"{task}_{method}_T{tau}_creativity"] = mean(task, method, f"temperature_{tau}")
    construction = [t for t in CONSTRUCTION if t in config.tasks]
    if construction:
        m["a_mdm_min_ratio"] = min(
            ratio(m[f"{t}_mdm_creativity"], m[f"{t}_ntp_creativity"]) for t in construction
        )
        m["b_min_memorised_gap"] = min(
            m[f"{t}_ntp_memorised"] - m[f"{t}_mdm_memorised"] for t in construction
        )
        valid_gaps = {}
        for t in construction:
            # per seed, the memorised share of the valid answers: an invalid answer can never
            # be memorised, so the raw rate rewards a model for being wrong
            score = {
                (c["method"], c["seed"]): o[_mode(c["method"])]
                for c, o in results
                if c["task"] == t and c["method"] in ("ntp", "mdm")
            }
            for seed in sorted({seed for _, seed in score}):
                ntp = _memorised_among_valid(score["ntp", seed])
                mdm = _memorised_among_valid(score["mdm", seed])
                if ntp is not None and mdm is not None:  # else a model gave no valid answer
                    m[f"b_valid_memorised_gap[task={t},seed={seed}]"] = ntp - mdm
                m[f"c_seed_greedy_times_n[task={t},seed={seed}]"] = (
                    score["ntp", seed]["creativity"] * config.n_test
                )
            gaps = [v for k, v in m.items() if k.startswith(f"b_valid_memorised_gap[task={t},")]
            valid_gaps[t] = float(np.mean(gaps)) if gaps else float("nan")
            m[f"{t}_valid_memorised_gap"] = valid_gaps[t]
        m["b_min_valid_memorised_gap"] = float(np.min(list(valid_gaps.values())))
        m["c_seed_greedy_times_n_min"] = min(
            m[f"{t}_ntp_creativity"] * config.n_test for t in construction
        )
        for t in construction:
            best = max(m[f"{t}_ntp_nohash_T{tau}_creativity"] for tau in config.temperatures)
            m[f"{t}_ntp_nohash_best_temperature_creativity"] = best
            m[f"{t}_c_seed_over_best_temperature"] = ratio(m[f"{t}_ntp_creativity"], best)
        m["c_seed_over_best_temperature_min"] = min(
            m[f"{t}_c_seed_over_best_temperature"] for t in construction
        )
        m["c_no_seed_greedy_times_n_max"] = max(
            o["greedy"]["creativity"] * config.n_test
            for t in construction
            for o in by[(t, "ntp_nohash")]
        )
    if "sibling" in config.tasks:
        m["a_teacherless_ratio_sibling"] = ratio(
            m["sibling_teacherless_creativity"], m["sibling_ntp_creativity"]
        )
    m["train_valid_fraction"] = float(min(o["train_valid"] for _, o in results))
    figures = {
        "creativity_by_method": _fig_methods(config, m),
        "creativity_vs_temperature": _fig_temperature(config, m),
        "training_loss": _fig_losses(by),
    }
    captions = {
        "creativity_by_method": "Creativity, memorised fraction and validity by method and "
        f"task (mean over {config.seeds} seeds, N = {config.n_test} test prompts).",
        "creativity_vs_temperature": "NTP creativity against temperature (top-k off), trained "
        "with hash prefixes (seed-conditioning) or without; the dashed line is seed-"
        "conditioning with greedy decoding.",
        "training_loss": "Training loss of every run (mean per logging window).",
    }
    return Summary(m, figures, captions)


LABELS = {
    "ntp": "NTP (seed + greedy)",
    "ntp_nohash": "NTP no seed (greedy)",
    "teacherless": "teacherless (seed + greedy)",
    "mdm": "diffusion (sampled)",
}


def _fig_methods(config: Config, m: dict) -> Figure:
    keys = ("creativity", "memorised", "valid")
    fig = Figure(figsize=(4 * len(config.tasks), 3.6))
    axes = np.atleast_1d(fig.subplots(1, len(config.tasks)))
    for ax, task in zip(axes, config.tasks, strict=True):
        methods = [k for k in LABELS if f"{task}_{k}_creativity" in m]
        x = np.arange(len(methods))
        for j, key in enumerate(keys):
            ax.bar(
                x + (j - 1) * 0.27,
                [m[f"{task}_{k}_{key}"] for k in methods],
                0.27,
                label=key,
                color=f"C{j}",
            )
        ax.set_xticks(x, [LABELS[k] for k in methods], rotation=25, ha="right", fontsize=7)
        ax.set_title(task, fontsize=9)
        ax.set_ylim(0, 1)
    axes[0].legend(fontsize=7)
    axes[0].set_ylabel("fraction of test prompts")
    fig.tight_layout()
    return fig


def _fig_temperature(config: Config, m: dict) -> Figure:
    tasks = [t for t in config.tasks if f"{t}_ntp_nohash_creativity" in m]
    fig = Figure(figsize=(4.2 * max(len(tasks), 1), 3.4))
    axes = np.atleast_1d(fig.subplots(1, max(len(tasks), 1)))
    taus = list(config.temperatures)
    for ax, task in zip(axes, tasks, strict=False):
        for method, style in (("ntp", "o-"), ("ntp_nohash", "s--")):
            label = "with seed (hash)" if method == "ntp" else "without seed"
            ax.plot(taus, [m[f"{task}_{method}_T{t}_creativity"] for t in taus], style, label=label)
        ax.axhline(m[f"{task}_ntp_creativity"], color="k", ls=":", label="seed + greedy")
        ax.axhline(1 / config.n_test, color="grey", ls="-.", lw=0.8, label="1/N")
        ax.set_xlabel("temperature")
        ax.set_title(task, fontsize=9)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("creativity")
    fig.tight_layout()
    return fig


def _fig_losses(by: dict) -> Figure:
    fig = Figure(figsize=(9, 3.4))
    tasks = sorted({t for t, _ in by})
    axes = np.atleast_1d(fig.subplots(1, len(tasks)))
    for ax, task in zip(axes, tasks, strict=True):
        for i, method in enumerate(LABELS):
            for j, out in enumerate(by.get((task, method), [])):
                ax.plot(out["losses"], color=f"C{i}", lw=0.8, label=method if j == 0 else None)
        ax.set_yscale("log")
        ax.set_xlabel("logging window")
        ax.set_title(task, fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
