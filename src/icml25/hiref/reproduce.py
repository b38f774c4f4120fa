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
import resource
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np

from icml25.hiref.baselines import exact_cost, lowrank_coupling_cost, minibatch_ot, sinkhorn_plan
from icml25.hiref.datasets import DATASETS, GAUSSIAN_W2_SQUARED, HIGHDIM, sample
from icml25.hiref.hiref import hiref, is_permutation


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
