"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from scipy import stats

from icml25.creator_groups.game import REWARDS
from icml25.creator_groups.reproduce import (
    Config,
)
from icml25.lab.reproduction import Summary


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    nan = float("nan")
    m: dict[str, float] = {}
    by: dict[str, list] = {}
    for cell, out in results:
        by.setdefault(cell["part"], []).append((cell, out))

    lbr = [o for _, o in by.get("lbr", [])]
    if lbr:
        # (R,) per setting, replicates of every batch in order
        final, start, stopped, drift = (
            {key: np.concatenate([o[part][key] for o in lbr]) for key in lbr[0][part]}
            for part in ("final", "start", "stopped", "drift")
        )
        mean = {}  # (reward, g, K) -> replicate mean of final welfare
        for key, W in final.items():
            reward, g, K = key.split("|")
            mean[reward, int(g), int(K)] = float(W.mean())
            m[f"W_{reward}_g{g}_K{K}"] = float(W.mean())
        reps = len(next(iter(final.values())))
        m["lbr_replicates"] = float(reps)
        # (a) per (reward, K): paired relative gap, its 95% t-interval (two-sided); the claim
        # compares the interval's bound farthest from zero with the threshold
        t95 = stats.t.ppf(0.975, reps - 1) if reps > 1 else np.inf
        bound, point = {}, {}
        for r in REWARDS:
            for K in config.Ks:
                diff = final[f"{r}|2|{K}"] - final[f"{r}|1|{K}"]
                base = abs(mean[r, 1, K])
                point[r, K] = diff.mean() / base
                half = t95 * diff.std(ddof=1) / np.sqrt(reps) / base if reps > 1 else np.inf
                bound[r, K] = abs(point[r, K]) + half
                m[f"small_group_rel_gap_{r}_K{K}"] = float(point[r, K])
                m[f"small_group_rel_gap_ci_half_{r}_K{K}"] = float(half)
        worst = max(bound, key=bound.get)
        m["small_group_ci_bound_max"] = float(bound[worst])
        m["small_group_ci_bound_max_is_engagement"] = float(worst[0] == "engagement")
        m["small_group_ci_bound_max_K"] = float(worst[1])
        m["small_group_max_rel_gap"] = float(max(abs(v) for v in point.values()))
        # convergence: share of runs whose stopping rule held, and the drift of those that ran
        # out of rounds (|W_end - W at 3/4 of the run|)
        stop = np.concatenate(list(stopped.values()))
        m["lbr_converged_fraction"] = float(np.mean(stop >= 0))
        for r in REWARDS:
            for g in config.group_sizes:
                s = np.concatenate([stopped[f"{r}|{g}|{K}"] for K in config.Ks])
                m[f"lbr_converged_fraction_{r}_g{g}"] = float(np.mean(s >= 0))
        late = np.concatenate([drift[k][stopped[k] < 0] for k in drift])
        m["lbr_unconverged_drift_max"] = float(late.max(initial=0.0))
        m["lbr_unconverged_drift_median"] = float(np.median(late)) if late.size else 0.0
        m["lbr_stop_round_median"] = float(np.median(stop[stop >= 0])) if (stop >= 0).any() else nan
        n = config.n
        m["exposure_grand_max_change"] = float(
            max(
                np.abs(final[f"exposure|{n}|{K}"] - start[f"exposure|{n}|{K}"]).max()
                for K in config.Ks
            )
        )
        m["engagement_grand_min_gain"] = float(
            min(
                (final[f"engagement|{n}|{K}"] - start[f"engagement|{n}|{K}"]).mean()
                for K in config.Ks
            )
        )
        for K in config.Ks:  # per replicate, behind (b2)
            gain = final[f"engagement|{n}|{K}"] - start[f"engagement|{n}|{K}"]
            for r, value in enumerate(gain):
                m[f"engagement_grand_gain[K={K},replicate={r}]"] = float(value)
        for K in config.Ks:
            m[f"W_start_K{K}"] = float(start[f"exposure|1|{K}"].mean())

    poa = by.get("poa", [])
    if poa:
        rows = np.array([r for _, o in poa for r in o["rows"]], dtype=float)  # (N, 9)
        binary, g, engage, K, value = (
            rows[:, 1] == 1,
            rows[:, 2],
            rows[:, 3] == 1,
            rows[:, 4],
            rows[:, 5],
        )
        has = np.isfinite(value)
        m["poa_settings"] = float(len(rows))
        m["poa_settings_with_pne_fraction"] = float(has.mean())
        sel = engage & has
        m["engagement_poa_over_k1_max"] = float(np.max(value[sel] / (K[sel] + 1), initial=-np.inf))
        m["engagement_poa_max"] = float(np.max(value[sel], initial=-np.inf))
        m["engagement_binary_poa_max"] = float(np.max(value[sel & binary], initial=-np.inf))
        exp = ~engage & has
        m["exposure_random_poa_over_k1_max"] = float(
            np.max(value[exp] / (K[exp] + 1), initial=-np.inf)
        )
        sg_stop, sg_pne, sg_w = rows[:, 6] == 1, rows[:, 7] == 1, rows[:, 8]
        m["self_greedy_stopped_fraction"] = float(sg_stop.mean())
        m["self_greedy_stopped_fraction_when_pne_exists"] = float(sg_stop[has].mean())
        m["self_greedy_pne_fraction_when_stopped"] = float(sg_pne[sg_stop].mean())
        m["self_greedy_welfare_over_optimum_min"] = float(sg_w[sg_stop].min())
        m["self_greedy_welfare_over_optimum_mean"] = float(sg_w[sg_stop].mean())
        for reward, paid in zip(REWARDS, (~engage, engage), strict=True):
            sel = sg_stop & paid & has & (sg_w > 0)
            # optimum / W at Self-Greedy's PNE (the PoA is this ratio at the worst PNE)
            m[f"self_greedy_opt_ratio_max_{reward}"] = float(np.max(1 / sg_w[sel], initial=-np.inf))
        bests = [o["best_drop"] for _, o in poa if o["best_drop"] is not None]
        m["k_nonmonotone_max_drop"] = max((b["drop"] for b in bests), default=nan)
        drops = np.array([d for _, o in poa for d in o["drops"]], dtype=float)  # (N, 3)
        for name, who in (("individual", drops[:, 0] == 1), ("group", drops[:, 0] > 1)):
            for reward, paid in zip(REWARDS, (drops[:, 1] == 0, drops[:, 1] == 1), strict=True):
                sel = who & paid
                m[f"k_nonmonotone_fraction_{name}_{reward}"] = float(np.mean(drops[sel, 2] > 0))
                m[f"k_nonmonotone_max_drop_{name}_{reward}"] = float(
                    np.max(drops[sel, 2], initial=-np.inf)
                )

    trap = by.get("trap", [])
    if trap:
        m["exposure_trap_poa_over_k1_max"] = max(
            o["exposure"]["poa"] / (c["K"] + 1) for c, o in trap
        )
        m["exposure_trap_engagement_poa_over_k1_max"] = max(
            o["engagement"]["poa"] / (c["K"] + 1) for c, o in trap
        )

    figures = {}
    if lbr:
        figures["welfare_vs_K"] = _fig_welfare(config, lbr)
        figures["welfare_trajectories"] = _fig_traces(config, lbr[0])
    if poa or trap:
        figures["price_of_anarchy"] = _fig_poa(config, poa, trap)
    return Summary(m, figures)


def _fig_welfare(config: Config, lbr: list[dict]) -> Figure:
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2, sharey=True)
    Ks = np.array(config.Ks)

    def runs(part, key):  # (R,) over every batch
        return np.concatenate([o[part][key] for o in lbr])

    start = np.array([runs("start", f"exposure|1|{K}") for K in Ks]).T  # (R, |K|)
    for ax, reward in zip(axes, REWARDS, strict=True):
        for j, g in enumerate(config.group_sizes):
            W = np.array([runs("final", f"{reward}|{g}|{K}") for K in Ks]).T  # (R, |K|)
            se = W.std(axis=0, ddof=1) / np.sqrt(len(W)) if len(W) > 1 else 0 * Ks
            ax.errorbar(Ks, W.mean(axis=0), se, color=f"C{j}", marker="o", ms=3, label=f"g={g}")
        ax.plot(Ks, start.mean(axis=0), "k:", label="start")
        ax.set_title(f"{reward} rewards: equilibrium welfare (mean +- s.e.)", fontsize=9)
        ax.set_xlabel("K")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("user welfare W")
    fig.tight_layout()
    return fig


def _fig_traces(config: Config, out: dict) -> Figure:
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, reward in zip(axes, REWARDS, strict=True):
        for j, g in enumerate(config.group_sizes):
            trace = np.array(out["trace"][f"{reward}|{g}|{config.trace_K}"])
            ax.plot(5 * np.arange(len(trace)), trace, color=f"C{j}", label=f"g={g}")
        ax.set_title(
            f"{reward} rewards, K={config.trace_K}, replicate 0 (until it stops)", fontsize=9
        )
        ax.set_xlabel("LBR round")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("user welfare W")
    fig.tight_layout()
    return fig


def _fig_poa(config: Config, poa: list, trap: list) -> Figure:
    fig = Figure(figsize=(13, 3.6))
    axes = fig.subplots(1, 3)
    if poa:
        rows = np.array([r for _, o in poa for r in o["rows"]], dtype=float)
        rng = np.random.default_rng(0)  # horizontal jitter only
        for j, (label, sel) in enumerate(
            (
                ("engagement, general", (rows[:, 3] == 1) & (rows[:, 1] == 0)),
                ("engagement, binary", (rows[:, 3] == 1) & (rows[:, 1] == 1)),
                ("exposure", rows[:, 3] == 0),
            )
        ):
            sel &= np.isfinite(rows[:, 5])
            x = rows[sel, 4] + 0.25 * (j - 1) + 0.05 * rng.normal(size=sel.sum())
            axes[0].scatter(x, rows[sel, 5], s=4, color=f"C{j}", label=label)
        Ks = np.array(config.poa_Ks)
        axes[0].plot(Ks, Ks + 1, "k_", ms=20, mew=2, label="K + 1")
        axes[0].axhline(2, color="grey", ls=":", lw=1, label="2")
        axes[0].set_yscale("log")
        axes[0].set_xlabel("K")
        axes[0].set_ylabel("PoA")
        axes[0].set_title("random discrete instances (every group size)", fontsize=9)
        axes[0].legend(fontsize=7)
        best = max((o["best_drop"] for _, o in poa if o["best_drop"]), key=lambda b: b["drop"])
        for j, (label, spans) in enumerate(
            (
                (f"groups of {best['group_size']}", best["ranges"]),
                ("individual", best.get("ranges_individual")),
            )
        ):
            for K, r in zip(config.poa_Ks, spans or [None] * len(config.poa_Ks), strict=True):
                if r is not None:
                    x = K + 0.15 * (2 * j - 1)
                    axes[1].plot(
                        [x, x],
                        [r[0], max(r[1], r[0] + 1e-3)],
                        f"C{j}-",
                        lw=6,
                        solid_capstyle="butt",
                        label=label if K == config.poa_Ks[0] else None,
                    )
        axes[1].legend(fontsize=7)
        axes[1].set_xlabel("K")
        axes[1].set_ylabel("welfare of the PNE (range)")
        axes[1].set_title(
            f"claim c instance: {best['reward']} rewards, n={config.poa_n}, beta {best['beta']:g}",
            fontsize=9,
        )
        axes[1].set_xticks(config.poa_Ks)
    if trap:
        for K in sorted({c["K"] for c, _ in trap}):
            pts = sorted((c["epsilon"], o["exposure"]["poa"]) for c, o in trap if c["K"] == K)
            e, v = np.array(pts).T
            axes[2].plot(e, v, "o-", label=f"exposure, K={K}")
            axes[2].axhline(K + 1, color="grey", ls=":", lw=1)
        axes[2].set_xscale("log")
        axes[2].set_yscale("log")
        axes[2].set_xlabel("epsilon (relevance of the generic content)")
        axes[2].set_ylabel("PoA (dotted: K + 1)")
        axes[2].set_title(f"exposure trap, one group, beta {config.trap_beta:g}", fontsize=9)
        axes[2].legend(fontsize=7)
    fig.tight_layout()
    return fig
