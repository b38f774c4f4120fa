"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.collabllm.claims import CLAIMS
from icml25.collabllm.reproduce import (
    Config,
)
from icml25.collabllm.tasks import FAMILY_NAMES, N_SLOTS
from icml25.lab.reproduction import Summary


def _rates(ev: dict, config: Config) -> dict[str, float]:
    """Success, clarification and turns of one evaluation, pooled, per family and per level."""
    out = {"success": ev["success"].mean(), "turns": ev["turns"].mean()}
    amb = ev["ambiguity"] > 0
    for f, name in enumerate(FAMILY_NAMES):
        fam = ev["family"] == f
        out[f"success_{name}"] = ev["success"][fam].mean()
        out[f"turns_{name}"] = ev["turns"][fam].mean()
        out[f"clarify_ambiguous_{name}"] = ev["asked_first"][fam & amb].mean()
        unamb = fam & ~amb
        out[f"clarify_unambiguous_{name}"] = ev["asked_first"][unamb].mean()
        out[f"n_unambiguous_{name}"] = float(unamb.sum())
        for level in config.levels:
            sel = fam & (ev["ambiguity"] == level)
            out[f"success_{name}_L{level}"] = ev["success"][sel].mean()
            out[f"clarify_{name}_L{level}"] = ev["asked_first"][sel].mean()
            out[f"turns_{name}_L{level}"] = ev["turns"][sel].mean()
    for level in config.levels:
        sel = ev["ambiguity"] == level
        out[f"success_L{level}"] = ev["success"][sel].mean()
    return {k: float(v) for k, v in out.items()}


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    per_reward: dict[str, list[dict]] = {}
    by_replicate: dict[str, dict[int, dict]] = {}
    losses: dict[str, list[np.ndarray]] = {}
    for cell, out in results:
        if cell["part"] == "train":
            rates = _rates(out, config)
            by_replicate.setdefault(cell["reward"], {})[cell["replicate"]] = rates
            rates["pairs"] = out["pairs"]
            rates["dpo_converged"] = float(out["dpo_converged"])
            rates["dpo_steps"] = float(len(out["dpo_losses"]))
            per_reward.setdefault(cell["reward"], []).append(rates)
            losses.setdefault(cell["reward"], []).append(out["dpo_losses"])
    means = {r: {k: float(np.mean([x[k] for x in v])) for k in v[0]} for r, v in per_reward.items()}
    ref = next(o for c, o in results if c["part"] == "reference")
    for name in ("base", "oracle"):
        ev = {k[len(name) + 1 :]: v for k, v in ref.items() if k.startswith(name + "_")}
        means[name] = _rates(ev, config)
    for policy, rates in means.items():
        for k, v in rates.items():
            m[f"{policy}_{k}"] = v
    for r, v in per_reward.items():
        m[f"{r}_success_sd"] = float(np.std([x["success"] for x in v]))
    mr, st, oracle = means["multiturn"], means["single_turn"], means["oracle"]
    # (a) pooled over all test requests (families x levels), mean over replicates
    m["a_success_gap"] = mr["success"] - st["success"]
    # ... and per replicate (the MR and ST policies of the same replicate index)
    for k, rates in sorted(by_replicate["multiturn"].items()):
        gap = rates["success"] - by_replicate["single_turn"][k]["success"]
        m[f"a_success_gap[replicate={k}]"] = float(gap)
    for name in FAMILY_NAMES:
        m[f"a_success_gap_{name}"] = mr[f"success_{name}"] - st[f"success_{name}"]
    # (a) is pooled: in how many families does the gap alone reach the threshold?
    threshold = next(c.threshold for c in CLAIMS if c.id == "a")
    m["a_families_at_threshold"] = float(
        sum(m[f"a_success_gap_{name}"] >= threshold for name in FAMILY_NAMES)
    )
    for level in config.levels:
        m[f"a_success_gap_L{level}"] = mr[f"success_L{level}"] - st[f"success_L{level}"]
    if "multiturn_uninformed_user" in means:
        m["control_success_gap"] = means["multiturn_uninformed_user"]["success"] - st["success"]
    # (b) per family: rate on ambiguous / rate on unambiguous (floored at one request)
    ratios = []
    for name in FAMILY_NAMES:
        floor = 1.0 / max(mr[f"n_unambiguous_{name}"], 1.0)
        ratio = mr[f"clarify_ambiguous_{name}"] / max(mr[f"clarify_unambiguous_{name}"], floor)
        m[f"b_clarify_ratio_{name}"] = ratio
        ratios.append(ratio)
    m["b_min_clarify_ratio"] = float(min(ratios))
    # (c) per family: mean turns of the MR policy over the oracle's
    turn_ratios = [mr[f"turns_{n}"] / oracle[f"turns_{n}"] for n in FAMILY_NAMES]
    for name, ratio in zip(FAMILY_NAMES, turn_ratios, strict=True):
        m[f"c_turns_ratio_{name}"] = ratio
    m["c_max_turns_ratio"] = float(max(turn_ratios))
    # ... and per replicate: the oracle is one evaluation, so each family's ratio is their mean
    for k, rates in sorted(by_replicate["multiturn"].items()):
        for name in FAMILY_NAMES:
            ratio = rates[f"turns_{name}"] / oracle[f"turns_{name}"]
            m[f"c_turns_ratio[family={name},replicate={k}]"] = float(ratio)
    m["c_min_turns_ratio"] = float(min(turn_ratios))  # below 1: fewer turns than needed
    m["c_pooled_turns_ratio"] = mr["turns"] / oracle["turns"]
    m["check_oracle_success"] = oracle["success"]
    m["check_window0_identity_max_abs"] = float(ref["identity_max_abs"])
    _summarize_llm(config, results, m)
    figures = {
        "success_by_ambiguity": _fig_by_level(config, means, "success", "task success rate"),
        "clarification_by_ambiguity": _fig_by_level(
            config, means, "clarify", "first reply is a clarifying question"
        ),
        "turns_by_ambiguity": _fig_by_level(config, means, "turns", "assistant turns per chat"),
        "dpo_loss": _fig_losses(losses),
    }
    captions = {
        "success_by_ambiguity": "Task success by ambiguity level (unstated slots), per family; "
        "programmatic user; policies trained by DPO on each reward, mean over replicates.",
        "clarification_by_ambiguity": "Share of chats whose first reply is a clarifying question.",
        "turns_by_ambiguity": "Mean assistant turns per chat (the oracle asks exactly the "
        "unstated slots, then answers).",
        "dpo_loss": "DPO training loss per step (each replicate), per reward.",
    }
    return Summary(m, figures, captions)


