"""Reproduction: Hierarchical Refinement (Halmos et al., ICML 2025) against exact, entropic,
mini-batch and low-rank OT, on four 2-D pairs of point clouds and four high-dimensional ones.

Cells (each independent, seeded by the runner):

- ``quality``: one 2-D data set, one ``n``, one seed: HiRef and the exact cost (``ot.emd``);
  for seed 0 also Sinkhorn (``n <= sinkhorn_max_n``), mini-batch OT (B = 128, 1024) and a
  single low-rank coupling, for the cost-ratio figure; claim (a), per data set;
- ``highdim``: one 64- or 256-dimensional data set at ``n`` in ``highdim_ns``: HiRef against
  mini-batch OT (B = 1024), claim (d1);
- ``sinkhorn``: one high-dimensional data set at ``sinkhorn_n``: HiRef, Sinkhorn, mini-batch
  OT and the exact cost, claim (d2);
- ``timing``: HiRef on Gaussian -> Gaussian at growing ``n``, each size in a fresh process so
  its peak RSS is its own; claim (c) and the time/memory figure. At the smoke scale the clock is
  an operation count (``clock = "work"``) so that a rerun gives the same numbers.

Figures: cost ratio to exact against ``n`` per 2-D data set; time and peak memory against
``n`` (log-log); the map drawn for half-moon -> S-curve.
"""

from __future__ import annotations

import hashlib
import json
import math
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from icml25.hiref.baselines import exact_cost, lowrank_coupling_cost, minibatch_ot, sinkhorn_plan
from icml25.hiref.datasets import DATASETS, GAUSSIAN_W2_SQUARED, HIGHDIM, sample
from icml25.hiref.hiref import hiref, is_permutation
from icml25.lab.reproduction import Summary


@dataclass(frozen=True)
class Config:
    datasets: tuple[str, ...] = tuple(DATASETS)
    quality_n: int = 4096
    quality_seeds: int = 5
    curve_ns: tuple[int, ...] = ()
    sinkhorn_max_n: int = 2048
    batches: tuple[int, ...] = (128, 1024)
    lowrank_rank: int = 32
    highdim: tuple[str, ...] = tuple(HIGHDIM)
    highdim_ns: tuple[int, ...] = (2**14,)
    sinkhorn_n: int = 4096  # claim (d2): the largest n dense Sinkhorn runs at in the budget
    claim_batch: int = 1024
    timing_ns: tuple[int, ...] = (2**12, 2**14, 2**16, 2**17, 2**18)
    timing_from: int = 2**16  # claim (c): growth from timing_from to 4 * timing_from
    clock: str = "wall"  # "wall" seconds, or "work" (a deterministic operation count)


SCALES = {
    "smoke": Config(
        quality_n=1024,
        quality_seeds=2,
        sinkhorn_max_n=512,  # no dense Sinkhorn on the 2-D data sets at smoke scale
        batches=(64,),
        lowrank_rank=16,
        highdim=("gmm64", "digits64"),
        highdim_ns=(2048,),
        sinkhorn_n=512,
        claim_batch=128,  # the default's batch-to-n ratio, 1024 / 2^14
        timing_ns=(2**12, 2**14),
        timing_from=2**12,
        clock="work",
    ),
    "default": Config(),
    "paper": Config(
        curve_ns=(512, 1024, 2048, 8192, 16384),
        sinkhorn_max_n=8192,
        highdim_ns=(2**14, 2**15, 2**16),
        sinkhorn_n=16384,
        timing_ns=(2**12, 2**14, 2**16, 2**17, 2**18, 2**19, 2**20),
    ),
}


def cells(config: Config) -> list[dict]:
    out = []
    for dataset in config.datasets:
        for seed in range(config.quality_seeds):
            out.append({"kind": "quality", "dataset": dataset, "n": config.quality_n, "seed": seed})
        for n in config.curve_ns:
            out.append({"kind": "quality", "dataset": dataset, "n": n, "seed": 0})
    for dataset in config.highdim:
        for n in config.highdim_ns:
            out.append({"kind": "highdim", "dataset": dataset, "n": n, "seed": 0})
        out.append({"kind": "sinkhorn", "dataset": dataset, "n": config.sinkhorn_n, "seed": 0})
    out.append({"kind": "timing", "dataset": "gaussians", "n": 0, "seed": 0})
    return out


def _minibatch_cost(X: np.ndarray, Y: np.ndarray, batch: int, seed: int) -> float:
    perm = minibatch_ot(X, Y, batch, seed)
    return float(np.mean(np.sum((X - Y[perm]) ** 2, axis=1)))


