"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure
from scipy.stats import spearmanr

from icml25.lab.reproduction import Summary
from icml25.w2s_intrinsic.claims import QUANTITIES
from icml25.w2s_intrinsic.digits import parse_model
from icml25.w2s_intrinsic.reproduce import (
    Config,
)
from icml25.w2s_intrinsic.theory import w2s_risks

SE_TOLERANCE = 3.0  # issue: within 3 standard errors ...

REL_TOLERANCE = 0.05  # ... or 5% (relative) of the closed form


def _theory(config: Config, d_sw, n, N, form="exact"):
    return w2s_risks(config.d_s, config.d_w, d_sw, n, np.asarray(N), config.sigma, form=form)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    measurements, figures = _summarize_probes(config, results)
    grid = {
        (c["d_sw"], c["n"]): out for c, out in results if c.get("n") in config.n_values
    }  # the checks' cells
    measurements["grid_cells"] = float(len(grid))
    complete = len(grid) == len(config.d_sw_values) * len(config.n_values)

    # (a) agreement at every grid point
    for q in QUANTITIES:
        ok, zs, rels = [], [], []
        for (d_sw, n), out in grid.items():
            th = np.atleast_1d(getattr(_theory(config, d_sw, n, out["N"]), q))
            sim, se = np.array(out[q]), np.array(out[f"{q}_se"])
            if q == "weak":  # one value per cell: it does not depend on N
                th = th[:1]
            diff = np.abs(sim - th)
            ok += list(diff <= np.maximum(SE_TOLERANCE * se, REL_TOLERANCE * np.abs(th)))
            zs += list(diff / se)
            rels += list(diff / np.abs(th))
        measurements[f"agree_fraction_{q}"] = float(np.mean(ok)) if complete else math.nan
        measurements[f"max_z_{q}"] = float(np.max(zs)) if zs else math.nan
        measurements[f"max_rel_error_{q}"] = float(np.max(rels)) if rels else math.nan
        measurements[f"grid_points_{q}"] = float(len(ok))
    # the strong baseline (not a claim; OPR's numerator) and the paper's leading-order form
    rel_s = [
        abs(out["strong"][0] - float(_theory(config, d_sw, n, out["N"]).strong[0]))
        / float(_theory(config, d_sw, n, out["N"]).strong[0])
        for (d_sw, n), out in grid.items()
    ]
    measurements["max_rel_error_strong"] = max(rel_s) if rel_s else math.nan
    for q in ("w2s", "pgr", "opr"):
        rel = [
            np.max(
                np.abs(
                    np.array(out[q])
                    - np.atleast_1d(getattr(_theory(config, d_sw, n, out["N"], "asymptotic"), q))
                )
                / np.abs(np.array(out[q]))
            )
            for (d_sw, n), out in grid.items()
        ]
        measurements[f"asymptotic_form_max_rel_error_{q}"] = float(max(rel)) if rel else math.nan

    # (b) decreasing in N, towards the limit
    steps = [d < 0 for out in grid.values() for d in np.diff(out["w2s"])]
    measurements["decrease_fraction_w2s_in_N"] = (
        float(np.mean(steps)) if complete and steps else math.nan
    )
    fractions = [out["gap"][-1] / out["gap"][0] for out in grid.values()]
    measurements["max_remaining_gap_fraction"] = (
        float(max(fractions)) if complete and fractions else math.nan
    )
    N0, N1 = config.N_values[0], config.N_values[-1]
    measurements["theory_remaining_gap_fraction"] = (N0 - config.d_s - 1) / (N1 - config.d_s - 1)
    limit_rel = [
        abs(out["w2s_limit"][0] - float(_theory(config, d_sw, n, out["N"]).w2s_limit[0]))
        / float(_theory(config, d_sw, n, out["N"]).w2s_limit[0])
        for (d_sw, n), out in grid.items()
        if d_sw > 0
    ]
    measurements["max_rel_error_w2s_limit"] = max(limit_rel) if limit_rel else math.nan

    # (c) increasing in d_sw
    increasing = []
    for n in config.n_values:
        rows = [grid[(d, n)]["w2s"] for d in sorted(config.d_sw_values) if (d, n) in grid]
        if len(rows) == len(config.d_sw_values) and len(rows) > 1:
            increasing += list(np.all(np.diff(np.array(rows), axis=0) > 0, axis=0))
    measurements["increase_fraction_w2s_in_dsw"] = (
        float(np.mean(increasing)) if complete and increasing else math.nan
    )

    # a few headline numbers: n = smallest, N = largest
    n0 = config.n_values[0]
    for d_sw in config.d_sw_values:
        if (d_sw, n0) in grid:
            out = grid[(d_sw, n0)]
            measurements[f"pgr_dsw{d_sw}_n{n0}_N{N1}"] = out["pgr"][-1]
            measurements[f"opr_dsw{d_sw}_n{n0}_N{N1}"] = out["opr"][-1]

    everything = {(c["d_sw"], c["n"]): out for c, out in results if "n" in c}
    figures |= {
        "risks_vs_N": _fig_vs_N(config, everything),
        "risks_vs_n": _fig_vs_n(config, everything),
        "discrepancy": _fig_discrepancy(config, grid),
    }
    return Summary(measurements, figures)


