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

import math
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure
from scipy.stats import spearmanr

from icml25.lab.reproduction import Summary
from icml25.w2s_intrinsic.claims import QUANTITIES
from icml25.w2s_intrinsic.digits import digits_split, model_features, parse_model
from icml25.w2s_intrinsic.probe import predicted_pgr, w2s_linear_probe
from icml25.w2s_intrinsic.simulate import simulate_w2s
from icml25.w2s_intrinsic.theory import w2s_risks

SE_TOLERANCE = 3.0  # issue: within 3 standard errors ...
REL_TOLERANCE = 0.05  # ... or 5% (relative) of the closed form


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
