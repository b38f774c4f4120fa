"""Reproduction of APT (Wu & Bergman, ICML 2025): pre-train adversarial, plain and fixed-head
variants on the synthetic prior, then evaluate each zero-shot; scikit-learn baselines.

Cells: one per (variant, pre-training seed), each pre-training then evaluating its model, and
one for the baselines. The pre-training seed is the cell's ``pretrain_seed`` (not the runner's
seed), so that the adversarial run and its plain control share initialisation and draws.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
from matplotlib.figure import Figure

from icml25.apt_tabular.evaluate import (
    BASELINES,
    DATASETS,
    apt_real_aucs,
    baseline,
    real_aucs,
    synthetic_accuracy,
    synthetic_baseline_accuracy,
)
from icml25.apt_tabular.model import ModelConfig
from icml25.apt_tabular.pretrain import PretrainConfig, pretrain
from icml25.lab.reproduction import Summary

CELL_THREADS = 1
VARIANTS = ("adversarial", "plain", "head")


@dataclass(frozen=True)
class Config:
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    seeds: int = 3
    head_seeds: int = 3
    n_splits: int = 5
    max_rows: int = 500
    class_counts: tuple[int, ...] = (2, 5, 10, 12, 15, 20, 25)
    many_classes: tuple[int, ...] = (15, 20, 25)  # claim (a)
    over_ten: tuple[int, ...] = (12, 15, 20, 25)  # claim (d)
    tasks: int = 10
    task_rows: int = 500
    task_seed: int = 7_000_000  # held out: pre-training seeds are small integers
    timing: bool = True  # report wall-clock times (off at smoke: reruns must give equal numbers)


SCALES = {
    "smoke": Config(
        pretrain=PretrainConfig(model=ModelConfig(n_blocks=1, d_model=16, d_ff=32), steps=15),
        seeds=1,
        head_seeds=1,
        n_splits=1,
        max_rows=120,
        class_counts=(5, 15),
        many_classes=(15,),
        over_ten=(15,),
        tasks=2,
        task_rows=150,
        timing=False,
    ),
    "default": Config(pretrain=PretrainConfig(steps=3000)),
    # the paper: 12 blocks, width 512, far longer pre-training; evaluated on the OpenML-CC18
    # classification suite (72 data sets), which cannot be downloaded here
    "paper": Config(
        pretrain=PretrainConfig(
            model=ModelConfig(n_blocks=12, d_model=512, d_ff=2048), steps=100_000, max_features=100
        ),
        n_splits=10,
        max_rows=3000,
        tasks=50,
    ),
}


def cells(config: Config) -> list[dict]:
    runs = [
        {"part": "pretrain", "variant": v, "pretrain_seed": s}
        for s in range(config.seeds)
        for v in ("adversarial", "plain")
    ]
    runs += [
        {"part": "pretrain", "variant": "head", "pretrain_seed": s}
        for s in range(config.head_seeds)
    ]
    synthetic = [{"part": "synthetic_baseline", "baseline": b} for b in BASELINES]
    return runs + [{"part": "baselines"}] + synthetic


def variant_config(config: Config, variant: str, pretrain_seed: int) -> PretrainConfig:
    """The pre-training of a variant: plain has no adversaries, head a 10-class head."""
    p = replace(config.pretrain, seed=pretrain_seed)
    if variant == "plain":
        return replace(p, n_adversarial=0)
    if variant == "head":
        return replace(p, model=replace(p.model, readout="head"))
    return p


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "baselines":
        return {
            name: real_aucs(lambda s, n=name: baseline(n, s), config.n_splits, config.max_rows)
            for name in BASELINES
        }
    if cell["part"] == "synthetic_baseline":
        accs = synthetic_baseline_accuracy(
            cell["baseline"],
            config.class_counts,
            config.tasks,
            config.task_rows,
            0.75,
            config.task_seed,
        )
        return {"accuracy": {str(K): a for K, a in accs.items()}}
    start = time.perf_counter()
    weights = pretrain(variant_config(config, cell["variant"], cell["pretrain_seed"]))
    seconds = time.perf_counter() - start
    losses = weights["losses"]
    tail = max(1, len(losses) // 10)
    accs = synthetic_accuracy(
        weights, config.class_counts, config.tasks, config.task_rows, 0.75, config.task_seed
    )
    return {
        "seconds": seconds,
        "loss_last_tenth": float(losses[-tail:].mean()),
        "loss_previous_tenth": float(losses[-2 * tail : -tail].mean()),
        "loss_curve": [float(b.mean()) for b in np.array_split(losses, 50)],
        "auc": apt_real_aucs(weights, config.n_splits, config.max_rows),
        "accuracy": {str(K): a for K, a in accs.items()},
    }


def _mean_auc(rows: list[dict], name: str) -> float:
    return float(np.mean([r["auc"][name] for r in rows]))


def _mean_acc(rows: list[dict], counts, over_chance: bool = False) -> float:
    return float(
        np.mean(
            [
                np.mean(r["accuracy"][str(K)]) * (K if over_chance else 1)
                for r in rows
                for K in counts
            ]
        )
    )


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    runs = {v: [] for v in VARIANTS}
    base, synth = {}, {}
    for cell, out in results:
        if cell["part"] == "baselines":
            base = out
        elif cell["part"] == "synthetic_baseline":
            synth[cell["baseline"]] = [out]
        else:
            runs[cell["variant"]].append(out)
    adv, plain, head = runs["adversarial"], runs["plain"], runs["head"]
    m: dict[str, float] = {}
    # (a) accuracy over chance on 15-25 classes
    m["a_acc_over_chance"] = _mean_acc(adv, config.many_classes, over_chance=True)
    for K in config.class_counts:
        for v in VARIANTS:
            m[f"acc_{v}_K{K}"] = _mean_acc(runs[v], (K,))
        for b in BASELINES:  # fitted on each task: how separable the tasks are
            m[f"acc_{b}_K{K}"] = _mean_acc(synth[b], (K,))
    for b in BASELINES:
        m[f"acc_over_chance_{b}"] = _mean_acc(synth[b], config.many_classes, over_chance=True)
    # (b) adversarial minus plain AUC, paired by seed, data set and split
    gaps = [
        np.subtract(a["auc"][name], p["auc"][name])
        for a, p in zip(adv, plain, strict=True)
        for name in DATASETS
    ]
    m["b_auc_gap_adversarial_minus_plain"] = float(np.mean(gaps))
    # (c) per data set: APT within 0.05 of the best baseline
    passed = 0
    for name in DATASETS:
        for v in VARIANTS:
            m[f"auc_{v}_{name}"] = _mean_auc(runs[v], name)
        for b in BASELINES:
            m[f"auc_{b}_{name}"] = float(np.mean(base[b][name]))
        best = max(m[f"auc_{b}_{name}"] for b in BASELINES)
        m[f"c_margin_{name}"] = m[f"auc_adversarial_{name}"] - (best - 0.05)
        m[f"b_gap_{name}"] = m[f"auc_adversarial_{name}"] - m[f"auc_plain_{name}"]
        passed += m[f"c_margin_{name}"] >= 0
    m["c_datasets_within_0.05"] = float(passed)
    # (d) mixture minus fixed head on > 10 classes (adversarial mixture seeds paired with head)
    mix = adv[: len(head)]
    m["d_acc_gap_mixture_minus_head"] = _mean_acc(mix, config.over_ten) - _mean_acc(
        head, config.over_ten
    )
    for v in VARIANTS:
        m[f"loss_last_tenth_{v}"] = float(np.mean([r["loss_last_tenth"] for r in runs[v]]))
        m[f"loss_previous_tenth_{v}"] = float(np.mean([r["loss_previous_tenth"] for r in runs[v]]))
    if config.timing:
        m["pretrain_seconds_mean"] = float(np.mean([r["seconds"] for r in adv + plain + head]))
    figures = {
        "auc_per_dataset": _fig_auc(m),
        "accuracy_vs_classes": _fig_acc(config, m),
        "loss_curves": _fig_loss(runs),
    }
    return Summary(m, figures)


def _fig_auc(m: dict) -> Figure:
    fig = Figure(figsize=(7, 3.5))
    ax = fig.subplots()
    methods = ["adversarial", "plain", "head", *BASELINES]
    width = 0.8 / len(methods)
    names = list(DATASETS)
    for i, meth in enumerate(methods):
        ax.bar(
            np.arange(len(names)) + i * width,
            [m[f"auc_{meth}_{n}"] for n in names],
            width,
            label=meth,
        )
    ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names)
    ax.set_ylim(0.5, 1.01)
    ax.set_ylabel("ROC AUC (one-vs-rest)")
    ax.set_title("Zero-shot APT vs scikit-learn baselines (mean over splits and seeds)")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    return fig


def _fig_acc(config: Config, m: dict) -> Figure:
    fig = Figure(figsize=(5, 3.5))
    ax = fig.subplots()
    Ks = np.array(config.class_counts)
    for v in (*VARIANTS, *BASELINES):
        style = "o-" if v in VARIANTS else "s:"
        ax.plot(Ks, [m[f"acc_{v}_K{K}"] for K in Ks], style, label=v)
    ax.plot(Ks, 1 / Ks, "k--", label="chance")
    ax.plot(Ks, 3 / Ks, "k:", label="3x chance")
    ax.axvline(10.5, color="grey", lw=0.5)
    ax.set_xlabel("number of classes K (pre-training saw 2-10)")
    ax.set_ylabel("test accuracy, held-out synthetic tasks")
    ax.set_title("Accuracy against number of classes")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_loss(runs: dict) -> Figure:
    fig = Figure(figsize=(5, 3.5))
    ax = fig.subplots()
    for v, rows in runs.items():
        for i, r in enumerate(rows):
            ax.plot(r["loss_curve"], color=f"C{VARIANTS.index(v)}", label=v if i == 0 else None)
    ax.set_xlabel("pre-training progress (50 bins)")
    ax.set_ylabel("training loss (test-row cross-entropy)")
    ax.set_title("Pre-training loss")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
