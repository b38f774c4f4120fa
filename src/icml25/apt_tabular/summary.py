"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.apt_tabular.evaluate import (
    BASELINES,
    DATASETS,
    DIGITS_VARIANTS,
)
from icml25.apt_tabular.reproduce import (
    Config,
)
from icml25.lab.reproduction import Summary

VARIANTS = ("adversarial", "plain", "head")


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
    present = tuple(v for v in VARIANTS if runs[v])  # default scale: the adversarial one only
    fitted = tuple(b for b in BASELINES if b in synth)  # default: logistic and random forest
    m: dict[str, float] = {}
    # (a) accuracy over chance on 15-25 classes, and per pre-training seed (its replicates)
    m["a_acc_over_chance"] = _mean_acc(adv, config.many_classes, over_chance=True)
    for seed, run in enumerate(adv):
        m[f"a_acc_over_chance[seed={seed}]"] = _mean_acc([run], config.many_classes, True)
    for K in config.class_counts:
        for v in present:
            m[f"acc_{v}_K{K}"] = _mean_acc(runs[v], (K,))
        for b in fitted:  # fitted on each task: how separable the tasks are
            m[f"acc_{b}_K{K}"] = _mean_acc(synth[b], (K,))
    for b in fitted:
        m[f"acc_over_chance_{b}"] = _mean_acc(synth[b], config.many_classes, over_chance=True)
    # (b) adversarial minus plain AUC, paired by seed, data set and split (not measured without
    # the plain control)
    if plain:
        gaps = [
            np.subtract(a["auc"][name], p["auc"][name])
            for a, p in zip(adv, plain, strict=True)
            for name in DATASETS
        ]
        m["b_auc_gap_adversarial_minus_plain"] = float(np.mean(gaps))
    # (c) per data set: APT within 0.05 of the best baseline
    passed = 0
    for name in DATASETS:
        for v in present:
            m[f"auc_{v}_{name}"] = _mean_auc(runs[v], name)
        for b in BASELINES:
            m[f"auc_{b}_{name}"] = float(np.mean(base[b][name]))
        best = max(m[f"auc_{b}_{name}"] for b in BASELINES)
        m[f"c_margin_{name}"] = m[f"auc_adversarial_{name}"] - (best - 0.05)
        if plain:
            m[f"b_gap_{name}"] = m[f"auc_adversarial_{name}"] - m[f"auc_plain_{name}"]
        passed += m[f"c_margin_{name}"] >= 0
    m["c_datasets_within_0.05"] = float(passed)
    # (c) on digits: the explanations, width and integer pixels, each removed in turn
    for v in present:
        for name in DIGITS_VARIANTS:
            m[f"auc_{v}_digits_{name}"] = float(
                np.mean([r["digits_variants"][name] for r in runs[v]])
            )
    for name in DIGITS_VARIANTS:
        m[f"c_digits_{name}_minus_raw"] = (
            m[f"auc_adversarial_digits_{name}"] - m["auc_adversarial_digits"]
        )
    # (d) mixture minus fixed head on > 10 classes (adversarial mixture seeds paired with head;
    # not measured without the head control)
    mix = adv[: len(head)]
    if head:
        m["d_acc_gap_mixture_minus_head"] = _mean_acc(mix, config.over_ten) - _mean_acc(
            head, config.over_ten
        )
    for seed, (a, h) in enumerate(zip(mix, head, strict=True)):
        m[f"d_acc_gap[seed={seed}]"] = _mean_acc([a], config.over_ten) - _mean_acc(
            [h], config.over_ten
        )
    for v in present:
        m[f"loss_last_tenth_{v}"] = float(np.mean([r["loss_last_tenth"] for r in runs[v]]))
        m[f"loss_previous_tenth_{v}"] = float(np.mean([r["loss_previous_tenth"] for r in runs[v]]))
    if config.timing:
        m["pretrain_seconds_mean"] = float(np.mean([r["seconds"] for r in adv + plain + head]))
    figures = {
        "auc_per_dataset": _fig_auc(m, present),
        "accuracy_vs_classes": _fig_acc(config, m, present, fitted),
        "loss_curves": _fig_loss(runs),
    }
    return Summary(m, figures)


def _fig_auc(m: dict, variants: tuple[str, ...]) -> Figure:
    fig = Figure(figsize=(7, 3.5))
    ax = fig.subplots()
    methods = [*variants, *BASELINES]
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


def _fig_acc(config: Config, m: dict, variants: tuple[str, ...], fitted: tuple[str, ...]) -> Figure:
    fig = Figure(figsize=(5, 3.5))
    ax = fig.subplots()
    Ks = np.array(config.class_counts)
    for v in (*variants, *fitted):
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
