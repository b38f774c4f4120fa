"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.mdm_order.adaptive import STRATEGIES
from icml25.mdm_order.claims import HIGH_RATIO, LOSS_FLOOR
from icml25.mdm_order.reproduce import (
    Config,
)

# Table 2 (6M MDM, Sudoku) and Table 5 (hard Sudoku), % of puzzles solved
PAPER = {"vanilla": 6.88, "top_prob": 18.51, "top_margin": 89.49}

PAPER_HARD = {"vanilla": 3.62, "top_prob": 9.44, "top_margin": 49.88}


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    outs = [o for _, o in results]
    m: dict[str, float] = {}
    if not outs:
        return Summary(m)

    def mean(key: str) -> float:
        return float(np.mean([o[key] for o in outs]))

    keys = [k for k, v in outs[0].items() if isinstance(v, float | int) and k != "n_params"]
    for k in keys:
        if config.model == "analytic" and k.startswith("decode_seconds"):
            continue  # wall-clock: not at smoke, where runs must repeat exactly
        m[k] = mean(k)
    m["margin_minus_prob"] = m["acc_top_margin"] - m["acc_top_prob"]
    m["margin_minus_prob_hard_deterministic"] = m["acc_hard_top_margin"] - m["acc_hard_top_prob"]
    ratios = np.array(config.ratios)
    high = ratios >= HIGH_RATIO
    for k, v in _per_model(config, outs, high).items():  # each {model=r} and their mean
        m.update({f"{k}[model={r}]": float(x) for r, x in enumerate(v)})
        m[k] = float(np.mean(v))
    rand = np.mean([o["loss_random_order"] for o in outs], 0)  # (R,)
    solver = np.mean([o["loss_solver_order"] for o in outs], 0)  # (R,)
    for r, a, b in zip(ratios, rand, solver, strict=True):
        m[f"loss_random_order_r{r:.1f}"] = float(a)
        m[f"loss_solver_order_r{r:.1f}"] = float(b)
    m["loss_ratio_vanilla_over_margin"] = max(m["loss_vanilla"], LOSS_FLOOR) / max(
        m["loss_top_margin"], LOSS_FLOOR
    )
    if "train_loss" in outs[0]:
        m["n_params"] = float(outs[0]["n_params"])
        m["train_loss_last50"] = float(np.mean([np.mean(o["train_loss"][-50:]) for o in outs]))
        for s in STRATEGIES:  # puzzles per second of one 50-step decoding
            m[f"decode_puzzles_per_second_{s}"] = config.n_test / m.pop(f"decode_seconds_{s}")
    figures = {"accuracy_by_strategy": _fig_bars(m), "accuracy_vs_steps": _fig_steps(config, m)}
    figures["loss_by_order"] = _fig_orders(ratios, rand, solver)
    if "train_loss" in outs[0]:
        figures["training_loss"] = _fig_train(outs)
    return Summary(m, figures)


def _per_model(config: Config, outs: list[dict], high: np.ndarray) -> dict[str, np.ndarray]:
    """The claims' metrics of each trained model, ``(models,)`` each: the replicates the
    claims declare. Ratios are taken per model, then averaged."""
    acc = {k: np.array([o[k] for o in outs]) for k in (
        "acc_top_margin", "acc_vanilla", "acc_hard_top_margin_gumbel", "acc_hard_top_prob_gumbel"
    )}  # fmt: skip
    rand = np.array([o["loss_random_order"] for o in outs])[:, high].mean(1)  # (models,)
    solver = np.array([o["loss_solver_order"] for o in outs])[:, high].mean(1)  # (models,)
    return {
        "acc_top_margin": acc["acc_top_margin"],
        "acc_vanilla": acc["acc_vanilla"],
        "adaptive_over_vanilla": acc["acc_top_margin"]
        / np.maximum(acc["acc_vanilla"], 1 / config.n_test),
        "margin_minus_prob_hard": acc["acc_hard_top_margin_gumbel"]
        - acc["acc_hard_top_prob_gumbel"],
        "loss_ratio_random_over_solver_high": np.maximum(rand, LOSS_FLOOR)
        / np.maximum(solver, LOSS_FLOOR),
    }


def _fig_bars(m: dict) -> Figure:
    fig = Figure(figsize=(7, 3.6))
    ax = fig.subplots()
    x = np.arange(len(STRATEGIES))
    hard = [m[f"acc_hard_{s}_gumbel" if s != "vanilla" else "acc_hard_vanilla"] for s in STRATEGIES]
    bars = (
        ("ours, singles test", [m[f"acc_{s}"] * 100 for s in STRATEGIES]),
        ("paper Table 2", [PAPER[s] for s in STRATEGIES]),
        ("ours, hard (Gumbel 0.5)", [h * 100 for h in hard]),
        ("paper Table 5 (hard)", [PAPER_HARD[s] for s in STRATEGIES]),
    )
    for j, (label, vals) in enumerate(bars):
        ax.bar(x + (j - 1.5) * 0.2, vals, 0.2, label=label, color=f"C{j}")
    ax.set_xticks(x, STRATEGIES)
    ax.set_ylabel("% puzzles solved")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_steps(config: Config, m: dict) -> Figure:
    fig = Figure(figsize=(5, 3.6))
    ax = fig.subplots()
    grid = sorted({*config.step_grid, config.steps})
    for j, s in enumerate(STRATEGIES):
        vals = [m[f"acc_{s}_steps{n}"] if n != config.steps else m[f"acc_{s}"] for n in grid]
        ax.plot(grid, np.array(vals) * 100, "o-", color=f"C{j}", label=s)
    ax.set_xlabel("reverse steps")
    ax.set_ylabel("% puzzles solved")
    ax.set_xscale("log")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_orders(ratios: np.ndarray, rand: np.ndarray, solver: np.ndarray) -> Figure:
    fig = Figure(figsize=(5, 3.6))
    ax = fig.subplots()
    ax.plot(ratios, rand, "o-", label="random order (training masks)")
    ax.plot(ratios, solver, "s-", label="solver's order (next round)")
    ax.axvspan(HIGH_RATIO - 0.05, ratios.max() + 0.05, color="0.9", label="claim (f)")
    ax.set_xlabel("masking ratio (fraction of the blanks masked)")
    ax.set_ylabel("cross-entropy per cell (nats)")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_train(outs: list[dict]) -> Figure:
    fig = Figure(figsize=(5, 3.4))
    ax = fig.subplots()
    for o in outs:
        loss = np.array(o["train_loss"])
        w = max(1, len(loss) // 50)
        ax.plot(np.convolve(loss, np.ones(w) / w, mode="valid"))
    ax.set_xlabel("training step")
    ax.set_ylabel("MDM loss (running mean)")
    fig.tight_layout()
    return fig
