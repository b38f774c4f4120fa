"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.supercollapse.collapse import (
    collapse_deviation,
    fit_compute_optimal,
    fit_irreducible_loss,
    noise_floor,
    normalized_curves,
    optimal_horizon,
)
from icml25.supercollapse.mlp import parameter_count
from icml25.supercollapse.reproduce import (
    VARIANTS,
    Config,
)


def _frontier_stats(config: Config, rows: dict[int, dict]) -> dict:
    """Fit of the compute-optimal frontier of the constant-rate curves, the horizons it gives,
    and their gap to the horizons the config trains (``gamma``, ``ref_steps``)."""
    widths = sorted(rows)
    p = np.array([rows[w]["params"] for w in widths], dtype=float)  # (P,)
    fit = fit_compute_optimal(
        p, [rows[w]["compute"] for w in widths], [rows[w]["loss"] for w in widths]
    )
    t_fit = fit["kappa"] * p ** fit["gamma"] / (6.0 * config.batch)  # (P,) steps
    anchor = parameter_count(config.widths[0], config.depth, config.dim)
    t_used = optimal_horizon(p, config.gamma, anchor, config.ref_steps)  # (P,)
    trained = np.isin(widths, config.widths)
    m = {
        "frontier_gamma": fit["gamma"],
        "frontier_ref_steps": float(fit["kappa"] * anchor ** fit["gamma"] / (6.0 * config.batch)),
        "frontier_interior": float(fit["interior"]),
        "frontier_sizes_winning": float(np.unique(fit["p_opt"]).size),
        "horizon_max_rel_gap": float(np.max(np.abs(t_used / t_fit - 1.0)[trained])),
    }
    for w, t in zip(widths, t_fit, strict=True):
        m[f"frontier_t_star_{w}"] = float(t)
        on = fit["c"][fit["p_opt"] == rows[w]["params"]]
        m[f"frontier_last_step_{w}"] = (
            float(on.max() / (6 * rows[w]["params"] * config.batch)) if on.size else float("nan")
        )
    return {"measurements": m, "fit": fit, "params": p}


def _variant_stats(config: Config, rows: list[dict], key: str) -> dict:
    """``L0`` fit, normalized curves, ``Delta (X,)`` and ``sigma (P, X)`` of one variant."""
    loss = np.array([r[key] for r in rows])  # (P, W, X)
    compute = np.array([r["compute"] for r in rows])  # (P,)
    fit = fit_irreducible_loss(compute, loss[:, :, -1].mean(axis=1))
    L0 = min(fit["L0"], 0.999 * loss.min())  # keep every L - L0 positive
    ell = normalized_curves(loss, L0)  # (P, W, X)
    return {
        "L0": L0,
        "fit": fit,
        "loss": loss,
        "l": ell,
        "delta": collapse_deviation(ell),
        "sigma": noise_floor(loss, L0),
        "compute": compute,
    }


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    nan = float("nan")
    by = {"frontier": {}, "collapse": {}, "broken": {}}
    power = None
    for cell, out in results:
        if cell["part"] == "power_law":
            power = out
        else:
            by[cell["part"]][cell["width"]] = out
    if power is not None:
        m["power_law_max_error"] = power["max_error"]
        m["power_law_max_spread_over_sizes"] = power["max_spread_over_sizes"]
    frontier = _frontier_stats(config, by["frontier"]) if len(by["frontier"]) >= 2 else None
    if frontier is not None:
        m.update(frontier["measurements"])

    x = np.arange(1, config.n_x + 1) / config.n_x
    at = {v: int(np.argmin(np.abs(x - v))) for v in (0.5, 0.9)}
    window = (x >= 0.8 - 1e-9) & (x <= 0.95 + 1e-9)
    stats = {}
    widths = [w for w in config.widths if w in by["collapse"]]
    if len(widths) >= 3:
        rows = [by["collapse"][w] for w in widths]
        stats = {v: _variant_stats(config, rows, v) for v in VARIANTS}
    broken = [w for w in config.widths if w in by["broken"]]
    if len(broken) >= 3:
        stats["broken"] = _variant_stats(config, [by["broken"][w] for w in broken], "broken")
    for v, s in stats.items():
        ratio = s["delta"] / s["sigma"].mean(axis=0)  # (X,)
        m[f"{v}_L0"] = s["L0"]
        m[f"{v}_L0_fit_b"] = s["fit"]["b"]
        m[f"{v}_final_loss_mean"] = float(s["loss"][:, :, -1].mean())
        for name, i in at.items():
            m[f"{v}_delta_{name}"] = float(s["delta"][i])
            m[f"{v}_sigma_mean_{name}"] = float(s["sigma"][:, i].mean())
            m[f"{v}_ratio_{name}"] = float(ratio[i])
        m[f"{v}_max_ratio_08_095"] = float(ratio[window].max())
    if "decay" in stats:
        m["const_over_decay_ratio_09"] = m["constant_ratio_0.9"] / m["decay_ratio_0.9"]
        m["no_mup_delta_ratio_05"] = m["no_mup_delta_0.5"] / m["decay_delta_0.5"]
    if "decay" in stats and "broken" in stats:
        m["broken_horizon_delta_ratio_05"] = m["broken_delta_0.5"] / m["decay_delta_0.5"]
    m = {k.replace("0.5", "05").replace("0.9", "09"): val for k, val in m.items()}
    m.setdefault("decay_max_ratio_08_095", nan)

    figures = {}
    if frontier is not None:
        figures["compute_frontier"] = _fig_frontier(config, by["frontier"], frontier)
    if stats:
        figures["raw_loss_curves"] = _fig_raw(config, stats, widths)
        figures["normalized_curves"] = _fig_normalized(config, stats, widths, x)
        figures["delta_vs_sigma"] = _fig_delta(stats, x)
    return Summary(m, figures)


