"""rf_ensembles: our batched random-feature ensembles against the official code, same inputs.

The anchor is the authors' repository (nic-dern/theoretical-limitations-overparameterized-
ensembles), imported from ``--official-src`` (a checkout outside this repository; its code is
never copied here). It needs only torch, numpy, scipy and rich, which our venv has, so it runs
in this process (its package sets torch's default dtype to float64, as in its experiments).
Rows, each on the same arrays for both sides:

1. ReLU ensembles: the same weights ``W`` (members, D, d + 1) go to our ``relu_features`` +
   ``fit_rf`` (one batched Gram matrix and solve per chunk of members) and to the official
   ``EnsembleRandomFeatureModel`` of ``RandomFeatureModel(omega=W[m])`` (one torch ``lstsq``
   (gelsd) per member), both at the official ridge floor 1e-8 (ours: ``ridge=1e-8``; theirs:
   ``ZERO_REGULARIZATION``). Result: the ensemble's test MSE against the noisy targets;
2. Gaussian-universality ensembles (the paper's exact-theory mode): ours ``rf_ensemble(mode=
   "gaussian")`` against the official ``create_ensemble_gaussian_universality_models``. Their
   Gaussian draws come from torch's global generator, ours from numpy, so the draws cannot be
   matched: the result is the members' variance averaged over the test inputs, with the closed
   form ``r_perp^2 y^T K^-1 y / (D - N - 1)`` beside it and the spread over seeds;
3. the infinite-width limit: our ``kernel_predictor`` (Cholesky, exactly ridgeless) and
   ``r_perp_squared`` against the official ``KernelRegressor("arc-cosine-kernel")`` (gelsd with
   the 1e-8 floor). Result: test MSE of h_inf, and the mean of r_perp^2.

Times are the best of ``k`` calls, ours and theirs alternated so that the load of the shared
machine hits both alike. One thread.

    python benchmarks/bench_rf_ensembles.py --official-src /tmp/anchors/rf_ensembles
    python benchmarks/bench_rf_ensembles.py --quick --official-src ...   # a few seconds
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import interleaved_pair, table  # noqa: E402

from icml25.rf_ensembles import (  # noqa: E402
    closed_form_variance,
    fit_rf,
    kernel_predictor,
    r_perp_squared,
    relu_features,
    rf_ensemble,
    rf_predict,
    sample_relu_weights,
    sinusoid_1d,
    smooth_target,
)

RIDGE = 1e-8  # the official ZERO_REGULARIZATION, which its "ridgeless" fits cannot go below
RELU_SIZES = [  # (N, d, D, members, T); d = 1: the 1-D sinusoid of Figs. 1 and 4, else 8-D
    (6, 1, 200, 2000, 100),
    (12, 8, 200, 1000, 100),
    (50, 8, 500, 300, 100),
    (200, 8, 1000, 40, 100),
]
GAUSSIAN = (6, 200, 2000, 6, 3)  # N, D, members, T, seeds
KERNEL = (200, 8, 1000)  # N, d, T


def data(N, d, T, seed):
    """Training set (N, d), targets (N,), test inputs (T, d), noisy test targets (T,)."""
    rng = np.random.default_rng(seed)
    if d == 1:
        X, y = sinusoid_1d(N, rng)
        X_test, y_test = sinusoid_1d(T, rng)
        return X, y, X_test, y_test
    X, y, u = smooth_target(N, d, rng)
    X_test, y_test, _ = smooth_target(T, d, rng, direction=u)
    return X, y, X_test, y_test


def ours_relu(X, y, X_test, W, chunk=16):
    """Our batched fit, ``chunk`` members at a time. -> members' predictions (M, T)."""
    points, n, out = np.concatenate([X, X_test]), len(X), []
    for start in range(0, len(W), chunk):
        F = relu_features(points, W[start : start + chunk])  # (B, N + T, D)
        out.append(rf_predict(F[:, n:], fit_rf(F[:, :n], y, RIDGE)))
    return np.concatenate(out)


class Official:
    """The official package, imported from its checkout."""

    def __init__(self, src: str):
        sys.path.insert(0, str(Path(src).resolve()))
        from overparameterized_ensembles.models.ensembles import EnsembleRandomFeatureModel
        from overparameterized_ensembles.models.kernel_models import KernelRegressor
        from overparameterized_ensembles.models.random_feature_models import RandomFeatureModel

        self.Ensemble, self.Kernel, self.RF = (
            EnsembleRandomFeatureModel,
            KernelRegressor,
            RandomFeatureModel,
        )

    def relu(self, X, y, X_test, W):
        """Their ensemble of their RF models with our weights. -> members' predictions (M, T)."""
        X, y, X_test = (torch.from_numpy(a) for a in (X, y, X_test))
        D, d = W.shape[1], X.shape[1]
        models = torch.nn.ModuleList(
            [self.RF(d, D, torch.from_numpy(w), torch.zeros(D), 0.0, "relu") for w in W]
        )
        ensemble = self.Ensemble(models)
        ensemble.learn_theta(X, y)
        return torch.stack([m.forward(X_test) for m in ensemble.models]).numpy()

    def gaussian(self, X, y, X_test, D, members, seed):
        """Their Gaussian-universality ensemble (their draws). -> members' predictions (M, T)."""
        torch.manual_seed(seed)
        X, y, X_test = (torch.from_numpy(a) for a in (X, y, X_test))
        ensemble = self.Ensemble.create_ensemble_gaussian_universality_models(
            X.shape[1], D, 0.0, "arc-cosine-kernel", X, X_test, members
        )
        ensemble.learn_theta(X, y)
        return torch.stack([m.forward(X_test) for m in ensemble.models]).numpy()

    def kernel(self, X, y, X_test):
        """Their kernel regressor: (h_inf at X_test (T,), r_perp^2 at X_test (T,))."""
        X, y, X_test = (torch.from_numpy(a) for a in (X, y, X_test))
        model = self.Kernel("arc-cosine-kernel")
        model.fit(X, y)
        return model.forward(X_test).numpy(), model.r_perp_squared(X_test).numpy()


def relu_rows(official, sizes, repeat):
    rows = []
    for N, d, D, M, T in sizes:
        X, y, X_test, y_test = data(N, d, T, 0)
        W = sample_relu_weights(M, D, d, np.random.default_rng(1))  # (M, D, d + 1)
        t_ours, t_theirs, p_ours, p_theirs = interleaved_pair(
            lambda a=(X, y, X_test, W): ours_relu(*a),
            lambda a=(X, y, X_test, W): official.relu(*a),
            repeat,
        )
        mse = [float(np.mean((p.mean(0) - y_test) ** 2)) for p in (p_ours, p_theirs)]
        spread = [  # our ensemble's test MSE over other weight draws
            np.mean(
                (ours_relu(X, y, X_test, sample_relu_weights(M, D, d, rng)).mean(0) - y_test) ** 2
            )
            for rng in (np.random.default_rng(s) for s in (2, 3, 4))
        ]
        diff = float(np.abs(p_ours.mean(0) - p_theirs.mean(0)).max())
        rows.append(
            [
                f"ReLU ensemble N={N} d={d} D={D} M={M}: ensemble test MSE",
                t_ours,
                t_theirs,
                t_theirs / t_ours,
                mse[0],
                mse[1],
                mse[0] / mse[1],
                f"{np.std(spread + [mse[0]], ddof=1):.2g} (4 weight draws)",
                f"{diff:.1e}",
            ]
        )
        print(table(HEADER, rows[-1:]), flush=True)
    return rows


