"""Language-model participants of the collaborative simulation (CollabLLM, Wu et al., ICML 2025,
Sec. 3.2 and App.: an LLM user simulator that knows the user's full intent and replies with
minimal effort, and an LLM assistant), through the shared client ``icml25.common.llm``.

Both speak free text; the chat is mapped back onto the hidden-intent tasks so that the same
metrics apply: a question is attributed to the slot it names (by the slot's name or one of its
options' words), an answer is a JSON object of options, and the user simulator's reply reveals
the option of the asked slot whose words it contains.
"""

from __future__ import annotations

import json

from icml25.collabllm.dialogue import ANSWER, TERMINATE, VAGUE, Conversation
from icml25.common.json_reply import first_object

# The user simulator's instructions, written for this project (the official prompt is read, not
# copied). {task}, {intent} and {history} are filled in for every turn.
USER_SIMULATOR_PROMPT = """You play a person who is chatting with an AI assistant to get a task \
done. Stay in that role: you are not an assistant yourself.

What you want (the assistant cannot see this):
Task: {task}
Your exact wishes: {intent}

How to behave:
- Spend as little effort as you can. Never volunteer details the assistant did not ask for.
- When the assistant asks you something, answer only that, briefly and truthfully, using the \
words of your wishes above.
- When the assistant has given you what you wanted, or cannot help any more, reply with exactly \
{stop}.

The chat so far:
{history}

Reply with one JSON object and nothing else: {{"thought": "<what you think, one sentence>", \
"response": "<your next message to the assistant>"}}"""

ASSISTANT_PROMPT = """You are an assistant who helps a user with a task. The user's request may \
leave some of these choices open:
{choices}
Each of your messages is either ONE short clarifying question about one of these choices, or \
your final answer. Ask only when it is worth it: a question costs the user time, a wrong answer \
costs more. Give the final answer as one JSON object and nothing else, naming your option for \
every choice, e.g. {example}"""


def _history(conv: Conversation) -> str:
    return "\n".join(f"{m['role'].upper()}: {m['content']}" for m in conv.messages)


def _json_object(text: str) -> dict | None:
    """The first JSON object in ``text`` (models wrap it in prose or code fences), or None.

    An object that is not JSON but a Python literal (single quotes, a trailing comma) is read
    too (:func:`icml25.common.json_reply.first_object` with ``literal=True``): without it, such a
    reply would be taken whole as the user's message, its ``thought`` included."""
    return first_object(text, literal=True)


def mentioned_option(conv: Conversation, slot: int, text: str) -> int | None:
    """The option of ``slot`` whose words appear in ``text`` (the longest match).

    Parameters
    ----------
    conv : Conversation
        The chat; its task gives the slot's options.
    slot : int
        The slot, ``0 <= slot < N_SLOTS``.
    text : str
        Free text, matched case-insensitively.

    Returns
    -------
    int or None
        Index of the longest option of ``slot`` contained in ``text`` (the larger index on
        equal lengths); None if no option is.
    """
    lower = text.lower()
    options = conv.task.spec.slots[slot].options
    hits = [(len(o), i) for i, o in enumerate(options) if o.lower() in lower]
    return max(hits)[1] if hits else None


def asked_slot(conv: Conversation, text: str) -> int:
    """The slot a free-text question is about: the first slot named in it.

    Parameters
    ----------
    conv : Conversation
        The chat; its task gives the slots.
    text : str
        The question, matched case-insensitively against each slot's name and options' words.

    Returns
    -------
    int
        The slot named earliest in ``text`` (the lower slot on a tie); ``VAGUE`` if none.
    """
    lower, best = text.lower(), (len(text) + 1, VAGUE)
    for j, slot in enumerate(conv.task.spec.slots):
        for word in (slot.name, *slot.options):
            at = lower.find(word.lower())
            if at >= 0:
                best = min(best, (at, j))
    return best[1]


