"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.zigzag_layers.claims import CLAIMS
from icml25.zigzag_layers.reproduce import (
    Config,
)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    nan = float("nan")
    m: dict[str, float] = {}
    by: dict[str, list] = {}
    for cell, out in results:
        by.setdefault(cell["part"], []).append(out)

    check = by.get("check", [])
    layers = by.get("layers", [])
    m["random_filtrations"] = float(sum(len(o["sizes"]) for o in check))
    m["fast_plain_mismatches"] = float(sum(o["mismatches"] for o in check)) if check else nan
    if check and layers:
        m["betti_mismatches"] = float(sum(o["betti_bad"] for o in check + layers))
    else:
        m["betti_mismatches"] = nan

    m["sensitivity_ratio"] = nan
    for size in config.sensitivity_sizes:
        sens = [o for c, o in results if c["part"] == "sensitivity" and c["per_family"] == size]
        if not sens:
            continue
        within = float(np.mean([w for o in sens for w in o["within"]]))
        between = float(np.mean([b for o in sens for b in o["between"].values()]))
        m[f"sensitivity_within_{size}"], m[f"sensitivity_between_{size}"] = within, between
        m[f"sensitivity_ratio_{size}"] = between / within if within > 0 else nan
        for pair in sens[0]["between"]:
            mean_pair = np.mean([o["between"][pair] for o in sens])
            m[f"sensitivity_pair_{pair}_{size}"] = float(mean_pair / within)
        if size == config.sensitivity_sizes[-1]:
            m["sensitivity_ratio"] = m[f"sensitivity_ratio_{size}"]

    if layers:
        out = layers[0]
        m["n_prompts"] = float(out["n_prompts"])
        m["full_probe_accuracy"] = 100 * out["full_probe"]
        margins = {"probe_margin_vs_random": [], "cosine_margin_vs_random": []}
        gaps = {"probe_gap_to_angular": [], "cosine_gap_to_angular": []}
        for n, p in out["pruning"].items():
            for j, name in enumerate(("probe", "cosine")):
                zig, ang, rand = p["zigzag"][j], p["angular"][j], p["random_mean"][j]
                m[f"{name}_zigzag_remove{n}"] = 100 * zig
                m[f"{name}_angular_remove{n}"] = 100 * ang
                m[f"{name}_random_remove{n}"] = 100 * rand
                margins[f"{name}_margin_vs_random"].append(100 * (zig - rand))
                gaps[f"{name}_gap_to_angular"].append(100 * (ang - zig))
        m.update({k: min(v) for k, v in margins.items()})
        m.update({k: max(v) for k, v in gaps.items()})
    else:
        for claim in CLAIMS[3:]:
            m[claim.metric] = nan

    figures = {}
    if layers:
        figures["betti_curves"] = _fig_betti(layers[0])
        figures["persistence_matrix"] = _fig_phsim(layers[0])
        figures["barcode"] = _fig_barcode(layers[0])
        figures["pruning"] = _fig_pruning(layers[0])
    return Summary(m, figures)


def _fig_betti(out: dict) -> Figure:
    fig = Figure(figsize=(9, 3.4))
    axes = fig.subplots(1, 3)
    betti = np.array(out["betti"])
    for p, ax in enumerate(axes[:2]):
        ax.plot(betti[p], "o-")
        ax.set_title(f"Betti {p} per layer (zigzag)", fontsize=9)
        ax.set_xlabel("layer (0 = embeddings)")
    axes[2].bar(np.arange(len(out["birth_frequency"])), out["birth_frequency"])
    axes[2].set_title("H1 birth relative frequency", fontsize=9)
    axes[2].set_xlabel("birth layer")
    fig.tight_layout()
    return fig


def _fig_phsim(out: dict) -> Figure:
    fig = Figure(figsize=(8, 3.6))
    axes = fig.subplots(1, 2)
    ph = np.array(out["phsim"], dtype=float)
    betti = np.diag(ph)
    norm = np.divide(ph, betti[None, :], out=np.zeros_like(ph), where=betti[None, :] > 0)
    im = axes[0].imshow(norm, cmap="viridis", vmin=0, vmax=1, origin="lower")
    fig.colorbar(im, ax=axes[0])
    axes[0].set_title("PHSim_1[i, j] / Betti_1(j)", fontsize=9)
    axes[0].set_xlabel("layer j")
    axes[0].set_ylabel("layer i")
    im = axes[1].imshow(np.log10(1 + np.array(out["image"])), cmap="hot", origin="lower")
    fig.colorbar(im, ax=axes[1], label="log10(1 + count)")
    axes[1].set_title("H1 bars: birth layer x persistence", fontsize=9)
    axes[1].set_xlabel("persistence - 1 (layers)")
    axes[1].set_ylabel("birth layer")
    fig.tight_layout()
    return fig


def _fig_barcode(out: dict) -> Figure:
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2)
    bars = np.array(out["bars"]).reshape(-1, 3)
    for p, ax in enumerate(axes):
        sel = bars[bars[:, 0] == p]
        sel = sel[np.lexsort((sel[:, 2], sel[:, 1]))]
        ax.hlines(np.arange(len(sel)), sel[:, 1], sel[:, 2] - 0.05, lw=0.6)
        ax.set_title(f"H{p} zigzag barcode ({len(sel)} bars)", fontsize=9)
        ax.set_xlabel("layer")
    axes[0].set_ylabel("bar")
    fig.tight_layout()
    return fig


def _fig_pruning(out: dict) -> Figure:
    counts = list(out["pruning"])
    fig = Figure(figsize=(8, 3.4))
    axes = fig.subplots(1, 2)
    for j, (ax, name) in enumerate(zip(axes, ("probe accuracy", "cosine agreement"), strict=True)):
        for x, n in enumerate(counts):
            p = out["pruning"][n]
            rand = [r[j] for r in p["random_all"]]
            ax.scatter(np.full(len(rand), x), rand, color="grey", s=12, label="every choice")
            ax.scatter(x - 0.1, p["zigzag"][j], color="C0", marker="D", label="zigzag rule")
            ax.scatter(x + 0.1, p["angular"][j], color="C1", marker="s", label="angular rule")
        ax.set_xticks(range(len(counts)), [f"remove {n}" for n in counts])
        ax.set_title(name, fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    axes[0].legend(handles[:3], labels[:3], fontsize=7)
    fig.tight_layout()
    return fig
