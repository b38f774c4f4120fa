"""EB-Navigation's five capability subsets, built from one set of base tasks as the paper does.

A base task is a room, a target object and a start pose from which the target is in view and
the shortest path to within 1 m takes at most ``max_path`` moves. The other subsets reword the
instruction (common sense, complex instruction, visual appearance) or, for *long horizon*, turn
the agent 180 degrees so the target starts behind it (the official ``longHorizon_task_gen``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from icml25.common.validate import check_int
from icml25.embodiedbench import objects as ob
from icml25.embodiedbench.render import render
from icml25.embodiedbench.route import shortest_moves
from icml25.embodiedbench.world import Pose, Room, generate_room

SUBSETS = ("base", "common_sense", "complex_instruction", "visual_appearance", "long_horizon")
MIN_TARGET_PIXELS = 6  # "in view": at least this many pixels of the target's colour


@dataclass(frozen=True)
class Task:
    """One navigation task: a room, a start pose, a target and its instruction.

    Parameters
    ----------
    room : Room
        The room of the episode.
    start : Pose
        The agent's pose at the start.
    target : int
        Index of the target into ``room.objects``; its catalogue entry is ``target_type``.
    instruction : str
        What the planner is told to find.
    subset : str
        The capability subset the task belongs to, one of :data:`SUBSETS`.
    """

    room: Room
    start: Pose
    target: int  # index into room.objects
    instruction: str
    subset: str

    @property
    def target_type(self) -> ob.ObjectType:
        return ob.CATALOGUE[self.room.objects[self.target]]


def base_tasks(
    n: int, rng: np.random.Generator, *, max_path: int = 14, width: int = 128, height: int = 96
) -> list[Task]:
    """Draw base navigation tasks.

    Rooms are drawn with :func:`~icml25.embodiedbench.world.generate_room` until ``n`` tasks are
    found. In each room a random object is the target and the start faces one of the four lattice
    headings with a level camera, 2 to 4.5 m from the target, with at least 6 pixels of the
    target's colour in the start view and a shortest path to within 1 m of it of at most
    ``max_path`` moves of 0.25 m. The instruction names the object.

    Parameters
    ----------
    n : int
        Number of tasks, ``>= 1``.
    rng : numpy.random.Generator
        Source of all random draws.
    max_path : int, default 14
        Most moves of the shortest path from the start to the goal, ``>= 1``.
    width : int, default 128
        Width in pixels of the view used to check that the target is in sight.
    height : int, default 96
        Height in pixels of that view.

    Returns
    -------
    list of Task
        ``n`` tasks of the ``"base"`` subset.
    """
    check_int("n", n, minimum=1)
    check_int("max_path", max_path, minimum=1)
    tasks: list[Task] = []
    while len(tasks) < n:
        room = generate_room(rng)
        target = int(rng.integers(len(room.objects)))
        heading = float(rng.choice([0.0, 90.0, 180.0, 270.0]))
        spots = rng.uniform([0.3, 0.3], [room.size[0] - 0.3, room.size[1] - 0.3], size=(64, 2))
        gap = np.hypot(*(spots - room.positions[target]).T)
        spots = spots[room.free(spots) & (gap >= 2.0) & (gap <= 4.5)]
        for x, y in spots[:8]:
            pose = Pose(float(x), float(y), heading)
            seen = render(room, pose, width, height) == ob.CATALOGUE[room.objects[target]].rgb
            if seen.all(axis=-1).sum() < MIN_TARGET_PIXELS:
                continue
            moves = shortest_moves(room, pose, room.positions[target])
            if moves is not None and len(moves) <= max_path:
                kind = ob.CATALOGUE[room.objects[target]]
                tasks.append(Task(room, pose, target, ob.base_instruction(kind), "base"))
                break
    return tasks


def subset(tasks: list[Task], name: str, rng: np.random.Generator) -> list[Task]:
    """Turn base tasks into the tasks of one capability subset.

    ``"base"`` keeps the tasks; ``"common_sense"``, ``"complex_instruction"`` and
    ``"visual_appearance"`` reword the instruction (by purpose, with distracting context naming
    another object of the room, or by colour and shape); ``"long_horizon"`` turns the start pose by
    180 degrees so that the target starts behind the agent.

    Parameters
    ----------
    tasks : list of Task
        Base tasks, as from :func:`base_tasks`.
    name : str
        One of :data:`SUBSETS`.
    rng : numpy.random.Generator
        Draws the other object and the wording of ``"complex_instruction"``; unused otherwise.

    Returns
    -------
    list of Task
        One task per input task, with ``subset`` set to ``name``.
    """
    if name not in SUBSETS:
        raise ValueError(f"name must be one of {SUBSETS}, got {name!r}")
    out = []
    for t in tasks:
        kind = t.target_type
        if name == "base":
            out.append(t)
        elif name == "long_horizon":
            turned = replace(t.start, heading=(t.start.heading + 180.0) % 360)
            out.append(replace(t, start=turned, subset=name))
        else:
            if name == "common_sense":
                text = ob.common_sense_instruction(kind)
            elif name == "visual_appearance":
                text = ob.visual_instruction(kind)
            else:
                others = [i for i in t.room.objects if i != t.room.objects[t.target]]
                other = ob.CATALOGUE[int(rng.choice(others))]
                picks = (
                    int(rng.integers(len(ob.CONTEXT))),
                    int(rng.integers(len(ob.REQUESTS))),
                    int(rng.integers(len(ob.CONTEXT))),
                )
                text = ob.complex_instruction(kind, other, picks)
            out.append(replace(t, instruction=text, subset=name))
    return out