class LLMUser:
    """The user simulator as a language model.

    It knows the intent, answers a clarifying question with minimal effort, and the chat ends
    after an answer (as with the programmatic user).

    Parameters
    ----------
    client : icml25.common.llm.LLMClient
        The model client; anything with ``chat(messages, temperature=, max_tokens=, seed=)``
        returning an object with ``.text``.
    temperature : float, default 0.0
        Sampling temperature of each request.
    max_tokens : int, default 200
        Most tokens of each reply.

    Notes
    -----
    Each request carries a seed drawn from the ``rng`` given to ``reply`` (``step`` passes the
    chat's generator), so the continuations that the multiturn-aware reward samples are distinct
    requests: without it, identical prompts share one cache entry and, at ``temperature > 0``,
    the ``num_samples`` continuations would collapse into one cached reply.
    """

    def __init__(self, client, *, temperature: float = 0.0, max_tokens: int = 200):
        self.client, self.temperature, self.max_tokens = client, temperature, max_tokens

    def prompt(self, conv: Conversation) -> str:
        fam, task = conv.task.spec, conv.task
        intent = "; ".join(
            f"{s.name}: {s.options[o]}" for s, o in zip(fam.slots, task.intent, strict=True)
        )
        request = fam.request.format(data=list(task.data))
        return USER_SIMULATOR_PROMPT.format(
            task=request, intent=intent, stop=TERMINATE, history=_history(conv)
        )

    def reply(self, conv: Conversation, action: int, rng=None) -> tuple[str, int | None]:
        if action == ANSWER:
            return TERMINATE, None
        reply = self.client.chat(
            [{"role": "user", "content": self.prompt(conv)}],
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            seed=None if rng is None else int(rng.integers(2**31)),
        )
        parsed = _json_object(reply.text)
        text = str(parsed.get("response", "")) if parsed else reply.text.strip()
        if TERMINATE in text:  # it ended the chat before an answer: no information given
            return text, None
        revealed = None if action == VAGUE else mentioned_option(conv, action, text)
        return text, revealed


class LLMPolicy:
    """The assistant as a language model.

    Each turn it asks a free-text question (attributed to a slot by ``asked_slot``) or answers
    with a JSON object of options.

    Parameters
    ----------
    client : icml25.common.llm.LLMClient
        The model client; anything with ``chat(messages, temperature=, max_tokens=, seed=)``
        returning an object with ``.text``.
    temperature : float, default 0.0
        Sampling temperature of each request.
    max_tokens : int, default 300
        Most tokens of each reply.
    """

    def __init__(self, client, *, temperature: float = 0.0, max_tokens: int = 300):
        self.client, self.temperature, self.max_tokens = client, temperature, max_tokens

    def system_prompt(self, conv: Conversation) -> str:
        slots = conv.task.spec.slots
        choices = "\n".join(f"- {s.name}: " + " | ".join(s.options) for s in slots)
        example = json.dumps({"answer": {s.name: s.options[0] for s in slots}})
        return ASSISTANT_PROMPT.format(choices=choices, example=example)

    def act(self, conv: Conversation, rng) -> tuple[int, str | None, tuple | None]:
        seed = int(rng.integers(2**31))
        reply = self.client.chat(
            [{"role": "system", "content": self.system_prompt(conv)}, *conv.messages],
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            seed=seed,
        )
        parsed = _json_object(reply.text) or {}
        names = {s.name.lower() for s in conv.task.spec.slots}
        if not isinstance(parsed.get("answer"), dict) and names & {str(k).lower() for k in parsed}:
            parsed = {"answer": parsed}  # the options without the "answer" wrapper
        if isinstance(parsed.get("answer"), dict):
            given = {str(k).lower(): str(v) for k, v in parsed["answer"].items()}
            choice = tuple(
                mentioned_option(conv, j, given.get(s.name.lower(), ""))
                for j, s in enumerate(conv.task.spec.slots)
            )
            return ANSWER, None, choice
        return asked_slot(conv, reply.text), reply.text.strip(), None
