"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.steer_learners.reproduce import (
    GAMES,
    RUNS,
    Config,
)


def _slope(x, y) -> float:
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    nan = float("nan")
    path = [(c, o) for c, o in results if c["part"] == "path"]
    noise_dev, drift_dev, rel_err, bound_ok = [], [], [], []
    for cell, out in path:
        eta, meas = np.array(out["etas"]), np.array(out["measured"])
        noise, drift = np.array(out["noise_term"]), np.array(out["drift_term"])
        closed = noise + drift
        rel_err.append(np.max(np.abs(meas - closed) / closed))
        bound = np.array(out["bound"])
        bound_ok.extend((closed <= bound)[np.isfinite(bound)].tolist())
        for name, mask, target, devs in (
            ("noise", noise >= config.regime_factor * drift, 1.0, noise_dev),
            ("drift", drift >= config.regime_factor * noise, -2.0, drift_dev),
        ):
            if mask.sum() >= 3:
                slope = _slope(eta[mask], meas[mask])
                m[f"{name}_slope_rho{cell['rho']:g}"] = slope
                devs.append(abs(slope - target))
    m["noise_slope_deviation"] = max(noise_dev, default=nan)
    m["drift_slope_deviation"] = max(drift_dev, default=nan)
    m["path_max_rel_error_vs_closed_form"] = float(max(rel_err, default=nan))
    m["path_bound_holds_fraction"] = float(np.mean(bound_ok)) if bound_ok else nan

    figures = {}
    if path:
        figures["tracking_regimes"] = _fig_regimes(path)
    keys = ("tracking", "suboptimality", "sensitivity_error", "trace_tracking")
    keys += ("trace_suboptimality",)
    for game in GAMES:
        rows = {
            run: [
                o
                for c, o in results
                if c.get("game") == game and (c["schedule"], c["leader"]) == run
            ]
            for run in RUNS
        }
        if any(not r for r in rows.values()):
            continue
        mean = {
            run: {k: np.mean([o[k] for o in r], axis=0) for k in keys} for run, r in rows.items()
        }
        geo, known = mean["geometric", "estimate"], mean["geometric", "exact"]
        const = mean["constant", "estimate"]
        rm, rm_known = mean["robbins_monro", "estimate"], mean["robbins_monro", "exact"]
        matched = mean["robbins_monro_matched", "estimate"]
        m[f"{game}_n_epochs"] = float(len(geo["tracking"]))
        for k in ("tracking", "suboptimality"):
            ratios = geo[k][1:] / geo[k][:-1]
            m[f"{game}_{k}_max_ratio"] = float(np.max(ratios))
            m[f"{game}_{k}_mean_ratio"] = float(np.exp(np.mean(np.log(ratios))))
            m[f"{game}_{k}_max_ratio_known"] = float(np.max(known[k][1:] / known[k][:-1]))
            for name, run in (
                ("geometric", geo),
                ("known", known),
                ("constant", const),
                ("rm", rm),
                ("rm_known", rm_known),
                ("rm_matched", matched),
            ):
                m[f"{game}_{k}_final_{name}"] = float(run[k][-1])
            m[f"{game}_epoch_over_rm_{k}"] = float(geo[k][-1] / rm[k][-1])
            m[f"{game}_epoch_over_rm_{k}_known"] = float(known[k][-1] / rm_known[k][-1])
            m[f"{game}_epoch_over_rm_matched_{k}"] = float(geo[k][-1] / matched[k][-1])
        m[f"{game}_estimated_over_known_suboptimality"] = float(
            geo["suboptimality"][-1] / known["suboptimality"][-1]
        )
        # the agents' stationary floor (the estimating decision-maker's suboptimality keeps
        # falling under constant steps as its J_hat improves, so it is not a floor)
        m[f"{game}_constant_stall_ratio"] = float(const["tracking"][-1] / const["tracking"][1])
        m[f"{game}_constant_over_epoch_tracking"] = float(
            const["tracking"][-1] / geo["tracking"][-1]
        )
        # J_hat's error: the information on J grows with sum_t eta_t (see the README)
        m[f"{game}_sensitivity_error_final"] = float(geo["sensitivity_error"][-1])
        m[f"{game}_sensitivity_error_final_constant"] = float(const["sensitivity_error"][-1])
        m[f"{game}_sensitivity_error_ratio_geometric_over_constant"] = float(
            geo["sensitivity_error"][-1] / const["sensitivity_error"][-1]
        )
        eta_sum = {
            s: np.mean([o["eta_sum"] for o in rows[s, "estimate"]])
            for s in ("geometric", "constant")
        }
        m[f"{game}_predicted_error_ratio_sqrt_eta_sum"] = float(
            np.sqrt(eta_sum["constant"] / eta_sum["geometric"])
        )
        m[f"{game}_clipped_fraction_epoch0"] = float(
            np.mean([o["clipped"][0] for o in rows["geometric", "estimate"]])
        )
        figures[f"epochs_{game}"] = _fig_epochs(game, rows["geometric", "estimate"][0], mean)
    return Summary(m, figures)