def _summarize_llm(config, results, m) -> None:
    for cell, out in results:
        if cell["part"] == "llm_reward":
            _summarize_llm_reward(out, m)
        if cell["part"] != "llm":
            continue
        tag = f"llm_{cell['policy']}_policy"
        m[f"{tag}_model_errors"] = float(out["model_error"].sum())
        m[f"{tag}_chats"] = float(len(out["model_error"]) - out["model_error"].sum())
        ok = out["model_error"] == 0  # rates over the chats that ran to their end
        amb = out["ambiguity"] > 0
        m[f"{tag}_success"] = _mean(out["success"][ok])
        m[f"{tag}_turns"] = _mean(out["turns"][ok])
        m[f"{tag}_clarify_ambiguous"] = _mean(out["asked_first"][ok & amb])
        m[f"{tag}_clarify_unambiguous"] = _mean(out["asked_first"][ok & ~amb])


def _mean(x: np.ndarray) -> float:
    """The mean, NaN for no values (every chat of the group failed)."""
    return float(x.mean()) if x.size else float("nan")


def _summarize_llm_reward(out: dict, m: dict) -> None:
    """How MR with the language-model user compares with MR with the programmatic user: mean
    |difference|, same best candidate, and how often a question about an unstated slot has the
    highest MR (over the states whose every candidate was scored)."""
    llm, prog, unstated = out["mr_llm"], out["mr_programmatic"], out["unstated"]
    ok = ~np.isnan(llm).any(axis=1)  # (S,)
    m["llm_reward_states"] = float(ok.sum())
    if "reveals" in out:  # the simulator's answers to slot questions, beside the programmatic
        reveals = out["reveals"][out["reveals"] > -2]
        for name, value in (("right", 1), ("none", 0), ("wrong", -1)):
            m[f"llm_user_reveals_{name}"] = _mean(reveals == value)
        m["llm_user_reveal_questions"] = float(reveals.size)
    m["llm_reward_model_errors"] = float(len(out["errors"]))
    m["llm_reward_mean_abs_diff"] = _mean(np.abs(llm - prog)[ok])
    m["llm_reward_same_best"] = _mean(llm[ok].argmax(1) == prog[ok].argmax(1))
    for name, mr in (("llm", llm[ok]), ("programmatic", prog[ok])):
        best = mr.argmax(1)  # (S,)
        asks_unstated = (best < N_SLOTS) & unstated[ok][np.arange(len(best)), best % N_SLOTS]
        m[f"llm_reward_best_is_relevant_question_{name}"] = _mean(asks_unstated)


POLICY_STYLE = {
    "base": ("base assistant", "0.5", ":"),
    "single_turn": ("single-turn reward", "C1", "-"),
    "multiturn": ("multiturn-aware reward", "C0", "-"),
    "multiturn_uninformed_user": ("MR, uninformed simulated user (control)", "C2", "--"),
    "single_turn_no_interactivity": ("single-turn, no interactivity term", "C4", "--"),
    "multiturn_window8": ("MR, 8-message window", "C5", "-."),
    "oracle": ("oracle", "k", ":"),
}


def _fig_by_level(config, means, metric, ylabel) -> Figure:
    fig = Figure(figsize=(12, 3.6))
    axes = fig.subplots(1, len(FAMILY_NAMES), sharey=True)
    for ax, name in zip(axes, FAMILY_NAMES, strict=True):
        for policy, (label, color, style) in POLICY_STYLE.items():
            if policy not in means:
                continue
            ys = [means[policy][f"{metric}_{name}_L{lv}"] for lv in config.levels]
            ax.plot(config.levels, ys, style, marker="o", color=color, label=label)
        ax.set_title(f"{name} family (programmatic user)", fontsize=9)
        ax.set_xlabel("ambiguity level (unstated slots)")
        ax.set_xticks(config.levels)
    axes[0].set_ylabel(ylabel)
    axes[-1].legend(fontsize=6)
    fig.tight_layout()
    return fig


def _fig_losses(losses) -> Figure:
    fig = Figure(figsize=(5, 3.6))
    ax = fig.subplots()
    for policy, runs in losses.items():
        label, color, style = POLICY_STYLE[policy]
        for i, run in enumerate(runs):
            ax.plot(run, style, color=color, linewidth=0.8, label=label if i == 0 else None)
    ax.set_xlabel("Adam step (full batch)")
    ax.set_ylabel("DPO loss")
    ax.set_yscale("log")
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig
