"""Reproduction: group strategies of content creators on top-K platforms (Yu, Yao & Pan, ICML 2025).

Cells:

- ``lbr``: a batch of replicates of the paper's synthetic environment (``d = 5``, ``m = 10``
  users on the sphere with weights ``[100, 50, 20, 10, 10, 5, 2, 1, 1, 1] / 200``, ``n``
  creators with random initial contents, ``beta``), run together: local better-response
  dynamics with a halving step, to its stopping rule (or ``rounds``), for every reward, group
  size and ``K``, all from the same users and the same initial contents;
- ``poa``: a batch of random small discrete instances (``n = 4`` creators, 3-4 contents, 2-4
  users, relevance uniform in [0, 1] or binary); every profile enumerated, group PNE and PoA for
  every reward, group size and ``K``, the PNE welfare range per ``K`` (claim c), and the
  Self-Greedy construction checked against the enumeration;
- ``trap``: our exposure-reward construction (:func:`~icml25.creator_groups.exposure_trap`)
  for one ``(K, epsilon)``, one group of all creators.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure
from scipy import stats

from icml25.creator_groups.discrete import brute_force_equilibria, exposure_trap, self_greedy
from icml25.creator_groups.dynamics import local_better_response
from icml25.creator_groups.game import PAPER_USER_WEIGHTS, REWARDS, equal_groups, sample_sphere
from icml25.lab.reproduction import Summary


@dataclass(frozen=True)
class Config:
    d: int = 5
    n: int = 10
    beta: float = 0.1
    eta: float = 0.1  # initial LBR step
    eta_min: float = 1e-3  # stopping rule: every group's step below eta_min ...
    patience: int = 20  # ... and no accepted move for patience rounds
    epsilon: float = 1e-6  # a move must raise its group's utility by more than epsilon
    rounds: int = 2000  # the most LBR rounds
    Ks: tuple[int, ...] = (1, 2, 3, 4, 5)
    group_sizes: tuple[int, ...] = (1, 2, 10)
    lbr_batches: int = 4
    lbr_batch: int = 16  # replicates run together (vectorised) in one cell
    trace_K: int = 3  # K whose welfare trajectories are kept for the figure
    poa_batches: int = 8
    poa_instances: int = 60
    poa_n: int = 4
    poa_Ks: tuple[int, ...] = (1, 2, 3)
    poa_group_sizes: tuple[int, ...] = (1, 2, 4)
    poa_betas: tuple[float, ...] = (0.05, 0.1, 0.3, 1.0)
    trap_Ks: tuple[int, ...] = (1, 2, 3)
    trap_epsilons: tuple[float, ...] = (0.1, 0.03, 0.01)
    trap_beta: float = 0.05


SCALES = {
    "smoke": Config(
        rounds=150,
        Ks=(1, 3),
        lbr_batches=1,
        lbr_batch=3,
        poa_batches=2,
        poa_instances=15,
        trap_Ks=(2,),
        trap_epsilons=(0.01,),
    ),
    "default": Config(),
    "paper": Config(lbr_batches=8, rounds=5000, poa_batches=40),
}


def cells(config: Config) -> list[dict]:
    lbr = [{"part": "lbr", "batch": b} for b in range(config.lbr_batches)]
    poa = [{"part": "poa", "batch": b} for b in range(config.poa_batches)]
    trap = [
        {"part": "trap", "K": K, "epsilon": e} for K in config.trap_Ks for e in config.trap_epsilons
    ]
    return lbr + poa + trap


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "lbr":
        return _lbr(config, seed)
    if cell["part"] == "poa":
        return _poa(config, seed)
    return _trap(config, cell["K"], cell["epsilon"])


def _lbr(config: Config, seed: int) -> dict:
    """A batch of replicates; every (reward, group size, K) from the same users and contents."""
    users, start, dynamics = np.random.SeedSequence(seed).spawn(3)
    B, m, n, d = config.lbr_batch, len(PAPER_USER_WEIGHTS), config.n, config.d
    X = sample_sphere(B * m, d, users).reshape(B, m, d)
    S0 = sample_sphere(B * n, d, start).reshape(B, n, d)
    out: dict = {"start": {}, "final": {}, "stopped": {}, "drift": {}, "trace": {}}
    for reward in REWARDS:
        for g in config.group_sizes:
            for K in config.Ks:
                run = local_better_response(
                    S0,
                    X,
                    PAPER_USER_WEIGHTS,
                    K,
                    config.beta,
                    equal_groups(n, g),
                    reward,
                    config.eta,
                    config.rounds,
                    dynamics,  # the same proposal stream for every setting
                    eta_min=config.eta_min,
                    patience=config.patience,
                    tol=config.epsilon,
                )
                W = run.welfare  # (T + 1, B)
                key = f"{reward}|{g}|{K}"
                out["start"][key] = W[0].tolist()
                out["final"][key] = W[-1].tolist()
                out["stopped"][key] = run.stopped.tolist()
                out["drift"][key] = np.abs(W[-1] - W[(3 * len(W)) // 4]).tolist()
                if K == config.trace_K:
                    out["trace"][key] = W[::5, 0].tolist()
    return out


def _poa(config: Config, seed: int) -> dict:
    """Random discrete instances, all rewards, group sizes and K; PoA and PNE welfare ranges."""
    rng = np.random.default_rng(seed)
    rows, drops, best = [], [], None
    for i in range(config.poa_instances):
        q, m = int(rng.integers(3, 5)), int(rng.integers(2, 5))
        beta = float(rng.choice(config.poa_betas))
        binary = i % 2 == 0
        R = (rng.random((q, m)) < 0.5).astype(float) if binary else rng.random((q, m))
        p = rng.dirichlet(np.ones(m))
        ranges = {}  # (g, reward) -> [min, max] PNE welfare per K (None: no PNE)
        for g in config.poa_group_sizes:
            for reward in REWARDS:
                ranges[g, reward] = []
                for K in config.poa_Ks:
                    eq = brute_force_equilibria(
                        R, p, config.poa_n, K, beta, equal_groups(config.poa_n, g), reward
                    )
                    pne = eq.pne_welfare
                    span = [float(pne.min()), float(pne.max())] if pne.size else None
                    ranges[g, reward].append(span)
                    sg = self_greedy(
                        R, p, config.poa_n, K, beta, equal_groups(config.poa_n, g), reward
                    )
                    at = np.ravel_multi_index(tuple(sg.profile), (len(R),) * config.poa_n)
                    rows.append(
                        [i, binary, g, reward == "engagement", K, eq.price_of_anarchy]
                        + [sg.converged, bool(eq.is_pne[at]), sg.welfare / eq.optimum]
                    )
                drop = _largest_sure_drop(ranges[g, reward])
                drops.append([g, reward == "engagement", drop])
                if g > 1 and (best is None or drop > best["drop"]):
                    best = {
                        "drop": drop,
                        "R": R.tolist(),
                        "p": p.tolist(),
                        "beta": beta,
                        "group_size": g,
                        "reward": reward,
                    }
        if best is not None and best["R"] == R.tolist():  # this instance holds the best drop
            best["ranges"] = ranges[best["group_size"], best["reward"]]
            best["ranges_individual"] = ranges.get((1, best["reward"]))
    # columns: instance, binary, group size, engagement?, K, PoA (nan: no PNE), Self-Greedy
    # stopped?, its profile a PNE (brute force)?, its welfare / optimum
    return {"rows": rows, "drops": drops, "best_drop": best}


def _largest_sure_drop(ranges: list) -> float:
    """``max_K min W_PNE(K) - max W_PNE(K+1)`` over consecutive K with PNE (-inf if none)."""
    drops = [
        a[0] - b[1]
        for a, b in zip(ranges[:-1], ranges[1:], strict=True)
        if a is not None and b is not None
    ]
    return max(drops, default=-np.inf)


def _trap(config: Config, K: int, epsilon: float) -> dict:
    R, p, n = exposure_trap(K, epsilon)
    out = {}
    for reward in REWARDS:
        eq = brute_force_equilibria(R, p, n, K, config.trap_beta, np.zeros(n, dtype=int), reward)
        out[reward] = {
            "poa": eq.price_of_anarchy,
            "optimum": eq.optimum,
            "worst_pne": float(eq.pne_welfare.min()),
            "pne_fraction": float(eq.is_pne.mean()),
        }
    return out


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
