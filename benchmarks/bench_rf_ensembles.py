"""rf_ensembles: the batched ensemble fit against the naive loop, one member at a time.

The anchor is what a user would write: for each member, draw its ReLU weights, build its
features, fit with ``numpy.linalg.lstsq`` (minimum-norm least squares, LAPACK gelsd, as the
official code does) and predict. Ours builds all members' features as one (M, N + T, D) tensor
(in chunks) and fits them with one batched Gram matrix and one batched pseudo-inverse. Both use
the same weights, so the predictions must agree.

    python benchmarks/bench_rf_ensembles.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.rf_ensembles import (  # noqa: E402
    fit_rf,
    relu_features,
    rf_predict,
    sample_relu_weights,
    smooth_target,
)

SIZES = [  # (N, d, D, M, T)
    (6, 1, 200, 5000, 200),
    (12, 8, 200, 2000, 100),
    (50, 8, 500, 500, 100),
    (200, 8, 1000, 100, 100),
]


def anchor(X, y, X_test, W):
    """One member at a time: features, lstsq, predict. -> (M, T)."""
    Xb = np.concatenate([X, np.ones((len(X), 1))], 1)
    Tb = np.concatenate([X_test, np.ones((len(X_test), 1))], 1)
    out = []
    for w in W:  # (D, d + 1)
        scale = np.sqrt(w.shape[0])
        theta = np.linalg.lstsq(np.maximum(Xb @ w.T, 0) / scale, y, rcond=None)[0]
        out.append(np.maximum(Tb @ w.T, 0) / scale @ theta)
    return np.stack(out)


def ours(X, y, X_test, W, chunk=16):
    """Batched over members, ``chunk`` at a time. -> (M, T)."""
    points, n, out = np.concatenate([X, X_test]), len(X), []
    for start in range(0, len(W), chunk):
        F = relu_features(points, W[start : start + chunk])  # (B, N + T, D)
        out.append(rf_predict(F[:, n:], fit_rf(F[:, :n], y)))
    return np.concatenate(out)


def main() -> None:
    rows = []
    for N, d, D, M, T in SIZES:
        rng = np.random.default_rng(0)
        X, y, u = smooth_target(N, d, rng)
        X_test, _, _ = smooth_target(T, d, rng, direction=u)
        W = sample_relu_weights(M, D, d, rng)  # (M, D, d + 1)
        args = (X, y, X_test, W)
        t_anchor, _, p_anchor = measure(lambda args=args: anchor(*args), repeat=1)
        t_ours, m_ours, p_ours = measure(lambda args=args: ours(*args), repeat=3)
        scale = np.abs(p_anchor).max()
        rows.append(
            [
                N,
                d,
                D,
                M,
                t_anchor,
                t_ours,
                t_anchor / t_ours,
                m_ours,
                float(np.abs(p_ours - p_anchor).max() / scale),
                float(np.abs(p_ours.mean(0) - p_anchor.mean(0)).max()),
            ]
        )
        print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


HEADER = [
    "N",
    "d",
    "D",
    "members",
    "loop + lstsq s",
    "batched s",
    "speed-up",
    "batched peak MB",
    "max rel. diff (members)",
    "max abs diff (ensemble mean)",
]

if __name__ == "__main__":
    main()
