"""mlc_rcn: the RCN learners against what a user would otherwise fit on noisy labels.

Data: x = (z, 1) in R^10 from the skewed mixture marginal, a random linear classifier, labels
corrupted by a known H. Error is the exact excess ``err(h) - opt`` on 100,000 fresh inputs.

- ``k = 2``, asymmetric ``H = [[0.9, 0.1], [0.3, 0.7]]``: ours
  :func:`icml25.mlc_rcn.rcn_perceptron` against scikit-learn's ``LogisticRegression`` on the noisy
  labels (uncorrected; the default a user reaches for) and ``Perceptron`` (the textbook one);
- ``k = 3``, a random ``H`` (alpha 0.5, seed 3, sigma 0.16): ours
  :func:`icml25.mlc_rcn.fit_loss_correction` forward and backward against ``LogisticRegression``
  (multinomial, uncorrected).

Time: best of 3 wall-clock runs; peak traced memory of one more run (harness.measure). BLAS is
held to one thread for every method (threadpoolctl): on the shared 2-core machine two OpenBLAS
threads made the same call 15-30x slower under load.

    python benchmarks/bench_mlc_rcn.py [--sizes 2000 20000 50000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression, Perceptron
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.mlc_rcn import (  # noqa: E402
    excess_error,
    fit_loss_correction,
    linear_classifier,
    make_rcn_data,
    random_classifier,
    random_noise_matrix,
    rcn_perceptron,
)

HEADER = ["k", "n", "method", "seconds", "peak MB", "excess error"]


def sklearn_weights(model, k: int) -> np.ndarray:
    """scikit-learn's (coef, intercept) as our (k, d) W (the last input column is the 1)."""
    coef = model.coef_.copy()
    coef[:, -1] += model.intercept_
    return np.vstack([np.zeros_like(coef[0]), coef[0]]) if k == 2 else coef


def learners(k: int, X, y_n, H) -> dict:
    """The methods compared for ``k`` labels, each a function returning ``W`` (k, d)."""

    def logistic():
        return sklearn_weights(LogisticRegression(max_iter=1000).fit(X, y_n), k)

    if k == 2:
        return {
            "ours: rcn_perceptron": lambda: rcn_perceptron(X, y_n, H).W,
            "sklearn Perceptron (noisy labels)": lambda: sklearn_weights(
                Perceptron(random_state=0).fit(X, y_n), 2
            ),
            "sklearn LogisticRegression (noisy labels)": logistic,
        }
    return {
        "ours: forward correction": lambda: fit_loss_correction(X, y_n, H, "forward").W,
        "ours: backward correction": lambda: fit_loss_correction(X, y_n, H, "backward").W,
        "sklearn LogisticRegression (noisy labels)": logistic,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000, 50000])
    args = parser.parse_args()
    threadpool_limits(1)
    tasks = {2: np.array([[0.9, 0.1], [0.3, 0.7]]), 3: random_noise_matrix(3, 0.5, 3)}
    rows = []
    for k, H in tasks.items():
        W = random_classifier(k, 10, seed=k)
        X_t, y_t, _ = make_rcn_data(100_000, W, H, seed=100, marginal="skewed")
        for n in args.sizes:
            X, _, y_n = make_rcn_data(n, W, H, seed=n, marginal="skewed")
            methods = learners(k, X, y_n, H)
            for name, fn in methods.items():
                seconds, peak, Wh = measure(fn)
                ex = excess_error(H, y_t, linear_classifier(Wh, X_t))
                rows.append([k, n, name, seconds, peak, ex])
                print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


if __name__ == "__main__":
    main()
