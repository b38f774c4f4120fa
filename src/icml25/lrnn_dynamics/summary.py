"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.lrnn_dynamics.reproduce import (
    Config,
)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    by = {}
    for cell, out in results:
        by.setdefault(cell["part"], []).append((cell, out))
    nan = float("nan")

    random = [(c, o) for c, o in by.get("reduced", []) if c["init"] == "random"]
    for p in ("exponential", "ramp"):
        rows = [o for c, o in random if c["profile"] == p]
        m[f"random_rel_error_{p}"] = max((o["rel_error"] for o in rows), default=nan)
        m[f"random_final_loss_{p}"] = max((o["final_loss"] for o in rows), default=nan)
        m[f"random_ode_final_loss_{p}"] = max((o["ode_final_loss"] for o in rows), default=nan)
        m[f"random_W_h_rank_{p}"] = max((o["W_h_rank"] for o in rows), default=nan)
    reduced = [(c, o) for c, o in by.get("reduced", []) if c["init"] == "aligned"]
    m["reduced_max_rel_error"] = max((o["rel_error_flow"] for _, o in reduced), default=nan)
    m["reduced_max_rel_error_discrete"] = max((o["rel_error_gd"] for _, o in reduced), default=nan)
    for p in ("exponential", "ramp"):
        errs = [o["rel_error_flow"] for c, o in reduced if c["profile"] == p]
        m[f"reduced_rel_error_{p}"] = max(errs, default=nan)

    order = by.get("order", [])
    for kind in ("size", "time"):
        wins = [o["time_first"] < o["time_second"] for _, o in order if o["kind"] == kind]
        m[f"order_{kind}_fraction"] = float(np.mean(wins)) if wins else nan
        ratios = [o["time_second"] / o["time_first"] for _, o in order if o["kind"] == kind]
        m[f"order_{kind}_min_time_ratio"] = min(ratios, default=nan)

    extrap = by.get("extrapolation", [])
    err = {
        p: [o["error_2T"] for c, o in extrap if c["profile"] == p] for p in ("exponential", "ramp")
    }
    rad = {
        p: [o["spectral_radius"] for c, o in extrap if c["profile"] == p]
        for p in ("exponential", "ramp")
    }
    m["extrap_error_exponential"] = max(err["exponential"], default=nan)
    m["extrap_error_ramp_min"] = min(err["ramp"], default=nan)
    m["extrap_error_ratio"] = (
        m["extrap_error_ramp_min"] / m["extrap_error_exponential"]
        if err["exponential"] and err["ramp"]
        else nan
    )
    m["spectral_radius_exponential"] = max(rad["exponential"], default=nan)
    m["spectral_radius_ramp_max"] = max(rad["ramp"], default=nan)
    m["extrap_final_loss_max"] = max((o["final_loss"] for _, o in extrap), default=nan)

    kernel = by.get("ntk", [])
    ratios = [o["change_rnn"] / o["change_ff"] for _, o in kernel]
    m["ntk_change_ratio_min"] = min(ratios, default=nan)
    for g in config.ntk_scales:
        rows = [o for c, o in kernel if c["scale"] == g]
        if rows:
            m[f"ntk_change_rnn_scale{g}"] = float(np.mean([o["change_rnn"] for o in rows]))
            m[f"ntk_change_ff_scale{g}"] = float(np.mean([o["change_ff"] for o in rows]))

    figures = {}
    if random:
        figures["reduced_random"] = _fig_random(config, random)
    if reduced:
        figures["reduced_dynamics"] = _fig_reduced(config, reduced)
    if order:
        figures["ordering"] = _fig_order(config, order)
    if extrap:
        figures["extrapolation"] = _fig_extrap(config, extrap)
    if kernel:
        figures["ntk_change"] = _fig_ntk(config, kernel)
    return Summary(m, figures)


def _fig_reduced(config: Config, reduced) -> Figure:
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, p in zip(axes, ("exponential", "ramp"), strict=True):
        cell, out = next((c, o) for c, o in reduced if c["profile"] == p)
        t = config.lr * np.array(out["steps"])
        full, flow = np.array(out["full"]), np.array(out["flow"])  # (R, m, T)
        for a in range(full.shape[1]):
            for lag in (0, 2):
                col = config.T - 1 - lag
                ax.plot(t, flow[:, a, col], color=f"C{a}", ls="-" if lag == 0 else "--", lw=1.2)
                ax.plot(t[::20], full[::20, a, col], "o", color=f"C{a}", ms=3)
        ax.set_title(f"{p} task: lines ODE (lag 0 solid, lag 2 dashed), dots network", fontsize=8)
        ax.set_xlabel("time (step x lr)")
    axes[0].set_ylabel("mode projection u_a^T W_y W_h^k W_x v_a")
    fig.tight_layout()
    return fig


