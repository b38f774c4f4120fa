"""selective_iv: UCL against what a user would otherwise fit on selectively labelled data.

On the paper's simulation (n = 10,000, 70/30 split, ``s_Y = s_D = 0.5``; both decision models)
a user without the paper would fit a standard classifier on the labelled units: scikit-learn's
``LogisticRegression`` on the selected sample, or weighted by the inverse propensity
``1 / P(D = 1 | x)`` (the same cross-fitted, clipped propensity as ours). Against them:
:class:`~icml25.selective_iv.UCLClassifier` under point and partial identification, with our
default nuisance (gradient-boosted regressor per conditional mean) and with the official
code's kind of nuisance (gradient-boosted classifier read as ``predict_proba @ classes``), at
the same number of boosting iterations. Test accuracy on the full labels (mean over seeds) and
fit time (best of one run per seed, one thread).

    python benchmarks/bench_selective_iv.py [--seeds 3] [--iters 50]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.selective_iv import (  # noqa: E402
    ERMClassifier,
    UCLClassifier,
    clip_upper_quantile,
    fit_conditional_mean,
    folds,
    simulate,
)


def ipw_logistic(X, y, D, propensity, seed) -> LogisticRegression:
    """LogisticRegression on the labelled units weighted by the cross-fitted, 0.9-quantile
    clipped ``1 / P(D = 1 | x)`` (the weights of ERMClassifier("ipw"))."""
    w = np.ones(len(D))
    for fit_idx, out_idx in folds(len(D), 5, seed):
        e = fit_conditional_mean(propensity, X[fit_idx], D[fit_idx])(X[out_idx])
        w[out_idx] = clip_upper_quantile(1.0 / np.maximum(e, 1e-12), 0.9)
    keep = D == 1
    return LogisticRegression(max_iter=1000).fit(X[keep], y[keep], sample_weight=w[keep])


def contenders(X, y, D, Z, y_full, seed, reg, clf) -> dict:
    """name -> a no-argument fit returning a fitted model with ``predict``."""

    def ucl(identification, nuisance):
        model = UCLClassifier(identification, nuisance=nuisance, random_state=seed)
        return lambda: model.fit(X, y, D, Z)

    return {
        "LogisticRegression, selected sample": (
            lambda: LogisticRegression(max_iter=1000).fit(X[D == 1], y[D == 1])
        ),
        "LogisticRegression, IPW": lambda: ipw_logistic(X, y, D, reg, seed),
        "ERM (paper's model), selected sample": (
            lambda: ERMClassifier(random_state=seed).fit(X, y, D)
        ),
        "UCL point, regressor nuisance (ours)": ucl("point", reg),
        "UCL partial, regressor nuisance (ours)": ucl("partial", reg),
        "UCL point, classifier nuisance (official kind)": ucl("point", clf),
        "UCL partial, classifier nuisance (official kind)": ucl("partial", clf),
        "oracle: LogisticRegression, all labels": (
            lambda: LogisticRegression(max_iter=1000).fit(X, y_full)
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=50)
    args = parser.parse_args()
    torch.set_num_threads(1)
    reg = HistGradientBoostingRegressor(max_iter=args.iters, early_stopping=False)
    clf = HistGradientBoostingClassifier(max_iter=args.iters, early_stopping=False)
    rows = []
    for setting in ("nucem", "uc"):
        stats: dict[str, list[tuple[float, float]]] = {}
        for seed in range(args.seeds):
            data = simulate(10000, setting, 0.5, 0.5, seed=seed)
            tr, te = train_test_split(np.arange(10000), test_size=0.3, random_state=seed)
            X, D, Z, Xt = data.X[tr], data.D[tr], data.Z[tr], data.X[te]
            y = np.where(D == 1, data.Y[tr], -1)
            methods = contenders(X, y, D, Z, data.Y[tr], seed, reg, clf)
            for name, fit in methods.items():
                with threadpool_limits(1):
                    seconds, _, model = measure(fit, repeat=1)
                acc = float(np.mean(model.predict(Xt) == data.Y[te]))
                stats.setdefault(name, []).append((acc, seconds))
        for name, vals in stats.items():
            acc, sec = np.array(vals).T
            rows.append([setting, name, float(acc.mean()), float(acc.std()), float(sec.mean())])
    print(table(["setting", "method", "accuracy", "sd over seeds", "fit s"], rows))


if __name__ == "__main__":
    main()
