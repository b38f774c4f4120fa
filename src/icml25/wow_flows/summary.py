"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.wow_flows.datasets import rings
from icml25.wow_flows.reproduce import (
    Config,
    _main_rings,
)


def _plateau(mmd2: np.ndarray, steps: np.ndarray, total: int) -> float:
    """Range of the MMD over the records of the last 10% of steps, over the initial MMD."""
    mmd = np.sqrt(np.maximum(mmd2, 0.0))
    tail = mmd[steps >= 0.9 * total]
    return float((tail.max() - tail.min()) / mmd[0])


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
        reps = [c["rep"] for c, _ in rows if c["shots"] == k]  # the order of ``outs``
        gaps = {  # name -> (arm, arm it is compared with, per-seed replicates stored)
            "b_gain_points": ("flowed", "unflowed", True),
            "b_gain_with_shots_points": ("flowed_shots", "unflowed_shots", False),
            "b_paper_gain_points": ("flowed_shots", "shots_only", True),
            "b_flowed_minus_shots_only_points": ("flowed", "shots_only", False),
        }
        for name, (arm, base, per_seed) in gaps.items():
            diff = 100 * (acc[arm] - acc[base])  # (seeds,) in points
            m[f"{name}_k{k}"] = float(diff.mean())
            if per_seed:
                m.update(
                    {f"{name}_k{k}[rep={r}]": float(d) for r, d in zip(reps, diff, strict=True)}
                )
        m[f"b_gain_points_min_over_seeds_k{k}"] = float(
            100 * (acc["flowed"] - acc["unflowed"]).min()
        )
        m[f"b_nn_shot_distance_flowed_over_test_k{k}"] = float(
            np.mean([o["nn_shot_distance_flowed"] / o["nn_shot_distance_test"] for o in outs])
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
    for c, o in results:  # the replicates of c_gain_points: one per seed
        if c["part"] == "distill":
            m[f"c_gain_points[rep={c['rep']}]"] = float(
                100 * (o["acc_flowed"] - o["acc_random_real"])
            )
    real = np.array([o["acc_random_real"] for o in outs])
    flowed = np.array([o["acc_flowed"] for o in outs])
    m["c_acc_random_real"] = float(real.mean())
    m["c_acc_flowed"] = float(flowed.mean())
    m["c_gain_points"] = float(100 * (flowed - real).mean())
    m["c_gain_points_min_over_seeds"] = float(100 * (flowed - real).min())
    means = np.array([o["acc_class_means"] for o in outs])
    m["c_acc_class_means"] = float(means.mean())
    m["c_flowed_minus_class_means_points"] = float(100 * (flowed - means).mean())
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
