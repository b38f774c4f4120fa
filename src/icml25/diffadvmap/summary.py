"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.diffadvmap.reproduce import (
    Config,
)
from icml25.lab.reproduction import Summary

CLAIMED = ("a_whitebox_success", "b_transfer_gap", "c_auc_gap_vs_reconstruction",
           "c_auc_gap", "c_nn_distance_gap", "d_defended_gap")  # fmt: skip


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    figures: dict[str, Figure] = {}
    captions: dict[str, str] = {}
    mains = [o for c, o in sorted(results, key=_order) if c["part"] == "main"]
    per = [_measure(config, o) for o in mains]  # one dict per replicate
    m = {k: float(np.mean([p[k] for p in per])) for k in per[0]}
    for k in CLAIMED:  # the replicates the claims declare
        m.update({f"{k}[replicate={r}]": p[k] for r, p in enumerate(per)})
    m["check_max_violation"] = max(p["check_max_violation"] for p in per)
    main = mains[0]
    tstar = sorted(((c["t_star"], o) for c, o in results if c["part"] == "tstar"))
    for t, o in tstar:
        for key in ("whitebox", "transfer", "l2"):
            m[f"tstar{t}_{key}"] = float(o[key])
    figures["attack_grid"] = _fig_grid(main)
    captions["attack_grid"] = (
        "Test digits (rows: clean, the prior's reconstruction from t* without the adversarial "
        "term, PGD at the matched epsilon, the same loss in pixel space, DiffAdvMAP), with the "
        "surrogate CNN's prediction above each image (the first replicate)."
    )
    figures["success_vs_tstar"] = _fig_tstar(tstar)
    captions["success_vs_tstar"] = "DiffAdvMAP's success rates and L2 change against t*."
    figures["pgd_sweep"] = _fig_sweep(config, main)
    captions["pgd_sweep"] = (
        "PGD success against epsilon (left) and against the mean L2 change (right), with "
        "DiffAdvMAP's rates as dashed lines (left) and stars (right) (the first replicate)."
    )
    return Summary(m, figures, captions)


def _order(result: tuple[dict, dict]) -> tuple:
    cell = result[0]
    return cell["part"], cell.get("replicate", 0), cell.get("t_star", 0)


def _measure(config: Config, main: dict) -> dict[str, float]:
    """The measurements of one ``main`` cell."""
    m: dict[str, float] = {}
    if config.timing:
        m["ddpm_train_seconds"] = float(main["ddpm_train_seconds"])
        m["attack_seconds_per_image"] = float(main["attack_seconds_per_image"])
    for name, acc in zip(
        ("cnn", "mlp", "defended_cnn", "feature_cnn"), main["accuracy"], strict=True
    ):
        m[f"test_accuracy_{name}"] = float(acc)
    m["matched_epsilon"] = float(main["matched_epsilon"])
    i_match = config.pgd_epsilons.index(main["matched_epsilon"])
    pgd = main["pgd_success"][i_match]
    for name, succ in (
        ("diffadvmap", main["diffadvmap_success"]),
        ("pixel", main["pixel_success"]),
        ("reconstruction", main["reconstruction_success"]),
        ("pgd", pgd),
    ):
        m[f"{name}_whitebox_success"] = float(succ[0])
        m[f"{name}_transfer_success"] = float(succ[1])
        m[f"{name}_defended_success"] = float(succ[2])
    for name in ("diffadvmap", "pixel", "reconstruction", "pgd"):
        for key in ("auc", "l2", "linf", "nn_distance", "fid"):
            m[f"{name}_{key}"] = float(main[f"{name}_{key}"])
    m["clean_nn_distance"] = float(main["clean_nn_distance"])
    m["clean_fid"] = float(main["clean_fid"])
    # PGD at the smallest epsilon whose mean L2 change reaches DiffAdvMAP's (not claimed)
    l2_reached = [row for row in main["pgd_success"] if row[3] >= m["diffadvmap_l2"]]
    row = l2_reached[0] if l2_reached else main["pgd_success"][-1]
    m["l2_matched_epsilon"] = float(config.pgd_epsilons[main["pgd_success"].index(row)])
    m["pgd_l2_matched_transfer_success"] = float(row[1])
    m["pgd_l2_matched_defended_success"] = float(row[2])
    m["a_whitebox_success"] = m["diffadvmap_whitebox_success"]
    m["b_transfer_gap"] = m["diffadvmap_transfer_success"] - m["pgd_transfer_success"]
    m["c_auc_gap_vs_reconstruction"] = m["diffadvmap_auc"] - m["reconstruction_auc"]
    m["c_auc_gap"] = m["diffadvmap_auc"] - m["pgd_auc"]
    m["c_nn_distance_gap"] = m["diffadvmap_nn_distance"] - m["pgd_nn_distance"]
    m["c_nn_distance_gap_vs_reconstruction"] = (
        m["diffadvmap_nn_distance"] - m["reconstruction_nn_distance"]
    )
    m["d_defended_gap"] = m["diffadvmap_defended_success"] - m["pgd_defended_success"]
    m["check_max_violation"] = float(main["check_max_violation"])
    return m


def _fig_grid(main: dict) -> Figure:
    images, predicted = main["images"], main["predicted"]  # (4, 8, H, W), (4, 8)
    rows = ("clean", "c_adv = 0", "PGD", "pixel loss", "DiffAdvMAP")
    fig = Figure(figsize=(8, 5.6))
    axes = fig.subplots(len(rows), images.shape[1])
    for r in range(len(rows)):
        for j in range(images.shape[1]):
            ax = axes[r, j]
            ax.imshow(images[r, j], cmap="gray_r", vmin=-1, vmax=1)
            ax.set_xticks([])
            ax.set_yticks([])
            colour = "black" if predicted[r, j] == main["labels"][j] else "red"
            ax.set_title(str(int(predicted[r, j])), fontsize=8, color=colour)
        axes[r, 0].set_ylabel(rows[r], fontsize=8)
    fig.suptitle(f"PGD epsilon = {main['matched_epsilon']} (matched); red: fooled", fontsize=9)
    fig.tight_layout()
    return fig


def _fig_tstar(tstar) -> Figure:
    fig = Figure(figsize=(8, 3.4))
    ax1, ax2 = fig.subplots(1, 2)
    ts = [t for t, _ in tstar]
    ax1.plot(ts, [o["whitebox"] for _, o in tstar], "o-", label="white-box (CNN)")
    ax1.plot(ts, [o["transfer"] for _, o in tstar], "s-", label="transfer (MLP)")
    ax1.set_xlabel("t*")
    ax1.set_ylabel("success rate")
    ax1.set_ylim(0, 1.05)
    ax1.legend(fontsize=8)
    ax2.plot(ts, [o["l2"] for _, o in tstar], "o-", color="C2")
    ax2.set_xlabel("t*")
    ax2.set_ylabel("mean L2 distance to the clean digit")
    fig.tight_layout()
    return fig


def _fig_sweep(config: Config, main: dict) -> Figure:
    sweep = np.asarray(main["pgd_success"])  # (E, 4)
    fig = Figure(figsize=(9, 3.6))
    ax, ax2 = fig.subplots(1, 2)
    names = ("white-box (CNN)", "transfer (MLP)", "defended CNN")
    for k, name in enumerate(names):
        ax.plot(config.pgd_epsilons, sweep[:, k], "o-", color=f"C{k}", label=f"PGD: {name}")
        ax.axhline(main["diffadvmap_success"][k], color=f"C{k}", linestyle="--", linewidth=1)
        ax2.plot(sweep[:, 3], sweep[:, k], "o-", color=f"C{k}", label=f"PGD: {name}")
        ax2.plot(main["diffadvmap_l2"], main["diffadvmap_success"][k], "*", ms=12, color=f"C{k}")
    ax.axvline(main["matched_epsilon"], color="grey", linestyle=":")
    ax.set_xlabel("PGD epsilon (images in [-1, 1])")
    ax.set_ylabel("success rate")
    ax.set_title("dashed: DiffAdvMAP at t*; dotted: matched epsilon", fontsize=8)
    ax.legend(fontsize=7)
    ax2.set_xlabel("mean L2 change of the image")
    ax2.set_ylabel("success rate")
    ax2.set_title("against the size of the change; stars: DiffAdvMAP", fontsize=8)
    fig.tight_layout()
    return fig