def _hiref_run(X: np.ndarray, Y: np.ndarray, seed: int) -> dict:
    begin = time.perf_counter()
    perm, info = hiref(X, Y, seed=seed, log=True)
    return {
        "cost": info["cost"],
        "is_permutation": bool(is_permutation(perm, len(X))),
        "seconds": time.perf_counter() - begin,
        "work": info["work"],
        "ranks": list(info["ranks"]),
        "leaf": info["leaf"],
        "perm": perm,
    }


def _timed(dataset: str, n: int, seed: int) -> dict:
    """One HiRef run in this process: wall seconds, operation count, peak RSS (MB)."""
    X, Y = sample(dataset, n, seed)
    run = _hiref_run(X, Y, seed)
    run["perm_sha1"] = hashlib.sha1(run.pop("perm").tobytes()).hexdigest()  # same map or not
    run["peak_rss_mb"] = peak_rss_mb()
    return run


def peak_rss_mb() -> float:
    """This process's peak resident set size in MB.

    Linux's ``VmHWM`` (reset by ``exec``); ``ru_maxrss`` survives ``fork + exec`` and would report
    the parent's peak, so it is only the fallback on other systems.
    """
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed_in_fresh_interpreter(dataset: str, n: int, seed: int, threads: int = 1) -> dict:
    """``_timed`` in a new Python process (torch on ``threads`` threads), so that the peak RSS
    is its own.

    A plain subprocess rather than multiprocessing: the runner's workers are loky processes,
    whose start method a multiprocessing child cannot inherit.
    """
    code = (
        f"import json, sys, torch; torch.set_num_threads({int(threads)}); "
        "from icml25.hiref.reproduce import _timed; "
        f"print(json.dumps(_timed({dataset!r}, {int(n)}, {int(seed)})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=3600
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    kind, dataset, n = cell["kind"], cell["dataset"], cell["n"]
    if kind == "timing":
        rows = []
        for size in config.timing_ns:
            if config.clock == "wall":
                rows.append(_timed_in_fresh_interpreter(dataset, size, seed))
            else:
                rows.append(_timed(dataset, size, seed))
        return {
            "n": list(config.timing_ns),
            "seconds": [r["seconds"] for r in rows],
            "work": [r["work"] for r in rows],
            "peak_rss_mb": [r["peak_rss_mb"] for r in rows],
            "ratio_to_w2": [r["cost"] / GAUSSIAN_W2_SQUARED for r in rows],
            "is_permutation": [r["is_permutation"] for r in rows],
        }
    X, Y = sample(dataset, n, seed)
    run = _hiref_run(X, Y, seed)
    perm = run.pop("perm")
    out = {"hiref": run}
    if kind == "highdim":
        out[f"minibatch_{config.claim_batch}"] = _minibatch_cost(X, Y, config.claim_batch, seed)
        return out
    if kind == "sinkhorn":
        out["sinkhorn"], out["sinkhorn_nnz"] = sinkhorn_plan(X, Y)
        out[f"minibatch_{config.claim_batch}"] = _minibatch_cost(X, Y, config.claim_batch, seed)
        out["exact"] = exact_cost(X, Y)
        return out
    begin = time.perf_counter()
    out["exact"] = exact_cost(X, Y)
    out["exact_seconds"] = time.perf_counter() - begin
    if cell["seed"] == 0:
        if n <= config.sinkhorn_max_n:
            out["sinkhorn"], out["sinkhorn_nnz"] = sinkhorn_plan(X, Y)
        for batch in config.batches:
            out[f"minibatch_{batch}"] = _minibatch_cost(X, Y, batch, seed)
        out["lowrank"] = lowrank_coupling_cost(X, Y, min(config.lowrank_rank, n), seed)
        if dataset == "halfmoon_scurve" and n == min((*config.curve_ns, config.quality_n)):
            out["map"] = {"X": X, "Y": Y, "perm": perm}
    return out


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    quality = [(c, o) for c, o in results if c["kind"] == "quality"]
    highdim = [(c, o) for c, o in results if c["kind"] == "highdim"]
    sink = [(c, o) for c, o in results if c["kind"] == "sinkhorn"]
    timing = [o for c, o in results if c["kind"] == "timing"]
    m: dict[str, float] = {}

    ratios = [o["hiref"]["cost"] / o["exact"] for c, o in quality if c["n"] == config.quality_n]
    m["median_cost_ratio"] = statistics.median(ratios) if ratios else math.nan  # the old (a)
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
