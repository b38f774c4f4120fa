"""Reproduction: the landscape of multiclass linear classification with RCN.

Diakonikolas, Ma, Ren & Tzamos (ICML 2025) prove an SQ *lower bound* for ``k >= 3``; it cannot
be run. We measure what can: the two-label learner reaching the optimum, the closed form that
makes ``opt`` well defined, and how the standard multiclass corrections behave on benign data.
Inputs are ``x = (z, 1)`` in ``R^10`` (``z`` Gaussian or a skewed mixture); ``W`` random per cell.
Excess errors ``err(h) - opt = mean (H[y, y] - H[y, h])`` are exact in the noise, on a fresh
test sample of ``n_test`` inputs. Cells:

- ``binary``: the noise-corrected SQ perceptron (:func:`rcn_perceptron`) for ``k = 2``, two noise
  matrices (symmetric ``eta = 0.2``; asymmetric ``[[0.9, 0.1], [0.3, 0.7]]``) x two marginals x
  sample sizes ``n`` x replicates;
- ``bayes``: random instances (``k`` in 2..5, ``H = (1 - alpha) I + alpha R``, ``|sigma| >= 0.05``);
  the Bayes classifier of the noisy labels estimated by Monte Carlo (``m`` RCN draws per point,
  through :func:`apply_rcn`) against the clean classifier, on ``points`` inputs;
- ``multiclass``: ``k = 3``, forward / backward / uncorrected cross-entropy on the same sample,
  symmetric ``eta = 0.3`` and a random ``H`` (``alpha = 0.5``, fixed seed), skewed marginal, ``n``
  grid x replicates: reported, with no threshold.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from icml25.mlc_rcn.binary import rcn_perceptron
from icml25.mlc_rcn.correction import CORRECTIONS, fit_loss_correction
from icml25.mlc_rcn.data import linear_classifier, make_rcn_data, random_classifier
from icml25.mlc_rcn.noise import (
    apply_rcn,
    excess_error,
    noisy_bayes_classifier,
    random_noise_matrix,
    separation,
    symmetric_noise_matrix,
)

# small matrix products: on 2 shared cores two OpenBLAS threads made cells up to 7x slower
CELL_THREADS = 1


BINARY_NOISE = {
    "symmetric": ((0.8, 0.2), (0.2, 0.8)),
    "asymmetric": ((0.9, 0.1), (0.3, 0.7)),
}


@dataclass(frozen=True)
class Config:
    d: int = 10
    n_test: int = 100_000
    claim_n: int = 20_000  # the n of claim (a)
    binary_ns: tuple[int, ...] = (500, 2000, 5000, 20_000)
    binary_marginals: tuple[str, ...] = ("gaussian", "skewed")
    binary_seeds: int = 5
    perceptron_iters: int = 300
    bayes_cells: int = 10
    bayes_per_cell: int = 10
    bayes_points: int = 100
    bayes_draws: int = 20_000
    bayes_min_abs_sigma: float = 0.05
    multi_ns: tuple[int, ...] = (500, 2000, 8000, 32_000)
    multi_seeds: int = 5
    multi_eta: float = 0.3  # symmetric noise, sigma = 0.55
    multi_alpha: float = 0.5  # random noise matrix H = (1 - alpha) I + alpha R
    multi_h_seed: int = 3
    l2: float = 1e-4


SCALES = {
    "smoke": Config(
        n_test=20_000,
        binary_ns=(2000, 20_000),
        binary_seeds=1,
        bayes_cells=2,
        bayes_per_cell=3,
        bayes_draws=8000,
        bayes_min_abs_sigma=0.1,
        multi_ns=(500, 2000),
        multi_seeds=1,
    ),
    "default": Config(),
    "paper": Config(
        binary_ns=(500, 2000, 5000, 20_000, 100_000),
        binary_seeds=20,
        bayes_cells=50,
        multi_ns=(500, 2000, 8000, 32_000, 128_000),
        multi_seeds=20,
    ),
}


def multiclass_noise(config: Config) -> dict[str, np.ndarray]:
    """The two ``(3, 3)`` noise matrices of the multiclass part."""
    return {
        "symmetric": symmetric_noise_matrix(3, config.multi_eta),
        "random": random_noise_matrix(3, config.multi_alpha, config.multi_h_seed),
    }


def cells(config: Config) -> list[dict]:
    binary = [
        {"part": "binary", "noise": h, "marginal": m, "n": n, "replicate": r}
        for h in BINARY_NOISE
        for m in config.binary_marginals
        for n in config.binary_ns
        for r in range(config.binary_seeds)
    ]
    bayes = [{"part": "bayes", "batch": b} for b in range(config.bayes_cells)]
    multi = [
        {"part": "multiclass", "noise": h, "n": n, "replicate": r}
        for h in ("symmetric", "random")
        for n in config.multi_ns
        for r in range(config.multi_seeds)
    ]
    return binary + bayes + multi


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "binary":
        return _binary(config, cell, seed)
    if cell["part"] == "bayes":
        return _bayes(config, seed)
    return _multiclass(config, cell, seed)


def _binary(config: Config, cell: dict, seed: int) -> dict:
    s_w, s_train, s_test = np.random.SeedSequence(seed).spawn(3)
    H = np.array(BINARY_NOISE[cell["noise"]])
    W = random_classifier(2, config.d, s_w)
    X, _, y_noisy = make_rcn_data(cell["n"], W, H, s_train, cell["marginal"])
    X_t, y_t, _ = make_rcn_data(config.n_test, W, H, s_test, cell["marginal"])
    fit = rcn_perceptron(X, y_noisy, H, iters=config.perceptron_iters)
    return {
        "excess": excess_error(H, y_t, linear_classifier(fit.W, X_t)),
        "excess_init": excess_error(H, y_t, linear_classifier(fit.W_init, X_t)),
        "best_iter": fit.best_iter,
    }


def _bayes(config: Config, seed: int) -> dict:
    """Random instances; Monte Carlo noisy posteriors at ``points`` inputs (``draws`` each)."""
    rng = np.random.default_rng(seed)
    sigmas, agree, agree_closed, ks = [], [], [], []
    while len(sigmas) < config.bayes_per_cell:
        k = int(rng.integers(2, 6))
        H = random_noise_matrix(k, float(rng.uniform(0.05, 1.0)), rng)
        if abs(separation(H)) < config.bayes_min_abs_sigma:
            continue
        W = random_classifier(k, config.d, rng)
        X, y, _ = make_rcn_data(config.bayes_points, W, H, rng)
        draws = apply_rcn(np.repeat(y, config.bayes_draws), H, rng)  # (points * draws,)
        rows = np.repeat(np.arange(y.shape[0]), config.bayes_draws)
        counts = np.zeros((y.shape[0], k))
        np.add.at(counts, (rows, draws), 1.0)  # (points, k) empirical noisy posteriors
        sigmas.append(separation(H))
        ks.append(k)
        agree.append(float(np.mean(np.argmax(counts, axis=1) == y)))
        agree_closed.append(float(np.mean(noisy_bayes_classifier(H, y) == y)))
    return {"sigma": sigmas, "k": ks, "agreement": agree, "agreement_closed": agree_closed}


def _multiclass(config: Config, cell: dict, seed: int) -> dict:
    s_w, s_train, s_test = np.random.SeedSequence(seed).spawn(3)
    H = multiclass_noise(config)[cell["noise"]]
    W = random_classifier(3, config.d, s_w)
    X, _, y_noisy = make_rcn_data(cell["n"], W, H, s_train, "skewed")
    X_t, y_t, _ = make_rcn_data(config.n_test, W, H, s_test, "skewed")
    out = {}
    for method in CORRECTIONS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit = fit_loss_correction(X, y_noisy, H, method, l2=config.l2, seed=0)
        out[f"excess_{method}"] = excess_error(H, y_t, linear_classifier(fit.W, X_t))
        out[f"converged_{method}"] = bool(fit.converged) and not caught
    trivial = np.full_like(y_t, np.bincount(y_noisy, minlength=3).argmax())
    out["excess_trivial"] = excess_error(H, y_t, trivial)
    return out
