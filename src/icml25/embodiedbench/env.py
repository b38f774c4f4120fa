"""The environment interface of the benchmark, and our EB-Navigation environment behind it.

``EmbodiedEnv`` is what the planner loop (:mod:`icml25.embodiedbench.episode`) needs: a list of
action names, ``reset(task) -> image`` and ``step(action_id) -> Step``. A wrapper of AI2-THOR's
controller (the official EB-Navigation) or of Habitat implements the same three members; the
loop, the planners and the metrics then run on it unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from icml25.common.validate import check_int
from icml25.embodiedbench.render import render
from icml25.embodiedbench.tasks import Task
from icml25.embodiedbench.world import SUCCESS_DISTANCE, distance, move

# The eight atomic actions of EB-Navigation, in the official order (action ids 0-7).
ACTIONS = (
    "Move forward by 0.25",
    "Move backward by 0.25",
    "Move rightward by 0.25",
    "Move leftward by 0.25",
    "Rotate to the right by 90 degrees",
    "Rotate to the left by 90 degrees",
    "Tilt the camera upward by 30 degrees",
    "Tilt the camera downward by 30 degrees",
)
MAX_STEPS = 20  # the official EB-Navigation episode limit


@dataclass(frozen=True)
class Step:
    """What one action of the environment returns.

    Parameters
    ----------
    image : ndarray of uint8, shape (H, W, 3)
        The new first-person view.
    success : bool
        Whether the agent is within 1 m of the target (floor-plane distance).
    done : bool
        Whether the episode is over: success, or the step limit reached.
    action_ok : bool
        Whether the action could be carried out (not into a wall or furniture, not a tilt past
        30 degrees).
    feedback : str
        The text the planner sees next about the action.
    distance : float
        Floor-plane distance to the target in metres, for metrics only (never shown to the
        planner).
    """

    image: np.ndarray  # (H, W, 3) uint8
    success: bool
    done: bool
    action_ok: bool
    feedback: str
    distance: float


class EmbodiedEnv(Protocol):
    """The environment interface the planner loop needs.

    An implementation has ``actions`` (the names of the action ids, a sequence of str),
    ``max_steps`` (the episode's step limit), ``reset(task) -> image`` (start the episode of a
    :class:`~icml25.embodiedbench.tasks.Task`, return the first view ``(H, W, 3)``) and
    ``step(action) -> Step``. :class:`NavigationEnv` is one; a wrapper of another simulator can
    be another.

    Parameters
    ----------
    *args
        None: a protocol is a type to check against, never built itself.
    **kwargs
        None, as for ``*args``.
    """

    actions: Sequence[str]
    max_steps: int

    def reset(self, task: Task) -> np.ndarray: ...

    def step(self, action: int) -> Step: ...


class NavigationEnv:
    """EB-Navigation's rules in our generated rooms.

    First-person ray-cast views of ``width`` x ``height`` pixels, the eight atomic actions of
    :data:`ACTIONS`, success within 1 m of the target, at most ``max_steps`` actions per episode.
    ``reset(task)`` returns the first view; ``step(action)`` returns a :class:`Step`.

    Parameters
    ----------
    width : int, default 128
        Image width in pixels, ``>= 16``.
    height : int, default 96
        Image height in pixels, ``>= 16``.
    max_steps : int, default 20
        Actions per episode, ``>= 1``; 20 is the official limit.
    """

    actions = ACTIONS

    def __init__(self, width: int = 128, height: int = 96, max_steps: int = MAX_STEPS):
        self.width = check_int("width", width, minimum=16)
        self.height = check_int("height", height, minimum=16)
        self.max_steps = check_int("max_steps", max_steps, minimum=1)
        self.task: Task | None = None

    def reset(self, task: Task) -> np.ndarray:
        if not isinstance(task, Task):
            raise TypeError(f"task must be an icml25.embodiedbench.Task, got {type(task)}")
        self.task, self.pose, self.steps = task, task.start, 0
        return self.view()

    def view(self) -> np.ndarray:
        return render(self.task.room, self.pose, self.width, self.height)

    def step(self, action: int) -> Step:
        if self.task is None:
            raise RuntimeError("step before reset: call reset(task) first")
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise ValueError(f"action must be an action id 0-{len(ACTIONS) - 1}, got {action!r}")
        if not 0 <= action < len(ACTIONS):
            raise ValueError(f"action must be an action id 0-{len(ACTIONS) - 1}, got {action!r}")
        if self.steps >= self.max_steps:
            raise RuntimeError(f"the episode is over: it had its {self.max_steps} steps")
        self.pose, ok = move(self.task.room, self.pose, int(action))
        self.steps += 1
        dist = distance(self.task.room, self.pose, self.task.target)
        success = dist <= SUCCESS_DISTANCE
        name = ACTIONS[action]
        feedback = (
            f"The last action, '{name}', was carried out."
            if ok
            else f"The last action, '{name}', could not be carried out: something is in the "
            "way or the camera cannot tilt further."
        )
        done = success or self.steps >= self.max_steps
        return Step(self.view(), success, done, ok, feedback, dist)
