"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.rf_ensembles.reproduce import (
    Config,
    _a_test_inputs,
    _data_1d,
    _data_8d,
)
from icml25.rf_ensembles.theory import (
    budget_gap,
    closed_form_variance,
    kernel_predictor,
    rkhs_norm_squared,
)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    measurements: dict[str, float] = {}
    figures: dict[str, Figure] = {}
    a_rows = _summarize_a(config, results, measurements)
    b_rows = _summarize_b(config, results, measurements)
    c_rows = _summarize_c(config, results, measurements)
    d_rows = [(c, o) for c, o in results if c["part"] == "variance"]
    _summarize_d(config, d_rows, measurements)
    if a_rows:
        figures["gaussian_mean_variance"] = _fig_a(a_rows)
    if b_rows:
        figures["single_vs_ensemble"] = _fig_b(config, b_rows)
    if c_rows:
        figures["difference_vs_width"] = _fig_c(config, c_rows)
    first = [o for c, o in d_rows if c["dataset"] == 0]
    if first:
        X, y = _data_1d(config, 0)
        figures["ensemble_vs_kernel"] = _fig_ensemble(config, X, y, first[0])
        figures["variance_vs_x"] = _fig_variance(config, X, y, first[0])
    return Summary(measurements, figures)


def _summarize_a(config, results, measurements) -> list[dict]:
    """Per width: z-scores of the members' mean and variance at the test inputs."""
    sums: dict[int, np.ndarray] = {}
    for cell, out in results:
        if cell["part"] == "mean_var":
            sums[cell["width"]] = sums.get(cell["width"], 0) + out["moments"]
    X, y = _data_1d(config, 0)
    rows = []
    for width in sorted(sums):
        n, s1, s2, s3, s4 = sums[width]  # each (T,), deviations from h_inf
        mean = s1 / n  # E[h] - h_inf
        var = s2 / n - mean**2
        m4 = s4 / n - 4 * mean * s3 / n + 6 * mean**2 * s2 / n - 3 * mean**4
        z_mean = mean / np.sqrt(var / n)
        theory = closed_form_variance(X, y, _a_test_inputs(config), width)
        z_var = (var - theory) / np.sqrt((m4 - var**2) / n)
        rows.append(
            {"width": width, "z_mean": z_mean, "z_var": z_var, "var": var, "theory": theory}
        )
        measurements[f"a_max_abs_z_mean_D{width}"] = float(np.abs(z_mean).max())
        measurements[f"a_max_abs_z_variance_D{width}"] = float(np.abs(z_var).max())
        measurements[f"a_variance_ratio_D{width}"] = float(var.sum() / theory.sum())
    if rows:
        measurements["a_max_abs_z_mean"] = max(float(np.abs(r["z_mean"]).max()) for r in rows)
        measurements["a_max_abs_z_variance"] = max(float(np.abs(r["z_var"]).max()) for r in rows)
    return rows


def _summarize_b(config, results, measurements) -> list[dict]:
    groups: dict[tuple[str, int], list[dict]] = {}
    for cell, out in results:
        if cell["part"] == "budget":
            groups.setdefault((cell["mode"], cell["members"]), []).append(out)
    X, y, X_test, y_test = _data_8d(config)
    kernel_mse = float(((kernel_predictor(X, y, X_test) - y_test) ** 2).mean())
    measurements["b_kernel_test_mse"] = kernel_mse
    rows = []
    for (mode, m), outs in sorted(groups.items()):
        mse_e = np.concatenate([o["mse_ensemble"] for o in outs])  # (R,)
        mse_s = np.concatenate([o["mse_single"] for o in outs])
        gap = mse_e - mse_s
        se = gap.std(ddof=1) / np.sqrt(gap.size)
        theory = budget_gap(X, y, X_test, config.b_width, m)
        rows.append(
            {
                "mode": mode,
                "members": m,
                "gap": float(gap.mean()),
                "se": float(se),
                "theory": theory,
                "z": float((gap.mean() - theory) / se),
                "mse_ensemble": float(mse_e.mean()),
                "se_ensemble": float(mse_e.std(ddof=1) / np.sqrt(mse_e.size)),
                "mse_single": float(mse_s.mean()),
                "se_single": float(mse_s.std(ddof=1) / np.sqrt(mse_s.size)),
            }
        )
        measurements[f"b_{mode}_gap_M{m}"] = float(gap.mean())
        measurements[f"b_{mode}_gap_theory_M{m}"] = theory
        measurements[f"b_{mode}_z_M{m}"] = rows[-1]["z"]
    gauss = [r for r in rows if r["mode"] == "gaussian"]
    if gauss:
        measurements["b_max_abs_z_gap"] = max(abs(r["z"]) for r in gauss)
        # power: how many standard errors the smallest gap is away from 0
        measurements["b_min_gap_over_se"] = min(r["gap"] / r["se"] for r in gauss)
    relu = [r for r in rows if r["mode"] == "relu"]
    if relu:
        measurements["b_relu_max_rel_error_gap"] = max(
            abs(r["gap"] - r["theory"]) / r["theory"] for r in relu
        )
    return rows


