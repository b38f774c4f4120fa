"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.fhbi.reproduce import (
    Config,
)
from icml25.lab.reproduction import Summary

METHODS = ("svgd", "fhbi", "ensemble", "ensemble_sam", "mc_dropout")

LABELS = {
    "svgd": "SVGD",
    "fhbi": "FHBI",
    "ensemble": "deep ens.",
    "ensemble_sam": "deep ens. (SAM)",
    "mc_dropout": "MC dropout",
}


def _select_rho(config: Config, results) -> dict[str, float]:
    """Per dataset, the grid rho of the lowest validation NLL (mean over the val replicates)."""
    chosen = {}
    for d in config.datasets:
        val = {
            r: np.mean(
                [
                    o["nll"]
                    for c, o in results
                    if c["part"] == "val" and c["dataset"] == d and c["rho"] == r
                ]
            )
            for r in config.rho_grid
        }
        chosen[d] = min(config.rho_grid, key=lambda r: (val[r], r))
    return chosen


def _runs(results, dataset: str, method: str, rho: float | None = None) -> list[dict]:
    return [
        o
        for c, o in results
        if c["part"] == "test"
        and c["dataset"] == dataset
        and c["method"] == method
        and (rho is None or c["rho"] == rho)
    ]


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    check = next(o for c, o in results if c["part"] == "check")
    m["a_rho0_vs_svgd_max_abs_diff"] = check["rho0_diff"]
    m["a_m1_vs_sam_max_abs_diff"] = check["m1_diff"]
    m["a_step_max_abs_move"] = check["step_size"]  # the size of what the checks compare
    chosen = _select_rho(config, results)
    table: dict[tuple[str, str], list[dict]] = {}
    for d in config.datasets:
        m[f"rho_chosen_{d}"] = chosen[d]
        for r in config.rho_grid:
            vals = [
                o["nll"]
                for c, o in results
                if c["part"] == "val" and c["dataset"] == d and c["rho"] == r
            ]
            m[f"val_nll_fhbi_rho{r}_{d}"] = float(np.mean(vals))
        for method in METHODS:
            rho = chosen[d] if method == "fhbi" else None
            table[d, method] = _runs(results, d, method, rho)
            _record(m, f"{method}_{d}", table[d, method])
        for r in config.rho_grid:
            _record(m, f"fhbi_rho{r}_{d}", _runs(results, d, "fhbi", r))
    mean = lambda key, d, method: m[f"{key}_{method}_{d}"]  # noqa: E731
    ds = config.datasets
    m["b_datasets_fhbi_nll_below_svgd"] = float(
        sum(mean("nll", d, "fhbi") < mean("nll", d, "svgd") for d in ds)
    )
    m["c_datasets_fhbi_sharpness_below_svgd"] = float(
        sum(mean("sharpness", d, "fhbi") < mean("sharpness", d, "svgd") for d in ds)
    )
    m["d_min_diversity_ratio_fhbi_over_svgd"] = min(
        mean("diversity", d, "fhbi") / mean("diversity", d, "svgd") for d in ds
    )
    b2_gaps, d_logs = [], []
    for d in ds:
        _paired(m, d, table[d, "svgd"], table[d, "fhbi"])
        b2_gaps.append(_per_seed(m, "b2_acc_gap", d, results, chosen[d], _accuracy_gap))
        d_logs.append(_per_seed(m, "d_log_grad_diversity_ratio", d, results, chosen[d], _log_gd))
        m[f"d_grad_diversity_ratio_geomean_{d}"] = float(np.exp(d_logs[-1]))
    m["b2_min_acc_gap_fhbi_minus_svgd"] = min(b2_gaps)
    m["d_min_log_grad_diversity_ratio"] = min(d_logs)
    for d in ds:
        m[f"d_diversity_ratio_{d}"] = mean("diversity", d, "fhbi") / mean("diversity", d, "svgd")
        m[f"d_diversity_ratio_ensemble_sam_over_svgd_{d}"] = mean(
            "diversity", d, "ensemble_sam"
        ) / mean("diversity", d, "svgd")
        m[f"d_grad_diversity_ratio_ensemble_sam_over_svgd_{d}"] = mean(
            "grad_diversity", d, "ensemble_sam"
        ) / mean("grad_diversity", d, "svgd")
    tested = [o for c, o in results if c["part"] == "test" and "power_converged" in o]
    m["c_power_iteration_converged_fraction"] = float(
        np.mean([o["power_converged"] for o in tested])
    )
    m["c_power_iteration_max_iterations"] = float(max(o["power_iterations"] for o in tested))
    figures = {
        "nll_accuracy": _fig_scores(config, table),
        "sharpness_vs_rho": _fig_sharpness(config, results, chosen),
        "diversity": _fig_diversity(config, table),
        "training_loss": _fig_training(config, table),
    }
    captions = {
        "nll_accuracy": "Test NLL and accuracy of the particle average per method and dataset: "
        "one dot per seed, bar = mean over seeds (FHBI at its validation-chosen rho).",
        "sharpness_vs_rho": "Largest Hessian eigenvalue of the training loss (mean over "
        "particles; mean and seed spread) against FHBI's rho; rho = 0 is SVGD; the circled "
        "point is the rho chosen on the validation split.",
        "diversity": "Top: gradient diversity of the final particles, sum_i ||g_i||^2 / "
        "||sum_i g_i||^2 of their training-loss gradients (Yin et al., 2018; claim d). Bottom: "
        "prediction diversity, the mean pairwise total-variation distance on test inputs "
        "(diagnostic). One dot per seed, bar = mean; the dashed line is the deep ensemble of "
        "SAM members (reference).",
        "training_loss": "Mean training loss of the particles during training (mean over "
        "seeds): the cosine step-size schedule brings it to a plateau by the end.",
    }
    return Summary(m, figures, captions)


def _paired(m: dict, d: str, svgd: list[dict], fhbi: list[dict]) -> None:
    """Per-seed (paired: same data, initial particles and batches) FHBI - SVGD differences."""
    for name in ("nll", "accuracy"):
        diff = np.array([b[name] - a[name] for a, b in zip(svgd, fhbi, strict=True)])
        m[f"paired_{name}_fhbi_minus_svgd_{d}"] = float(diff.mean())
        m[f"paired_{name}_fhbi_minus_svgd_sd_{d}"] = float(diff.std())
        m[f"paired_seeds_fhbi_{name}_below_svgd_{d}"] = float((diff < 0).sum())
    sharp = [b["sharpness"].mean() < a["sharpness"].mean() for a, b in zip(svgd, fhbi, strict=True)]
    m[f"paired_seeds_fhbi_sharpness_below_svgd_{d}"] = float(sum(sharp))


def _accuracy_gap(svgd: dict, fhbi: dict) -> float:
    """FHBI's test accuracy minus SVGD's on one seed."""
    return fhbi["accuracy"] - svgd["accuracy"]


def _log_gd(svgd: dict, fhbi: dict) -> float:
    """``log(Delta_FHBI / Delta_SVGD)`` of the gradient diversities on one seed."""
    return float(np.log(fhbi["grad_diversity"]) - np.log(svgd["grad_diversity"]))


def _per_seed(m: dict, name: str, d: str, results, rho: float, paired) -> float:
    """Per seed, ``paired(svgd, fhbi)`` on the same data, initial particles and batches (FHBI at
    the chosen rho), recorded as ``name[dataset=d,seed=s]``: the replicates of a claim. Returns
    their mean over seeds."""
    runs = {
        (c["method"], c["seed"]): o
        for c, o in results
        if c["part"] == "test"
        and c["dataset"] == d
        and (c["method"] == "svgd" or (c["method"] == "fhbi" and c["rho"] == rho))
    }
    values = []
    for s in sorted({s for _, s in runs}):
        values.append(float(paired(runs["svgd", s], runs["fhbi", s])))
        m[f"{name}[dataset={d},seed={s}]"] = values[-1]
    return float(np.mean(values))


def _record(m: dict, key: str, runs: list[dict]) -> None:
    if not runs:
        return
    for name in ("nll", "accuracy", "ece", "diversity", "grad_diversity"):
        if name in runs[0]:
            m[f"{name}_{key}"] = float(np.mean([o[name] for o in runs]))
            m[f"{name}_sd_{key}"] = float(np.std([o[name] for o in runs]))
    if "sharpness" in runs[0]:
        m[f"sharpness_{key}"] = float(np.mean([o["sharpness"].mean() for o in runs]))
    hist = np.mean([o["history"][:, 1] for o in runs], axis=0)  # (records,)
    m[f"train_loss_end_{key}"] = float(hist[-1])
    tail = hist[int(0.8 * (len(hist) - 1)) :]  # the last fifth of the budget
    m[f"train_loss_change_last_fifth_{key}"] = float(tail[0] - tail[-1])


def _fig_scores(config: Config, table) -> Figure:
    fig = Figure(figsize=(4 * len(config.datasets), 6))
    axes = fig.subplots(2, len(config.datasets), squeeze=False)
    for j, d in enumerate(config.datasets):
        for row, key in enumerate(("nll", "accuracy")):
            ax = axes[row, j]
            for i, method in enumerate(METHODS):
                vals = [o[key] for o in table[d, method]]
                ax.bar(i, np.mean(vals), color=f"C{i}", alpha=0.5)
                ax.plot(np.full(len(vals), i), vals, "k.", markersize=4)
            ax.set_xticks(
                range(len(METHODS)), [LABELS[k] for k in METHODS], rotation=35, fontsize=7
            )
            ax.set_title(f"{d}: test {key}", fontsize=9)
            if key == "accuracy":
                lo = min(o[key] for k in METHODS for o in table[d, k])
                ax.set_ylim(max(0.0, lo - 0.05), 1.0)
    fig.tight_layout()
    return fig


def _fig_sharpness(config: Config, results, chosen) -> Figure:
    fig = Figure(figsize=(4 * len(config.datasets), 3.4))
    axes = fig.subplots(1, len(config.datasets), squeeze=False)[0]
    for ax, d in zip(axes, config.datasets, strict=True):
        rhos = [0.0, *config.rho_grid]
        per = [
            [o["sharpness"].mean() for o in _runs(results, d, "svgd" if r == 0 else "fhbi", r)]
            for r in rhos
        ]
        xs = np.arange(len(rhos))
        ax.errorbar(xs, [np.mean(p) for p in per], yerr=[np.std(p) for p in per], fmt="o-")
        k = rhos.index(chosen[d])
        ax.plot(xs[k], np.mean(per[k]), "o", ms=14, mfc="none", color="C3")
        ax.set_xticks(xs, ["0 (SVGD)", *[str(r) for r in config.rho_grid]], fontsize=8)
        ax.set_xlabel("rho")
        ax.set_ylabel("top Hessian eigenvalue")
        ax.set_title(d, fontsize=9)
    fig.tight_layout()
    return fig


def _fig_diversity(config: Config, table) -> Figure:
    fig = Figure(figsize=(4 * len(config.datasets), 6.4))
    axes = fig.subplots(2, len(config.datasets), squeeze=False)
    shown = ("svgd", "fhbi", "ensemble")
    rows = (
        ("grad_diversity", "gradient diversity (Yin et al.)"),
        ("diversity", "mean pairwise TV distance"),
    )
    for row, (key, label) in enumerate(rows):
        for ax, d in zip(axes[row], config.datasets, strict=True):
            for i, method in enumerate(shown):
                vals = [o[key] for o in table[d, method]]
                ax.bar(i, np.mean(vals), color=f"C{i}", alpha=0.6)
                ax.plot(np.full(len(vals), i), vals, "k.", markersize=4)
            ref = np.mean([o[key] for o in table[d, "ensemble_sam"]])
            ax.axhline(ref, color="k", linestyle="--", label=LABELS["ensemble_sam"])
            ax.set_xticks(range(len(shown)), [LABELS[k] for k in shown], fontsize=8)
            ax.set_ylabel(label)
            ax.set_title(d, fontsize=9)
            ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_training(config: Config, table) -> Figure:
    fig = Figure(figsize=(4 * len(config.datasets), 3.2))
    axes = fig.subplots(1, len(config.datasets), squeeze=False)[0]
    for ax, d in zip(axes, config.datasets, strict=True):
        for i, method in enumerate(METHODS):
            runs = table[d, method]
            hist = np.mean([o["history"] for o in runs], axis=0)  # (records, 2)
            ax.semilogy(
                hist[:, 0], np.maximum(hist[:, 1], 1e-8), color=f"C{i}", label=LABELS[method]
            )
        ax.set_xlabel("step")
        ax.set_ylabel("training loss")
        ax.set_title(d, fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
