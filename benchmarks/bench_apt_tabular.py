"""apt_tabular: zero-shot APT (fit = store the context, predict_proba = one forward pass)
against HistGradientBoosting and random forest (scikit-learn defaults), each fitted and
predicting on split 0 of each bundled data set (at most 500 rows, half train, half test), one
thread. Time is fit + predict_proba (best of 3); throughput is test rows per second; AUC is
one-vs-rest ROC AUC on the same split; peak MB is
Python-traced memory (tracemalloc: numpy buffers, not torch's allocator).

    OMP_NUM_THREADS=1 python benchmarks/bench_apt_tabular.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.apt_tabular import APTClassifier  # noqa: E402
from icml25.apt_tabular.evaluate import DATASETS, auc, baseline, real_split  # noqa: E402

METHODS = {
    "APT": lambda: APTClassifier(),
    "HGB": lambda: baseline("hist_gb", 0),
    "RF": lambda: baseline("random_forest", 0),
}


def fit_predict(make, X_train, y_train, X_test):
    return make().fit(X_train, y_train).predict_proba(X_test)


def main() -> None:
    torch.set_num_threads(1)
    rows = []
    for name in DATASETS:
        X_tr, X_te, y_tr, y_te = real_split(name, 0)
        row = [name, len(y_tr), X_tr.shape[1]]
        times = {}
        for method, make in METHODS.items():
            seconds, peak, P = measure(
                lambda make=make, d=(X_tr, y_tr, X_te): fit_predict(make, *d)
            )
            times[method] = seconds
            row += [auc(y_te, P), seconds, len(y_te) / seconds, peak]
        row += [times["HGB"] / times["APT"], times["RF"] / times["APT"]]
        rows.append(row)
        print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


HEADER = [
    "data set",
    "train rows",
    "features",
    *(f"{m} {q}" for m in METHODS for q in ("AUC", "s", "test rows/s", "peak MB")),
    "HGB s / APT s",
    "RF s / APT s",
]

if __name__ == "__main__":
    main()
