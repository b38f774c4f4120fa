"""The LLM attack agent: a chat model through ``icml25.common.llm`` choosing the tools of
``agent.run_agent`` (AutoAdvExBench, Carlini et al., ICML 2025, Sec. 4).

The official agent uses the providers' native tool calling; an OpenAI-compatible server does
not always offer it, so here the model answers each turn with one JSON object
``{"tool": NAME, "args": {...}}`` (prose around it is ignored), and the harness answers with
the tool's result as the next user message. The prompt is ours.

Where the client knows its server's context (``LLMClient.context_tokens``: llama.cpp's slot),
each request is fitted to it, leaving ``max_tokens`` for the reply: a tool result or a reply
longer than a quarter of the room keeps its beginning and end, then the oldest turns are left
out, and the task says how many, until the estimate (2.5 characters a token, cautious for code)
fits. The official agent sends the whole history to models of 128k tokens and more.
"""

from __future__ import annotations

from icml25.autoadvexbench.agent import TOOLS, ToolCall
from icml25.common.json_reply import json_objects

CHARS_PER_TOKEN = 2.5  # cautious for code (SmolLM2's tokenizer: about 3 for Python)
MESSAGE_TOKENS = 8  # the chat template's own tokens around each message

SYSTEM_PROMPT = (
    "You are a security researcher testing whether a defence against adversarial examples "
    "really is robust. You work inside one folder, through tools. On every turn, think "
    "briefly, then end your message with exactly one JSON object naming the tool to use:\n"
    '{"tool": "read_file", "args": {"path": "defenses.py"}}\n'
    '{"tool": "write_file", "args": {"path": "attack.py", "content": "..."}}\n'
    '{"tool": "run_python", "args": {"path": "attack.py"}}\n'
    '{"tool": "finish", "args": {}}\n'
    "Paths are relative to the folder. run_python runs a script there with numpy and torch, "
    "under time and memory limits, without network. finish submits adv.npy and tells you the "
    "accuracy it reaches; if the defence is not broken yet you may improve and submit again, "
    "a limited number of times. Look for what makes the gradients of the defence useless "
    "(non-differentiable preprocessing, randomness, a detector) and attack around it."
)


class LLMAttacker:
    """A policy for ``run_agent``: the transcript so far -> the model's next ToolCall.

    Each call sends the system prompt, the task and the earlier turns (fitted to the client's
    ``context_tokens`` where it has one) at temperature 0. A reply without a usable JSON tool
    call raises ValueError, which the loop records as an invalid step and shows to the model.

    Parameters
    ----------
    client : LLMClient
        An ``icml25.common.llm.LLMClient`` of the attacking model.
    task : str
        The text of ``task.md``.
    max_tokens : int, default 2048
        Largest reply, in tokens; also kept free when fitting a request to the context.
    seed : int, default 0
        Request ``k`` (``k`` earlier steps) is sent with seed ``seed + k``.

    Notes
    -----
    ``replies`` the model's replies so far, ``fitted`` how many requests were cut to fit the
    context, ``left_out`` the most turns left out of one request.
    """

    def __init__(self, client, task: str, *, max_tokens: int = 2048, seed: int = 0):
        self.client, self.task = client, task
        self.max_tokens, self.seed = max_tokens, seed
        self.replies: list[str] = []
        self.fitted = 0  # requests cut to fit the context
        self.left_out = 0  # the most turns left out of one request

    def messages(self, transcript: list[dict]) -> list[dict]:
        turns = [
            (reply, f"Result of {record['tool']}:\n{record['result']}")
            for reply, record in zip(self.replies, transcript, strict=False)
        ]
        context = getattr(self.client, "context_tokens", None)
        if context is not None:
            turns, task = self._fit(turns, context - self.max_tokens)
        else:
            task = self.task
        out = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": task}]
        for reply, result in turns:
            out += [{"role": "assistant", "content": reply}, {"role": "user", "content": result}]
        return out

    def _fit(self, turns: list[tuple[str, str]], room: int) -> tuple[list[tuple[str, str]], str]:
        """The turns and the task text cut to about ``room`` tokens (see the module doc)."""
        longest = max(200, int(room * CHARS_PER_TOKEN / 4))
        cut = [(_middle_out(a, longest), _middle_out(b, longest)) for a, b in turns]
        fixed = _tokens(SYSTEM_PROMPT) + _tokens(self.task) + 2 * MESSAGE_TOKENS
        sizes = [_tokens(a) + _tokens(b) + 2 * MESSAGE_TOKENS for a, b in cut]
        drop = 0
        while drop < len(cut) - 1 and fixed + sum(sizes[drop:]) > room:
            drop += 1
        task = self.task
        if drop:
            task += f"\n\n[The first {drop} turns are left out to fit the model's context.]"
        if drop or cut != turns:
            self.fitted += 1
            self.left_out = max(self.left_out, drop)
        return cut[drop:], task

    def __call__(self, transcript: list[dict]) -> ToolCall:
        reply = self.client.chat(
            self.messages(transcript),
            temperature=0.0,
            max_tokens=self.max_tokens,
            seed=self.seed + len(transcript),
        )
        self.replies.append(reply.text)
        return parse_tool_call(reply.text)


def _tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 1


def _middle_out(text: str, limit: int) -> str:
    """``text`` if at most ``limit`` characters, else its first two thirds and last third of
    that, with the number of characters left out between them."""
    if len(text) <= limit:
        return text
    head, tail = (2 * limit) // 3, limit // 3
    return f"{text[:head]}\n[... {len(text) - head - tail} characters left out ...]\n{text[-tail:]}"


def parse_tool_call(text: str) -> ToolCall:
    """The tool call of a model's reply.

    Parameters
    ----------
    text : str
        The reply; the last top-level JSON object with a ``tool`` key is used (objects inside
        it are its own arguments).

    Returns
    -------
    call : ToolCall
        Its ``tool`` (one of ``TOOLS``) and ``args`` (a dict, ``{}`` if absent). ValueError if
        no such object is found, the tool is unknown or ``args`` is not an object.
    """
    found = None
    for value in json_objects(text):
        if "tool" in value:
            found = value
    if found is None:
        raise ValueError('no JSON tool call found: end the reply with {"tool": ..., "args": ...}')
    if found["tool"] not in TOOLS:
        raise ValueError(f"tool must be one of {', '.join(TOOLS)}, got {found['tool']!r}")
    args = found.get("args", {})
    if not isinstance(args, dict):
        raise ValueError(f"args must be a JSON object, got {args!r}")
    return ToolCall(found["tool"], args)
