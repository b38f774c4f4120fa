"""wow_flows: against the official JAX code (clbonet/Flowing_Datasets_with_WoW_Gradient_Flows),
and one WoW flow step batched over all pairs of classes against a loop of POT calls.

Official section (``--official-src`` = a checkout of the official repository outside this one,
``--official-python`` = a Python with jax, jax-tqdm, optax that also sees icml25; both sides run
in that one process, one thread: ``torch.set_num_threads(1)`` and XLA's CPU client limited to
one thread): on the rings of the official notebook (3 rings of 80 points, source = one small
blob, float32), with the Riesz SW kernel (r = 1), 500 directions,

1. one step: the objective ``MMD^2 / 2`` and the WoW gradient ``C n grad`` at the source, from
   the official ``target_value_and_grad_riesz`` (jitted, as its README does) and from ours
   (``mmd_wow``), 10 draws of directions each (the official SW draws its directions and its
   quantile levels from a JAX key; ours draws directions from a torch Generator and uses exact
   sorted projections), and the wall time of one step (interleaved, best of 10);
2. the flow: 501 steps of lr 0.1 (the notebook's), official ``wasserstein_gradient_descent``
   against our ``flow``, 3 seeds each, interleaved; scored by the same functions: MMD^2 to the
   target on 2000 fixed directions (ours), and the largest W2 of a class to the ring it is
   matched to by outer OT (POT).

The anchor is what a user would write with POT: for every pair of classes (source-source,
target-target, source-target) one ``ot.sliced_wasserstein_distance`` call with the torch backend
(so autograd gives the gradient), the same (d, L) directions for every call, then the MMD and
its gradient. Ours projects every class once on those directions, sorts once, and gets all pair
distances from one matrix product. Both compute the same numbers (checked: relative difference
of the MMD and of the gradient). One thread; the peak memory is the growth of the process's
maximum resident set size over the calls (after the data are built), in a fresh child process.
The anchor skips the C self-pairs of each self term (their kernel value is 0 and the gradient
of POT's ``sqrt`` at 0 is NaN), which is what a careful user would do.

    python benchmarks/bench_wow_flows.py --official-src /tmp/anchors/wow_flows \
        --official-python /tmp/anchors/venv-wow_flows/bin/python       # both sections
    python benchmarks/bench_wow_flows.py --skip-pot ...                 # the official one only
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import ot
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.wow_flows import flow, mmd_wow, random_projections, riesz_kernel  # noqa: E402
from icml25.wow_flows.datasets import rings  # noqa: E402
from icml25.wow_flows.mmd import mmd2_sorted  # noqa: E402
from icml25.wow_flows.sliced import sorted_projections  # noqa: E402
from icml25.wow_flows.wow import match_classes, w2_squared_matrix  # noqa: E402

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


def pot_section() -> None:
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

# --------------------------------------------------------------------------- the official code

ONE_THREAD_XLA = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def _ours_step(x0: np.ndarray, y: np.ndarray, seed: int) -> tuple[float, np.ndarray]:
    """Our objective MMD^2 / 2 and WoW gradient C n grad at x0 (float32)."""
    x = torch.tensor(x0, requires_grad=True)
    half = mmd_wow(x, torch.tensor(y), "riesz", n_projections=L, seed=seed) / 2
    (grad,) = torch.autograd.grad(half, x)
    return float(half.detach()), (x0.shape[0] * x0.shape[1] * grad).numpy()


def _score(final: np.ndarray, target: np.ndarray) -> tuple[float, float]:
    """MMD^2 on 2000 fixed directions, and the largest W2 of a class to the ring it is matched
    to (the objective does not care which class lands on which ring: outer OT matching)."""
    mmd2 = float(mmd_wow(final.astype(np.float64), target, "riesz", n_projections=2000, seed=99))
    cost = w2_squared_matrix(final.astype(np.float64), target)  # (C, C), squared
    ring = match_classes(final, target, cost=cost)
    return mmd2, float(np.sqrt(cost[np.arange(len(ring)), ring]).max())


def official_worker(src: str, out: str) -> None:
    """Both sides in this process (the official Python); rows to ``out`` as JSON."""
    torch.set_num_threads(1)
    sys.path.insert(0, src)
    import jax  # noqa: PLC0415
    import jax.numpy as jnp  # noqa: PLC0415
    from lib.gd import wasserstein_gradient_descent  # noqa: PLC0415  (official, outside)
    from lib.mmd import target_value_and_grad_riesz  # noqa: PLC0415

    source, target, _ = rings(80)
    x0, y = source.astype(np.float32), target.astype(np.float32)
    xj, yj = jnp.asarray(x0), jnp.asarray(y)
    official_step = jax.jit(target_value_and_grad_riesz)

    def theirs(k: int):
        value, grad = official_step(xj, yj, jax.random.PRNGKey(k))
        return float(value), np.asarray(grad.block_until_ready())

    theirs(0)  # compile once
    best = {"ours": float("inf"), "official": float("inf")}
    draws = {"ours": [], "official": []}
    for k in range(10):
        for name, fn in (
            ("ours", lambda k=k: _ours_step(x0, y, k)),
            ("official", lambda k=k: theirs(k)),
        ):
            begin = time.perf_counter()
            draws[name].append(fn())
            best[name] = min(best[name], time.perf_counter() - begin)
    values = {k: np.array([v for v, _ in d]) for k, d in draws.items()}
    grads = {k: np.stack([g for _, g in d]) for k, d in draws.items()}
    mean_o, mean_t = grads["ours"].mean(0), grads["official"].mean(0)
    spread = float(np.linalg.norm(grads["official"] - mean_t, axis=(1, 2)).mean())
    cosine = float((mean_o * mean_t).sum() / np.linalg.norm(mean_o) / np.linalg.norm(mean_t))
    rows = [
        ["one step: objective MMD^2/2 (10 draws)", best["ours"] * 1e3, best["official"] * 1e3,
         best["official"] / best["ours"], _pm(values["ours"]), _pm(values["official"]),
         f"{values['ours'].mean() / values['official'].mean():.4f}"],
        ["one step: WoW gradient, mean of 10 draws", "-", "-", "-",
         f"norm(mean ours - mean official) = {np.linalg.norm(mean_o - mean_t):.3g}",
         f"norm(mean official) = {np.linalg.norm(mean_t):.3g}, one draw's spread {spread:.3g}",
         f"cos {cosine:.5f}"],
    ]  # fmt: skip
    secs = {"ours": [], "official": []}
    scores = {"ours": [], "official": []}
    for seed in range(3):
        begin = time.perf_counter()
        res = flow(x0, y, kernel="riesz", steps=501, lr=0.1, seed=seed, record_every=501,
                   n_projections=L, n_eval_projections=10)  # fmt: skip
        secs["ours"].append(time.perf_counter() - begin)
        scores["ours"].append(_score(res.final, target))
        begin = time.perf_counter()
        with contextlib.redirect_stderr(io.StringIO()):  # its tqdm bar
            _, particles = wasserstein_gradient_descent(
                xj, yj, official_step, jax.random.PRNGKey(seed), n_epochs=501, lr=0.1
            )
        final = np.asarray(particles[-1].block_until_ready())
        secs["official"].append(time.perf_counter() - begin)
        scores["official"].append(_score(final, target))
    so, st = np.array(scores["ours"]), np.array(scores["official"])
    t_o, t_t = min(secs["ours"]), min(secs["official"])
    for k, name in enumerate(
        ("final MMD^2 (2000 directions)", "largest W2 class to its matched ring")
    ):
        ratio = f"{so[:, k].mean() / st[:, k].mean():.4f}"
        label = f"rings flow, 501 steps: {name} (3 seeds)"
        rows.append([label, t_o, t_t, t_t / t_o, _pm(so[:, k]), _pm(st[:, k]), ratio])
    Path(out).write_text(json.dumps(rows))


def _pm(x: np.ndarray) -> str:
    return f"{x.mean():.5g} ± {x.std(ddof=1):.2g}"


HEADER_OFFICIAL = ["quantity", "ours (ms | s)", "official (ms | s)", "time ratio official/ours",
                   "ours", "official", "result ratio ours/official"]  # fmt: skip


def official_section(src: str, python: str) -> None:
    env = dict(os.environ, XLA_FLAGS=ONE_THREAD_XLA, OMP_NUM_THREADS="1", JAX_PLATFORMS="cpu")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "rows.json")
        cmd = [python, __file__, "--official-src", src, "--worker", str(out)]
        subprocess.run(cmd, check=True, env=env)
        rows = json.loads(out.read_text())
    print("official (one step in ms, the flow in s; one thread each):")
    print(table(HEADER_OFFICIAL, rows), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-src", default=None, help="checkout of the official repository")
    parser.add_argument("--official-python", default=None, help="a Python with jax (see above)")
    parser.add_argument("--skip-pot", action="store_true", help="skip the POT-loop table")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        official_worker(args.official_src, args.worker)
        return
    if args.official_src and args.official_python:
        official_section(args.official_src, args.official_python)
    else:
        print(
            "no --official-src/--official-python: the official rows are skipped. Fetch "
            "github:clbonet/Flowing_Datasets_with_WoW_Gradient_Flows outside this repository "
            "and give a Python with jax, jax-tqdm and optax that also imports icml25."
        )
    if not args.skip_pot:
        pot_section()


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
