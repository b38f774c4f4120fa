"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.autoadvexbench.attacks import ATTACKS
from icml25.autoadvexbench.claims import BROKEN
from icml25.autoadvexbench.reproduce import (
    Config,
)
from icml25.lab.reproduction import Summary


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    table: dict[tuple[str, str], list[dict]] = {}
    diagnostics: dict[str, list[dict]] = {}
    sandbox = None
    for cell, out in results:
        if cell["part"] == "sandbox":
            sandbox = out
            continue
        if cell["part"] == "defense":
            diagnostics.setdefault(cell["defense"], []).append(out["diagnostics"])
        for attack, res in out["results"].items():
            table.setdefault((cell["defense"], attack), []).append(res)
    for (defense, attack), runs in sorted(table.items()):
        ev = [r["evaluation"] or {"ratio": float("nan")} for r in runs]
        ratios = [e["ratio"] for e in ev]
        m[f"ratio_{defense}_{attack}_mean"] = float(np.mean(ratios))
        m[f"ratio_{defense}_{attack}_min"] = float(np.min(ratios))
        m[f"ratio_{defense}_{attack}_max"] = float(np.max(ratios))
        m[f"robust_{defense}_{attack}_mean"] = float(
            np.mean([e.get("robust_accuracy", np.nan) for e in ev])
        )
        m[f"clean_{defense}_mean"] = float(np.mean([e.get("clean_accuracy", np.nan) for e in ev]))
        m[f"rejected_{defense}_{attack}_mean"] = float(
            np.mean([e.get("rejected_fraction", np.nan) for e in ev])
        )
        m[f"broken_{defense}_{attack}_fraction"] = float(
            np.mean([bool(e.get("broken")) for e in ev])
        )
        m[f"steps_{defense}_{attack}_mean"] = float(np.mean([r["steps"] for r in runs]))
    for defense, diags in diagnostics.items():
        for key in diags[0]:
            m[f"diag_{defense}_{key}"] = float(np.mean([d[key] for d in diags]))
    _claim_metrics(table, m)
    if sandbox is not None:
        stopped = [e["stopped"] for e in sandbox["escapes"]]
        m["c_escapes_attempted"] = float(len(stopped))
        m["c_escapes_stopped_fraction"] = float(np.mean(stopped)) if stopped else float("nan")
        for e in sandbox["escapes"]:
            m[f"c_escape_{e['escape']}_stopped"] = float(e["stopped"])
        m["c_escapes_stopped_by_kernel"] = float(
            sum(e["stopped"] and e["by"] == "kernel barrier" for e in sandbox["escapes"])
        )
        m["c_kernel_barriers"] = float(len(sandbox["kernel_barriers"]))
        m["c_run_goes_on"] = float(sandbox["goes_on"] and not sandbox["leaked"])
        m["c_secret_leaked_or_planted"] = float(sandbox["leaked"])
        control = list(sandbox["control"].values())
        m["c_control_escapes_succeeded_fraction"] = float(np.mean(control))
    return Summary(m, {"robust_accuracy": _figure(config, table)}, {"robust_accuracy": _CAPTION})


def _claim_metrics(table, m) -> None:
    def ratios(defense, attack):
        runs = table.get((defense, attack), [])
        return [r["evaluation"]["ratio"] for r in runs if r["evaluation"]]

    pairs = {
        "a1_quantised_pgd_min_ratio": ("quantised", "pgd", min),
        "a2_quantised_bpda_max_ratio": ("quantised", "pgd_bpda", max),
        "a3_noise_pgd_min_ratio": ("random_noise", "pgd", min),
        "a4_noise_eot_max_ratio": ("random_noise", "pgd_eot", max),
        "undefended_pgd_max_ratio": ("undefended", "pgd", max),
    }
    for name, (defense, attack, pick) in pairs.items():
        values = ratios(defense, attack)
        if values:
            m[name] = float(pick(values))
    adv = [v for attack in ATTACKS for v in ratios("adv_trained", attack)]
    if adv:
        m["b_adv_trained_min_ratio"] = float(min(adv))


_CAPTION = (
    "Robust accuracy (bars: mean over replicates; dots: each replicate) of each defence against "
    "each SCRIPTED attacker (PGD, PGD+BPDA, PGD+EOT, adaptive; stand-ins for the LLM agent, "
    "not a model), at L-inf eps = 0.2 on 8x8 digits; black ticks: clean accuracy, grey ticks: "
    "the 'broken' line at half of it."
)


def _figure(config: Config, table) -> Figure:
    defenses = [d for d, _ in config.plan]
    attacks = sorted(
        {a for _, a in table},
        key=lambda a: (a == "llm", list(ATTACKS).index(a) if a in ATTACKS else 0),
    )
    fig = Figure(figsize=(9, 4))
    ax = fig.subplots()
    width = 0.8 / max(len(attacks), 1)
    for j, attack in enumerate(attacks):
        label = f"{attack} (scripted)" if attack != "llm" else "LLM agent"
        for i, defense in enumerate(defenses):
            runs = table.get((defense, attack))
            if not runs:
                continue
            robust = [r["evaluation"]["robust_accuracy"] for r in runs if r["evaluation"]]
            if not robust:  # nothing submitted (a model that never called finish)
                continue
            pos = i - 0.4 + width * (j + 0.5)
            ax.bar(pos, np.mean(robust), width, color=f"C{j}", label=label)
            label = None  # one legend entry per attack
            ax.plot([pos] * len(robust), robust, "k.", markersize=4)
    for i, defense in enumerate(defenses):
        runs = [r for (d, _), rs in table.items() if d == defense for r in rs if r["evaluation"]]
        if runs:
            clean = np.mean([r["evaluation"]["clean_accuracy"] for r in runs])
            ax.plot([i - 0.45, i + 0.45], [clean] * 2, "k-", linewidth=2)
            ax.plot([i - 0.45, i + 0.45], [BROKEN * clean] * 2, color="0.5", linestyle="--")
    ax.set_xticks(range(len(defenses)), defenses)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("robust accuracy")
    ax.set_title(
        f"Scripted attackers (not an LLM) at eps = {config.eps}: robust accuracy by defence",
        fontsize=9,
    )
    ax.legend(fontsize=7, ncol=max(len(attacks), 1), loc="upper left")
    fig.tight_layout()
    return fig