def gaussian_row(official, repeat, quick):
    N, D, M, T, seeds = GAUSSIAN
    if quick:
        M, seeds = 200, 2
    rng = np.random.default_rng(0)
    X, y = sinusoid_1d(N, rng)
    X_test = np.linspace(-4.5, 4.5, T)[:, None]
    var_ours, var_theirs, t_ours, t_theirs = [], [], np.inf, np.inf
    for seed in range(seeds):
        a, b, p_ours, p_theirs = interleaved_pair(
            lambda seed=seed: (
                rf_ensemble(X, y, X_test, D, M, mode="gaussian", ridge=RIDGE, seed=seed).predictions
            ),
            lambda seed=seed: official.gaussian(X, y, X_test, D, M, seed),
            1 if seed else repeat,
        )
        t_ours, t_theirs = min(t_ours, a), min(t_theirs, b)
        var_ours.append(float(p_ours.var(0).mean()))
        var_theirs.append(float(p_theirs.var(0).mean()))
    exact = float(closed_form_variance(X, y, X_test, D).mean())
    return [
        f"Gaussian mode N={N} D={D} M={M}: members' variance (closed form {exact:.4g})",
        t_ours,
        t_theirs,
        t_theirs / t_ours,
        float(np.mean(var_ours)),
        float(np.mean(var_theirs)),
        float(np.mean(var_ours) / np.mean(var_theirs)),
        f"{np.std(var_ours, ddof=1):.2g} / {np.std(var_theirs, ddof=1):.2g} ({seeds} seeds)",
        "draws differ",
    ]


def kernel_rows(official, repeat):
    N, d, T = KERNEL
    X, y, X_test, y_test = data(N, d, T, 0)
    t_ours, t_theirs, ours, theirs = interleaved_pair(
        lambda: (kernel_predictor(X, y, X_test), r_perp_squared(X, X_test)),
        lambda: official.kernel(X, y, X_test),
        repeat,
    )
    mse = [float(np.mean((h - y_test) ** 2)) for h in (ours[0], theirs[0])]
    r2 = [float(np.mean(r)) for r in (ours[1], theirs[1])]
    return [
        [
            f"kernel limit h_inf + r_perp^2, N={N} d={d} T={T}: test MSE",
            t_ours,
            t_theirs,
            t_theirs / t_ours,
            mse[0],
            mse[1],
            mse[0] / mse[1],
            "deterministic",
            f"{np.abs(ours[0] - theirs[0]).max():.1e}",
        ],
        [
            "  same call: mean r_perp^2",
            "",
            "",
            "",
            r2[0],
            r2[1],
            r2[0] / r2[1],
            "deterministic",
            f"{np.abs(ours[1] - theirs[1]).max():.1e}",
        ],
    ]


HEADER = [
    "setting",
    "ours s",
    "official s",
    "time ratio (official / ours)",
    "ours",
    "official",
    "result ratio (ours / official)",
    "seed spread (std)",
    "max abs diff of predictions",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-src", help="checkout of the official repository (its root)")
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if not args.official_src:
        print(
            "No --official-src: every row needs the official code. Fetch it with\n"
            "  git clone https://github.com/nic-dern/theoretical-limitations-overparameterized-"
            "ensembles /tmp/anchors/rf_ensembles\nand pass --official-src /tmp/anchors/"
            "rf_ensembles (it runs in this venv: torch, numpy, scipy, rich)."
        )
        return
    official = Official(args.official_src)
    repeat = 1 if args.quick else 3
    sizes = (
        [(N, d, D, M // 20, T) for N, d, D, M, T in RELU_SIZES[:2]] if args.quick else RELU_SIZES
    )
    omp = os.environ.get("OMP_NUM_THREADS")
    print(f"threads: torch {torch.get_num_threads()}, OMP_NUM_THREADS={omp}")
    rows = relu_rows(official, sizes, repeat)
    rows.append(gaussian_row(official, repeat, args.quick))
    print(table(HEADER, rows[-1:]), flush=True)
    rows += kernel_rows(official, repeat)
    print()
    print(table(HEADER, rows))


if __name__ == "__main__":
    main()
