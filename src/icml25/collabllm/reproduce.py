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
  to the exact MR with the programmatic user: do both rank the candidates alike? And the
  simulator's answer to each clarifying question about a slot in those states (at temperature
  0) beside the programmatic user's, which always names the intended option: does it reveal
  the right one?

The requests come from ``Config.data_seed`` (the same for every cell); the cell's seed draws
the training requests' candidates, the simulated continuations and the test chats' actions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.collabllm.agents import LLMPolicy, LLMUser
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
    max_steps: int = 10000  # enough for all 25 policies to settle (4000 leave 3 unsettled)
    answer_prob: float = 0.8  # the base assistant's chance of answering at once
    redundant: float = 0.02  # ... and of asking again what it was told, per slot
    max_turns: int = 6  # assistant turns per test chat
    llm: Endpoint | None = None
    llm_tasks: int = 2  # test requests per (family, level) in the endpoint cells
    llm_reward_tasks: int = 1  # opening states per (family, ambiguous level) for MR, LLM user
    llm_user_temperature: float = 1.0  # the LLM user of those MR continuations samples
    llm_levels: tuple[int, ...] | None = None  # levels of the endpoint cells (None: levels)
    llm_samples: int | None = None  # MR continuations with the LLM user (None: num_samples)
    llm_families: tuple[str, ...] | None = None  # families of the endpoint cells (None: all)
    llm_max_turns: int | None = None  # assistant turns per endpoint chat (None: max_turns)
    llm_max_tokens: int | None = None  # of each model reply (None: the agents' 300 and 200)


SCALES = {
    "smoke": Config(
        n_train=30,
        n_test=40,
        replicates=1,
        rewards=("single_turn", "multiturn"),
        max_steps=800,
        llm_tasks=1,
        llm_levels=(2,),
        llm_samples=1,
        llm_families=("number",),
        llm_max_turns=3,
    ),
    "default": Config(),
    "paper": Config(n_train=400, n_test=1000, replicates=10),
}


def cells(config: Config) -> list[dict]:
    unknown = set(config.llm_families or ()) - set(FAMILY_NAMES)
    if unknown:
        raise ValueError(f"llm_families must name families of {FAMILY_NAMES}, got {unknown}")
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
    levels = config.levels if config.llm_levels is None else config.llm_levels
    subset = [
        t
        for i, t in enumerate(test)
        if i % per < config.llm_tasks and t.ambiguity in levels and _family_on(config, t)
    ]
    if cell["policy"] == "llm":
        policy = LLMPolicy(client, **_tokens(config))
    else:
        policy = _train(config, "multiturn", rng)[1].policy
    turns = config.max_turns if config.llm_max_turns is None else config.llm_max_turns
    out = evaluate(policy, subset, LLMUser(client, **_tokens(config)), max_turns=turns, rng=rng)
    out["llm_usage"] = client.usage()
    client.close()
    return out


def _tokens(config: Config) -> dict:
    return {} if config.llm_max_tokens is None else {"max_tokens": config.llm_max_tokens}


def _family_on(config: Config, task) -> bool:
    return config.llm_families is None or FAMILY_NAMES[task.family] in config.llm_families


def _reveals(states: list[Conversation], user: LLMUser, rng) -> np.ndarray:
    """(S, N_SLOTS): how the language-model user answers a question about each slot, as the
    programmatic user's answer (the intended option) would be: 1 it names that option, 0 it
    names none, -1 it names another; -2 the request failed."""
    out = np.zeros((len(states), N_SLOTS), dtype=np.int64)
    for s, conv in enumerate(states):
        for slot in range(N_SLOTS):
            try:
                revealed = user.reply(conv, slot, rng)[1]
            except LLMError:
                out[s, slot] = -2
                continue
            truth = ProgrammaticUser().reply(conv, slot)[1]
            out[s, slot] = 0 if revealed is None else (1 if revealed == truth else -1)
    return out


def _llm_reward_cell(config: Config, rng) -> dict:
    """MR (``num_samples`` continuations of 4 messages, the base assistant as the rollout) of
    every action in a few ambiguous opening states, with the language-model user simulator
    (``mr_llm``, NaN where a request failed) and exactly with the programmatic user
    (``mr_programmatic``), each (S, A)."""
    client = LLMClient.from_endpoint(config.llm)
    llm_user = LLMUser(client, temperature=config.llm_user_temperature, **_tokens(config))
    base = BasePolicy(config.answer_prob, config.redundant)
    levels = tuple(
        lv for lv in (config.llm_levels or config.levels) if lv > 0 and lv in config.levels
    )
    samples = config.num_samples if config.llm_samples is None else config.llm_samples
    data_rng = np.random.default_rng([config.data_seed, 3])
    tasks = draw_tasks(config.llm_reward_tasks, levels, data_rng)
    states = [Conversation.open(t) for t in tasks if _family_on(config, t)]
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
                    conv, a, base, llm_user, num_samples=samples, rng=rng
                )
            except LLMError as err:  # one failed request loses this candidate's MR only
                errors.append(f"state {s}, action {a}: {err}")
    unstated = np.array([[not st for st in c.task.stated] for c in states])  # (S, N_SLOTS)
    out = {
        "reveals": _reveals(states, LLMUser(client, **_tokens(config)), rng),
        "mr_llm": mr_llm,
        "mr_programmatic": mr_programmatic,
        "unstated": unstated,
        "errors": errors,
        "llm_usage": client.usage(),
    }
    client.close()
    return out


# --------------------------------------------------------------------------- summary
