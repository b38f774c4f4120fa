"""Planners that are not language models, labelled as such wherever their results appear.

A planner gets the instruction once (``reset``) and, at each planning step, the current
first-person image and the history of (action id, feedback) pairs; it returns a :class:`Plan`,
one or more action ids that the loop executes in order until one fails or the episode ends,
as the official evaluator does.

- :class:`OraclePlanner` reads the privileged state (room, pose, target) and follows a shortest
  lattice path: an upper bound that shows each task is solvable within the step limit.
- :class:`RandomPlanner` picks one action uniformly: the floor.
- :class:`HeuristicPlanner` sees only what a VLM sees, the image and the instruction: it finds
  the target's name, or its colour and shape, in the instruction by keyword, looks for the
  target's colour in the image, centres it by side-steps and walks to it; when it sees nothing it
  turns to scan, then moves on. It has no common sense and reads words, not sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from icml25.embodiedbench import objects as ob
from icml25.embodiedbench.route import action_for, shortest_moves

FORWARD, BACKWARD, RIGHTWARD, LEFTWARD, TURN_RIGHT, TURN_LEFT, TILT_UP, TILT_DOWN = range(8)


@dataclass(frozen=True)
class Plan:
    """Action ids for the planner loop to execute, with the planner's raw output.

    Parameters
    ----------
    actions : list of int
        Action ids to execute in order.
    valid : bool, default True
        False when the planner's output could not be used; ``actions`` then holds the fallback.
    text : str, default ""
        The raw output of the planner, for the transcript.
    parsed : dict, default {}
        The parsed JSON answer of a language-model planner.
    """

    actions: list[int]
    valid: bool = True
    text: str = ""
    parsed: dict = field(default_factory=dict)


class OraclePlanner:
    """Planner that reads the privileged state and follows a shortest path; not a language model.

    At each planning step it reads the room, pose and target of ``env`` and returns the moves of a
    shortest path on the 0.25 m lattice to within 1 m of the target (one forward move when there
    is none): an upper bound showing that each task can be solved within the step limit.

    Parameters
    ----------
    env : NavigationEnv
        The environment whose state (``task``, ``pose``) the oracle reads.
    """

    label = "oracle (privileged state, not an LLM)"

    def __init__(self, env) -> None:
        self.env = env  # a NavigationEnv: the oracle reads its state

    def reset(self, instruction: str, actions) -> None:
        pass

    def plan(self, image: np.ndarray, history: list[tuple[int, str]]) -> Plan:
        task, pose = self.env.task, self.env.pose
        moves = shortest_moves(task.room, pose, task.room.positions[task.target])
        if not moves:  # unreachable (never for generated tasks) or already there
            return Plan([FORWARD])
        return Plan([action_for(d, pose.heading) for d in moves])


class RandomPlanner:
    """Planner that picks one action uniformly at random; not a language model.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the random action ids.
    """

    label = "random (not an LLM)"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def reset(self, instruction: str, actions) -> None:
        self.n_actions = len(actions)

    def plan(self, image: np.ndarray, history: list[tuple[int, str]]) -> Plan:
        return Plan([int(self.rng.integers(self.n_actions))])


def read_target(instruction: str) -> ob.ObjectType | None:
    """Find the object an instruction names, by keyword.

    Parameters
    ----------
    instruction : str
        The instruction, matched case-insensitively.

    Returns
    -------
    ObjectType or None
        The catalogue object whose name appears first in the text; else the first one whose
        colour word and shape word both appear; else None.
    """
    text = instruction.lower()
    named = [
        (m.start(), t) for t in ob.CATALOGUE for m in re.finditer(rf"\b{t.name.lower()}\b", text)
    ]
    if named:
        return min(named, key=lambda pair: pair[0])[1]
    for t in ob.CATALOGUE:
        if re.search(rf"\b{t.colour_name}\b", text) and ob.SHAPE_WORDS[t.shape] in text:
            return t
    return None


class HeuristicPlanner:
    """Planner that sees only the image and the instruction; not a language model.

    It finds the target in the instruction by keyword (:func:`read_target`) and looks for pixels
    of exactly the target's colour. When it sees them it side-steps to centre them and walks
    forward, stepping round an obstacle that blocked the same action; when the target leaves the
    view above or below it tilts the camera; when it sees nothing it turns right to scan, then
    moves on.

    Parameters
    ----------
    centre_band : float, default 0.2
        Width, as a fraction of the image width, of the central band in which the target counts
        as centred.
    scan_turns : int, default 3
        Right turns made while the target is not seen before moving on.
    """

    label = "perception-limited heuristic (not an LLM)"

    def __init__(self, centre_band: float = 0.2, scan_turns: int = 3) -> None:
        self.centre_band, self.scan_turns = centre_band, scan_turns

    def reset(self, instruction: str, actions) -> None:
        self.target = read_target(instruction)
        self.turns = 0
        self.last_row: float | None = None  # where the target was in the last view, if seen
        self.tilt = 0  # its own camera tilt, in steps, from the actions that succeeded

    def plan(self, image: np.ndarray, history: list[tuple[int, str]]) -> Plan:
        blocked = bool(history) and "could not" in history[-1][1]
        if history and not blocked and history[-1][0] in (TILT_UP, TILT_DOWN):
            self.tilt += 1 if history[-1][0] == TILT_UP else -1
        seen = (
            np.zeros(image.shape[:2], bool)
            if self.target is None
            else (image == self.target.rgb).all(axis=-1)
        )
        if seen.any():
            self.turns = 0
            rows, columns = np.nonzero(seen)
            self.last_row = rows.mean() / image.shape[0] - 0.5  # in [-0.5, 0.5], + is down
            column = columns.mean() / image.shape[1] - 0.5
            if column < -self.centre_band / 2:
                wanted, other = LEFTWARD, FORWARD
            elif column > self.centre_band / 2:
                wanted, other = RIGHTWARD, FORWARD
            else:
                wanted, other = FORWARD, LEFTWARD if column < 0 else RIGHTWARD
            # the same action just failed: something is in the way, go round it
            return Plan([other if blocked and history[-1][0] == wanted else wanted])
        if self.last_row is not None:  # lost from view after a step: it left above or below
            below, self.last_row = self.last_row > 0, None
            if below and self.tilt > -1:
                return Plan([TILT_DOWN])
            if not below and self.tilt < 1:
                return Plan([TILT_UP])
        if self.turns < self.scan_turns:
            self.turns += 1
            return Plan([TURN_RIGHT])
        self.turns = 0
        return Plan([LEFTWARD if blocked else FORWARD, FORWARD])