def _fig_regimes(path) -> Figure:
    fig = Figure(figsize=(5.5, 4))
    ax = fig.subplots()
    for j, (cell, out) in enumerate(path):
        eta = np.array(out["etas"])
        closed = np.array(out["noise_term"]) + np.array(out["drift_term"])
        ax.loglog(eta, out["measured"], "o", color=f"C{j}", ms=4, label=f"rho = {cell['rho']:g}")
        ax.loglog(eta, closed, "-", color=f"C{j}", lw=1)
        ax.loglog(eta, out["bound"], ":", color=f"C{j}", lw=1)
    ax.set_xlabel("agents' step size eta")
    ax.set_ylabel("steady-state E|z_t - z*_t|^2")
    ax.set_title("dots: simulation; lines: exact limit; dotted: bound", fontsize=8)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_epochs(game: str, first: dict, mean: dict) -> Figure:
    fig = Figure(figsize=(13, 3.6))
    axes = fig.subplots(1, 3)
    rounds = np.array(first["trace_rounds"])[1:]  # round 0 (play at equilibrium) left out
    ends = np.array(first["ends"])
    lines = {
        ("geometric", "estimate"): ("epoch-based, J estimated (default)", "C0", "-"),
        ("geometric", "exact"): ("epoch-based, J known (reference)", "C0", "--"),
        ("constant", "estimate"): ("constant steps, J estimated", "C1", "-"),
        ("robbins_monro", "estimate"): ("Robbins-Monro 1/t, J estimated", "C2", "-"),
        ("robbins_monro", "exact"): ("Robbins-Monro 1/t, J known", "C2", "--"),
        ("robbins_monro_matched", "estimate"): ("Robbins-Monro, time scale 2 T_0", "C3", ":"),
    }
    for ax, key, label in (
        (axes[0], "trace_tracking", "tracking error E|z - z*(theta)|^2"),
        (axes[1], "trace_suboptimality", "suboptimality Phi(theta) - Phi*"),
    ):
        for run, (name, color, ls) in lines.items():
            ax.loglog(rounds, mean[run][key][1:], color=color, ls=ls, label=name)
        for end in ends:
            ax.axvline(end, color="grey", lw=0.5, ls=":")
        ax.set_xlabel("round")
        ax.set_ylabel(label)
    for run in (("geometric", "estimate"), ("constant", "estimate"), ("robbins_monro", "estimate")):
        name, color, ls = lines[run]
        axes[2].loglog(ends, mean[run]["sensitivity_error"], "o" + ls, color=color, label=name)
    axes[2].set_xlabel("round (epoch ends)")
    axes[2].set_ylabel("relative error of J_hat")
    axes[0].legend(fontsize=6)
    fig.suptitle(f"{game} game: mean over replicates; dotted lines = epoch ends", fontsize=9)
    fig.tight_layout()
    return fig
