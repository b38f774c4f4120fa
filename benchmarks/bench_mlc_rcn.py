"""mlc_rcn: the RCN learners against what a user would otherwise fit on noisy labels.

No official code runs (none released for this paper), so the anchors are the library routes a
user would take on data with noisy labels:

- scikit-learn's ``LogisticRegression`` on the noisy labels (uncorrected; the default a user
  reaches for; multinomial for ``k = 3``);
- cleanlab's ``CleanLearning`` around the same ``LogisticRegression`` (the noise-robust library
  route: cross-validated out-of-sample probabilities, confident learning to find and drop
  mislabelled examples, then a refit), twice: with the noise matrix it estimates itself (the
  default) and with the true ``H`` given (``noise_matrix = H^T``, its convention
  P(noisy = i | true = j)); it runs in a subprocess (``--cleanlab-python``, a venv with
  cleanlab and scikit-learn, kept out of our environment) on the same arrays;
- extra (``k = 2``): scikit-learn's ``Perceptron`` (the textbook one, not noise tolerant).

Ours: :func:`icml25.mlc_rcn.rcn_perceptron` for ``k = 2`` (asymmetric
``H = [[0.9, 0.1], [0.3, 0.7]]``) and :func:`icml25.mlc_rcn.fit_loss_correction` forward for
``k = 3`` (a random ``H``, alpha 0.5, seed 3). Data: x = (z, 1) in R^10 from the skewed mixture
marginal, a random linear classifier, labels corrupted by ``H``; seeds of the data draw give the
spread. Result: the exact excess error ``err(h) - opt`` on 100,000 fresh inputs.

Time: best of 3 wall-clock runs (ours, scikit-learn) or one (cleanlab, timed inside its
process); BLAS held to one thread for every method (threadpoolctl, OMP_NUM_THREADS=1; cleanlab
with ``n_jobs = 1``).

    python benchmarks/bench_mlc_rcn.py --cleanlab-python /tmp/anchors/venv-mlc_rcn/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
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

CLEANLAB = r"""
import json, sys, time
import numpy as np
from cleanlab.classification import CleanLearning
from sklearn.linear_model import LogisticRegression
d = np.load(sys.argv[1])
out = {}
for given in (False, True):
    runs = []
    for X, y, X_t in zip(d["X"], d["y"], d["X_t"]):
        t0 = time.perf_counter()
        cl = CleanLearning(LogisticRegression(max_iter=1000), seed=0,
                           find_label_issues_kwargs={"n_jobs": 1})
        cl.fit(X, y, noise_matrix=d["H"].T if given else None)
        seconds = time.perf_counter() - t0
        runs.append([seconds, cl.predict(X_t).tolist()])
    out["given" if given else "estimated"] = runs
import cleanlab
out["version"] = cleanlab.__version__
json.dump(out, open(sys.argv[2], "w"))
"""


def cleanlab_runs(python: str, H, data: list, folder: Path) -> dict:
    """cleanlab's CleanLearning on each (X, y_noisy, X_test) of ``data``, in a subprocess."""
    path = folder / "cleanlab.npz"
    np.savez(path, H=H, X=np.stack([d[0] for d in data]), y=np.stack([d[1] for d in data]),
             X_t=np.stack([d[2] for d in data]))  # fmt: skip
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    run = subprocess.run([python, "-c", CLEANLAB, str(path), str(folder / "cleanlab.json")],
                         env=env, capture_output=True, text=True)  # fmt: skip
    if run.returncode:
        raise RuntimeError(f"cleanlab failed:\n{run.stderr[-3000:]}")
    return json.loads((folder / "cleanlab.json").read_text())


def sklearn_weights(model, k: int) -> np.ndarray:
    """scikit-learn's (coef, intercept) as our (k, d) W (the last input column is the 1)."""
    coef = model.coef_.copy()
    coef[:, -1] += model.intercept_
    return np.vstack([np.zeros_like(coef[0]), coef[0]]) if k == 2 else coef


def learners(k: int, X, y_n, H) -> dict:
    """Ours and the scikit-learn methods for ``k`` labels, each a function returning ``W``."""

    def logistic():
        return sklearn_weights(LogisticRegression(max_iter=1000).fit(X, y_n), k)

    if k == 2:
        return {
            "ours": lambda: rcn_perceptron(X, y_n, H).W,
            "sklearn LogisticRegression (noisy labels)": logistic,
            "sklearn Perceptron (extra)": lambda: sklearn_weights(
                Perceptron(random_state=0).fit(X, y_n), 2
            ),
        }
    return {
        "ours": lambda: fit_loss_correction(X, y_n, H, "forward").W,
        "sklearn LogisticRegression (noisy labels)": logistic,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--cleanlab-python", default=None, help="a venv with cleanlab, sklearn")
    args = parser.parse_args()
    threadpool_limits(1)
    if not args.cleanlab_python:
        print("No --cleanlab-python: skipping the cleanlab rows (make a venv with "
              "`pip install cleanlab scikit-learn` and pass its python).")  # fmt: skip
    folder = Path(tempfile.mkdtemp(prefix="bench_mlc_rcn_"))
    tasks = {2: np.array([[0.9, 0.1], [0.3, 0.7]]), 3: random_noise_matrix(3, 0.5, 3)}
    rows = []
    for k, H in tasks.items():
        W = random_classifier(k, 10, seed=k)
        X_t, y_t, _ = make_rcn_data(100_000, W, H, seed=100, marginal="skewed")
        for n in args.sizes:
            times, errors, data = {}, {}, []
            for seed in range(args.seeds):
                X, _, y_n = make_rcn_data(n, W, H, seed=n + seed, marginal="skewed")
                data.append((X, y_n, X_t))
                for name, fn in learners(k, X, y_n, H).items():  # alternate, best of 3 each
                    seconds, _, Wh = measure(fn)
                    times.setdefault(name, []).append(seconds)
                    errors.setdefault(name, []).append(
                        excess_error(H, y_t, linear_classifier(Wh, X_t))
                    )
            if args.cleanlab_python:
                out = cleanlab_runs(args.cleanlab_python, H, data, folder)
                for key in ("estimated", "given"):
                    name = f"cleanlab {out['version']} CleanLearning(LogisticRegression), {key} H"
                    times[name] = [r[0] for r in out[key]]
                    errors[name] = [excess_error(H, y_t, np.array(r[1])) for r in out[key]]
            ours_t, ours_e = np.median(times["ours"]), np.mean(errors["ours"])
            for name in times:
                if name == "ours":
                    continue
                t, e = np.median(times[name]), np.mean(errors[name])
                rows.append([k, n, name, ours_t, t, t / ours_t, ours_e, e, ours_e / e,
                             f"{np.std(errors['ours'], ddof=1):.4f} / "
                             f"{np.std(errors[name], ddof=1):.4f}"])  # fmt: skip
                print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


HEADER = ["k", "n", "anchor", "ours s", "anchor s", "time ratio (anchor/ours)", "ours excess",
          "anchor excess", "result ratio (ours/anchor)", "seed sd (ours / anchor)"]  # fmt: skip

if __name__ == "__main__":
    main()
