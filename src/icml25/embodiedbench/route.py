"""Shortest paths on the 0.25 m lattice of the agent's moves: the oracle's privileged plan.

From the start pose, the agent can reach exactly the points ``start + 0.25 (i, j)`` (moves are
0.25 m along the heading or across it, and headings turn by 90 degrees). A breadth-first search
from the goal region (free lattice points within 1 m of the target), run as repeated dilation of
boolean arrays, gives every point's number of moves to the goal; the path descends it.
"""

from __future__ import annotations

import numpy as np

from icml25.embodiedbench.world import STEP, SUCCESS_DISTANCE, Pose, Room

# world-frame unit moves: +x, -x, +y, -y
DIRECTIONS = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]])


def moves_to_goal(room: Room, pose: Pose, target_xy: np.ndarray) -> tuple[np.ndarray, int]:
    """The number of moves from each lattice point to the goal region (2N+1, 2N+1; -1 where
    unreachable), on the lattice centred on ``pose`` (index N, N)."""
    n = int(np.ceil(max(room.size) / STEP)) + 1
    offsets = STEP * np.arange(-n, n + 1)
    points = np.stack(np.meshgrid(pose.x + offsets, pose.y + offsets, indexing="ij"), axis=-1)
    free = room.free(points)  # (2N+1, 2N+1)
    goal = free & (np.hypot(*(points - target_xy).transpose(2, 0, 1)) <= SUCCESS_DISTANCE)
    dist = np.where(goal, 0, -1)
    frontier, k = goal, 0
    while frontier.any():
        k += 1
        grown = np.zeros_like(frontier)
        grown[1:] |= frontier[:-1]
        grown[:-1] |= frontier[1:]
        grown[:, 1:] |= frontier[:, :-1]
        grown[:, :-1] |= frontier[:, 1:]
        frontier = grown & free & (dist < 0)
        dist[frontier] = k
    return dist, n


def shortest_moves(room: Room, pose: Pose, target_xy: np.ndarray) -> list[int] | None:
    """World-frame moves (indices into :data:`DIRECTIONS`) of a shortest path from ``pose`` to
    within 1 m of ``target_xy``, or None when the goal cannot be reached."""
    dist, n = moves_to_goal(room, pose, np.asarray(target_xy, dtype=float))
    here = np.array([n, n])
    if dist[n, n] < 0:
        return None
    path = []
    while dist[tuple(here)] > 0:
        for k, d in enumerate(DIRECTIONS):
            there = here + d
            if dist[tuple(there)] == dist[tuple(here)] - 1:
                path.append(k)
                here = there
                break
    return path


def action_for(direction: int, heading: float) -> int:
    """The atomic action (0 forward, 1 backward, 2 rightward, 3 leftward) that moves along
    world direction ``direction`` at ``heading`` (a multiple of 90 degrees)."""
    ahead = {0: 2, 90: 0, 180: 3, 270: 1}  # the world direction each heading faces
    h = int(round(heading)) % 360
    relative = [ahead[(h + turn) % 360] for turn in (0, 180, 90, 270)]  # fwd, back, right, left
    return relative.index(direction)