def _fig_random(config: Config, random) -> Figure:
    fig = Figure(figsize=(9, 6.4))
    axes = fig.subplots(2, 2, sharex=True)
    for j, p in enumerate(("exponential", "ramp")):
        rows = [o for c, o in random if c["profile"] == p]
        t = config.lr * np.array(rows[0]["steps"])
        full, flow = np.array(rows[0]["full"]), np.array(rows[0]["flow"])  # (R, m, T)
        ax = axes[0, j]
        for a in range(full.shape[1]):
            for lag in (0, 2):
                col = config.T - 1 - lag
                ax.plot(t, flow[:, a, col], color=f"C{a}", ls="-" if lag == 0 else "--", lw=1.2)
                ax.plot(t[::20], full[::20, a, col], "o", color=f"C{a}", ms=3)
        ax.set_title(f"{p}, random init: lines ODE (lag 0 solid, 2 dashed), dots network")
        ax.title.set_fontsize(8)
        for o in rows:
            axes[1, j].plot(t, o["rel_error_t"], lw=1)
        axes[1, j].axhline(0.05, color="grey", ls=":", lw=1)
        axes[1, j].set_yscale("log")
        axes[1, j].set_xlabel("time (step x lr)")
    axes[0, 0].set_ylabel("mode projection")
    axes[1, 0].set_ylabel("||M_net - M_ODE|| / ||M_ODE|| (per seed)")
    fig.tight_layout()
    return fig


def _fig_order(config: Config, order) -> Figure:
    pairs = sorted({(c["pair"]) for c, _ in order})
    cols = min(3, len(pairs))
    rows = int(np.ceil(len(pairs) / cols))
    fig = Figure(figsize=(3.4 * cols, 2.8 * rows))
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    for ax, i in zip(axes, pairs, strict=False):
        _, out = next((c, o) for c, o in order if c["pair"] == i)
        s1, l1, s2, l2, kind = config.order_pairs[i]
        steps, curves = np.array(out["steps"]), np.array(out["curves"])
        for j, (s, lag) in enumerate(((s1, l1), (s2, l2))):
            ax.plot(steps, curves[j] / curves[j, -1], color=f"C{j}", label=f"sigma {s}, lag {lag}")
        ax.axhline(0.5, color="grey", ls=":", lw=1)
        ax.set_title(f"{kind} pair", fontsize=9)
        ax.set_xlabel("step")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("projection / final value")
    fig.tight_layout()
    return fig


def _fig_extrap(config: Config, extrap) -> Figure:
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, p in zip(axes, ("exponential", "ramp"), strict=True):
        _, out = next((c, o) for c, o in extrap if c["profile"] == p)
        learned, target = np.array(out["learned_modes"]), np.array(out["target_modes"])
        i = np.arange(1, learned.shape[1] + 1)
        for a in range(learned.shape[0]):
            ax.plot(i, target[a], "-", color=f"C{a}", lw=1)
            ax.plot(i, learned[a], "o", color=f"C{a}", ms=3)
        ax.axvline(config.T + 0.5, color="grey", ls=":", lw=1)
        ax.set_title(f"{p}: target (lines), trained network (dots); error {out['error_2T']:.2g}")
        ax.title.set_fontsize(8)
        ax.set_xlabel(f"input time i (length {2 * config.T}; trained on i > {config.T})")
    axes[0].set_ylabel("singular value s_a(i)")
    fig.tight_layout()
    return fig


def _fig_ntk(config: Config, kernel) -> Figure:
    fig = Figure(figsize=(5, 3.6))
    ax = fig.subplots()
    for j, g in enumerate(config.ntk_scales):
        rows = [o for c, o in kernel if c["scale"] == g]
        for k, name in enumerate(("rnn", "ff")):
            vals = [o[f"change_{name}"] for o in rows]
            ax.scatter(
                np.full(len(vals), j + 0.2 * (k - 0.5)),
                vals,
                color=f"C{k}",
                label=("recurrent (T=6)" if name == "rnn" else "feedforward (T=1)")
                if j == 0
                else None,
            )
    ax.set_xticks(range(len(config.ntk_scales)), [f"init scale {g}" for g in config.ntk_scales])
    ax.set_yscale("log")
    ax.set_ylabel("||K_end - K_0||_F / ||K_0||_F")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
