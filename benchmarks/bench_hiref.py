"""hiref: Hierarchical Refinement against exact OT (ot.emd), mini-batch OT and the official HR_OT.

Ten tables, printed as markdown (torch single-threaded, as on our 2-core machines, except
where a table says otherwise):

1. quality: cost(HiRef) / cost(ot.emd) on the four data sets (mean and max over seeds);
2. speed: wall time of HiRef and ot.emd, and their ratio;
3. scale: n = 2^14 .. 2^22 Gaussian -> Gaussian, each n at 1 and at 2 torch
   threads, each run in a fresh process: wall time, peak RSS, cost / closed-form W2^2
   (``--scale-log2n``, ``--scale-threads`` choose the rows);
3b. dask: n = 2^20 and 2^22 on two local one-thread Dask workers against one
   process at torch's default thread count (``--dask-log2n``);
3c. memory: peak RSS by level's subsolver, leaves and the rest at 1 and 2 threads,
   n = 2^20 (``--memory-log2n``), RSS sampled every 3 ms in a fresh process;
3d. threads: whether the subsolver on two threads gives the one-thread bits, for a
   whole batch of blocks, half of it and one block;
4. euclidean: ``cost="euclidean"`` against ``ot.emd`` on the Euclidean cost;
5. official: the official HR_OT (raphael-group/HiRef, src/ on ``--official-src``), run with
   its defaults on ``n = 16384`` beside ours, if a path is given. Its code is never copied here:
   point ``--official-src`` at a checkout outside this repository;
6. schedules (why (a) misses): cost / exact on moons -> rings and checkerboard at n = 4096 under
   other rank schedules and with 4 starts;
7. premise (why (a) misses): at the first level, the fraction of points whose exact image falls
   in another co-cluster, and the LR objective of the found co-clusters against the ones
   consistent with the exact map; with ``--official-src``, also for the official full FRLC.

    python benchmarks/bench_hiref.py                     # the README's tables
    python benchmarks/bench_hiref.py --quick             # a minute
    python benchmarks/bench_hiref.py --official-src /tmp/HiRef/src
    python benchmarks/bench_hiref.py --only scale dask   # tables 3 and 3b (40 minutes)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.hiref import DATASETS, GAUSSIAN_W2_SQUARED, hiref, sample, transport_cost  # noqa: E402
from icml25.hiref.baselines import exact_cost, minibatch_ot  # noqa: E402
from icml25.hiref.reproduce import _timed_in_fresh_interpreter  # noqa: E402


class ExactCosts:
    """``ot.emd`` costs keyed by cost, data set, n and seed, kept in an optional JSON file that
    is read if present and extended as each new one is computed (``ot.emd`` at n = 16384 takes
    ~4 minutes and 4 GB a call), so that a long table survives an interruption and HiRef can be
    re-run against the same exact costs. The keys do not record the samplers: delete the file
    when ``datasets.py`` changes."""

    def __init__(self, path=None):
        self.path = Path(path) if path else None
        self.values = json.loads(self.path.read_text()) if self.path and self.path.exists() else {}

    def get(self, X, Y, key: str, cost: str = "sqeuclidean") -> float:
        key = key if cost == "sqeuclidean" else f"{cost}/{key}"
        if key not in self.values:
            self.values[key] = exact_cost(X, Y, cost)
            if self.path:
                self.path.write_text(json.dumps(self.values, indent=1))
        return self.values[key]


def quality(ns, seeds, restarts=(1, 4), datasets=tuple(DATASETS), exact_cache=None) -> str:
    """Mean and max over seeds of cost / exact, for each number of subsolver restarts;
    ``exact_cache``: see ``ExactCosts``."""
    exact = ExactCosts(exact_cache)
    rows = []
    for n in ns:
        for dataset in datasets:
            ratios = {k: [] for k in restarts}
            for seed in range(seeds):
                X, Y = sample(dataset, n, seed)
                optimum = exact.get(X, Y, f"{dataset}/{n}/{seed}")
                for k in restarts:
                    perm = hiref(X, Y, seed=seed, restarts=k)
                    ratios[k].append(transport_cost(X, Y, perm) / optimum)
            for k in restarts:
                rows.append([n, dataset, k, seeds, float(np.mean(ratios[k])), max(ratios[k])])
    return table(["n", "data set", "restarts", "seeds", "mean cost/exact", "max cost/exact"], rows)


def euclidean(ns, seeds, exact_cache=None) -> str:
    """``cost="euclidean"``: cost / exact (``ot.emd`` on ``|x - y|``), mean and max over seeds, the
    worst level's sampled factor error, and the time beside the squared Euclidean run."""
    exact = ExactCosts(exact_cache)
    rows = []
    for n in ns:
        for dataset in DATASETS:
            ratios, errors, seconds, seconds_sq = [], [], 0.0, 0.0
            for seed in range(seeds):
                X, Y = sample(dataset, n, seed)
                optimum = exact.get(X, Y, f"{dataset}/{n}/{seed}", "euclidean")
                begin = time.perf_counter()
                perm, info = hiref(X, Y, cost="euclidean", seed=seed, log=True)
                seconds += time.perf_counter() - begin
                begin = time.perf_counter()
                hiref(X, Y, seed=seed)
                seconds_sq += time.perf_counter() - begin
                ratios.append(transport_cost(X, Y, perm, "euclidean") / optimum)
                errors.append(max(level["factor_error"] for level in info["levels"]))
            rows.append(
                [
                    n,
                    dataset,
                    float(np.mean(ratios)),
                    max(ratios),
                    max(errors),
                    seconds / seeds,
                    seconds_sq / seeds,
                ]
            )
    header = [
        "n",
        "data set",
        "mean cost/exact",
        "max cost/exact",
        "max factor error",
        "euclidean s",
        "sqeuclidean s",
    ]
    return table(header, rows)


def speed(ns) -> str:
    rows = []
    for n in ns:
        X, Y = sample("halfmoon_scurve", n, 0)
        t_ours, _, perm = measure(lambda X=X, Y=Y: hiref(X, Y), repeat=1)
        t_emd, _, exact = measure(lambda X=X, Y=Y: exact_cost(X, Y), repeat=1)
        t_mb, _, mb = measure(lambda X=X, Y=Y: minibatch_ot(X, Y, 1024, 0), repeat=1)
        rows.append(
            [
                n,
                t_ours,
                t_emd,
                t_emd / t_ours,
                transport_cost(X, Y, perm) / exact,
                t_mb,
                transport_cost(X, Y, mb) / exact,
            ]
        )
    header = [
        "n",
        "HiRef s",
        "ot.emd s",
        "speed-up",
        "HiRef cost/exact",
        "MB-1024 s",
        "MB-1024 cost/exact",
    ]
    return table(header, rows)


def scale(ns, threads=(1, 2)) -> str:
    """Gaussian -> Gaussian at each n, once per torch thread count, each run in a fresh
    process (so that its peak RSS is its own): wall time, peak RSS, cost / closed-form W2^2."""
    rows = []
    for n in ns:
        row = [n]
        for t in threads:
            run = _timed_in_fresh_interpreter("gaussians", n, 0, threads=t)
            row += [run["seconds"], run["peak_rss_mb"] / 1024]
            print(n, t, run, flush=True)  # a long table: rows as they come
        rows.append(row + [run["cost"] / GAUSSIAN_W2_SQUARED])
    header = ["n"]
    for t in threads:
        header += [f"{t} thread{'s' * (t > 1)}: wall s", "peak RSS GB"]
    return table(header + ["cost / W2^2 (closed form)"], rows)


def _this_script_in_a_fresh_process(*arguments) -> dict:
    """This benchmark run as a new Python process with ``arguments`` (so that its peak RSS is
    its own): the JSON its last line prints."""
    command = [sys.executable, __file__, *map(str, arguments)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _on_dask(n: int, workers: int, seed: int = 0) -> dict:
    """One HiRef run with a ``LocalCluster`` of ``workers`` one-thread worker processes (the
    cluster's start-up not timed; this process keeps torch's default threads): wall seconds,
    the driver's and each worker's peak RSS, the bytes shipped, the per-level seconds."""
    import hashlib  # noqa: PLC0415

    from distributed import Client, LocalCluster  # noqa: PLC0415

    from icml25.hiref.reproduce import peak_rss_mb  # noqa: PLC0415

    X, Y = sample("gaussians", n, seed)
    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True) as cluster,
        Client(cluster) as client,
    ):
        begin = time.perf_counter()
        perm, info = hiref(X, Y, seed=seed, log=True, client=client)
        seconds = time.perf_counter() - begin
        worker_rss = list(client.run(peak_rss_mb).values())
    return {
        "seconds": seconds,
        "driver_threads": torch.get_num_threads(),
        "driver_rss_mb": peak_rss_mb(),
        "worker_rss_mb": worker_rss,
        "shipped_mb": (X.nbytes + Y.nbytes) / 2**20,  # every row once, float64
        "dask_depth": info["dask_depth"],
        "dask_seconds": info["dask_seconds"],
        "levels": [(lv["blocks"], lv["seconds"]) for lv in info["levels"]],
        "leaf_seconds": info["leaf_seconds"],
        "cost": info["cost"],
        "perm_sha1": hashlib.sha1(np.ascontiguousarray(perm).tobytes()).hexdigest(),
    }


def dask_rows(ns, threads: int, workers: int = 2) -> str:
    """HiRef on ``workers`` local one-thread Dask workers against one process on ``threads``
    torch threads, both in fresh processes, Gaussians; same permutation (sha1) or not."""
    rows = []
    for n in ns:
        alone = _timed_in_fresh_interpreter("gaussians", n, 0, threads=threads)
        dask = _this_script_in_a_fresh_process("--dask-run", n, workers)
        print(n, alone, dask, flush=True)
        rows.append(
            [
                n,
                alone["seconds"],
                alone["peak_rss_mb"] / 1024,
                dask["seconds"],
                dask["driver_rss_mb"] / 1024,
                max(dask["worker_rss_mb"]) / 1024,
                dask["shipped_mb"],
                dask["dask_depth"],
                alone["perm_sha1"] == dask["perm_sha1"],
                dask["cost"] / GAUSSIAN_W2_SQUARED,
            ]
        )
    header = [
        "n",
        f"one process ({threads} threads) s",
        "its peak RSS GB",
        f"{workers} Dask workers s",
        "driver peak RSS GB",
        "worker peak RSS GB",
        "shipped MB",
        "hand-off depth",
        "same permutation",
        "cost / W2^2",
    ]
    return table(header, rows)


def _memory_run(n: int, threads: int) -> dict:
    """One HiRef run on Gaussians (this process, torch on ``threads``) with the RSS sampled every
    3 ms and attributed to what runs: each level's subsolver, the leaves, the rest (factors,
    splits). Instrumentation only: it wraps ``refine._solve`` and the leaves' solver."""
    import threading  # noqa: PLC0415

    from icml25.hiref import refine  # noqa: PLC0415
    from icml25.hiref.reproduce import peak_rss_mb  # noqa: PLC0415

    torch.set_num_threads(threads)
    driver = sys.modules["icml25.hiref.hiref"]
    phase, peaks, solves = ["other"], {}, [0]

    def labelled(fn, label):
        def run(*args, **kwargs):
            phase[0] = label() if callable(label) else label
            try:
                return fn(*args, **kwargs)
            finally:
                phase[0] = "other"

        return run

    def next_level():
        solves[0] += 1
        return f"level {solves[0] - 1} subsolver"

    refine._solve = labelled(refine._solve, next_level)
    driver.solve_leaves = labelled(driver.solve_leaves, "leaves")

    def rss() -> float:
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) / 1024 for line in fh if line.startswith("VmRSS:"))

    done = threading.Event()

    def sample_rss() -> None:
        while not done.wait(0.003):
            label = phase[0]
            peaks[label] = max(peaks.get(label, 0.0), rss())

    X, Y = sample("gaussians", n, 0)
    sampler = threading.Thread(target=sample_rss, daemon=True)
    sampler.start()
    begin = time.perf_counter()
    hiref(X, Y, seed=0)
    seconds = time.perf_counter() - begin
    done.set()
    sampler.join()
    return {"seconds": seconds, "peak_rss_mb": peak_rss_mb(), "by_phase": peaks}


def memory(n: int, threads=(1, 2)) -> str:
    """Peak RSS (MB) by level's subsolver, leaves and the rest, at 1 and 2 torch threads, each in
    a fresh process (where a second thread's extra memory appears)."""
    runs = {}
    for t in threads:
        runs[t] = _this_script_in_a_fresh_process("--memory-run", n, t)
        print(n, t, runs[t], flush=True)
    labels = list(dict.fromkeys(k for run in runs.values() for k in run["by_phase"]))
    rows = [[k] + [runs[t]["by_phase"].get(k, float("nan")) for t in threads] for k in labels]
    rows.append(["whole run (VmHWM)"] + [runs[t]["peak_rss_mb"] for t in threads])
    rows.append(["wall s"] + [runs[t]["seconds"] for t in threads])
    header = [f"n = {n}: phase"] + [f"{t} thread{'s' * (t > 1)}: peak RSS MB" for t in threads]
    return table(header, rows)


def _solve_first(problem, count: int, threads: int, options: dict) -> torch.Tensor:
    """``lowrank._solve`` on the first ``count`` blocks of ``problem`` on ``threads`` threads: Q."""
    from icml25.hiref.lowrank import _solve  # noqa: PLC0415

    torch.set_num_threads(threads)
    return _solve(*(t[:count] for t in problem), tol=1e-30, **options)[0]


def thread_invariance(iterations: int = 30) -> str:
    """Does the subsolver on two torch threads give the one-thread bits? Per batch shape: the
    whole batch, half of it and one block alone, each compared with the whole batch on one
    thread (random factors, k = r = 4, a fixed number of iterations)."""
    from icml25.hiref.lowrank import random_start  # noqa: PLC0415

    previous = torch.get_num_threads()
    options = {"gamma": 1.0, "max_iter": iterations, "min_iter": iterations, "inner_iter": 5}
    rows = []
    for blocks, m in ((16, 4096), (4, 65536), (1, 262144)):
        gen = torch.Generator().manual_seed(0)
        A, B = torch.rand(blocks, 4, m, generator=gen), torch.rand(blocks, 4, m, generator=gen)
        a, g = torch.full((blocks, m), 1 / m), torch.full((blocks, 4), 0.25)
        start = random_start(blocks, m, 4, torch.Generator().manual_seed(1))
        problem = (A, B, a, a, g, start)  # (blocks, ...) each
        reference = _solve_first(problem, blocks, 1, options)
        same = [
            torch.equal(_solve_first(problem, c, 2, options), reference[:c])
            for c in (blocks, max(blocks // 2, 1), 1)
        ]
        rows.append([blocks, m, *same])
    torch.set_num_threads(previous)
    header = ["blocks", "m", "whole batch", "half batch", "one block"]
    return table(header, rows) + "\n(True: two threads give the one-thread bits)"


def _official_perm(X, Y, schedule, seed) -> tuple[np.ndarray, float]:
    """The official HR_OT (FRLC subsolver, its defaults) on one pair: (perm, wall seconds)."""
    import HR_OT  # noqa: PLC0415  (the official code, outside this repository)

    Xt, Yt = torch.from_numpy(X).float(), torch.from_numpy(Y).float()
    torch.manual_seed(seed)  # the official code draws its initialisation from torch's global RNG
    begin = time.perf_counter()
    solver = HR_OT.HierarchicalRefinementOT.init_from_point_clouds(
        Xt, Yt, list(schedule), base_rank=1, device="cpu", sq_Euclidean=True
    )
    clusters = solver.run(return_as_coupling=False)
    seconds = time.perf_counter() - begin
    perm = np.full(len(X), -1, dtype=np.int64)
    for ix, iy in clusters:
        perm[ix.cpu().numpy()] = iy.cpu().numpy()
    return perm, seconds


def official(src: str, n: int, seed: int = 0) -> str:
    """The official HR_OT with its defaults (rank schedule from its own optimiser) beside ours."""
    sys.path.insert(0, src)
    import rank_annealing  # noqa: PLC0415

    X, Y = sample("halfmoon_scurve", n, seed)
    schedule = rank_annealing.optimal_rank_schedule(n, hierarchy_depth=6, max_Q=2**10, max_rank=16)
    perm_official, t_official = _official_perm(X, Y, schedule, seed)
    is_perm = bool(np.array_equal(np.sort(perm_official), np.arange(n)))
    cost_official = float(np.mean(np.sum((X - Y[perm_official]) ** 2, axis=1)))
    begin = time.perf_counter()
    perm = hiref(X, Y, seed=seed)
    t_ours = time.perf_counter() - begin
    rows = [
        ["official HR_OT", n, str(schedule), t_official, cost_official, is_perm],
        ["icml25.hiref", n, "default", t_ours, transport_cost(X, Y, perm), True],
    ]
    out = table(["solver", "n", "schedule", "wall s", "cost", "permutation"], rows)
    return (
        out
        + f"\n\nspeed-up {t_official / t_ours:.3g}x, cost ratio ours/official "
        + (f"{transport_cost(X, Y, perm) / cost_official:.4f}")
    )


SCHEDULES = {
    "(4, 4), leaf 256 (default)": {},
    "(4, 4), best of 4 starts": {"restarts": 4},
    "(2, 2, 2, 2)": {"ranks": (2, 2, 2, 2)},
    "(16,)": {"ranks": (16,), "max_rank": 16},
    "(4,), leaf 1024": {"ranks": (4,)},
    "(2,), leaf 2048": {"ranks": (2,)},
    "(8, 8), leaf 64": {"ranks": (8, 8), "max_rank": 8},
    "(4, 4, 4), leaf 64": {"ranks": (4, 4, 4)},
}


def schedules(n: int, seeds: int, datasets=("moons_rings", "checkerboard")) -> str:
    """Why (a) misses: cost / exact of HiRef under other rank schedules and more starts."""
    rows = []
    for dataset in datasets:
        for seed in range(seeds):
            X, Y = sample(dataset, n, seed)
            exact = exact_cost(X, Y)
            for label, options in SCHEDULES.items():
                begin = time.perf_counter()
                perm = hiref(X, Y, seed=seed, **options)
                seconds = time.perf_counter() - begin
                rows.append([dataset, seed, label, seconds, transport_cost(X, Y, perm) / exact])
    return table(["data set", "seed", "schedule", "wall s", "cost / exact"], rows)


def _partition_cost(X, Y, lx, ly, r) -> float:
    """Transport cost of the block coupling of equal-size co-clusters ``lx``, ``ly`` (labels
    0..r-1): ``sum_z (n_z / n) (Var X_z + Var Y_z + |mean X_z - mean Y_z|^2)``, the LR
    objective of hard co-clusters with ``g = 1/r``."""
    total = 0.0
    for z in range(r):
        Xz, Yz = X[lx == z], Y[ly == z]
        spread = Xz.var(0).sum() + Yz.var(0).sum()
        total += len(Xz) / len(X) * (spread + np.sum((Xz.mean(0) - Yz.mean(0)) ** 2))
    return float(total)


def _hard_labels(P: torch.Tensor, r: int) -> np.ndarray:
    """Greedy capacity split (hiref's, the official code's) of a soft assignment P (n, r)."""
    from icml25.hiref.refine import split  # noqa: PLC0415

    n = P.shape[0]
    chunks = split(
        torch.arange(n).unsqueeze(0), P.T.float().unsqueeze(0), torch.full((1, r), n // r), n // r
    )
    labels = np.empty(n, dtype=np.int64)
    for z, members in enumerate(chunks.numpy()):
        labels[members] = z
    return labels


def _co_clusters(X, Y, r, solver, starts, src=None):
    """Best of ``starts`` first-level co-clusterings (lowest LR objective) by our subsolver or
    the official FRLC_LR_opt (full FRLC: free T, its defaults, ``diagonalize_return``)."""
    from icml25.hiref.costs import sqeuclidean_factors  # noqa: PLC0415
    from icml25.hiref.lowrank import lowrank_ot  # noqa: PLC0415

    centre = 0.5 * (X.mean(0) + Y.mean(0))
    Xc, Yc = torch.from_numpy(X - centre), torch.from_numpy(Y - centre)
    best = None
    for start in range(starts):
        if solver == "ours":
            Q, R = lowrank_ot(*sqeuclidean_factors(Xc.float(), Yc.float()), r, seed=start)
        else:
            sys.path.insert(0, src)
            import FRLC  # noqa: PLC0415  (the official code, outside this repository)
            import HR_OT  # noqa: PLC0415

            torch.manual_seed(start)
            factors = HR_OT.compute_lr_sqeuclidean_matrix(Xc, Yc, rescale_cost=True)
            Q, R, _, _ = FRLC.FRLC_LR_opt(
                factors,
                None,
                None,
                gamma=90,
                r=r,
                max_iter=30,
                min_iter=15,
                max_inneriters_balanced=300,
                max_inneriters_relaxed=300,
                diagonalize_return=True,
                printCost=False,
                tau_in=100000,
                dtype=torch.float64,
            )
        lx, ly = _hard_labels(Q, r), _hard_labels(R, r)
        value = _partition_cost(X, Y, lx, ly, r)
        if best is None or value < best[0]:
            best = (value, lx, ly)
    return best


def premise(n: int, seeds: int, ranks=(2, 4), datasets=tuple(DATASETS), src=None) -> str:
    """Why (a) misses: HiRef's premise is that a minimal-objective rank-r co-clustering sends
    every point's optimal image to its own co-cluster. At the first level: the co-clusters a
    subsolver finds (ours: best of 8 starts; the official full FRLC, if ``src`` is given: best
    of 2), the fraction of points whose exact image (``ot.emd``) lies in another co-cluster
    ("torn"), and the LR objective of the co-clusters *consistent* with the exact map (same X
    side, Y side = the images of the X side) against the found ones, both / exact cost."""
    import ot  # noqa: PLC0415

    solvers = [("ours", 8)] + ([("official FRLC", 2)] if src else [])
    rows = []
    for dataset in datasets:
        for seed in range(seeds):
            X, Y = sample(dataset, n, seed)
            w = np.full(n, 1.0 / n)
            sigma = ot.emd(w, w, ot.dist(X, Y), numItermax=100 * n * n).argmax(1)  # (n,)
            exact = float(np.mean(np.sum((X - Y[sigma]) ** 2, axis=1)))
            for r in ranks:
                for solver, starts in solvers:
                    found, lx, ly = _co_clusters(X, Y, r, solver, starts, src)
                    consistent_y = np.empty(n, dtype=np.int64)
                    consistent_y[sigma] = lx
                    torn = float(np.mean(ly[sigma] != lx))
                    consistent = _partition_cost(X, Y, lx, consistent_y, r)
                    rows.append([dataset, seed, r, solver, torn, found / exact, consistent / exact])
                    print(*rows[-1], sep=" | ", flush=True)  # a long table: rows as they come
    return table(
        ["data set", "seed", "rank", "solver", "torn", "LR found / exact", "LR consistent / exact"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--official-src", default=None, help="path of the official HiRef src/")
    parser.add_argument("--official-n", type=int, default=16384, help="n for the official run")
    parser.add_argument(
        "--quality-n", type=int, nargs="*", default=[512, 1024, 4096], help="n of the quality table"
    )
    parser.add_argument(
        "--quality-datasets",
        nargs="*",
        default=list(DATASETS),
        choices=list(DATASETS),
        help="data sets of the quality table",
    )
    parser.add_argument("--exact-cache", default=None, help="JSON file caching ot.emd costs")
    parser.add_argument("--only", nargs="*", default=None, help="tables to run")
    parser.add_argument("--skip", nargs="*", default=[], help="tables to skip")
    parser.add_argument(
        "--scale-log2n", type=int, nargs="*", default=list(range(14, 23)), help="log2 n of scale"
    )
    parser.add_argument("--scale-threads", type=int, nargs="*", default=[1, 2])
    parser.add_argument(
        "--dask-log2n", type=int, nargs="*", default=[20, 22], help="log2 n of the Dask rows"
    )
    parser.add_argument("--dask-run", nargs=2, type=int, help=argparse.SUPPRESS)  # N WORKERS
    parser.add_argument("--memory-run", nargs=2, type=int, help=argparse.SUPPRESS)  # N THREADS
    parser.add_argument("--memory-log2n", type=int, default=20, help="log2 n of the memory table")
    args = parser.parse_args()
    if args.dask_run:  # one run of dask_rows, in its own process
        print(json.dumps(_on_dask(*args.dask_run)))
        return
    if args.memory_run:  # one run of memory, in its own process
        print(json.dumps(_memory_run(*args.memory_run)))
        return
    default_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    if args.quick:
        sections = {
            "quality": lambda: quality([512, 1024], 2),
            "speed": lambda: speed([1024, 2048]),
            "scale": lambda: scale([2**12, 2**14]),
            "dask": lambda: dask_rows([2**14], default_threads),
            "euclidean": lambda: euclidean([1024], 2),
        }
    else:
        sections = {
            "quality": lambda: quality(
                args.quality_n, 5, datasets=args.quality_datasets, exact_cache=args.exact_cache
            ),
            "speed": lambda: speed([1024, 4096, 8192]),
            "scale": lambda: scale([2**k for k in args.scale_log2n], args.scale_threads),
            "dask": lambda: dask_rows([2**k for k in args.dask_log2n], default_threads),
            "euclidean": lambda: euclidean([1024, 4096], 5, exact_cache=args.exact_cache),
        }
    sections["schedules"] = lambda: schedules(4096, 2)
    sections["memory"] = lambda: memory(2**12 if args.quick else 2**args.memory_log2n)
    sections["threads"] = thread_invariance
    sections["premise"] = lambda: premise(
        4096, 2, datasets=("moons_rings", "checkerboard", "gaussians"), src=args.official_src
    )
    if args.official_src:
        sections["official"] = lambda: official(args.official_src, args.official_n)
    for name, run in sections.items():
        if name in args.skip or (args.only is not None and name not in args.only):
            continue
        begin = time.perf_counter()
        print(f"\n### {name}\n\n{run()}\n\n({time.perf_counter() - begin:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
