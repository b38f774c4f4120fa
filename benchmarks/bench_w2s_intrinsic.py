"""w2s_intrinsic: the vectorised W2S simulator against the loop a user would write.

The anchor: for each trial, draw the data in the ambient space and fit the weak teacher, the
W2S student and the strong ceiling with scikit-learn's ``LinearRegression(fit_intercept=False)``
(numpy ``lstsq`` if scikit-learn is absent), one Python iteration per trial and per ``N``.
Ours: :func:`icml25.w2s_intrinsic.simulate_w2s`, trials batched, the ``N`` curve accumulated.
Ours runs twice: drawing ``x`` in ``R^120`` like the loop (``ambient_dim=120``), and in
coordinates of the union of the two subspaces (the default, same law, fewer random numbers).
Both estimate the same expected excess risk; agreement is ``|mean_ours - mean_loop|`` in units
of their combined standard error, and each against the closed form.

BLAS is pinned to one thread for both sides (threadpoolctl): on a loaded 2-core machine a
multi-threaded LAPACK ``gelsd`` spun for 0.27 s per 1100 x 20 fit, which would flatter us.

Second table: :func:`icml25.w2s_intrinsic.w2s_linear_probe` (the real-feature pipeline, splits
batched, one ``solve`` per head) against the same four heads fit by a loop of scikit-learn
``LinearRegression`` per split and per ``N``, on the same splits and principal coordinates, on the
digits task (pixels as the weak model, an untrained random ReLU net of width 64 as the strong
one, 30% label noise): the two must agree to rounding.

    python benchmarks/bench_w2s_intrinsic.py [--quick] [--probe-only]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.w2s_intrinsic import (  # noqa: E402
    principal_coordinates,
    simulate_w2s,
    subspace_pair,
    w2s_linear_probe,
    w2s_risks,
)
from icml25.w2s_intrinsic.digits import digits_split, model_features  # noqa: E402

D, D_S, D_W, D_SW, SIGMA = 120, 20, 40, 10, 1.0


def _fitter():
    try:
        from sklearn.linear_model import LinearRegression
    except ImportError:  # pragma: no cover
        return "numpy lstsq", lambda A, b: np.linalg.lstsq(A, b, rcond=None)[0]

    def fit(A, b):
        return LinearRegression(fit_intercept=False).fit(A, b).coef_

    return "sklearn", fit


def naive_loop(n, Ns, trials, seed):
    """ER_w2s (trials, len(Ns)) and ER_w (trials,), one trial and one N at a time."""
    _, fit = _fitter()
    rng = np.random.default_rng(seed)
    Vs, Vw, Q = subspace_pair(D, D_S, D_W, D_SW, seed=rng)
    beta = Q[:, D_S - D_SW : D_S] @ (np.ones(D_SW) / np.sqrt(D_SW))
    er_w2s, er_w, er_c = np.empty((trials, len(Ns))), np.empty(trials), np.empty((trials, len(Ns)))
    for t in range(trials):
        X = rng.standard_normal((n, D))
        y = X @ beta + SIGMA * rng.standard_normal(n)
        theta_w = fit(X @ Vw, y)
        er_w[t] = np.sum((Vw @ theta_w - beta) ** 2)
        for k, N in enumerate(Ns):
            Z = rng.standard_normal((N, D))
            theta = fit(Z @ Vs, Z @ Vw @ theta_w)
            er_w2s[t, k] = np.sum((Vs @ theta - beta) ** 2)
            truth = Z @ beta + SIGMA * rng.standard_normal(N)
            theta = fit(np.vstack([X, Z]) @ Vs, np.concatenate([y, truth]))
            er_c[t, k] = np.sum((Vs @ theta - beta) ** 2)
    return er_w2s, er_w, er_c


def probe_problem(trials: int, seed: int = 0):
    """Digits 5-9: pixel and random-net features, one-hot targets, 30% noisy training labels."""
    X_pre, y_pre, X_task, y_task = digits_split()
    Fw = model_features("pixels", X_pre, y_pre, X_task)[0]
    Fs = model_features("random:64:0", X_pre, y_pre, X_task)[0]
    Y = np.eye(5)[y_task]
    rng = np.random.default_rng(seed)
    flip = rng.random((trials, len(y_task), 1)) < 0.3
    Yt = np.where(flip, np.eye(5)[rng.integers(0, 5, (trials, len(y_task)))], Y[None])
    return Fw, Fs, Y, Yt


def probe_loop(Fw, Fs, Y, Yt, n, Ns, trials, seed, fraction=0.99):
    """ER_w2s (trials, len(Ns)) of the probe pipeline, one split and one N at a time; it fits the
    strong baseline and ceiling too (their risks unused), the same four heads as ours."""
    _, fit = _fitter()
    Aw, As = principal_coordinates(Fw, fraction)[0], principal_coordinates(Fs, fraction)[0]
    order = np.argsort(np.random.default_rng(seed).random((trials, len(Y))), axis=1)
    er = np.empty((trials, len(Ns)))
    for t in range(trials):
        lab, test = order[t, :n], order[t, n + Ns[-1] :]
        theta_w = fit(Aw[lab], Yt[t, lab]).T  # (d_w, C)
        fit(As[lab], Yt[t, lab])  # strong baseline
        for k, N in enumerate(Ns):
            unl = order[t, n : n + N]
            theta = fit(As[unl], Aw[unl] @ theta_w).T
            er[t, k] = np.mean(np.sum((As[test] @ theta - Y[test]) ** 2, axis=1))
            both = order[t, : n + N]
            fit(As[both], Yt[t, both])  # strong ceiling
    return er


def probe_case(trials: int, n: int = 60, Ns=(100, 200, 400)) -> list[object]:
    Ns = list(Ns)
    Fw, Fs, Y, Yt = probe_problem(trials)
    t_loop, _, er_loop = measure(lambda: probe_loop(Fw, Fs, Y, Yt, n, Ns, trials, 5), repeat=1)
    t_ours, mem, probe = measure(
        lambda: w2s_linear_probe(Fw, Fs, Y, n, Ns, train_targets=Yt, trials=trials, seed=5),
        repeat=3,
    )
    gap = float(np.max(np.abs(probe.w2s - er_loop)))
    return [n, "100..400 (3)", trials, t_loop, t_ours, t_loop / t_ours, mem, gap]


def probe_rows(trial_counts) -> list[list[object]]:
    rows = []
    for trials in trial_counts:
        rows.append(probe_case(trials))
        print(table(PROBE_HEADER, rows[-1:]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer trials")
    parser.add_argument("--probe-only", action="store_true", help="only the real-feature table")
    args = parser.parse_args()
    name, _ = _fitter()
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:  # pragma: no cover
        print("threadpoolctl absent: BLAS threads not pinned")
    probe = probe_rows([100] if args.quick else [100, 1000])
    if args.probe_only:
        print(f"\nanchor: a loop of {name} fits per split and N\n\n{table(PROBE_HEADER, probe)}")
        return
    cases = [(100, [1000], 100), (100, [100, 200, 400, 1000, 2000, 4000], 100)]
    if not args.quick:
        cases.append((100, [100, 200, 400, 1000, 2000, 4000], 500))
    rows = []
    for n, Ns, trials in cases:
        t_loop, _, (w2s_loop, _, _) = measure(
            lambda n=n, Ns=Ns, trials=trials: naive_loop(n, Ns, trials, 1), repeat=1
        )
        t_ours, mem, sim = measure(
            lambda n=n, Ns=Ns, trials=trials: simulate_w2s(
                D_S, D_W, D_SW, n, Ns, SIGMA, trials=trials, ambient_dim=D, seed=2
            ),
            repeat=3,
        )
        t_union, _, _ = measure(
            lambda n=n, Ns=Ns, trials=trials: simulate_w2s(
                D_S, D_W, D_SW, n, Ns, SIGMA, trials=trials, seed=3
            ),
            repeat=3,
        )
        th = w2s_risks(D_S, D_W, D_SW, n, np.array(Ns), SIGMA).w2s
        se_loop = w2s_loop.std(0, ddof=1) / np.sqrt(trials)
        z_between = np.abs(sim.mean("w2s") - w2s_loop.mean(0)) / np.hypot(sim.se("w2s"), se_loop)
        rows.append(
            [
                n,
                f"{Ns[0]}" if len(Ns) == 1 else f"{Ns[0]}..{Ns[-1]} ({len(Ns)})",
                trials,
                t_loop,
                t_ours,
                t_loop / t_ours,
                t_union,
                t_loop / t_union,
                mem,
                float(z_between.max()),
                float(np.max(np.abs(w2s_loop.mean(0) - th) / se_loop)),
                float(np.max(np.abs(sim.mean("w2s") - th) / sim.se("w2s"))),
            ]
        )
        print(table(HEADER, rows[-1:]), flush=True)
    print(
        f"\nanchor: a Python loop of {name} fits; D = {D}, d_s = {D_S}, d_w = {D_W}, "
        f"d_sw = {D_SW}\n"
    )
    print(table(HEADER, rows))
    print(f"\nreal-feature probes, anchor: a loop of {name} fits per split and N\n")
    print(table(PROBE_HEADER, probe))


HEADER = [
    "n",
    "N",
    "trials",
    "loop s",
    "ours R^120 s",
    "speed-up",
    "ours union s",
    "speed-up",
    "ours R^120 peak MB",
    "max z ours vs loop",
    "max z loop vs theory",
    "max z ours vs theory",
]

PROBE_HEADER = [
    "n",
    "N",
    "splits",
    "loop s",
    "ours s",
    "speed-up",
    "ours peak MB",
    "max |ER_w2s ours - loop|",
]

if __name__ == "__main__":
    main()
