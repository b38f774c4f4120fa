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

    python benchmarks/bench_w2s_intrinsic.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.w2s_intrinsic import simulate_w2s, subspace_pair, w2s_risks  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer trials")
    args = parser.parse_args()
    name, _ = _fitter()
    cases = [(100, [1000], 100), (100, [100, 200, 400, 1000, 2000, 4000], 100)]
    if not args.quick:
        cases.append((100, [100, 200, 400, 1000, 2000, 4000], 500))
    rows = []
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:  # pragma: no cover
        print("threadpoolctl absent: BLAS threads not pinned")
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

if __name__ == "__main__":
    main()
