"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.mlc_rcn.correction import CORRECTIONS
from icml25.mlc_rcn.reproduce import (
    BINARY_NOISE,
    Config,
)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    nan = float("nan")
    by: dict[str, list] = {}
    for cell, out in results:
        by.setdefault(cell["part"], []).append((cell, out))

    binary = by.get("binary", [])
    at_n = [o["excess"] for c, o in binary if c["n"] == config.claim_n]
    m["binary_excess_max_n20000"] = max(at_n, default=nan)
    m["binary_excess_init_max_n20000"] = max(
        (o["excess_init"] for c, o in binary if c["n"] == config.claim_n), default=nan
    )
    for n in config.binary_ns:
        rows = [o["excess"] for c, o in binary if c["n"] == n]
        if rows:
            m[f"binary_excess_mean_n{n}"] = float(np.mean(rows))

    bayes = [o for _, o in by.get("bayes", [])]
    sig = np.concatenate([o["sigma"] for o in bayes]) if bayes else np.array([])
    agr = np.concatenate([o["agreement"] for o in bayes]) if bayes else np.array([])
    closed = np.concatenate([o["agreement_closed"] for o in bayes]) if bayes else np.array([])
    pos, neg = sig > 0, sig < 0
    m["bayes_agreement_min_positive_sigma"] = float(agr[pos].min()) if pos.any() else nan
    m["bayes_instances_positive_sigma"] = float(pos.sum())
    m["bayes_instances_negative_sigma"] = float(neg.sum())
    m["bayes_agreement_mean_negative_sigma"] = float(agr[neg].mean()) if neg.any() else nan
    m["bayes_closed_form_mismatch_positive_sigma"] = (
        float(np.abs(agr - closed)[pos].max()) if pos.any() else nan
    )

    multi = by.get("multiclass", [])
    for h in ("symmetric", "random"):
        for method in (*CORRECTIONS, "trivial"):
            for n in config.multi_ns:
                rows = [o[f"excess_{method}"] for c, o in multi if c["noise"] == h and c["n"] == n]
                if rows:
                    m[f"multi_excess_{method}_{h}_n{n}"] = float(np.mean(rows))
    if multi:
        m["multi_not_converged"] = float(
            sum(not o[f"converged_{x}"] for _, o in multi for x in CORRECTIONS)
        )

    figures = {}
    if binary:
        figures["binary_excess"] = _fig_binary(config, binary)
    if bayes:
        figures["bayes_agreement"] = _fig_bayes(sig, agr)
    if multi:
        figures["multiclass_excess"] = _fig_multi(config, multi)
    return Summary(m, figures)


def _fig_binary(config: Config, binary) -> Figure:
    fig = Figure(figsize=(5.5, 3.8))
    ax = fig.subplots()
    for j, (h, mg) in enumerate((h, mg) for h in BINARY_NOISE for mg in config.binary_marginals):
        for key, ls in (("excess", "-"), ("excess_init", ":")):
            means = [
                np.mean(
                    [o[key] for c, o in binary if (c["noise"], c["marginal"], c["n"]) == (h, mg, n)]
                )
                for n in config.binary_ns
            ]
            label = f"{h}, {mg}" + (" (averaging start)" if key == "excess_init" else "")
            ax.plot(config.binary_ns, means, ls, marker="o", color=f"C{j}", ms=3, label=label)
    ax.axhline(0.02, color="grey", ls="--", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (noisy training examples)")
    ax.set_ylabel("err(h) - opt (mean over seeds)")
    ax.set_title("k = 2: SQ perceptron (solid) vs its averaging start (dotted)", fontsize=9)
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def _fig_bayes(sig: np.ndarray, agr: np.ndarray) -> Figure:
    fig = Figure(figsize=(5, 3.6))
    ax = fig.subplots()
    ax.scatter(sig, agr, s=10)
    ax.axvline(0.0, color="grey", ls=":", lw=1)
    ax.set_xlabel("separation sigma = min H_ii - H_ij")
    ax.set_ylabel("P(noisy Bayes classifier = f(x))")
    ax.set_title("Monte Carlo noisy-label Bayes classifier vs the clean one", fontsize=9)
    fig.tight_layout()
    return fig


def _fig_multi(config: Config, multi) -> Figure:
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, h in zip(axes, ("symmetric", "random"), strict=True):
        for j, method in enumerate((*CORRECTIONS, "trivial")):
            rows = [
                [o[f"excess_{method}"] for c, o in multi if c["noise"] == h and c["n"] == n]
                for n in config.multi_ns
            ]
            ax.errorbar(
                config.multi_ns,
                [np.mean(r) for r in rows],
                yerr=[np.std(r) for r in rows],
                marker="o",
                ms=3,
                color=f"C{j}",
                label=method,
                capsize=2,
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_title(f"k = 3, {h} H: err(h) - opt", fontsize=9)
    axes[0].set_ylabel("err(h) - opt (mean, std over seeds)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig
