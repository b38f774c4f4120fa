"""Reproduction: labelled datasets flowed by WoW gradient descent on an MMD with a sliced
Wasserstein kernel on classes.

Cells:
- ``rings``: the paper's toy, three source classes from one small Gaussian flowed onto three
  rings (official notebook: 80 points per class, 501 steps, lr 0.1, no momentum, 500
  directions), with the Riesz kernel (claims a_mmd, a_w2, a_plateau) and the Gaussian kernel
  h = 0.1 (claim d); extra runs test the explanations of (a) and (d): Gaussian at other
  bandwidths, Riesz at smaller steps over proportionally more steps, Riesz with r = 0.5, 1.5;
- ``transfer``: sklearn digits (source, unshifted) flowed toward ``k`` labelled images per class
  of stroke-thickened digits; classifiers on the flowed source with the shots and on the shots
  alone (claim b at k = 5; accuracy against k), and how close the flowed images sit to the shots;
- ``distill``: one real image per class flowed toward the digits training set (claim c), beside
  the classifier trained on the 10 class means of that set.

Every cell runs with one thread; its seed (from the runner) draws the directions, the target
shots and the initial images, so a cell is deterministic given its seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from sklearn.linear_model import LogisticRegression

from icml25.wow_flows.datasets import digits_split, from_classes, rings, thicken, to_classes
from icml25.wow_flows.flow import flow
from icml25.wow_flows.kernels import gaussian_kernel, riesz_kernel
from icml25.wow_flows.wow import match_classes, w2_squared_matrix, wow_distance

CELL_THREADS = 1


@dataclass(frozen=True)
class Config:
    n_projections: int = 500
    # (a), (d): rings (official notebook)
    rings_points: int = 80
    rings_steps: int = 501
    rings_lr: float = 0.1
    rings_records: int = 50  # records per flow (every steps // records steps)
    rings_gaussian_h: float = 0.1
    # extra rings runs for (d): (kernel, parameter, lr, steps)
    rings_extra: tuple[tuple[str, float, float, int], ...] = (
        ("gaussian", 0.01, 0.1, 501),
        ("gaussian", 1.0, 0.1, 501),
        ("riesz", 1.0, 0.05, 1002),
        ("riesz", 1.0, 0.025, 2004),
        ("riesz", 0.5, 0.1, 501),
        ("riesz", 1.5, 0.1, 501),
    )
    # (b): transfer to stroke-thickened digits
    data_seed: int = 0
    shift_size: int = 2  # grey dilation by a size x size square
    b_shots: tuple[int, ...] = (1, 5, 10)
    b_claim_shots: int = 5
    b_seeds: int = 5
    b_steps: int = 300
    b_lr: float = 1.0  # official transfer: lr 1, momentum 0.9
    b_momentum: float = 0.9
    # (c): distillation, 1 image per class
    c_seeds: int = 5
    c_steps: int = 200
    c_lr: float = 1.0  # official distillation: lr 1, momentum 0.9
    c_momentum: float = 0.9
    # the classifier of (b) and (c), fixed before the run
    logreg_c: float = 1.0
    logreg_iter: int = 5000


SCALES = {
    "smoke": Config(
        n_projections=100,
        rings_steps=80,
        rings_records=20,
        rings_extra=(),
        b_shots=(5,),
        b_seeds=1,
        b_steps=30,
        c_seeds=1,
        c_steps=30,
    ),
    "default": Config(),
    "paper": Config(
        b_steps=5000,
        c_steps=20000,
        b_shots=(1, 5, 10, 100),
    ),
}


def _main_rings(config: Config) -> list[tuple[str, float, float, int]]:
    return [
        ("riesz", 1.0, config.rings_lr, config.rings_steps),
        ("gaussian", config.rings_gaussian_h, config.rings_lr, config.rings_steps),
    ]


def cells(config: Config) -> list[dict]:
    ring = [
        {"part": "rings", "kernel": k, "param": p, "lr": lr, "steps": s}
        for k, p, lr, s in _main_rings(config) + list(config.rings_extra)
    ]
    transfer = [
        {"part": "transfer", "shots": k, "rep": r}
        for k in config.b_shots
        for r in range(config.b_seeds)
    ]
    distill = [{"part": "distill", "rep": r} for r in range(config.c_seeds)]
    return ring + transfer + distill


def _kernel(name: str, param: float):
    return riesz_kernel(param) if name == "riesz" else gaussian_kernel(param)


@lru_cache(maxsize=4)
def _digits(config: Config):
    """Source classes (C, n, d) and labels (C,) from half A; half B thickened, its labels, and
    half B unshifted."""
    X_a, y_a, X_b, y_b = digits_split(config.data_seed)
    source, classes = to_classes(X_a, y_a, seed=config.data_seed)
    return source, classes, thicken(X_b, config.shift_size), y_b, X_b


def _classifier(config: Config, X, y) -> LogisticRegression:
    return LogisticRegression(C=config.logreg_c, max_iter=config.logreg_iter).fit(X, y)


def _draw_shots(y: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Indices (C, k) of k random rows of each class of ``y`` (classes in sorted order)."""
    classes = np.unique(y)
    keys = rng.random((len(classes), len(y)))
    keys[y[None, :] != classes[:, None]] = np.inf
    return np.argsort(keys, axis=1)[:, :k]


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "rings":
        return _run_rings(config, cell, seed)
    if cell["part"] == "transfer":
        return _run_transfer(config, cell, seed)
    return _run_distill(config, seed)


def _run_rings(config: Config, cell: dict, seed: int) -> dict:
    source, target, _ = rings(config.rings_points)
    steps = cell["steps"]
    res = flow(
        source,
        target,
        kernel=_kernel(cell["kernel"], cell["param"]),
        steps=steps,
        lr=cell["lr"],
        seed=seed % 2**62,
        record_every=max(steps // config.rings_records, 1),
        n_projections=config.n_projections,
        n_eval_projections=config.n_projections,
    )
    snap_at = [0, 10, 50, 100, 250, steps]
    snaps = [int(np.argmin(np.abs(res.steps - s))) for s in snap_at]
    w2 = w2_squared_matrix(res.final, target)  # (3, 3), squared
    return {
        "steps": res.steps,
        "mmd2": res.mmd2,
        "snapshot_steps": res.steps[snaps],
        "snapshots": res.trajectory[snaps],  # (6, 3, n, 2)
        "w2": np.sqrt(w2),
        "own_ring": match_classes(res.final, target, cost=w2),
        "wow": wow_distance(res.final, target),
    }


def _run_transfer(config: Config, cell: dict, seed: int) -> dict:
    source, classes, X_t, y_t, X_b = _digits(config)
    rng = np.random.default_rng(seed)
    shots = _draw_shots(y_t, cell["shots"], rng)  # (C, k)
    test = np.ones(len(y_t), bool)
    test[shots.ravel()] = False
    target = X_t[shots]  # (C, k, d)
    res = flow(
        source,
        target,
        kernel="riesz",
        steps=config.b_steps,
        lr=config.b_lr,
        momentum=config.b_momentum,
        seed=seed % 2**62,
        record_every=max(config.b_steps // 10, 1),
        n_projections=config.n_projections,
        n_eval_projections=config.n_projections,
    )
    flowed = np.clip(res.final, 0.0, 1.0)  # images stay in [0, 1], as the official code does
    matched = match_classes(flowed, target)  # (C,) target class of each flowed class
    X_s, y_s = from_classes(source, classes)
    X_f, y_f = from_classes(flowed, classes[matched])
    X_k, y_k = X_t[shots.ravel()], y_t[shots.ravel()]
    X_test, y_test = X_t[test], y_t[test]
    unflowed = _classifier(config, X_s, y_s)
    arms = {
        "unflowed": unflowed,
        "flowed": _classifier(config, X_f, y_f),
        "unflowed_shots": _classifier(config, np.r_[X_s, X_k], np.r_[y_s, y_k]),
        "flowed_shots": _classifier(config, np.r_[X_f, X_k], np.r_[y_f, y_k]),
        "shots_only": _classifier(config, X_k, y_k),
    }
    out = {f"acc_{name}": float(clf.score(X_test, y_test)) for name, clf in arms.items()}
    out["acc_source_on_source"] = float(unflowed.score(X_b, y_t))
    out["identity_matching"] = float(np.all(matched == np.arange(len(classes))))
    # how close the flowed images sit to the shots, against held-out target images of the class
    near = {"flowed": X_f, "test": X_test}
    labels = {"flowed": y_f, "test": y_test}
    for name, X in near.items():
        out[f"nn_shot_distance_{name}"] = _nearest_shot_distance(X, labels[name], X_k, y_k)
    out["mmd2"] = res.mmd2
    out["steps"] = res.steps
    if cell["rep"] == 0 and cell["shots"] == config.b_claim_shots:
        out["images"] = np.stack([source[:, 0], flowed[:, 0], target[:, 0]])  # (3, C, d)
    return out


def _nearest_shot_distance(X, y, X_k, y_k) -> float:
    """Mean over the rows of ``X`` (n, d) of the Euclidean distance to the nearest shot (rows
    of ``X_k``) of the same label."""
    d2 = (X**2).sum(1)[:, None] + (X_k**2).sum(1)[None] - 2 * X @ X_k.T  # (n, C k)
    d2 = np.where(y[:, None] == y_k[None], d2, np.inf)
    return float(np.sqrt(np.maximum(d2.min(1), 0.0)).mean())


def _run_distill(config: Config, seed: int) -> dict:
    target, classes, _, y_b, X_b = _digits(config)
    rng = np.random.default_rng(seed)
    init = target[np.arange(len(target)), rng.integers(0, target.shape[1], len(target))]
    res = flow(
        init[:, None],  # (C, 1, d): one random real image per class
        target,
        kernel="riesz",
        steps=config.c_steps,
        lr=config.c_lr,
        momentum=config.c_momentum,
        seed=seed % 2**62,
        record_every=max(config.c_steps // 10, 1),
        n_projections=config.n_projections,
        n_eval_projections=config.n_projections,
    )
    flowed = np.clip(res.final[:, 0], 0.0, 1.0)  # (C, d)
    matched = match_classes(flowed[:, None], target)
    return {
        "acc_random_real": float(_classifier(config, init, classes).score(X_b, y_b)),
        "acc_flowed": float(_classifier(config, flowed, classes[matched]).score(X_b, y_b)),
        "acc_class_means": float(_classifier(config, target.mean(1), classes).score(X_b, y_b)),
        "identity_matching": float(np.all(matched == np.arange(len(classes)))),
        "mmd2": res.mmd2,
        "steps": res.steps,
        "images": np.stack([init, flowed]),  # (2, C, d)
    }


# ----------------------------------------------------------------------------------------------
# summary
