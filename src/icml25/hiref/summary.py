"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import math
import statistics

import numpy as np
from matplotlib.figure import Figure

from icml25.hiref.reproduce import (
    Config,
)
from icml25.lab.reproduction import Summary


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    quality = [(c, o) for c, o in results if c["kind"] == "quality"]
    highdim = [(c, o) for c, o in results if c["kind"] == "highdim"]
    sink = [(c, o) for c, o in results if c["kind"] == "sinkhorn"]
    timing = [o for c, o in results if c["kind"] == "timing"]
    m: dict[str, float] = {}

    ratios = [o["hiref"]["cost"] / o["exact"] for c, o in quality if c["n"] == config.quality_n]
    # the median over all seeds and data sets, reported beside (a)
    m["median_cost_ratio"] = statistics.median(ratios) if ratios else math.nan
    for dataset in config.datasets:
        r = [
            o["hiref"]["cost"] / o["exact"]
            for c, o in quality
            if c["n"] == config.quality_n and c["dataset"] == dataset
        ]
        if r:
            m[f"mean_cost_ratio_n{config.quality_n}[{dataset}]"] = float(np.mean(r))
            m[f"max_cost_ratio_n{config.quality_n}[{dataset}]"] = float(np.max(r))
    means = [v for k, v in m.items() if k.startswith("mean_cost_ratio_n")]
    for c, o in quality:
        if c["n"] == config.quality_n:
            key = f"cost_ratio_n{config.quality_n}[{c['dataset']},seed={c['seed']}]"
            m[key] = o["hiref"]["cost"] / o["exact"]
    m["max_mean_cost_ratio"] = max(means) if means else math.nan
    for c, o in quality:
        if c["seed"] == 0:
            for method in ("sinkhorn", "lowrank", *(f"minibatch_{b}" for b in config.batches)):
                if method in o:
                    m[f"cost_ratio[{method},{c['dataset']},n={c['n']}]"] = o[method] / o["exact"]
            if c["n"] != config.quality_n:
                m[f"cost_ratio[hiref,{c['dataset']},n={c['n']}]"] = o["hiref"]["cost"] / o["exact"]

    checks = [o["hiref"]["is_permutation"] for _, o in quality + highdim + sink]
    checks += [p for o in timing for p in o["is_permutation"]]
    m["permutation_rate"] = float(np.mean(checks)) if checks else math.nan
    m["hiref_runs"] = float(len(checks))
    dense = [(c["n"], o["sinkhorn_nnz"]) for c, o in quality + sink if "sinkhorn_nnz" in o]
    if dense:
        n_s = max(n for n, _ in dense)
        m["sinkhorn_nonzero_fraction_of_n2"] = float(
            np.mean([z / n_s**2 for n, z in dense if n == n_s])
        )
        m["sinkhorn_nonzeros_n"] = float(n_s)

    if timing:
        t = timing[0]
        ns = t["n"]
        clock = t["seconds"] if config.clock == "wall" else t["work"]
        if config.timing_from in ns and 4 * config.timing_from in ns:
            i, j = ns.index(config.timing_from), ns.index(4 * config.timing_from)
            m["time_growth_per_4x"] = clock[j] / clock[i]
        m["work_growth_per_4x"] = (
            t["work"][ns.index(4 * config.timing_from)] / t["work"][ns.index(config.timing_from)]
            if 4 * config.timing_from in ns
            else math.nan
        )
        if config.clock == "wall":
            for n, s, mem, r in zip(
                ns, t["seconds"], t["peak_rss_mb"], t["ratio_to_w2"], strict=True
            ):
                m[f"seconds[n={n}]"] = s
                m[f"peak_rss_mb[n={n}]"] = mem
                m[f"cost_ratio_to_closed_form_w2[n={n}]"] = r
        else:
            for n, r in zip(ns, t["ratio_to_w2"], strict=True):
                m[f"cost_ratio_to_closed_form_w2[n={n}]"] = r

    key = f"minibatch_{config.claim_batch}"
    top = max((c["n"] for c, _ in highdim), default=None)
    for c, o in highdim:
        m[f"cost_ratio_to_minibatch[{config.claim_batch},{c['dataset']},n={c['n']}]"] = (
            o["hiref"]["cost"] / o[key]
        )
    mb = [o["hiref"]["cost"] / o[key] for c, o in highdim if c["n"] == top]
    m["max_cost_ratio_to_minibatch1024"] = max(mb) if mb else math.nan
    for c, o in sink:
        tag = f"{c['dataset']},n={c['n']}"
        m[f"cost_ratio_to_sinkhorn[{tag}]"] = o["hiref"]["cost"] / o["sinkhorn"]
        for method, value in (("hiref", o["hiref"]["cost"]), ("sinkhorn", o["sinkhorn"])):
            m[f"cost_ratio[{method},{tag}]"] = value / o["exact"]
        m[f"cost_ratio[{key},{tag}]"] = o[key] / o["exact"]
    sk = [o["hiref"]["cost"] / o["sinkhorn"] for _, o in sink]
    m["max_cost_ratio_to_sinkhorn"] = max(sk) if sk else math.nan

    figures = {"cost_ratio_vs_n": _fig_ratios(config, quality)}
    if timing:
        figures["time_memory_vs_n"] = _fig_timing(config, timing[0])
    drawn = [o["map"] for _, o in quality if "map" in o]
    if drawn:
        figures["map_halfmoon_scurve"] = _fig_map(drawn[0])
    return Summary(m, figures)


