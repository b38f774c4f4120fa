"""Reproduction: FHBI against SVGD (and deep ensembles, MC dropout) on three small
classification sets, 10 particles of a one-hidden-layer MLP, 5 seeds.

Cells:
- ``check``: the vectorised step against plain loop-by-loop SVGD (rho = 0) and SAM (one
  particle) (checks a1, a2);
- ``val``: FHBI at each rho of the declared grid, trained on 80% of the training set and scored
  by NLL on the other 20%; the summary picks, per dataset, the rho of the lowest mean
  validation NLL (the test set is never used to choose);
- ``test``: one method on one (dataset, seed), trained on the whole training set and scored on
  the test set: ``svgd`` (rho = 0), ``fhbi`` at every rho of the grid (only the chosen one enters
  the claims; the others draw sharpness against rho), ``ensemble`` (10 members, SGD),
  ``ensemble_sam`` (10 SAM members, ``sam_rho``) and ``mc_dropout``.

SVGD and FHBI share everything but rho: the initial particles and the mini-batches (from the
cell's ``seed`` field, the replicate), the learning rate and its cosine schedule, the steps and
the kernel (RBF on parameters, median bandwidth). The runner's hashed seed only draws the
power-iteration start and the dropout masks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from matplotlib.figure import Figure

from icml25.fhbi.baselines import fit_deep_ensemble, fit_mc_dropout, mc_dropout_member_proba
from icml25.fhbi.data import DATASETS, load
from icml25.fhbi.ensemble import ParticleEnsemble, fit
from icml25.fhbi.metrics import accuracy, diversity, ece, nll
from icml25.fhbi.reference import plain_sam_step, plain_svgd_step, set_flat_params
from icml25.fhbi.sharpness import top_hessian_eigenvalue
from icml25.fhbi.steps import fhbi_step
from icml25.lab.reproduction import Summary

# tiny matrix products: one thread per cell is faster, and a rerun gives equal numbers
CELL_THREADS = 1

METHODS = ("svgd", "fhbi", "ensemble", "ensemble_sam", "mc_dropout")
LABELS = {
    "svgd": "SVGD",
    "fhbi": "FHBI",
    "ensemble": "deep ens.",
    "ensemble_sam": "deep ens. (SAM)",
    "mc_dropout": "MC dropout",
}


@dataclass(frozen=True)
class Config:
    datasets: tuple[str, ...] = DATASETS
    seeds: int = 5
    val_seeds: int = 2  # replicates on which rho is chosen (their own validation splits)
    particles: int = 10
    hidden: int = 32
    lr: float = 1.0  # SVGD/FHBI step size (the phi update carries a 1/m)
    baseline_lr: float = 0.1  # deep-ensemble and MC-dropout SGD: lr / m, SVGD's own-gradient step
    steps: int = 1500
    batch_size: int = 64
    rho_grid: tuple[float, ...] = (0.01, 0.03, 0.1, 0.3)
    sam_rho: float = 0.03  # the SAM members of the reference deep ensemble (the paper's rho)
    dropout: float = 0.1
    mc_samples: int = 10
    power_tol: float = 1e-3
    power_max_iter: int = 300
    record_every: int = 50
    label_noise: float = 0.2
    n_moons: int = 100


SCALES = {
    "smoke": Config(
        seeds=1,
        val_seeds=1,
        particles=4,
        hidden=8,
        steps=20,
        rho_grid=(0.03, 0.3),
        mc_samples=3,
        power_max_iter=50,
        record_every=10,
    ),
    "default": Config(),
    "paper": Config(seeds=10, val_seeds=5, hidden=64, steps=5000, record_every=100),
}


def cells(config: Config) -> list[dict]:
    out: list[dict] = [{"part": "check"}]
    for d in config.datasets:
        out += [
            {"part": "val", "dataset": d, "seed": s, "rho": r}
            for s in range(config.val_seeds)
            for r in config.rho_grid
        ]
        for s in range(config.seeds):
            runs = [("svgd", 0.0)] + [("fhbi", r) for r in config.rho_grid]
            runs += [("ensemble", 0.0), ("ensemble_sam", config.sam_rho), ("mc_dropout", 0.0)]
            out += [
                {"part": "test", "dataset": d, "seed": s, "method": m, "rho": r} for m, r in runs
            ]
    return out


def mlp(inputs: int, hidden: int, classes: int) -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(inputs, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, classes)
    )


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "check":
        return _run_check(config)
    split = load(
        cell["dataset"],
        cell["seed"],
        validation=cell["part"] == "val",
        label_noise=config.label_noise,
        n_moons=config.n_moons,
    )
    method = cell.get("method", "fhbi")
    X, y = torch.tensor(split.X_train), torch.tensor(split.y_train)
    model_fn = lambda: mlp(X.shape[1], config.hidden, split.classes)  # noqa: E731
    common = dict(
        steps=config.steps,
        batch_size=config.batch_size,
        seed=cell["seed"],
        record_every=config.record_every,
    )
    if method == "mc_dropout":
        model = fit_mc_dropout(
            X,
            y,
            hidden=config.hidden,
            classes=split.classes,
            p=config.dropout,
            lr=config.baseline_lr,
            **common,
        )
        members = mc_dropout_member_proba(
            model, split.X_test, p=config.dropout, samples=config.mc_samples, seed=seed
        )
        return _scores(members, split.y_test) | {"history": np.array(model.history)}
    if method in ("svgd", "fhbi"):
        ens = fit(
            model_fn, X, y, particles=config.particles, rho=cell["rho"], lr=config.lr, **common
        )
    else:
        ens = fit_deep_ensemble(
            model_fn,
            X,
            y,
            members=config.particles,
            lr=config.baseline_lr,
            rho=cell["rho"],
            **common,
        )
    out = _scores(ens.member_proba(split.X_test), split.y_test)
    out["history"] = np.array(ens.history)  # (records, 2): step, mean training loss
    if cell["part"] == "test":
        eig = top_hessian_eigenvalue(
            ens.loss_fn(X, y),
            ens.theta,
            tol=config.power_tol,
            max_iter=config.power_max_iter,
            seed=seed % 2**31,
        )
        out |= {
            "sharpness": eig.values.numpy().astype(float),
            "power_converged": float(eig.converged),
            "power_iterations": float(eig.iterations),
        }
    return out


def _scores(members: np.ndarray, y: np.ndarray) -> dict:
    proba = members.mean(0)  # (n, C)
    return {
        "nll": nll(proba, y),
        "accuracy": accuracy(proba, y),
        "ece": ece(proba, y),
        "diversity": diversity(members),
    }


def _run_check(config: Config) -> dict:
    """Max abs differences of the vectorised step against the plain loops (checks a1, a2)."""
    split = load("moons", 0, label_noise=config.label_noise, n_moons=config.n_moons)
    X, y = torch.tensor(split.X_train[:64]), torch.tensor(split.y_train[:64])
    model_fn = lambda: mlp(2, config.hidden, 2)  # noqa: E731
    ens = ParticleEnsemble(model_fn, particles=10, seed=0)
    ours = fhbi_step(ens.theta, ens.loss_fn(X, y), lr=config.lr, rho=0.0)
    modules = [model_fn() for _ in range(10)]
    for module, theta in zip(modules, ens.theta, strict=True):
        set_flat_params(module, theta)
    plain = torch.stack(plain_svgd_step(modules, X, y, lr=config.lr))
    one = ParticleEnsemble(model_fn, particles=1, seed=1)
    ours_sam = fhbi_step(one.theta, one.loss_fn(X, y), lr=config.lr, rho=config.sam_rho)
    set_flat_params(modules[0], one.theta[0])
    plain_sam = plain_sam_step(modules[0], X, y, lr=config.lr, rho=config.sam_rho)
    return {
        "rho0_diff": float((ours - plain).abs().max()),
        "m1_diff": float((ours_sam[0] - plain_sam).abs().max()),
        "step_size": float((ours - ens.theta).abs().max()),
    }


def _select_rho(config: Config, results) -> dict[str, float]:
    """Per dataset, the grid rho of the lowest validation NLL (mean over the val replicates)."""
    chosen = {}
    for d in config.datasets:
        val = {
            r: np.mean(
                [
                    o["nll"]
                    for c, o in results
                    if c["part"] == "val" and c["dataset"] == d and c["rho"] == r
                ]
            )
            for r in config.rho_grid
        }
        chosen[d] = min(config.rho_grid, key=lambda r: (val[r], r))
    return chosen


def _runs(results, dataset: str, method: str, rho: float | None = None) -> list[dict]:
    return [
        o
        for c, o in results
        if c["part"] == "test"
        and c["dataset"] == dataset
        and c["method"] == method
        and (rho is None or c["rho"] == rho)
    ]


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    check = next(o for c, o in results if c["part"] == "check")
    m["a_rho0_vs_svgd_max_abs_diff"] = check["rho0_diff"]
    m["a_m1_vs_sam_max_abs_diff"] = check["m1_diff"]
    m["a_step_max_abs_move"] = check["step_size"]  # the size of what the checks compare
    chosen = _select_rho(config, results)
    table: dict[tuple[str, str], list[dict]] = {}
    for d in config.datasets:
        m[f"rho_chosen_{d}"] = chosen[d]
        for r in config.rho_grid:
            vals = [
                o["nll"]
                for c, o in results
                if c["part"] == "val" and c["dataset"] == d and c["rho"] == r
            ]
            m[f"val_nll_fhbi_rho{r}_{d}"] = float(np.mean(vals))
        for method in METHODS:
            rho = chosen[d] if method == "fhbi" else None
            table[d, method] = _runs(results, d, method, rho)
            _record(m, f"{method}_{d}", table[d, method])
        for r in config.rho_grid:
            _record(m, f"fhbi_rho{r}_{d}", _runs(results, d, "fhbi", r))
    mean = lambda key, d, method: m[f"{key}_{method}_{d}"]  # noqa: E731
    ds = config.datasets
    m["b_datasets_fhbi_nll_below_svgd"] = float(
        sum(mean("nll", d, "fhbi") < mean("nll", d, "svgd") for d in ds)
    )
    m["b_max_accuracy_drop"] = max(
        mean("accuracy", d, "svgd") - mean("accuracy", d, "fhbi") for d in ds
    )
    m["c_datasets_fhbi_sharpness_below_svgd"] = float(
        sum(mean("sharpness", d, "fhbi") < mean("sharpness", d, "svgd") for d in ds)
    )
    m["d_min_diversity_ratio_fhbi_over_svgd"] = min(
        mean("diversity", d, "fhbi") / mean("diversity", d, "svgd") for d in ds
    )
    for d in ds:
        _paired(m, d, table[d, "svgd"], table[d, "fhbi"])
    for d in ds:
        m[f"d_diversity_ratio_{d}"] = mean("diversity", d, "fhbi") / mean("diversity", d, "svgd")
        m[f"d_diversity_ratio_ensemble_sam_over_svgd_{d}"] = mean(
            "diversity", d, "ensemble_sam"
        ) / mean("diversity", d, "svgd")
    tested = [o for c, o in results if c["part"] == "test" and "power_converged" in o]
    m["c_power_iteration_converged_fraction"] = float(
        np.mean([o["power_converged"] for o in tested])
    )
    m["c_power_iteration_max_iterations"] = float(max(o["power_iterations"] for o in tested))
    figures = {
        "nll_accuracy": _fig_scores(config, table),
        "sharpness_vs_rho": _fig_sharpness(config, results, chosen),
        "diversity": _fig_diversity(config, table),
        "training_loss": _fig_training(config, table),
    }
    captions = {
        "nll_accuracy": "Test NLL and accuracy of the particle average per method and dataset: "
        "one dot per seed, bar = mean over seeds (FHBI at its validation-chosen rho).",
        "sharpness_vs_rho": "Largest Hessian eigenvalue of the training loss (mean over "
        "particles; mean and seed spread) against FHBI's rho; rho = 0 is SVGD; the circled "
        "point is the rho chosen on the validation split.",
        "diversity": "Particle diversity (mean pairwise total-variation distance on test "
        "inputs) per dataset; the dashed line is the deep ensemble of SAM members (reference).",
        "training_loss": "Mean training loss of the particles during training (mean over "
        "seeds): the cosine step-size schedule brings it to a plateau by the end.",
    }
    return Summary(m, figures, captions)


def _paired(m: dict, d: str, svgd: list[dict], fhbi: list[dict]) -> None:
    """Per-seed (paired: same data, initial particles and batches) FHBI - SVGD differences."""
    for name in ("nll", "accuracy"):
        diff = np.array([b[name] - a[name] for a, b in zip(svgd, fhbi, strict=True)])
        m[f"paired_{name}_fhbi_minus_svgd_{d}"] = float(diff.mean())
        m[f"paired_{name}_fhbi_minus_svgd_sd_{d}"] = float(diff.std())
        m[f"paired_seeds_fhbi_{name}_below_svgd_{d}"] = float((diff < 0).sum())
    sharp = [b["sharpness"].mean() < a["sharpness"].mean() for a, b in zip(svgd, fhbi, strict=True)]
    m[f"paired_seeds_fhbi_sharpness_below_svgd_{d}"] = float(sum(sharp))


def _record(m: dict, key: str, runs: list[dict]) -> None:
    if not runs:
        return
    for name in ("nll", "accuracy", "ece", "diversity"):
        m[f"{name}_{key}"] = float(np.mean([o[name] for o in runs]))
        m[f"{name}_sd_{key}"] = float(np.std([o[name] for o in runs]))
    if "sharpness" in runs[0]:
        m[f"sharpness_{key}"] = float(np.mean([o["sharpness"].mean() for o in runs]))
    hist = np.mean([o["history"][:, 1] for o in runs], axis=0)  # (records,)
    m[f"train_loss_end_{key}"] = float(hist[-1])
    tail = hist[int(0.8 * (len(hist) - 1)) :]  # the last fifth of the budget
    m[f"train_loss_change_last_fifth_{key}"] = float(tail[0] - tail[-1])


def _fig_scores(config: Config, table) -> Figure:
    fig = Figure(figsize=(4 * len(config.datasets), 6))
    axes = fig.subplots(2, len(config.datasets), squeeze=False)
    for j, d in enumerate(config.datasets):
        for row, key in enumerate(("nll", "accuracy")):
            ax = axes[row, j]
            for i, method in enumerate(METHODS):
                vals = [o[key] for o in table[d, method]]
                ax.bar(i, np.mean(vals), color=f"C{i}", alpha=0.5)
                ax.plot(np.full(len(vals), i), vals, "k.", markersize=4)
            ax.set_xticks(
                range(len(METHODS)), [LABELS[k] for k in METHODS], rotation=35, fontsize=7
            )
            ax.set_title(f"{d}: test {key}", fontsize=9)
            if key == "accuracy":
                lo = min(o[key] for k in METHODS for o in table[d, k])
                ax.set_ylim(max(0.0, lo - 0.05), 1.0)
    fig.tight_layout()
    return fig


def _fig_sharpness(config: Config, results, chosen) -> Figure:
    fig = Figure(figsize=(4 * len(config.datasets), 3.4))
    axes = fig.subplots(1, len(config.datasets), squeeze=False)[0]
    for ax, d in zip(axes, config.datasets, strict=True):
        rhos = [0.0, *config.rho_grid]
        per = [
            [o["sharpness"].mean() for o in _runs(results, d, "svgd" if r == 0 else "fhbi", r)]
            for r in rhos
        ]
        xs = np.arange(len(rhos))
        ax.errorbar(xs, [np.mean(p) for p in per], yerr=[np.std(p) for p in per], fmt="o-")
        k = rhos.index(chosen[d])
        ax.plot(xs[k], np.mean(per[k]), "o", ms=14, mfc="none", color="C3")
        ax.set_xticks(xs, ["0 (SVGD)", *[str(r) for r in config.rho_grid]], fontsize=8)
        ax.set_xlabel("rho")
        ax.set_ylabel("top Hessian eigenvalue")
        ax.set_title(d, fontsize=9)
    fig.tight_layout()
    return fig


def _fig_diversity(config: Config, table) -> Figure:
    fig = Figure(figsize=(4 * len(config.datasets), 3.4))
    axes = fig.subplots(1, len(config.datasets), squeeze=False)[0]
    shown = ("svgd", "fhbi", "ensemble")
    for ax, d in zip(axes, config.datasets, strict=True):
        for i, method in enumerate(shown):
            vals = [o["diversity"] for o in table[d, method]]
            ax.bar(i, np.mean(vals), yerr=np.std(vals), color=f"C{i}", alpha=0.6)
        ref = np.mean([o["diversity"] for o in table[d, "ensemble_sam"]])
        ax.axhline(ref, color="k", linestyle="--", label=LABELS["ensemble_sam"])
        ax.set_xticks(range(len(shown)), [LABELS[k] for k in shown], fontsize=8)
        ax.set_ylabel("mean pairwise TV distance")
        ax.set_title(d, fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_training(config: Config, table) -> Figure:
    fig = Figure(figsize=(4 * len(config.datasets), 3.2))
    axes = fig.subplots(1, len(config.datasets), squeeze=False)[0]
    for ax, d in zip(axes, config.datasets, strict=True):
        for i, method in enumerate(METHODS):
            runs = table[d, method]
            hist = np.mean([o["history"] for o in runs], axis=0)  # (records, 2)
            ax.semilogy(
                hist[:, 0], np.maximum(hist[:, 1], 1e-8), color=f"C{i}", label=LABELS[method]
            )
        ax.set_xlabel("step")
        ax.set_ylabel("training loss")
        ax.set_title(d, fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
