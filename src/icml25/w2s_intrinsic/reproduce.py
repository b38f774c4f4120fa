"""Reproduction of Dong et al. (ICML 2025): real-feature W2S probes, and the Gaussian checks.

Real models (claims d1, d2): one cell per strong model of ``strong_models``; it pretrains (or
builds) that model and every model of ``weak_models`` on digits 0-4
(:mod:`~icml25.w2s_intrinsic.digits`), and runs :func:`~icml25.w2s_intrinsic.w2s_linear_probe`
on digits 5-9 for each (weak, strong) pair, with ``label_noise`` of the training labels replaced
by a uniformly drawn class (fresh per split, the same for every pair of the cell). The summary
ranks the pairs by the PGR the theory predicts from their measured ``(d_s, d_w, d_sw)`` and by
the measured PGR (Spearman).

Gaussian model (checks a1-a5, b1, b2, c): strong and weak feature subspaces of dimensions
``d_s = 20`` and ``d_w = 40`` (drawn in the union of the two, the same law as in ``R^120``),
sharing ``d_sw`` in {0, 5, 10, 20} directions; ``n`` in {100, 200, 400} labelled samples and
``N`` from 100 to 4000 pseudo-labels; 500 trials per point. Each cell is one ``(d_sw, n)``
pair simulated for all ``N`` at once (nested pseudo-labelled samples, see
:func:`~icml25.w2s_intrinsic.simulate.simulate_w2s`). Cells with ``n`` outside the claims' grid
(``extra_n_values``) only feed the figure against ``n``.

A simulated quantity agrees with its closed form at a grid point when
``|simulated - closed form| <= max(3 SE, 0.05 |closed form|)`` (the issue's "within 3 standard
errors or 5% (relative)"). PGR and OPR are ratios of the mean risks (the paper defines them on
expected risks), with delta-method standard errors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.w2s_intrinsic.digits import digits_split, model_features
from icml25.w2s_intrinsic.probe import predicted_pgr, w2s_linear_probe
from icml25.w2s_intrinsic.simulate import simulate_w2s
from icml25.w2s_intrinsic.theory import w2s_risks


@dataclass(frozen=True)
class Config:
    d_s: int = 20
    d_w: int = 40
    sigma: float = 1.0
    d_sw_values: tuple[int, ...] = (0, 5, 10, 20)
    n_values: tuple[int, ...] = (100, 200, 400)  # the claims' grid
    extra_n_values: tuple[int, ...] = (50, 70, 150, 300)  # the figure against n only
    N_values: tuple[int, ...] = (100, 200, 400, 1000, 2000, 4000)
    trials: int = 500
    ambient_dim: int | None = None  # None: draw in the union of the subspaces (same law)
    # real features (d1, d2)
    weak_models: tuple[str, ...] = (
        "pixels",
        "random:16:0",
        "random:16:1",
        "random:64:0",
        "random:64:1",
        "mlp:8:0",
        "mlp:8:1",
        "mlp:16:0",
        "mlp:16:1",
        "mlp:32:0",
        "mlp:32:1",
    )
    strong_models: tuple[str, ...] = (
        "mlp:64:0",
        "mlp:64:1",
        "mlp:256:0",
        "mlp:256:1",
        "mlp:128x128:0",
        "mlp:128x128:1",
    )
    probe_n: int = 60
    probe_N: tuple[int, ...] = (100, 200, 400)
    probe_trials: int = 100
    label_noise: float = 0.3
    fraction: float = 0.99  # the official script's cutoff
    pretrain_iter: int = 300


SCALES = {
    "smoke": Config(
        d_sw_values=(0, 10),
        n_values=(100,),
        extra_n_values=(),
        N_values=(100, 400, 2000),
        trials=200,
        weak_models=("pixels", "random:16:0", "mlp:8:0"),
        strong_models=("mlp:64:0",),
        probe_trials=20,
        pretrain_iter=30,
    ),
    "default": Config(),
    "paper": Config(
        extra_n_values=(50, 60, 70, 85, 125, 150, 250, 300, 350),
        N_values=(100, 200, 300, 400, 700, 1000, 1500, 2000, 3000, 4000),
        trials=2000,
        ambient_dim=120,
        probe_trials=1000,
    ),
}


def cells(config: Config) -> list[dict]:
    return [{"strong": name} for name in config.strong_models] + [
        {"d_sw": d_sw, "n": n}
        for d_sw in config.d_sw_values
        for n in (*config.n_values, *config.extra_n_values)
    ]


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if "strong" in cell:
        return _run_probe_cell(config, cell["strong"], seed)
    sim = simulate_w2s(
        config.d_s,
        config.d_w,
        cell["d_sw"],
        cell["n"],
        list(config.N_values),
        config.sigma,
        trials=config.trials,
        ambient_dim=config.ambient_dim,
        seed=seed,
    )
    out: dict = {"N": sim.N.tolist()}
    for name in ("weak", "strong", "w2s", "ceiling", "w2s_limit"):
        out[name] = np.atleast_1d(sim.mean(name)).tolist()
        out[f"{name}_se"] = np.atleast_1d(sim.se(name)).tolist()
    out["pgr"], out["pgr_se"] = sim.pgr.tolist(), sim.pgr_se.tolist()
    out["opr"], out["opr_se"] = sim.opr.tolist(), sim.opr_se.tolist()
    out["gap"] = (sim.w2s - sim.w2s_limit[:, None]).mean(axis=0).tolist()  # (K,) paired
    return out


def _run_probe_cell(config: Config, strong: str, seed: int) -> dict:
    """Every weak model against one strong model, linear probes on digits 5-9."""
    X_pre, y_pre, X_task, y_task = digits_split()
    rng = np.random.default_rng(seed)
    classes = int(y_task.max()) + 1
    Y = np.eye(classes)[y_task]  # (m, C) clean one-hot targets
    flip = rng.random((config.probe_trials, len(y_task), 1)) < config.label_noise
    random_class = np.eye(classes)[rng.integers(0, classes, (config.probe_trials, len(y_task)))]
    Y_train = np.where(flip, random_class, Y[None])  # (T, m, C): label noise, fresh per split
    split_seed = int(rng.integers(2**63))  # the same splits for every pair of the cell
    Fs, strong_acc = model_features(strong, X_pre, y_pre, X_task, config.pretrain_iter)
    out: dict = {"N": list(config.probe_N), "strong_pretrain_accuracy": strong_acc, "pairs": []}
    for weak in config.weak_models:
        Fw, weak_acc = model_features(weak, X_pre, y_pre, X_task, config.pretrain_iter)
        probe = w2s_linear_probe(
            Fw,
            Fs,
            Y,
            config.probe_n,
            list(config.probe_N),
            train_targets=Y_train,
            fraction=config.fraction,
            trials=config.probe_trials,
            seed=split_seed,
        )
        pair = {"weak_model": weak, "weak_pretrain_accuracy": weak_acc, "d_s": probe.d_s}
        pair |= {"d_w": probe.d_w, "d_sw": probe.d_sw}
        for name in ("weak", "strong", "w2s", "ceiling"):
            pair[name] = np.atleast_1d(probe.mean(name)).tolist()
            pair[f"{name}_se"] = np.atleast_1d(probe.se(name)).tolist()
        pair["pgr"], pair["pgr_se"] = probe.pgr.tolist(), probe.pgr_se.tolist()
        pair["opr"] = probe.opr.tolist()
        pair["predicted_pgr"] = predicted_pgr(probe).tolist()
        pair["predicted_pgr_exact"] = predicted_pgr(probe, "exact").tolist()
        pair["predicted_pgr_without_dsw"] = np.atleast_1d(
            w2s_risks(probe.d_s, probe.d_w, 0.0, probe.n, probe.N, form="asymptotic").pgr
        ).tolist()
        out["pairs"].append(pair)
    return out