def _colors(n: int):
    from matplotlib import colormaps

    return [colormaps["plasma"](0.9 * i / max(n - 1, 1)) for i in range(n)]


def _fig_raw(config: Config, stats: dict, widths: list[int]) -> Figure:
    names = [v for v in ("decay", "constant") if v in stats]
    fig = Figure(figsize=(4.5 * len(names), 3.6))
    axes = np.atleast_1d(fig.subplots(1, len(names), sharey=True))
    x = np.arange(1, config.n_x + 1) / config.n_x
    for ax, v in zip(axes, names, strict=True):
        s = stats[v]
        for j, (w, col) in enumerate(zip(widths, _colors(len(widths)), strict=True)):
            c = x * s["compute"][j]
            ax.plot(c, s["loss"][j].mean(axis=0), color=col, label=f"D={w}")
            ax.fill_between(
                c, s["loss"][j].min(axis=0), s["loss"][j].max(axis=0), color=col, alpha=0.2
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("compute 6 p t (FLOPs)")
        ax.set_title(f"{v}: mean over seeds (band: min-max); L0 = {s['L0']:.3f}", fontsize=8)
    axes[0].set_ylabel("test loss")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_frontier(config: Config, rows: dict[int, dict], frontier: dict) -> Figure:
    widths = sorted(rows)
    fit = frontier["fit"]
    fig = Figure(figsize=(9, 3.6))
    ax, bx = fig.subplots(1, 2)
    for w, col in zip(widths, _colors(len(widths)), strict=True):
        ax.plot(rows[w]["compute"], rows[w]["loss"], color=col, lw=1, label=f"D={w}")
    ax.plot(fit["c"], fit["L_min"], color="r", lw=2, alpha=0.5, label="Pareto frontier")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("compute 6 p t (FLOPs)")
    ax.set_ylabel("test loss (constant rate)")
    ax.legend(fontsize=7)
    p = frontier["params"]
    bx.scatter(fit["p_opt"], fit["c"], s=6, color="b", label="frontier points")
    bx.plot(
        p, fit["kappa"] * p ** (1 + fit["gamma"]), color="r", label=f"gamma = {fit['gamma']:.3f}"
    )
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_xlabel("parameters p")
    bx.set_ylabel("compute-optimal c*")
    bx.set_title("c* = kappa p^(1+gamma), smallest/largest size dropped", fontsize=8)
    bx.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_normalized(config: Config, stats: dict, widths: list[int], x: np.ndarray) -> Figure:
    names = [v for v in ("decay", "constant", "no_mup", "broken") if v in stats]
    fig = Figure(figsize=(3.4 * len(names), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(names), sharey=True))
    for ax, v in zip(axes, names, strict=True):
        ell = stats[v]["l"]  # (P, W, X)
        for j, col in enumerate(_colors(ell.shape[0])):
            for curve in ell[j]:
                ax.plot(x, curve, color=col, lw=0.7, alpha=0.7)
        ax.set_yscale("log")
        ax.set_xlabel("x = t / t*(p)")
        ax.set_title(v, fontsize=9)
    axes[0].set_ylabel("l(x) = (L - L0) / (L(t*) - L0)")
    fig.tight_layout()
    return fig


def _fig_delta(stats: dict, x: np.ndarray) -> Figure:
    names = [v for v in ("decay", "constant", "no_mup", "broken") if v in stats]
    fig = Figure(figsize=(3.4 * len(names), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(names), sharey=True))
    for ax, v in zip(axes, names, strict=True):
        ax.plot(x[:-1], stats[v]["delta"][:-1], color="k", label="Delta(x)")
        ax.plot(x[:-1], stats[v]["sigma"].mean(axis=0)[:-1], color="C1", label="mean_p sigma(x,p)")
        ax.axvspan(0.8, 0.95, color="grey", alpha=0.15)
        ax.set_yscale("log")
        ax.set_xlabel("x")
        ax.set_title(v, fontsize=9)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig
