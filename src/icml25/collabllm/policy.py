"""Small policies over the assistant's actions, DPO on preference pairs, and their evaluation
(CollabLLM, Wu et al., ICML 2025, Sec. 3.3: offline DPO on chosen/rejected replies ranked by the
reward, from the base model as reference).

- ``BasePolicy``: the untrained assistant, a passive responder: answers at once with probability
  ``answer_prob``, else asks about a slot it does not know; it is the DPO reference and the
  rollout assistant of the collaborative simulation (the paper's base model).
- ``OraclePolicy``: knows which slots the opening left unstated and asks exactly those, then
  answers (the shortest conversation that always succeeds).
- ``TabularPolicy``: one softmax over actions per (family, known slots), trained by
  ``dpo_train``: ``-log sigmoid(beta [(log pi(c) - log ref(c)) - (log pi(r) - log ref(r))])``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icml25.collabllm.dialogue import ANSWER, N_ACTIONS, Conversation, decide, step
from icml25.collabllm.reward import PreferencePairs, conversation_metrics
from icml25.collabllm.tasks import FAMILIES, N_SLOTS, Task, is_success
from icml25.common.llm import LLMError
from icml25.common.validate import check_int, check_real

N_MASKS = 1 << N_SLOTS


def _mask_unknown(mask: int) -> np.ndarray:
    return np.array([not (mask >> j) & 1 for j in range(N_SLOTS)])  # (N_SLOTS,)


class BasePolicy:
    """The passive base assistant.

    It answers with probability ``answer_prob``; else it asks a question, split evenly over the
    unknown slots; each known slot is asked again with weight ``redundant`` (a base model
    sometimes asks what it was told). The weights are renormalised.

    Parameters
    ----------
    answer_prob : float, default 0.8
        Weight of answering at once, in ``(0, 1]``.
    redundant : float, default 0.02
        Weight of asking again each known slot, in ``(0, 1]``.

    Notes
    -----
    ``table`` (F, 2^S, A): the action probabilities per family and known-slot mask;
    ``probs(conv)`` reads its row.
    """

    def __init__(self, answer_prob: float = 0.8, redundant: float = 0.02):
        check_real("answer_prob", answer_prob, low=0.0, high=1.0, low_open=True)
        check_real("redundant", redundant, low=0.0, high=1.0, low_open=True)
        table = np.zeros((len(FAMILIES), N_MASKS, N_ACTIONS))  # (F, 2^S, A)
        for mask in range(N_MASKS):
            unknown = _mask_unknown(mask)
            w = np.where(unknown, (1 - answer_prob) / max(unknown.sum(), 1), redundant)
            w = np.append(w, answer_prob)
            table[:, mask] = w / w.sum()
        self.table = table

    def probs(self, conv: Conversation) -> np.ndarray:
        return self.table[conv.task.family, conv.mask]


class OraclePolicy:
    """Asks each slot the opening left unstated (in order), then answers."""

    def probs(self, conv: Conversation) -> np.ndarray:
        p = np.zeros(N_ACTIONS)
        missing = [j for j in range(N_SLOTS) if conv.known[j] is None]
        p[missing[0] if missing else ANSWER] = 1.0
        return p


@dataclass
class TabularPolicy:
    """A policy given by a table of action probabilities (what ``dpo_train`` returns).

    Parameters
    ----------
    table : numpy.ndarray
        (F, 2^S, A): action probabilities per family and known-slot mask, each row summing to
        1; ``probs(conv)`` reads the row of ``conv``.
    """

    table: np.ndarray

    def probs(self, conv: Conversation) -> np.ndarray:
        return self.table[conv.task.family, conv.mask]


@dataclass(frozen=True)
class DPOResult:
    """The outcome of :func:`dpo_train`.

    Parameters
    ----------
    policy : TabularPolicy
        The trained policy.
    losses : numpy.ndarray
        (steps,): the DPO loss before each Adam step.
    converged : bool
        Whether the policy stopped moving before ``max_steps`` (True for no pairs).
    """

    policy: TabularPolicy
    losses: np.ndarray  # (steps,)
    converged: bool


def dpo_train(
    pairs: PreferencePairs,
    reference: BasePolicy,
    *,
    beta: float = 0.1,
    lr: float = 0.05,
    max_steps: int = 4000,
    tol: float = 1e-3,
) -> DPOResult:
    """DPO (Rafailov et al., 2023) of a tabular policy initialised at the reference.

    Full-batch Adam on ``-log sigmoid(beta [(log pi(c) - log ref(c)) - (log pi(r) -
    log ref(r))])``; it stops when no action probability moved by more than ``tol`` over the
    last 100 steps (the policy has plateaued; the loss of separable pairs keeps falling as
    logits grow).

    Parameters
    ----------
    pairs : PreferencePairs
        The chosen/rejected actions per state.
    reference : BasePolicy
        The reference policy and start; anything with a ``table`` (F, 2^S, A) of positive
        probabilities.
    beta : float, default 0.1
        The DPO temperature ``beta``, ``> 0``.
    lr : float, default 0.05
        Adam's learning rate on the logits.
    max_steps : int, default 4000
        Most Adam steps, ``>= 1``.
    tol : float, default 1e-3
        Largest change of an action probability over 100 steps that counts as converged.

    Returns
    -------
    DPOResult
        The trained :class:`TabularPolicy`, the loss of every step, and whether it converged.
    """
    beta = check_real("beta", beta, low=0.0, high=np.inf, low_open=True)
    max_steps = check_int("max_steps", max_steps, minimum=1)
    ref = torch.tensor(np.log(reference.table))  # (F, 2^S, A)
    logits = ref.clone().requires_grad_(True)
    opt = torch.optim.Adam([logits], lr=lr)
    fam, mask = torch.tensor(pairs.family), torch.tensor(pairs.mask)
    c, r = torch.tensor(pairs.chosen), torch.tensor(pairs.rejected)
    ref_margin = ref[fam, mask, c] - ref[fam, mask, r]  # (P,)
    losses, converged = [], len(pairs) == 0
    checkpoint = torch.softmax(ref, dim=-1)
    for it in range(max_steps if len(pairs) else 0):
        logp = torch.log_softmax(logits, dim=-1)  # (F, 2^S, A)
        margin = logp[fam, mask, c] - logp[fam, mask, r] - ref_margin  # (P,)
        loss = -torch.nn.functional.logsigmoid(beta * margin).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if (it + 1) % 100 == 0:
            now = torch.softmax(logits.detach(), dim=-1)
            if (now - checkpoint).abs().max() < tol:
                converged = True
                break
            checkpoint = now
    table = torch.softmax(logits.detach(), dim=-1).numpy()
    return DPOResult(TabularPolicy(table), np.array(losses), converged)


def evaluate(
    policy,
    tasks: list[Task],
    user,
    *,
    max_turns: int = 6,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """Run a policy against a user on every task and collect per-task metrics.

    Parameters
    ----------
    policy : object
        The assistant: ``probs(conv)`` or ``act(conv, rng)`` (see ``dialogue.decide``).
    tasks : list of Task
        The tasks, ``T`` of them; each opens one chat.
    user : object
        The user simulator, with ``reply(conv, action, rng)``.
    max_turns : int, default 6
        Most assistant turns per chat, ``>= 1``.
    rng : numpy.random.Generator
        Draws the policy's actions and a sampling user's seeds.

    Returns
    -------
    dict
        Float arrays (T,): ``success`` (exact artefact), ``score`` (task metric),
        ``asked_first`` (first reply is a question), ``questions``, ``turns``, ``tokens``,
        ``interactivity``, ``family``, ``ambiguity``, ``model_error`` (1: a language model's
        request failed with ``LLMError`` and the chat stopped there; its other columns are
        those of the chat so far); and ``errors``, the list of those failures as text.
    """
    max_turns = check_int("max_turns", max_turns, minimum=1)
    rows, errors = [], []
    for i, task in enumerate(tasks):
        conv = Conversation.open(task)
        first, failed = None, False
        try:
            while not conv.done and conv.turns < max_turns:
                action, text, choice = decide(policy, conv, rng)
                first = action if first is None else first
                step(conv, action, user, text=text, choice=choice, rng=rng)
        except LLMError as err:  # one failed request loses this chat, never the others
            failed = True
            errors.append(f"task {i} (family {task.family}, level {task.ambiguity}): {err}")
        m = conversation_metrics(conv)
        rows.append(
            (
                conv.answer is not None and is_success(task, conv.answer),
                m["task"],
                first != ANSWER,
                conv.relevant + conv.irrelevant,
                conv.turns,
                conv.tokens,
                m["interactivity"],
                task.family,
                task.ambiguity,
                failed,
            )
        )
    cols = np.array(rows, dtype=float).reshape(-1, 10).T
    names = (
        "success score asked_first questions turns tokens interactivity family ambiguity "
        "model_error"
    ).split()
    return {**dict(zip(names, cols, strict=True)), "errors": errors}