def _spearman(x, y) -> float:
    return float(spearmanr(x, y).statistic) if len(x) > 2 else math.nan


def _summarize_probes(config: Config, results) -> tuple[dict[str, float], dict[str, Figure]]:
    """d1, d2 and the numbers around them, over every (weak, strong) pair; at the largest N."""
    pairs = [(c["strong"], p) for c, out in results if "strong" in c for p in out["pairs"]]
    complete = len(pairs) == len(config.weak_models) * len(config.strong_models)
    m: dict[str, float] = {"probe_pairs": float(len(pairs))}
    if not pairs:
        return m, {}
    meas = np.array([p["pgr"][-1] for _, p in pairs])
    pred = {
        key: np.array([p[key][-1] for _, p in pairs])
        for key in ("predicted_pgr", "predicted_pgr_exact", "predicted_pgr_without_dsw")
    }
    discrepancy = np.array([1 - p["d_sw"] / p["d_w"] for _, p in pairs])
    rho = _spearman(pred["predicted_pgr"], meas)
    m["spearman_pgr_predicted_vs_measured"] = rho if complete else math.nan
    m["spearman_pgr_exact_form"] = _spearman(pred["predicted_pgr_exact"], meas)
    m["spearman_pgr_without_dsw"] = _spearman(pred["predicted_pgr_without_dsw"], meas)
    m["spearman_pgr_vs_discrepancy_fraction"] = _spearman(discrepancy, meas)
    per_strong = [
        _spearman(
            [p["predicted_pgr"][-1] for s, p in pairs if s == strong],
            [p["pgr"][-1] for s, p in pairs if s == strong],
        )
        for strong in config.strong_models
    ]
    m["spearman_within_strong_min"] = float(np.min(per_strong))
    m["spearman_within_strong_median"] = float(np.median(per_strong))
    falls = [p["w2s"][-1] < p["w2s"][0] for _, p in pairs]
    m["decrease_fraction_real_w2s_in_N"] = float(np.mean(falls)) if complete else math.nan
    m["fraction_pairs_pgr_positive"] = float(np.mean(meas > 0))
    m["fraction_pairs_opr_above_1"] = float(np.mean([p["opr"][-1] > 1 for _, p in pairs]))
    m["median_pgr_measured"] = float(np.median(meas))
    m["median_pgr_predicted"] = float(np.median(pred["predicted_pgr"]))
    m["median_pgr_predicted_minus_measured"] = float(np.median(pred["predicted_pgr"] - meas))
    m["max_pgr_se"] = float(max(p["pgr_se"][-1] for _, p in pairs))
    m["min_discrepancy_fraction"] = float(discrepancy.min())
    m["max_discrepancy_fraction"] = float(discrepancy.max())
    return m, {"real_pgr": _fig_real(config, pairs)}