def _fig_ratios(config: Config, quality: list[tuple[dict, dict]]) -> Figure:
    """Cost / exact against n for HiRef and the alternatives (seed 0), one panel per data set."""
    fig = Figure(figsize=(4.0 * len(config.datasets), 3.4))
    axes = fig.subplots(1, len(config.datasets), squeeze=False)[0]
    methods = ["hiref", "sinkhorn", *(f"minibatch_{b}" for b in config.batches), "lowrank"]
    for ax, dataset in zip(axes, config.datasets, strict=True):
        rows = sorted((c["n"], o) for c, o in quality if c["dataset"] == dataset and c["seed"] == 0)
        for method in methods:
            pts = [
                (n, (o[method]["cost"] if method == "hiref" else o[method]) / o["exact"])
                for n, o in rows
                if method in o
            ]
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o", label=method)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(dataset)
        ax.set_xlabel("n")
    axes[0].set_ylabel("cost / exact (ot.emd)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_timing(config: Config, t: dict) -> Figure:
    fig = Figure(figsize=(8.5, 3.4))
    ax1, ax2 = fig.subplots(1, 2)
    ns = np.array(t["n"], dtype=float)
    clock = t["seconds"] if config.clock == "wall" else t["work"]
    ax1.loglog(ns, clock, marker="o", label="HiRef")
    ax1.loglog(ns, clock[0] * ns * np.log(ns) / (ns[0] * np.log(ns[0])), "--", label="n log n")
    ax1.set_xlabel("n")
    ax1.set_ylabel("wall seconds" if config.clock == "wall" else "operation count")
    ax1.legend()
    ax2.loglog(ns, t["peak_rss_mb"], marker="o")
    ax2.set_xlabel("n")
    ax2.set_ylabel("peak RSS (MB)")
    fig.tight_layout()
    return fig


def _fig_map(drawn: dict) -> Figure:
    X, Y, perm = (np.asarray(drawn[k]) for k in ("X", "Y", "perm"))
    fig = Figure(figsize=(4.5, 4.5))
    ax = fig.subplots()
    for i in range(len(X)):
        ax.plot([X[i, 0], Y[perm[i], 0]], [X[i, 1], Y[perm[i], 1]], color="0.6", linewidth=0.4)
    ax.scatter(X[:, 0], X[:, 1], s=4, label="half-moon (X)")
    ax.scatter(Y[:, 0], Y[:, 1], s=4, label="S-curve (Y)")
    ax.set_aspect("equal")
    ax.legend(fontsize=7)
    ax.set_title("HiRef map, half-moon -> S-curve")
    fig.tight_layout()
    return fig
