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
  grid x replicates: reported without a threshold (issue item (c)).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
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


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    nan = float("nan")
    by: dict[str, list] = {}
    for cell, out in results:
        by.setdefault(cell["part"], []).append((cell, out))

    binary = by.get("binary", [])
    at_n = [o["excess"] for c, o in binary if c["n"] == config.claim_n]
    m["binary_excess_max_n20000"] = max(at_n, default=nan)
    m["binary_excess_init_max_n20000"] = max(
        (o["excess_init"] for c, o in binary if c["n"] == config.claim_n), default=nan
    )
    for n in config.binary_ns:
        rows = [o["excess"] for c, o in binary if c["n"] == n]
        if rows:
            m[f"binary_excess_mean_n{n}"] = float(np.mean(rows))

    bayes = [o for _, o in by.get("bayes", [])]
    sig = np.concatenate([o["sigma"] for o in bayes]) if bayes else np.array([])
    agr = np.concatenate([o["agreement"] for o in bayes]) if bayes else np.array([])
    closed = np.concatenate([o["agreement_closed"] for o in bayes]) if bayes else np.array([])
    pos, neg = sig > 0, sig < 0
    m["bayes_agreement_min_positive_sigma"] = float(agr[pos].min()) if pos.any() else nan
    m["bayes_instances_positive_sigma"] = float(pos.sum())
    m["bayes_instances_negative_sigma"] = float(neg.sum())
    m["bayes_agreement_mean_negative_sigma"] = float(agr[neg].mean()) if neg.any() else nan
    m["bayes_closed_form_mismatch_positive_sigma"] = (
        float(np.abs(agr - closed)[pos].max()) if pos.any() else nan
    )

    multi = by.get("multiclass", [])
    for h in ("symmetric", "random"):
        for method in (*CORRECTIONS, "trivial"):
            for n in config.multi_ns:
                rows = [o[f"excess_{method}"] for c, o in multi if c["noise"] == h and c["n"] == n]
                if rows:
                    m[f"multi_excess_{method}_{h}_n{n}"] = float(np.mean(rows))
    if multi:
        m["multi_not_converged"] = float(
            sum(not o[f"converged_{x}"] for _, o in multi for x in CORRECTIONS)
        )

    figures = {}
    if binary:
        figures["binary_excess"] = _fig_binary(config, binary)
    if bayes:
        figures["bayes_agreement"] = _fig_bayes(sig, agr)
    if multi:
        figures["multiclass_excess"] = _fig_multi(config, multi)
    return Summary(m, figures)


def _fig_binary(config: Config, binary) -> Figure:
    fig = Figure(figsize=(5.5, 3.8))
    ax = fig.subplots()
    for j, (h, mg) in enumerate((h, mg) for h in BINARY_NOISE for mg in config.binary_marginals):
        for key, ls in (("excess", "-"), ("excess_init", ":")):
            means = [
                np.mean(
                    [o[key] for c, o in binary if (c["noise"], c["marginal"], c["n"]) == (h, mg, n)]
                )
                for n in config.binary_ns
            ]
            label = f"{h}, {mg}" + (" (averaging start)" if key == "excess_init" else "")
            ax.plot(config.binary_ns, means, ls, marker="o", color=f"C{j}", ms=3, label=label)
    ax.axhline(0.02, color="grey", ls="--", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (noisy training examples)")
    ax.set_ylabel("err(h) - opt (mean over seeds)")
    ax.set_title("k = 2: SQ perceptron (solid) vs its averaging start (dotted)", fontsize=9)
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def _fig_bayes(sig: np.ndarray, agr: np.ndarray) -> Figure:
    fig = Figure(figsize=(5, 3.6))
    ax = fig.subplots()
    ax.scatter(sig, agr, s=10)
    ax.axvline(0.0, color="grey", ls=":", lw=1)
    ax.set_xlabel("separation sigma = min H_ii - H_ij")
    ax.set_ylabel("P(noisy Bayes classifier = f(x))")
    ax.set_title("Monte Carlo noisy-label Bayes classifier vs the clean one", fontsize=9)
    fig.tight_layout()
    return fig


def _fig_multi(config: Config, multi) -> Figure:
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, h in zip(axes, ("symmetric", "random"), strict=True):
        for j, method in enumerate((*CORRECTIONS, "trivial")):
            rows = [
                [o[f"excess_{method}"] for c, o in multi if c["noise"] == h and c["n"] == n]
                for n in config.multi_ns
            ]
            ax.errorbar(
                config.multi_ns,
                [np.mean(r) for r in rows],
                yerr=[np.std(r) for r in rows],
                marker="o",
                ms=3,
                color=f"C{j}",
                label=method,
                capsize=2,
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_title(f"k = 3, {h} H: err(h) - opt", fontsize=9)
    axes[0].set_ylabel("err(h) - opt (mean, std over seeds)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig
