"""Conversations between an assistant and a user on a hidden-intent task (CollabLLM, Wu et al.,
ICML 2025, Sec. 3: the chat history ``t_1..t_j``, the candidate reply ``m_j``, and the future
turns that the collaborative simulation samples).

The assistant has ``N_SLOTS + 1`` actions: ``ask(j)`` asks a specific clarifying question about
slot ``j``; ``ANSWER`` answers now, settling every slot it does not know at the prior's mode (its
best guess). The programmatic user answers a question truthfully and with minimal effort (the
option's words, nothing more) and ends the chat after an answer (the official simulator's stop
signal); an uninformative user (the control) answers every question with "whatever you think".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from icml25.collabllm.tasks import N_SLOTS, Task, artefact, code_source, count_tokens

ANSWER = N_SLOTS
N_ACTIONS = N_SLOTS + 1
VAGUE = N_ACTIONS  # a free-text question about no slot (a language-model assistant's)
TERMINATE = "[[TERMINATE CHAT]]"


@dataclass
class Conversation:
    """The state of one chat: what the assistant knows, what it has said, and its counters.

    Open a chat with ``Conversation.open(task)``.

    Parameters
    ----------
    task : Task
        The hidden-intent task.
    known : list, default []
        ``known[j]``: the option of slot ``j`` the assistant has been told (None if not), one
        entry per slot.
    messages : list, default []
        The chat as ``{"role": ..., "content": ...}`` dicts.
    relevant : int, default 0
        Questions about slots that were unknown (the interactivity rubric).
    irrelevant : int, default 0
        Questions about known slots, or about no slot.
    tokens : int, default 0
        The assistant's tokens so far (``count_tokens``).
    turns : int, default 0
        The assistant's messages so far.
    answer : object, default None
        The artefact of the assistant's last answer; None before any.
    done : bool, default False
        Set when the user ends the chat.
    """

    task: Task
    known: list = field(default_factory=list)
    messages: list = field(default_factory=list)
    relevant: int = 0
    irrelevant: int = 0
    tokens: int = 0
    turns: int = 0
    answer: object = None
    done: bool = False

    @classmethod
    def open(cls, task: Task) -> Conversation:
        known = [task.intent[j] if task.stated[j] else None for j in range(N_SLOTS)]
        return cls(task, known, [{"role": "user", "content": task.opening()}])

    @property
    def mask(self) -> int:
        """Which slots the assistant knows, as bits (the tabular policy's state)."""
        return sum(1 << j for j in range(N_SLOTS) if self.known[j] is not None)

    def copy(self) -> Conversation:
        return Conversation(
            self.task,
            list(self.known),
            list(self.messages),
            self.relevant,
            self.irrelevant,
            self.tokens,
            self.turns,
            self.answer,
            self.done,
        )

    def guess(self, choice: tuple | None = None) -> tuple[int, ...]:
        """The slots as the assistant settles them: ``choice[j]`` where given (a language
        model's answer), else known, else the prior's mode."""
        slots = self.task.spec.slots
        return tuple(
            choice[j]
            if choice is not None and choice[j] is not None
            else k
            if k is not None
            else slots[j].mode
            for j, k in enumerate(self.known)
        )


def assistant_text(conv: Conversation, action: int, choice: tuple | None = None) -> str:
    """The assistant's message for ``action``: a question, or an answer with its artefact.

    Parameters
    ----------
    conv : Conversation
        The chat so far.
    action : int
        ``0 .. N_SLOTS - 1`` asks about that slot, ``ANSWER`` answers, ``VAGUE`` asks about no
        slot.
    choice : tuple or None, default None
        For an answer, the options to use (None entries settled as ``Conversation.guess``
        does).

    Returns
    -------
    str
        The message text.
    """
    fam = conv.task.spec
    if action == VAGUE:
        return "Could you tell me more about what you need?"
    if action != ANSWER:
        slot = fam.slots[action]
        opts = ", ".join(slot.options[:-1]) + " or " + slot.options[-1]
        return f"Before I start: for the {slot.name}, do you want {opts}?"
    choice = conv.guess(choice)
    how = "; ".join(f"{s.name}: {s.options[c]}" for s, c in zip(fam.slots, choice, strict=True))
    result = artefact(conv.task, choice)
    if fam.name == "code":
        return f"Here is the function ({how}):\n```python\n{code_source(choice)}\n```"
    if fam.name == "ranking":
        return f"Here is the list ({how}): " + ", ".join(result)
    return f"Using {how}, the number is {result}."


class ProgrammaticUser:
    """A user who answers clarifying questions truthfully with minimal effort.

    It ends the chat after an answer.

    Parameters
    ----------
    informative : bool, default True
        False gives the control user, who answers every question with "whatever you think is
        best" and never says what it wants.
    """

    def __init__(self, informative: bool = True):
        self.informative = informative

    def reply(self, conv: Conversation, action: int, rng=None) -> tuple[str, int | None]:
        """The user's message after the assistant's ``action``, and the option it reveals for the
        asked slot (``None`` if none). Deterministic: ``rng`` is not used."""
        if action == ANSWER:
            return TERMINATE, None
        if action == VAGUE:
            return "Not sure what you mean.", None
        if not self.informative:
            return "Whatever you think is best.", None
        option = conv.task.intent[action]
        words = conv.task.spec.slots[action].options[option]
        prefix = "I already said: " if conv.known[action] is not None else ""
        return f"{prefix}{words}.", option


def step(
    conv: Conversation,
    action: int,
    user,
    *,
    text: str | None = None,
    choice: tuple | None = None,
    rng=None,
) -> Conversation:
    """Apply the assistant's ``action`` and the user's reply to ``conv`` (in place).

    Parameters
    ----------
    conv : Conversation
        The chat, changed in place.
    action : int
        ``0 .. N_SLOTS - 1`` asks about that slot, ``ANSWER`` answers, ``VAGUE`` asks about no
        slot.
    user : object
        Anything with ``reply(conv, action, rng) -> (message, revealed option or None)``, such
        as ``ProgrammaticUser`` or ``LLMUser``.
    text : str or None, default None
        A language-model assistant's own message for a question; None (and always for an
        answer) uses ``assistant_text``.
    choice : tuple or None, default None
        For an answer, the assistant's options (None entries settled as
        ``Conversation.guess`` does).
    rng : numpy.random.Generator or None, default None
        Passed to ``user.reply``; a sampling user (``LLMUser``) draws its request's seed from
        it.

    Returns
    -------
    Conversation
        ``conv`` itself, with the two messages, counters, ``known``, ``answer`` and ``done``
        updated.
    """
    if text is None or action == ANSWER:
        text = assistant_text(conv, action, choice)
    conv.messages.append({"role": "assistant", "content": text})
    conv.tokens += count_tokens(text)
    conv.turns += 1
    if action == ANSWER:
        conv.answer = artefact(conv.task, conv.guess(choice))
    elif action == VAGUE or conv.known[action] is not None:
        conv.irrelevant += 1
    else:
        conv.relevant += 1
    reply, revealed = user.reply(conv, action, rng)
    conv.messages.append({"role": "user", "content": reply})
    if revealed is not None and action < N_SLOTS:
        conv.known[action] = revealed
    conv.done = reply == TERMINATE
    return conv


def decide(policy, conv: Conversation, rng) -> tuple[int, str | None, tuple | None]:
    """The assistant's next move.

    Parameters
    ----------
    policy : object
        A policy with ``probs(conv) -> (N_ACTIONS,)`` probabilities (sampled here with
        ``rng``) or with ``act(conv, rng)`` (a language model).
    conv : Conversation
        The chat so far.
    rng : numpy.random.Generator
        Draws the action (or the model's request seed).

    Returns
    -------
    action : int
        The action.
    text : str or None
        The policy's own message (None for a ``probs`` policy or an answer).
    choice : tuple or None
        A language model's answer options (None otherwise).
    """
    if hasattr(policy, "probs"):
        p = policy.probs(conv)
        return int(rng.choice(len(p), p=p)), None, None
    return policy.act(conv, rng)
