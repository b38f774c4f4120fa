"""Reproduction: labelled datasets flowed by WoW gradient descent on an MMD with a sliced
Wasserstein kernel on classes.

Cells:
- ``rings``: the paper's toy, three source classes from one small Gaussian flowed onto three
  rings (official notebook: 80 points per class, 501 steps, lr 0.1, no momentum, 500
  directions), with the Riesz kernel (claims a_mmd, a_w2, a_plateau) and the Gaussian kernel
  h = 0.1 (claim d); extra runs test the explanations of (a) and (d): Gaussian at other
  bandwidths, Riesz at smaller steps over proportionally more steps, Riesz with r = 0.5, 1.5;
- ``transfer``: sklearn digits (source, unshifted) flowed toward ``k`` labelled images per class
  of stroke-thickened digits (claim b at k = 5; accuracy against k);
- ``distill``: one real image per class flowed toward the digits training set (claim c).

Every cell runs with one thread; its seed (from the runner) draws the directions, the target
shots and the initial images, so a cell is deterministic given its seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from matplotlib.figure import Figure
from sklearn.linear_model import LogisticRegression

from icml25.lab.reproduction import Summary
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


def _plateau(mmd2: np.ndarray, steps: np.ndarray, total: int) -> float:
    """Range of the MMD over the records of the last 10% of steps, over the initial MMD."""
    mmd = np.sqrt(np.maximum(mmd2, 0.0))
    tail = mmd[steps >= 0.9 * total]
    return float((tail.max() - tail.min()) / mmd[0])


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
    out["mmd2"] = res.mmd2
    out["steps"] = res.steps
    if cell["rep"] == 0 and cell["shots"] == config.b_claim_shots:
        out["images"] = np.stack([source[:, 0], flowed[:, 0], target[:, 0]])  # (3, C, d)
    return out


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
        "identity_matching": float(np.all(matched == np.arange(len(classes)))),
        "mmd2": res.mmd2,
        "steps": res.steps,
        "images": np.stack([init, flowed]),  # (2, C, d)
    }


# ----------------------------------------------------------------------------------------------
# summary


def _run_name(cell: dict) -> str:
    return f"{cell['kernel']}_p{cell['param']:g}_lr{cell['lr']:g}_steps{cell['steps']}"


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    figures: dict[str, Figure] = {}
    captions: dict[str, str] = {}
    ring_rows = [(c, o) for c, o in results if c["part"] == "rings"]
    main = {name: None for name in ("riesz", "gaussian")}
    for (kname, param, lr, steps), label in zip(_main_rings(config), main, strict=True):
        for c, o in ring_rows:
            if (c["kernel"], c["param"], c["lr"], c["steps"]) == (kname, param, lr, steps):
                main[label] = (c, o)
    for c, o in ring_rows:
        _ring_measurements(m, f"rings_{_run_name(c)}", c, o)
    for label, (c, o) in main.items():
        _ring_measurements(m, f"a_{label}", c, o)
    m["d_wow_riesz_minus_gaussian"] = m["a_riesz_wow"] - m["a_gaussian_wow"]
    figures["rings_flow"] = _fig_rings(config, main)
    captions["rings_flow"] = (
        "Rings: the three source classes (colours) flowed onto the target rings (grey), Riesz "
        "kernel (top) and Gaussian kernel h = 0.1 (bottom), official budget."
    )
    figures["rings_mmd"] = _fig_rings_mmd(ring_rows)
    captions["rings_mmd"] = (
        "Rings: MMD (on fixed directions) along each flow, relative to its initial value."
    )
    _summarize_transfer(config, results, m, figures, captions)
    _summarize_distill(config, results, m, figures, captions)
    return Summary(m, figures, captions)


def _ring_measurements(m: dict, prefix: str, cell: dict, out: dict) -> None:
    mmd2 = out["mmd2"]
    m[f"{prefix}_mmd_drop"] = float(1 - np.sqrt(max(mmd2[-1], 0.0) / mmd2[0]))
    m[f"{prefix}_mmd2_drop"] = float(1 - mmd2[-1] / mmd2[0])
    m[f"{prefix}_plateau_range"] = _plateau(mmd2, out["steps"], cell["steps"])
    # a floor or a descent? mean MMD / initial MMD over the last 10% of steps and over 40-50%
    ratio, frac = np.sqrt(np.maximum(mmd2, 0.0) / mmd2[0]), out["steps"] / cell["steps"]
    m[f"{prefix}_mean_mmd_ratio_last10pct"] = float(ratio[frac >= 0.9].mean())
    m[f"{prefix}_mean_mmd_ratio_40to50pct"] = float(ratio[(frac >= 0.4) & (frac <= 0.5)].mean())
    w2, own = out["w2"], out["own_ring"]
    rows = np.arange(len(own))
    m[f"{prefix}_max_w2_to_own_ring"] = float(w2[rows, own].max())
    m[f"{prefix}_max_w2_to_same_index_ring"] = float(np.diag(w2).max())
    others = np.where(np.eye(len(own), w2.shape[1], dtype=bool)[own], np.inf, w2)
    m[f"{prefix}_min_w2_to_other_rings"] = float(others.min())
    m[f"{prefix}_own_ring_is_nearest"] = float(np.all(w2.argmin(axis=1) == own))
    m[f"{prefix}_own_rings_distinct"] = float(len(set(own.tolist())) == len(own))
    m[f"{prefix}_wow"] = float(out["wow"])


def _summarize_transfer(config, results, m, figures, captions) -> None:
    rows = [(c, o) for c, o in results if c["part"] == "transfer"]
    arms = ("unflowed", "flowed", "unflowed_shots", "flowed_shots", "shots_only")
    curves = {arm: [] for arm in arms}
    for k in config.b_shots:
        outs = [o for c, o in rows if c["shots"] == k]
        acc = {arm: np.array([o[f"acc_{arm}"] for o in outs]) for arm in arms}
        for arm in arms:
            m[f"b_acc_{arm}_k{k}"] = float(acc[arm].mean())
            curves[arm].append((acc[arm].mean(), acc[arm].std()))
        m[f"b_gain_points_k{k}"] = float(100 * (acc["flowed"] - acc["unflowed"]).mean())
        m[f"b_gain_points_min_over_seeds_k{k}"] = float(
            100 * (acc["flowed"] - acc["unflowed"]).min()
        )
        m[f"b_gain_with_shots_points_k{k}"] = float(
            100 * (acc["flowed_shots"] - acc["unflowed_shots"]).mean()
        )
        m[f"b_paper_gain_points_k{k}"] = float(
            100 * (acc["flowed_shots"] - acc["shots_only"]).mean()
        )
        m[f"b_identity_matching_fraction_k{k}"] = float(
            np.mean([o["identity_matching"] for o in outs])
        )
        m[f"b_mmd_drop_k{k}"] = float(
            np.mean([1 - np.sqrt(max(o["mmd2"][-1], 0) / o["mmd2"][0]) for o in outs])
        )
        m[f"b_max_plateau_range_k{k}"] = max(
            _plateau(o["mmd2"], o["steps"], config.b_steps) for o in outs
        )
    m["b_acc_source_on_source"] = float(rows[0][1]["acc_source_on_source"])
    m["b_acc_source_on_target"] = m[f"b_acc_unflowed_k{config.b_claim_shots}"]
    images = [o["images"] for c, o in rows if "images" in o]
    if images:
        figures["digits_flow"] = _fig_images(
            images[0], ["source", "flowed", "target shot"], "digits"
        )
        captions["digits_flow"] = (
            f"Transfer, k = {config.b_claim_shots}: first image of each source class, the same "
            "particle after the flow, and the first target (thickened) shot of each class."
        )
    figures["accuracy_vs_k"] = _fig_accuracy(config, curves)
    captions["accuracy_vs_k"] = (
        "Thickened-digits test accuracy of logistic regression against the number k of "
        "labelled target images per class (mean and std over seeds)."
    )


def _summarize_distill(config, results, m, figures, captions) -> None:
    outs = [o for c, o in results if c["part"] == "distill"]
    real = np.array([o["acc_random_real"] for o in outs])
    flowed = np.array([o["acc_flowed"] for o in outs])
    m["c_acc_random_real"] = float(real.mean())
    m["c_acc_flowed"] = float(flowed.mean())
    m["c_gain_points"] = float(100 * (flowed - real).mean())
    m["c_gain_points_min_over_seeds"] = float(100 * (flowed - real).min())
    m["c_identity_matching_fraction"] = float(np.mean([o["identity_matching"] for o in outs]))
    m["c_max_plateau_range"] = max(_plateau(o["mmd2"], o["steps"], config.c_steps) for o in outs)
    figures["distilled_digits"] = _fig_images(outs[0]["images"], ["random real", "flowed"], "")
    captions["distilled_digits"] = (
        "Distillation, 1 image per class: the random real initialisation and the flowed image."
    )


def _fig_rings(config: Config, main: dict) -> Figure:
    _, target, _ = rings(config.rings_points)
    fig = Figure(figsize=(13, 3.2))
    axes = fig.subplots(2, 6)
    for row, (label, (_, out)) in enumerate(main.items()):
        snapshots = zip(out["snapshot_steps"], out["snapshots"], strict=True)
        for col, (step, snap) in enumerate(snapshots):
            ax = axes[row, col]
            ax.scatter(target[..., 0].ravel(), target[..., 1].ravel(), s=3, c="0.75")
            for c in range(snap.shape[0]):
                ax.scatter(snap[c, :, 0], snap[c, :, 1], s=3, color=f"C{c}")
            ax.set_title(f"{label}, step {step}", fontsize=8)
            ax.set_xlim(-1.9, 0.4)
            ax.set_ylim(-0.4, 0.4)
            ax.set_aspect("equal")
            ax.axis("off")
    fig.tight_layout()
    return fig


def _fig_rings_mmd(rows) -> Figure:
    fig = Figure(figsize=(6, 3.8))
    ax = fig.subplots()
    for c, o in rows:
        mmd = np.sqrt(np.maximum(o["mmd2"], 1e-30) / o["mmd2"][0])
        ax.semilogy(o["steps"], mmd, label=_run_name(c))
    ax.set_xlabel("step")
    ax.set_ylabel("MMD / initial MMD")
    ax.set_ylim(1e-6, 2)
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def _fig_images(images: np.ndarray, labels: list[str], title: str) -> Figure:
    rows, cols = images.shape[:2]
    fig = Figure(figsize=(cols * 0.8, rows * 0.9 + 0.3))
    axes = fig.subplots(rows, cols, squeeze=False)
    for r in range(rows):
        for c in range(cols):
            axes[r, c].imshow(images[r, c].reshape(8, 8), cmap="gray_r", vmin=0, vmax=1)
            axes[r, c].set_xticks([])
            axes[r, c].set_yticks([])
        axes[r, 0].set_ylabel(labels[r], fontsize=7)
    if title:
        fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    return fig


def _fig_accuracy(config: Config, curves: dict) -> Figure:
    fig = Figure(figsize=(5.5, 3.8))
    ax = fig.subplots()
    labels = {
        "unflowed": "unflowed source",
        "flowed": "flowed source",
        "unflowed_shots": "unflowed source + shots",
        "flowed_shots": "flowed source + shots",
        "shots_only": "shots only",
    }
    for arm, points in curves.items():
        mean, std = np.array(points).T
        ax.errorbar(config.b_shots, 100 * mean, 100 * std, fmt="o-", capsize=3, label=labels[arm])
    ax.set_xlabel("labelled target images per class k")
    ax.set_ylabel("test accuracy on thickened digits (%)")
    ax.set_xticks(config.b_shots)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