def _fig_real(config: Config, pairs) -> Figure:
    """Measured against predicted PGR, and measured PGR against the discrepancy fraction."""
    fig = Figure(figsize=(11, 4.2))
    axes = fig.subplots(1, 2)
    kinds = sorted({parse_model(p["weak_model"])[0] for _, p in pairs})
    markers = dict(zip(config.strong_models, "osD^v<>ph*", strict=False))
    for strong, p in pairs:
        color = f"C{kinds.index(parse_model(p['weak_model'])[0])}"
        style = {"color": color, "marker": markers.get(strong, "o"), "ms": 5, "capsize": 2}
        axes[0].errorbar(p["predicted_pgr"][-1], p["pgr"][-1], yerr=p["pgr_se"][-1], **style)
        axes[1].errorbar(1 - p["d_sw"] / p["d_w"], p["pgr"][-1], yerr=p["pgr_se"][-1], **style)
    for i, kind in enumerate(kinds):
        axes[0].plot([], [], "o", color=f"C{i}", label=f"weak: {kind}")
    for strong, mk in markers.items():
        axes[0].plot([], [], mk, color="0.4", label=f"strong: {strong}")
    lim = [0, max(1e-3, max(max(p["predicted_pgr"][-1], p["pgr"][-1]) for _, p in pairs))]
    axes[0].plot(lim, lim, color="0.6", linewidth=1, linestyle="--")
    axes[0].set_xlabel("PGR predicted from (d_s, d_w, d_sw), paper's form")
    axes[1].set_xlabel("discrepancy 1 - d_sw / d_w")
    for ax in axes:
        ax.set_ylabel("PGR measured")
    axes[0].legend(fontsize=6, ncol=2)
    fig.suptitle(
        f"digits 5-9, linear probes: n = {config.probe_n}, N = {config.probe_N[-1]}, "
        f"{config.label_noise:.0%} label noise, {config.probe_trials} splits (+-1 SE)",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def _errorbar(ax, x, out, q, **style):
    ax.errorbar(x, out[q], yerr=out[f"{q}_se"], fmt="o", markersize=4, capsize=2, **style)


def _fig_vs_N(config: Config, cells_out: dict) -> Figure:
    """Rows: d_sw; columns: excess risks, PGR, OPR against N; a colour per n."""
    rows = len(config.d_sw_values)
    fig = Figure(figsize=(13, 3.0 * rows))
    axes = fig.subplots(rows, 3, squeeze=False)
    N_fine = np.unique(np.geomspace(config.N_values[0], config.N_values[-1], 60).astype(int))
    for r, d_sw in enumerate(config.d_sw_values):
        for i, n in enumerate(config.n_values):
            out = cells_out.get((d_sw, n))
            if out is None:
                continue
            color = f"C{i}"
            th = _theory(config, d_sw, n, N_fine)
            ax = axes[r, 0]
            ax.plot(N_fine, th.w2s, color=color, label=f"W2S, n={n}")
            ax.plot(N_fine, th.ceiling, color=color, linestyle=":", label=f"ceiling, n={n}")
            ax.axhline(float(th.weak[0]), color=color, linestyle="--", linewidth=1)
            _errorbar(ax, out["N"], out, "w2s", color=color)
            _errorbar(ax, out["N"], out, "ceiling", color=color, mfc="white")
            ax.plot(out["N"], np.repeat(out["weak"], len(out["N"])), "s", color=color, ms=3)
            for c, q in ((1, "pgr"), (2, "opr")):
                axes[r, c].plot(N_fine, getattr(th, q), color=color, label=f"n={n}")
                _errorbar(axes[r, c], out["N"], out, q, color=color)
        axes[r, 0].set_yscale("log")
        axes[r, 0].set_ylabel(f"d_sw = {d_sw}\nexcess risk")
        axes[r, 1].set_ylabel("PGR")
        axes[r, 2].set_ylabel("OPR")
        for ax in axes[r]:
            ax.set_xscale("log")
    for ax in axes[-1]:
        ax.set_xlabel("N (pseudo-labels)")
    axes[0, 0].set_title("ER: W2S (solid), ceiling (dotted), weak (dashed)", fontsize=9)
    axes[0, 1].set_title("performance gap recovery", fontsize=9)
    axes[0, 2].set_title("outperforming ratio ER_s / ER_w2s", fontsize=9)
    axes[0, 0].legend(fontsize=7, ncol=2)
    axes[0, 1].legend(fontsize=7)
    fig.suptitle(
        f"d_s = {config.d_s}, d_w = {config.d_w}, sigma = {config.sigma}: lines closed form, "
        f"points simulation ({config.trials} trials, +-1 SE)",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def _fig_vs_n(config: Config, cells_out: dict) -> Figure:
    """Rows: d_sw; columns: W2S risk, PGR, OPR against n; a colour per N."""
    rows = len(config.d_sw_values)
    fig = Figure(figsize=(13, 3.0 * rows))
    axes = fig.subplots(rows, 3, squeeze=False)
    ns = sorted({n for (_, n) in cells_out})
    if not ns:
        return fig
    n_fine = np.arange(max(config.d_s, config.d_w) + 5, ns[-1] + 1)
    picks = sorted({0, len(config.N_values) // 2, len(config.N_values) - 1})
    for r, d_sw in enumerate(config.d_sw_values):
        for i, k in enumerate(picks):
            N = config.N_values[k]
            color = f"C{i}"
            th = w2s_risks(config.d_s, config.d_w, d_sw, n_fine, N, config.sigma)
            present = [n for n in ns if (d_sw, n) in cells_out]
            pts = {q: [cells_out[(d_sw, n)][q][k] for n in present] for q in ("w2s", "pgr", "opr")}
            ses = {
                q: [cells_out[(d_sw, n)][f"{q}_se"][k] for n in present]
                for q in ("w2s", "pgr", "opr")
            }
            for c, q in enumerate(("w2s", "pgr", "opr")):
                axes[r, c].plot(n_fine, getattr(th, q), color=color, label=f"N={N}")
                axes[r, c].errorbar(
                    present, pts[q], yerr=ses[q], fmt="o", color=color, ms=4, capsize=2
                )
            axes[r, 0].plot(n_fine, th.weak, color="0.4", linestyle="--", linewidth=1)
        axes[r, 0].set_yscale("log")
        axes[r, 0].set_ylabel(f"d_sw = {d_sw}\nER_w2s (weak dashed)")
        axes[r, 1].set_ylabel("PGR")
        axes[r, 2].set_ylabel("OPR")
    for ax in axes[-1]:
        ax.set_xlabel("n (labelled samples)")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("against n: lines closed form, points simulation (+-1 SE)", fontsize=10)
    fig.tight_layout()
    return fig


def _fig_discrepancy(config: Config, grid: dict) -> Figure:
    """ER_w2s and PGR against d_sw at the smallest n: less discrepancy, less gain."""
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2)
    n0 = config.n_values[0]
    d_fine = np.linspace(0, min(config.d_s, config.d_w), 50)
    present = [d for d in config.d_sw_values if (d, n0) in grid]
    for k, N in enumerate(config.N_values):
        color = f"C{k}"
        th = [w2s_risks(config.d_s, config.d_w, d, n0, N, config.sigma) for d in d_fine]
        for c, q in enumerate(("w2s", "pgr")):
            axes[c].plot(d_fine, [float(getattr(t, q)) for t in th], color=color, label=f"N={N}")
            axes[c].errorbar(
                present,
                [grid[(d, n0)][q][k] for d in present],
                yerr=[grid[(d, n0)][f"{q}_se"][k] for d in present],
                fmt="o",
                color=color,
                ms=4,
                capsize=2,
            )
    axes[0].set_ylabel("ER_w2s")
    axes[1].set_ylabel("PGR")
    for ax in axes:
        ax.set_xlabel("correlation dimension d_sw")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"virtue of discrepancy (n = {n0}, d_s = {config.d_s}, d_w = {config.d_w})")
    fig.tight_layout()
    return fig
