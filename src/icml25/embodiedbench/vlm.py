"""A vision-language model as the planner, through the shared OpenAI-compatible client.

The prompt follows EmbodiedBench's agent pipeline (Sec. 3.2; official ``EBNavigationPlanner``)
in our own words: the role and the action list with ids, the instruction, the history of
actions with the environment's feedback, the current first-person image, and the JSON answer
of four fields: ``visual_state_description``, ``reasoning_and_reflection``, ``language_plan``
and ``executable_plan`` (a list of ``{"action_id", "action_name"}``). Each planning step is one
request with the history written into it (the official code's default keeps a window of the
last five messages instead).

Without the image (``sees_image=False``, the planner of the language-only variant, for a
model that reads text only): the same request with no image and the system prompt saying so,
the ablation behind the paper's finding that vision matters most for low-level tasks.

An answer that is not that JSON, or names an action id outside the list, is *invalid*: counted,
recorded, and replaced by one random action, as the official planner does. Parsing is lenient
in one documented way: a code fence around the JSON, or text before or after it, is ignored.
"""

from __future__ import annotations

import json

import numpy as np

from icml25.common.json_reply import first_object
from icml25.common.llm import LLMClient
from icml25.embodiedbench.planners import Plan

HISTORY_SHOWN = 10  # most recent steps written into the prompt

SYSTEM = """You control a robot that moves through a room, seen through its front camera.
Your job is to bring the robot within one metre of the object the user asks for, using only the
actions listed below, each identified by its id:
{actions}
Every move is 0.25 m; turns are 90 degrees. You cannot judge the result of your actions until
all of the actions in your plan have been carried out, so plan a few steps at a time."""

BLIND = """You get no image: the instruction and the feedback on your actions are all you have."""

ANSWER = """Answer with one JSON object and nothing else, with these fields:
"visual_state_description": STATE,
"reasoning_and_reflection": what the history and feedback tell you, and why earlier actions did
or did not bring you closer,
"language_plan": the next steps in words, numbered,
"executable_plan": a list of {"action_id": <int>, "action_name": <str>} to carry out now."""


SEEN = "what you see in the current image"
UNSEEN = "what the instruction and the feedback tell you of where you are"


def prompt(
    instruction: str, actions, history: list[tuple[int, str]], sees_image: bool = True
) -> list[dict]:
    """The chat messages of one planning step (the image, where there is one, is attached by
    the client)."""
    listing = "\n".join(f"  {i}: {name}" for i, name in enumerate(actions))
    lines = [f"The user's instruction: {instruction}"]
    if history:
        lines.append("What you have done so far, with the environment's feedback:")
        start = max(0, len(history) - HISTORY_SHOWN)
        for k, (action, feedback) in enumerate(history[start:], start=start + 1):
            lines.append(f"  step {k}: action {action} ({actions[action]}). {feedback}")
    else:
        lines.append("This is the first step: nothing has been done yet.")
    lines.append(ANSWER.replace("STATE", SEEN if sees_image else UNSEEN, 1))
    system = SYSTEM.format(actions=listing) + ("" if sees_image else "\n" + BLIND)
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": "\n".join(lines)},
    ]


def parse_plan(text: str, n_actions: int) -> tuple[list[int], dict] | None:
    """Read the action ids out of a model's answer.

    Parameters
    ----------
    text : str
        The model's answer; its first JSON object with an ``executable_plan`` field is used,
        wherever the prose puts it (a code fence or surrounding text is ignored).
    n_actions : int
        Number of actions; a valid id is in ``0 .. n_actions - 1``.

    Returns
    -------
    tuple of (list of int, dict) or None
        The action ids of ``executable_plan`` and the parsed object, or None when the answer is
        unusable: no such object, a step without an integer ``action_id``, an empty plan, or an
        id out of range.
    """
    answer = _whole_object(text)  # the usual well-formed reply: one json.loads
    if answer is None:
        answer = first_object(text, ("executable_plan",))
    if answer is None:
        return None
    try:
        ids = [step["action_id"] for step in answer["executable_plan"]]
    except (ValueError, KeyError, TypeError):
        return None
    if ids and all(type(i) is int and 0 <= i < n_actions for i in ids):  # bool is not an id
        return ids, answer
    return None


def _whole_object(text: str) -> dict | None:
    """``text`` itself when it is one JSON object with an ``executable_plan``: then it is also
    the first such object ``first_object`` would find."""
    if not isinstance(text, str):
        return None
    try:  # a reply that opens with prose or a fence fails at its first character
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) and "executable_plan" in value else None


class VLMPlanner:
    """A planner that asks a vision-language model for the next actions, one request per step.

    Plans by asking a vision-language model through ``client`` (see the module doc);
    ``sees_image=False``: the language-only planner, which sends no image.

    EmbodiedBench (Yang et al., ICML 2025), Sec. 3.2: each call of ``plan(image, history)``
    sends the instruction, the action list, the history of actions with the environment's
    feedback and the first-person image, and returns a :class:`Plan` of the action ids of the
    model's JSON ``executable_plan``. An invalid answer is replaced by one random action and
    the plan marked invalid. ``reset(instruction, actions)`` starts an episode; the planner is
    used by :func:`run_episode`.

    Parameters
    ----------
    client : LLMClient
        The shared OpenAI-compatible client (``icml25.common.llm``) that sends each request,
        e.g. ``LLMClient.from_endpoint(Endpoint(url, model))``.
    rng : numpy.random.Generator
        Draws the one random action that replaces an invalid answer.
    temperature : float, default 0.0
        Sampling temperature of each request (0: greedy).
    max_tokens : int, default 1024
        Most tokens of each answer.
    sees_image : bool, default True
        Whether each request attaches the current image. False is the language-only planner:
        no image, and the system prompt says so (for a model that reads text only).
    """

    def __init__(
        self,
        client: LLMClient,
        rng: np.random.Generator,
        *,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        sees_image: bool = True,
    ) -> None:
        self.client, self.rng = client, rng
        self.temperature, self.max_tokens = temperature, max_tokens
        self.sees_image = sees_image
        self.label = "vision-language model" if sees_image else "language model, no image"

    def reset(self, instruction: str, actions) -> None:
        self.instruction, self.actions = instruction, list(actions)

    def plan(self, image: np.ndarray, history: list[tuple[int, str]]) -> Plan:
        messages = prompt(self.instruction, self.actions, history, self.sees_image)
        reply = self.client.chat(
            messages,
            images=[image] if self.sees_image else None,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )
        parsed = parse_plan(reply.text, len(self.actions))
        if parsed is None:
            return Plan([int(self.rng.integers(len(self.actions)))], False, reply.text)
        return Plan(parsed[0], True, reply.text, parsed[1])
