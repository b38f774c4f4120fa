"""The multiturn-aware reward and the preference pairs built from it (CollabLLM, Wu et al.,
ICML 2025, Sec. 3.1-3.3, Eq. 3-4; official ``collabllm/reward.py`` and ``datasets/multiturn.py``).

For a candidate reply ``m_j`` in the chat history ``t_{1:j}``, the multiturn-aware reward is

    MR(m_j | t_{1:j}, g) = E_{t_{j+1:K} ~ P(. | t_{1:j} + m_j)} [ R*(t_{1:K} | g) ],

estimated by ``num_samples`` simulated continuations of at most ``max_new_turns`` messages (user,
assistant, user, assistant, ...) with a user simulator that knows the intent ``g`` and a rollout
assistant; each whole conversation is scored by the weighted metrics

    R*(t | g) = w_task * task_metric + w_int * interactivity + w_tok * (assistant tokens / 1000),

with the family's weights (``tasks.FAMILIES``). The single-turn reward (the baseline: reward of
the next reply only) is the same score of the conversation that ends at the candidate, i.e.
``max_new_turns = 0``: a question has no task credit there, since no artefact has been given.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.collabllm.dialogue import ANSWER, Conversation, ProgrammaticUser, decide, step
from icml25.collabllm.tasks import Task, task_score
from icml25.common.validate import check_int, check_real


def interactivity(conv: Conversation) -> float:
    """The interactivity score: a rubric standing in for the paper's LLM judge.

    Parameters
    ----------
    conv : Conversation
        The chat to score.

    Returns
    -------
    float
        ``(relevant - irrelevant questions) / slots unstated in the opening``, clipped to
        ``[0, 1]`` (1: asked every relevant question, 0: none); with nothing unstated, 1 unless
        the assistant asked something it had been told, else 0.
    """
    unstated = conv.task.ambiguity
    if unstated == 0:
        return 1.0 if conv.irrelevant == 0 else 0.0
    return float(np.clip((conv.relevant - conv.irrelevant) / unstated, 0.0, 1.0))


def conversation_metrics(conv: Conversation) -> dict[str, float]:
    """The metrics of a conversation that the reward weighs.

    Parameters
    ----------
    conv : Conversation
        The chat to score.

    Returns
    -------
    dict of str to float
        ``"task"``: the task metric of the last answer (0 if none), in ``[0, 1]``;
        ``"interactivity"``: :func:`interactivity`; ``"tokens_k"``: the assistant's tokens in
        thousands.
    """
    task = 0.0 if conv.answer is None else task_score(conv.task, conv.answer)
    return {"task": task, "interactivity": interactivity(conv), "tokens_k": conv.tokens / 1000}


def conversation_reward(conv: Conversation, use_interactivity: bool = True) -> float:
    """The conversation-level reward ``R*(t | g)``.

    Parameters
    ----------
    conv : Conversation
        The chat to score.
    use_interactivity : bool, default True
        Whether ``R*`` includes the interactivity term; False drops it (an ablation).

    Returns
    -------
    float
        The family's weighted sum ``w_task * task + w_int * interactivity + w_tok * tokens_k``
        of :func:`conversation_metrics`.
    """
    m, fam = conversation_metrics(conv), conv.task.spec
    return (
        fam.weight_task * m["task"]
        + fam.weight_interactivity * m["interactivity"] * use_interactivity
        + fam.weight_tokens * m["tokens_k"]
    )


def simulate(
    conv: Conversation,
    policy,
    user: ProgrammaticUser,
    max_assistant_turns: int,
    rng: np.random.Generator,
) -> Conversation:
    """Continue a chat with a policy until the user ends it or a turn limit.

    Parameters
    ----------
    conv : Conversation
        The chat, continued in place.
    policy : object
        The assistant: a policy with ``probs(conv)`` or ``act(conv, rng)`` (see
        ``dialogue.decide``).
    user : ProgrammaticUser
        The user simulator: anything with ``reply(conv, action, rng)``, such as
        ``ProgrammaticUser`` or ``LLMUser``.
    max_assistant_turns : int
        Most further assistant messages (0 or less: none).
    rng : numpy.random.Generator
        Draws the policy's actions and a sampling user's seeds.

    Returns
    -------
    Conversation
        ``conv`` itself, continued.
    """
    for _ in range(max_assistant_turns):
        if conv.done:
            break
        action, text, choice = decide(policy, conv, rng)
        step(conv, action, user, text=text, choice=choice, rng=rng)
    return conv


def multiturn_aware_reward(
    conv: Conversation,
    action: int,
    rollout_policy,
    user: ProgrammaticUser,
    *,
    num_samples: int = 3,
    max_new_turns: int = 4,
    use_interactivity: bool = True,
    rng: np.random.Generator,
) -> float:
    """Estimate the multiturn-aware reward of a candidate reply by simulated continuations.

    MR of the candidate ``action`` after history ``conv`` (left unchanged): mean of R* over
    ``num_samples`` continuations of at most ``max_new_turns`` messages after the candidate (the
    official defaults: 3 samples, 4 messages). ``max_new_turns = 0`` is the single-turn reward.
    The user's reply to the candidate opens each continuation, so a sampling user (``LLMUser``,
    which draws a seed per request from ``rng``) is asked once per sample; the programmatic user
    is deterministic and draws nothing.

    CollabLLM (Wu et al., ICML 2025, Eq. 3-4): ``MR(m_j | t_{1:j}, g)``, the expected
    conversation-level reward ``R*(t_{1:K} | g)`` of the chat that follows the candidate reply
    ``m_j``; see the module docstring.

    Parameters
    ----------
    conv : Conversation
        The chat history ``t_{1:j}`` so far (e.g. ``Conversation.open(task)``); it is copied,
        not changed.
    action : int
        The candidate reply ``m_j``: ``0 .. N_SLOTS - 1`` asks about that slot, ``ANSWER``
        answers now (the chat then ends at the candidate and one sample is scored), and
        ``VAGUE`` asks a question about no slot.
    rollout_policy : object
        The assistant that plays the continuations: a policy with ``probs(conv) -> (N_ACTIONS,)``
        (sampled with ``rng``, e.g. ``BasePolicy``) or with ``act(conv, rng)`` (e.g.
        ``LLMPolicy``); see ``dialogue.decide``.
    user : ProgrammaticUser
        The user simulator that knows the intent ``g``: anything with
        ``reply(conv, action, rng) -> (text, revealed option or None)``, such as
        ``ProgrammaticUser`` or ``LLMUser``.
    num_samples : int, default 3
        Number of simulated continuations averaged (``>= 1``).
    max_new_turns : int, default 4
        Most messages after the candidate in each continuation (user, assistant, user, ...;
        ``>= 0``): the rollout assistant speaks ``max_new_turns // 2`` times. 0 gives the
        single-turn reward.
    use_interactivity : bool, default True
        Whether ``R*`` includes the interactivity term; False drops it (an ablation).
    rng : numpy.random.Generator
        Draws the rollout policy's actions and a sampling user's seeds (keyword-only,
        required).

    Returns
    -------
    float
        The estimated multiturn-aware reward: the mean of ``R*`` over the continuations, the
        family's weighted sum of task metric, interactivity and assistant tokens / 1000.
    """
    num_samples = check_int("num_samples", num_samples, minimum=1)
    max_new_turns = check_int("max_new_turns", max_new_turns, minimum=0)
    first = step(conv.copy(), action, user, rng=rng)
    if max_new_turns == 0 or action == ANSWER:  # the chat ends at the candidate: one sample
        return conversation_reward(first, use_interactivity)
    turns = max_new_turns // 2  # user, assistant, user, assistant, ...: the assistant's turns
    # the user's reply to the candidate is the first message of each continuation: a sampling
    # user (a language model) is asked anew per sample, with its own seed
    starts = [first, *(step(conv.copy(), action, user, rng=rng) for _ in range(num_samples - 1))]
    rewards = [
        conversation_reward(simulate(c, rollout_policy, user, turns, rng), use_interactivity)
        for c in starts
    ]
    return float(np.mean(rewards))


def exact_multiturn_aware_reward(
    conv: Conversation,
    action: int,
    rollout_policy,
    user: ProgrammaticUser,
    *,
    max_new_turns: int = 4,
    use_interactivity: bool = True,
) -> float:
    """The exact multiturn-aware reward, by enumerating every continuation.

    This is the expectation that ``multiturn_aware_reward`` estimates; it is feasible only for
    a few actions and turns (with a language model the continuations cannot be enumerated, hence
    the paper's sampling).

    Parameters
    ----------
    conv : Conversation
        The chat history; it is copied, not changed.
    action : int
        The candidate reply (``0 .. N_SLOTS - 1``, ``ANSWER`` or ``VAGUE``).
    rollout_policy : object
        The continuing assistant; it must have ``probs(conv) -> (N_ACTIONS,)``.
    user : ProgrammaticUser
        A deterministic user simulator with ``reply(conv, action, rng)`` (it is called without
        ``rng``).
    max_new_turns : int, default 4
        Most messages after the candidate, ``>= 0``; the assistant speaks
        ``max_new_turns // 2`` more times.
    use_interactivity : bool, default True
        Whether ``R*`` includes the interactivity term; False drops it (an ablation).

    Returns
    -------
    float
        The probability-weighted mean of ``R*`` over all continuations.
    """
    max_new_turns = check_int("max_new_turns", max_new_turns, minimum=0)

    def value(c: Conversation, turns: int) -> float:
        if c.done or turns == 0:
            return conversation_reward(c, use_interactivity)
        p = rollout_policy.probs(c)
        return float(
            sum(p[a] * value(step(c.copy(), a, user), turns - 1) for a in np.flatnonzero(p))
        )

    return value(step(conv.copy(), action, user), max_new_turns // 2)


def single_turn_reward(
    conv: Conversation, action: int, user: ProgrammaticUser, use_interactivity: bool = True
) -> float:
    """The baseline's reward of the next reply only: ``R*`` of the history plus the candidate.

    Parameters
    ----------
    conv : Conversation
        The chat history; it is copied, not changed.
    action : int
        The candidate reply (``0 .. N_SLOTS - 1``, ``ANSWER`` or ``VAGUE``).
    user : ProgrammaticUser
        The user simulator: anything with ``reply(conv, action, rng)``, such as
        ``ProgrammaticUser`` or ``LLMUser``.
    use_interactivity : bool, default True
        Whether ``R*`` includes the interactivity term; False drops it (an ablation).

    Returns
    -------
    float
        ``R*`` of the chat that ends with the candidate and the user's reply to it.
    """
    return conversation_reward(step(conv.copy(), action, user), use_interactivity)


@dataclass(frozen=True)
class PreferencePairs:
    """Chosen/rejected actions per state, ``P`` pairs.

    Parameters
    ----------
    family : numpy.ndarray
        (P,) int: the task family of each pair's state.
    mask : numpy.ndarray
        (P,) int: the known slots of the state, as bits (``Conversation.mask``).
    chosen : numpy.ndarray
        (P,) int: the chosen (higher-reward) action.
    rejected : numpy.ndarray
        (P,) int: the rejected (lower-reward) action.
    gap : numpy.ndarray
        (P,) float: reward of chosen minus reward of rejected.
    """

    family: np.ndarray
    mask: np.ndarray
    chosen: np.ndarray
    rejected: np.ndarray
    gap: np.ndarray

    def __len__(self) -> int:
        return len(self.chosen)


def build_preference_pairs(
    tasks: list[Task],
    reference,
    rollout_policy,
    user: ProgrammaticUser,
    *,
    window: int,
    num_candidates: int = 3,
    num_samples: int = 3,
    minimum_gap: float = 0.02,
    max_turns: int = 6,
    use_interactivity: bool = True,
    rng: np.random.Generator,
) -> PreferencePairs:
    """The paper's offline preference data (Sec. 3.3), chosen and rejected replies by MR.

    As the official ``build_dataset`` and ``to_dpo_dataset``: at each assistant turn, sample
    ``num_candidates`` distinct replies from the ``reference`` policy, score each with MR
    (``window`` messages; 0: single-turn reward), keep (best, worst) as (chosen, rejected) when
    their gap is at least ``minimum_gap``, and continue the chat with the best reply and the
    user's answer to it.

    Parameters
    ----------
    tasks : list of Task
        The tasks; each opens one chat.
    reference : object
        The policy the candidates are drawn from; it must have ``probs(conv)``.
    rollout_policy : object
        The assistant of the MR continuations (``probs`` or ``act``).
    user : ProgrammaticUser
        The user simulator: anything with ``reply(conv, action, rng)``, such as
        ``ProgrammaticUser`` or ``LLMUser``.
    window : int
        ``max_new_turns`` of the MR estimate, ``>= 0`` (0: single-turn reward).
    num_candidates : int, default 3
        Distinct candidates per turn, ``>= 2`` (fewer when fewer actions have positive
        probability).
    num_samples : int, default 3
        Continuations per MR estimate, ``>= 1``.
    minimum_gap : float, default 0.02
        Least reward gap of a kept pair, ``>= 0``.
    max_turns : int, default 6
        Most assistant turns per chat.
    use_interactivity : bool, default True
        Whether ``R*`` includes the interactivity term; False drops it (an ablation).
    rng : numpy.random.Generator
        Draws the candidates (Gumbel top-k) and the MR continuations.

    Returns
    -------
    PreferencePairs
        The kept pairs, in the order they were found.
    """
    num_candidates = check_int("num_candidates", num_candidates, minimum=2)
    check_real("minimum_gap", minimum_gap, low=0.0, high=np.inf)
    rows = []
    for task in tasks:
        conv = Conversation.open(task)
        while not conv.done and conv.turns < max_turns:
            p = reference.probs(conv)
            k = min(num_candidates, int((p > 0).sum()))
            # k distinct draws from p (Gumbel top-k: sampling without replacement)
            keys = np.log(np.maximum(p, 1e-300)) + rng.gumbel(size=p.size)
            candidates = np.argsort(-keys)[:k]
            scores = [
                multiturn_aware_reward(
                    conv,
                    int(a),
                    rollout_policy,
                    user,
                    num_samples=num_samples,
                    max_new_turns=window,
                    use_interactivity=use_interactivity,
                    rng=rng,
                )
                for a in candidates
            ]
            best, worst = int(np.argmax(scores)), int(np.argmin(scores))
            if scores[best] - scores[worst] >= minimum_gap:
                rows.append(
                    (
                        task.family,
                        conv.mask,
                        candidates[best],
                        candidates[worst],
                        scores[best] - scores[worst],
                    )
                )
            step(conv, int(candidates[best]), user)
    cols = np.array(rows, dtype=float).reshape(-1, 5).T
    return PreferencePairs(
        cols[0].astype(int), cols[1].astype(int), cols[2].astype(int), cols[3].astype(int), cols[4]
    )
