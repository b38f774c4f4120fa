"""Reproduction: a policy trained on multiturn-aware rewards asks when a request is ambiguous and
succeeds more often than one trained on the single-turn reward (CollabLLM's mechanism, offline).

Cells:
- ``train``: build the paper's offline preference data with one reward (``reward``), train a
  tabular policy by DPO from the base assistant, and evaluate it on the fixed test requests
  against the programmatic user. Rewards: ``single_turn`` (the baseline: the next reply only),
  ``multiturn`` (MR, 3 continuations of 4 messages), and three experiments on the mechanism:
  ``multiturn_uninformed_user`` (the control: the simulated user in training never says what it
  wants, so a question can earn nothing), ``single_turn_no_interactivity`` (the baseline without
  the interactivity term) and ``multiturn_window8`` (MR with 8-message continuations);
- ``reference``: the base assistant and the oracle on the same requests, and the identity
  MR(window 0) = single-turn reward on the training states;
- ``llm`` (only with an endpoint, ``config.llm``): a language-model assistant, and the MR-trained
  tabular policy, in chats with the language-model user simulator; a chat whose request fails
  (``LLMError``) is recorded and counted, and the rates are those of the other chats;
- ``llm_reward`` (only with an endpoint): MR of every candidate action in a few ambiguous opening
  states computed with the language-model user simulator (sampled, one seed per request) next
  to the exact MR with the programmatic user: do both rank the candidates alike?

The requests come from ``Config.data_seed`` (the same for every cell); the cell's seed draws
the training requests' candidates, the simulated continuations and the test chats' actions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure

from icml25.collabllm.agents import LLMPolicy, LLMUser
from icml25.collabllm.claims import CLAIMS
from icml25.collabllm.dialogue import N_ACTIONS, Conversation, ProgrammaticUser
from icml25.collabllm.policy import BasePolicy, OraclePolicy, dpo_train, evaluate
from icml25.collabllm.reward import (
    build_preference_pairs,
    exact_multiturn_aware_reward,
    multiturn_aware_reward,
    single_turn_reward,
)
from icml25.collabllm.tasks import FAMILY_NAMES, N_SLOTS, draw_tasks
from icml25.common.llm import Endpoint, LLMClient, LLMError
from icml25.lab.reproduction import Summary

CELL_THREADS = 1

REWARDS = {  # name: (window in messages, informative simulated user, interactivity term)
    "single_turn": (0, True, True),
    "multiturn": (4, True, True),
    "multiturn_uninformed_user": (4, False, True),
    "single_turn_no_interactivity": (0, True, False),
    "multiturn_window8": (8, True, True),
}


@dataclass(frozen=True)
class Config:
    data_seed: int = 0
    levels: tuple[int, ...] = (0, 1, 2, 3)  # ambiguity levels: unstated slots in the opening
    n_train: int = 150  # training requests per (family, level)
    n_test: int = 250  # test requests per (family, level)
    replicates: int = 5
    rewards: tuple[str, ...] = tuple(REWARDS)
    num_candidates: int = 3  # official build_dataset: 3 candidate replies per turn
    num_samples: int = 3  # official: 3 simulated continuations per candidate
    minimum_gap: float = 0.02  # official offline DPO: pairs closer than this are dropped
    beta: float = 0.1  # official DPO beta
    lr: float = 0.05
    max_steps: int = 10000  # run 1 had 4000: 3 of its 25 policies had not settled
    answer_prob: float = 0.8  # the base assistant's chance of answering at once
    redundant: float = 0.02  # ... and of asking again what it was told, per slot
    max_turns: int = 6  # assistant turns per test chat
    llm: Endpoint | None = None
    llm_tasks: int = 2  # test requests per (family, level) in the endpoint cells
    llm_reward_tasks: int = 1  # opening states per (family, ambiguous level) for MR, LLM user
    llm_user_temperature: float = 1.0  # the LLM user of those MR continuations samples


SCALES = {
    "smoke": Config(
        n_train=30, n_test=40, replicates=1, rewards=("single_turn", "multiturn"), max_steps=800
    ),
    "default": Config(),
    "paper": Config(n_train=400, n_test=1000, replicates=10),
}


def cells(config: Config) -> list[dict]:
    out = [
        {"part": "train", "reward": r, "replicate": i}
        for r in config.rewards
        for i in range(config.replicates)
    ]
    out.append({"part": "reference"})
    if config.llm is not None:
        out += [{"part": "llm", "policy": p} for p in ("llm", "multiturn")]
        out.append({"part": "llm_reward"})
    return out


def _tasks(config: Config, split: str, n: int):
    rng = np.random.default_rng([config.data_seed, {"train": 1, "test": 2}[split]])
    return draw_tasks(n, config.levels, rng)


def _train(config: Config, reward: str, rng: np.random.Generator):
    window, informative, interactivity = REWARDS[reward]
    base = BasePolicy(config.answer_prob, config.redundant)
    pairs = build_preference_pairs(
        _tasks(config, "train", config.n_train),
        base,
        base,
        ProgrammaticUser(informative),
        window=window,
        num_candidates=config.num_candidates,
        num_samples=config.num_samples,
        minimum_gap=config.minimum_gap,
        max_turns=config.max_turns,
        use_interactivity=interactivity,
        rng=rng,
    )
    return pairs, dpo_train(pairs, base, beta=config.beta, lr=config.lr, max_steps=config.max_steps)


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    test = _tasks(config, "test", config.n_test)
    user = ProgrammaticUser()
    if cell["part"] == "train":
        pairs, result = _train(config, cell["reward"], rng)
        return {
            **evaluate(result.policy, test, user, max_turns=config.max_turns, rng=rng),
            "pairs": len(pairs),
            "dpo_losses": result.losses,
            "dpo_converged": result.converged,
            "table": result.policy.table,
        }
    if cell["part"] == "reference":
        base = BasePolicy(config.answer_prob, config.redundant)
        out = {
            f"{name}_{k}": v
            for name, policy in (("base", base), ("oracle", OraclePolicy()))
            for k, v in evaluate(policy, test, user, max_turns=config.max_turns, rng=rng).items()
        }
        out["identity_max_abs"] = _window0_identity(config, base, user, rng)
        return out
    if cell["part"] == "llm_reward":
        return _llm_reward_cell(config, rng)
    return _llm_cell(config, cell, test, rng)


def _window0_identity(config, base, user, rng) -> float:
    """max |MR(window 0) - single-turn reward| over every action in the opening states."""
    diffs = [
        abs(
            multiturn_aware_reward(Conversation.open(t), a, base, user, max_new_turns=0, rng=rng)
            - single_turn_reward(Conversation.open(t), a, user)
        )
        for t in _tasks(config, "train", config.n_train)
        for a in range(4)
    ]
    return float(max(diffs))


def _llm_cell(config: Config, cell: dict, test, rng) -> dict:
    """Chats with the language-model user simulator on a subset of the test requests."""
    client = LLMClient.from_endpoint(config.llm)
    per = len(test) // (len(FAMILY_NAMES) * len(config.levels))
    subset = [t for i, t in enumerate(test) if i % per < config.llm_tasks]
    if cell["policy"] == "llm":
        policy = LLMPolicy(client)
    else:
        policy = _train(config, "multiturn", rng)[1].policy
    out = evaluate(policy, subset, LLMUser(client), max_turns=config.max_turns, rng=rng)
    out["llm_usage"] = client.usage()
    client.close()
    return out


def _llm_reward_cell(config: Config, rng) -> dict:
    """MR (``num_samples`` continuations of 4 messages, the base assistant as the rollout) of
    every action in a few ambiguous opening states, with the language-model user simulator
    (``mr_llm``, NaN where a request failed) and exactly with the programmatic user
    (``mr_programmatic``), each (S, A)."""
    client = LLMClient.from_endpoint(config.llm)
    llm_user = LLMUser(client, temperature=config.llm_user_temperature)
    base = BasePolicy(config.answer_prob, config.redundant)
    levels = tuple(lv for lv in config.levels if lv > 0)
    data_rng = np.random.default_rng([config.data_seed, 3])
    states = [Conversation.open(t) for t in draw_tasks(config.llm_reward_tasks, levels, data_rng)]
    mr_llm = np.full((len(states), N_ACTIONS), np.nan)  # (S, A)
    mr_programmatic = np.zeros((len(states), N_ACTIONS))  # (S, A)
    errors = []
    for s, conv in enumerate(states):
        for a in range(N_ACTIONS):
            mr_programmatic[s, a] = exact_multiturn_aware_reward(
                conv, a, base, ProgrammaticUser(), max_new_turns=4
            )
            try:
                mr_llm[s, a] = multiturn_aware_reward(
                    conv, a, base, llm_user, num_samples=config.num_samples, rng=rng
                )
            except LLMError as err:  # one failed request loses this candidate's MR only
                errors.append(f"state {s}, action {a}: {err}")
    unstated = np.array([[not st for st in c.task.stated] for c in states])  # (S, N_SLOTS)
    out = {
        "mr_llm": mr_llm,
        "mr_programmatic": mr_programmatic,
        "unstated": unstated,
        "errors": errors,
        "llm_usage": client.usage(),
    }
    client.close()
    return out


# --------------------------------------------------------------------------- summary


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
    losses: dict[str, list[np.ndarray]] = {}
    for cell, out in results:
        if cell["part"] == "train":
            rates = _rates(out, config)
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