def _summarize_c(config, results, measurements) -> list[dict]:
    rows = []
    for cell, out in sorted(
        ((c, o) for c, o in results if c["part"] == "width"), key=lambda co: co[0]["width"]
    ):
        diff = np.abs(out["mean"] - out["h_inf"])  # (T,)
        z = (out["mean"] - out["h_inf"]) / np.sqrt(out["variance"] / config.c_members)
        rows.append(
            {
                "width": cell["width"],
                "diff": float(diff.mean()),
                "max_abs_z": float(np.abs(z).max()),
            }
        )
        measurements[f"c_mean_abs_diff_D{cell['width']}"] = rows[-1]["diff"]
        measurements[f"c_relu_max_abs_z_D{cell['width']}"] = rows[-1]["max_abs_z"]
    if len(rows) >= 2 and len(rows) == len(config.c_widths):
        diffs = [r["diff"] for r in rows]
        best = run = 1
        for prev, cur in zip(diffs, diffs[1:], strict=False):
            run = run + 1 if cur < prev else 1
            best = max(best, run)
        measurements["c_decreasing_run"] = float(best)
    return rows


def _summarize_d(config, rows, measurements) -> None:
    corrs, robust, exact = [], [], []
    for cell, out in sorted(rows, key=lambda co: co[0]["dataset"]):
        corr = float(np.corrcoef(out["variance"], out["r_perp2"])[0, 1])
        corrs.append(corr)
        robust.append(float(np.corrcoef(out["robust_variance"], out["r_perp2"])[0, 1]))
        exact.append(float(np.corrcoef(out["exact_variance"], out["r_perp2"])[0, 1]))
        measurements[f"d_correlation_set{cell['dataset']}"] = corr
        X, y = _data_1d(config, cell["dataset"])
        scale = rkhs_norm_squared(X, y) / (config.d_width - config.a_n_train - 1)
        measurements[f"d_variance_over_formula_set{cell['dataset']}"] = float(
            out["variance"].sum() / (out["r_perp2"].sum() * scale)
        )
    if len(corrs) == config.d_datasets:
        measurements["d_mean_correlation"] = float(np.mean(corrs))
        measurements["d_min_correlation"] = float(np.min(corrs))
        measurements["d_mean_correlation_mad"] = float(np.mean(robust))
        measurements["d_mean_correlation_exact_ridgeless"] = float(np.mean(exact))


def _fig_a(rows) -> Figure:
    fig = Figure(figsize=(9, 3.6))
    ax1, ax2 = fig.subplots(1, 2)
    for i, r in enumerate(rows):
        ax1.plot(r["z_mean"], "o", color=f"C{i}", label=f"D = {r['width']}: mean")
        ax1.plot(r["z_var"], "s", mfc="none", color=f"C{i}", label=f"D = {r['width']}: variance")
        ax2.loglog(r["theory"], r["var"], "o", color=f"C{i}", label=f"D = {r['width']}")
    for v in (-3, 3):
        ax1.axhline(v, color="grey", linestyle=":")
    ax1.set_xlabel("test input index")
    ax1.set_ylabel("z-score against the closed form")
    ax1.set_title("Gaussian mode: mean and variance", fontsize=9)
    ax1.legend(fontsize=6, ncol=2)
    lo = min(r["theory"].min() for r in rows)
    hi = max(r["theory"].max() for r in rows)
    ax2.plot([lo, hi], [lo, hi], "k--", linewidth=1, label="y = x")
    ax2.set_xlabel("r_perp^2 y^T K^-1 y / (D - N - 1)")
    ax2.set_ylabel("variance amongst members")
    ax2.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_b(config, rows) -> Figure:
    X, y, X_test, y_test = _data_8d(config)
    kernel_mse = float(((kernel_predictor(X, y, X_test) - y_test) ** 2).mean())
    modes = sorted({r["mode"] for r in rows})
    fig = Figure(figsize=(4.6 * len(modes), 3.8))
    axes = np.atleast_1d(fig.subplots(1, len(modes)))
    D, N = config.b_width, config.b_n_train
    var0 = closed_form_variance(X, y, X_test, D).mean() * (D - N - 1)  # mean r^2 y K^-1 y
    for ax, mode in zip(axes, modes, strict=False):
        rs = sorted((r for r in rows if r["mode"] == mode), key=lambda r: r["members"])
        budget = np.array([r["members"] * D for r in rs])
        ax.errorbar(
            budget,
            [r["mse_ensemble"] for r in rs],
            [r["se_ensemble"] for r in rs],
            fmt="o",
            label=f"ensemble of width-{D} models (simulated)",
        )
        ax.errorbar(
            budget,
            [r["mse_single"] for r in rs],
            [r["se_single"] for r in rs],
            fmt="s",
            label="single model of the same width (simulated)",
        )
        ms = np.array([r["members"] for r in rs])
        ax.plot(
            budget, kernel_mse + var0 / (ms * (D - N - 1)), "C0--", label="closed form, ensemble"
        )
        ax.plot(budget, kernel_mse + var0 / (ms * D - N - 1), "C1--", label="closed form, single")
        ax.axhline(kernel_mse, color="k", linewidth=1, label="kernel predictor (infinite width)")
        ax.set_xlabel("total number of features M D")
        ax.set_ylabel("test MSE")
        ax.set_title(f"{mode} features, N = {N}, D = {D}", fontsize=9)
        ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def _fig_c(config, rows) -> Figure:
    fig = Figure(figsize=(5, 3.6))
    ax = fig.subplots()
    ax.loglog(
        [r["width"] for r in rows],
        [r["diff"] for r in rows],
        "o-",
        label=f"ReLU ensemble of {config.c_members}",
    )
    ax.axvline(config.b_n_train, color="grey", linestyle=":", label="D = N")
    ax.set_xticks([r["width"] for r in rows], [str(r["width"]) for r in rows])
    ax.minorticks_off()
    ax.set_xlabel("width D of each member")
    ax.set_ylabel("mean |ensemble - h_inf| over test inputs")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_ensemble(config, X, y, out) -> Figure:
    grid = np.linspace(-5, 5, config.d_grid)
    fig = Figure(figsize=(5.5, 3.8))
    ax = fig.subplots()
    for i, member in enumerate(out["examples"]):
        ax.plot(
            grid, member, color="0.7", linewidth=0.8, label="single members" if i == 0 else None
        )
    ax.plot(grid, out["h_inf"], "k-", linewidth=2, label="kernel predictor h_inf")
    ax.plot(grid, out["mean"], "C3--", linewidth=1.5, label=f"mean of {config.d_members} members")
    ax.plot(X[:, 0], y, "o", color="C0", label="training data")
    ax.set_xlabel("x")
    ax.set_title(f"ReLU features, D = {config.d_width}, N = {len(y)}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_variance(config, X, y, out) -> Figure:
    grid = np.linspace(-5, 5, config.d_grid)
    fig = Figure(figsize=(5.5, 3.8))
    ax = fig.subplots()
    ax.plot(grid, out["variance"], "C3-", label="variance amongst ReLU members")
    ax2 = ax.twinx()
    ax2.plot(grid, out["r_perp2"], "k--", label="r_perp^2(x) (right axis)")
    for x in X[:, 0]:
        ax.axvline(x, color="C0", linewidth=0.6, alpha=0.5)
    corr = np.corrcoef(out["variance"], out["r_perp2"])[0, 1]
    ax.set_title(f"D = {config.d_width}, N = {len(y)}: Pearson r = {corr:.3f}", fontsize=9)
    ax.set_xlabel("x (training inputs: blue lines)")
    ax.set_ylabel("variance")
    ax2.set_ylabel("r_perp^2")
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig
