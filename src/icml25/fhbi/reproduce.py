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
  ``ensemble_sam`` (10 SAM members, ``sam_rho``) and ``mc_dropout``. Every method but MC
  dropout is also measured on the whole training set at its final particles: the largest
  Hessian eigenvalue of each particle's loss (sharpness) and the particles' gradient diversity
  (``metrics.gradient_diversity``).

SVGD and FHBI share everything but rho: the initial particles and the mini-batches (from the
cell's ``seed`` field, the replicate), the learning rate and its cosine schedule, the steps and
the kernel (RBF on parameters, median bandwidth). The runner's hashed seed only draws the
power-iteration start and the dropout masks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icml25.fhbi.baselines import fit_deep_ensemble, fit_mc_dropout, mc_dropout_member_proba
from icml25.fhbi.data import DATASETS, load
from icml25.fhbi.ensemble import ParticleEnsemble, fit
from icml25.fhbi.metrics import accuracy, diversity, ece, gradient_diversity, nll
from icml25.fhbi.reference import plain_sam_step, plain_svgd_step, set_flat_params
from icml25.fhbi.sharpness import top_hessian_eigenvalue
from icml25.fhbi.steps import fhbi_step

# tiny matrix products: one thread per cell is faster, and a rerun gives equal numbers
CELL_THREADS = 1


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
            "grad_diversity": gradient_diversity(ens.gradients(X, y).numpy()),
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
