"""icl_denoising: the trained attention layer against what a user would otherwise write.

Without the paper, a user denoising a query from its context would fit the structure of the
context with scikit-learn and plug the fit into the Bayes formula (empirical Bayes), prompt by
prompt:

- linear: ``PCA(d)`` of the context, ``sigma_0^2`` = mean of its ``d`` variances, then
  ``sigma_0^2 / (sigma_0^2 + sigma_Z^2) P^ x~``;
- sphere: ``PCA(d + 1)``, radius = mean context norm, then the von Mises-Fisher mean;
- mixture: ``GaussianMixture(K, covariance_type="spherical")``, then the mixture posterior mean.

Ours: one attention layer trained with the paper's protocol (800 prompts, Adam, epochs scaled
by ``--epochs``), applied to all test prompts in one batched call. Both are scored against the
oracle Bayes MSE on the same 200 test prompts (the plug-ins know ``sigma_Z^2``, ``d`` and ``K``;
the layer learns everything from the training prompts).

    python benchmarks/bench_icl_denoising.py [--epochs 1.0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
from sklearn.decomposition import PCA
from sklearn.mixture import GaussianMixture

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

import icml25.icl_denoising.reproduce as rep  # noqa: E402
from icml25.icl_denoising import (  # noqa: E402
    attention_denoise,
    bayes_gmm,
    train_attention,
    vmf_mean_ratio,
)

CONFIG = rep.SCALES["default"]


def plug_in(task: str, context: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Empirical-Bayes denoising of one prompt with scikit-learn: context (L, n), query (n,)."""
    c = CONFIG
    if task == "gmm":
        gm = GaussianMixture(c.gmm_components, covariance_type="spherical", random_state=0)
        gm.fit(context)
        s0 = float(np.mean(gm.covariances_))
        return bayes_gmm(query[None], gm.means_[None], s0, c.gmm_sigma_z_sq, gm.weights_)[0]
    k = c.linear_d if task == "linear" else c.sphere_d + 1
    basis = PCA(k).fit(context).components_.T  # (n, k)
    coords = basis.T @ query  # (k,)
    if task == "linear":
        s0 = float(np.mean(np.sum((context @ basis) ** 2, axis=0) / len(context)))
        return s0 / (s0 + c.linear_sigma_z_sq) * basis @ coords
    R = float(np.mean(np.linalg.norm(context, axis=1)))
    norm = np.linalg.norm(coords)
    return vmf_mean_ratio(k, R * norm / c.sphere_sigma_z_sq) * R * basis @ coords / norm


def bench(i: int, task: str, epoch_fraction: float) -> list:
    """One task: train the paper's layer, then time it and the plug-in on the test prompts."""
    kind = rep.PAPER_MODEL[task]
    seeds = np.random.SeedSequence(i).spawn(2)
    train = rep.make_prompts(CONFIG, task, CONFIG.prompts_train, seeds[0])
    test = rep.make_prompts(CONFIG, task, CONFIG.prompts_test, seeds[1])
    epochs = CONFIG.epochs_linear if task == "linear" else CONFIG.epochs_nonlinear
    t0 = time.perf_counter()
    run = train_attention(
        train, test, kind, epochs=max(1, round(epoch_fraction * epochs)), batch_size=80, seed=0
    )
    t_train = time.perf_counter() - t0
    bayes = np.mean((rep.bayes(CONFIG, task, test) - test.target) ** 2)
    t_ours, _, ours = measure(
        lambda: attention_denoise(test.context, test.query, run.W_KQ, run.W_PV, kind)
    )
    t_sk, _, sk = measure(
        lambda: np.stack(
            [plug_in(task, X, q) for X, q in zip(test.context, test.query, strict=True)]
        ),
        repeat=1,
    )
    return [
        task,
        kind,
        t_train,
        t_ours,
        float(np.mean((ours - test.target) ** 2) / bayes),
        t_sk,
        float(np.mean((sk - test.target) ** 2) / bayes),
        t_sk / t_ours,
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=float, default=1.0, help="fraction of paper epochs")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = []
    for i, task in enumerate(rep.TASKS):
        rows.append(bench(i, task, args.epochs))
        print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


HEADER = [
    "task",
    "layer",
    "train s",
    "layer s (200 prompts)",
    "layer MSE / Bayes",
    "sklearn plug-in s",
    "plug-in MSE / Bayes",
    "plug-in time x",
]

if __name__ == "__main__":
    main()
