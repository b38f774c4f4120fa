"""A room of EB-Navigation's kind: walls, furniture that blocks the way, objects to find.

The agent stands at (x, y) metres with a heading in degrees (0 = +y, clockwise) and a camera
pitch; it moves by the paper's atomic actions (0.25 m forward, backward, left or right, turn
90 degrees, tilt the camera 30 degrees) and succeeds within 1 m of the target (the official
``SUCCESS_THRESHOLD``), measured on the floor plane as in the official environment.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from icml25.embodiedbench.objects import CATALOGUE, HEIGHTS

STEP = 0.25  # metres per move
TURN = 90.0  # degrees per rotation
TILT = 30.0  # degrees per camera tilt
PITCHES = (-30.0, 0.0, 30.0)
RADIUS = 0.2  # the agent's footprint, for collisions
SUCCESS_DISTANCE = 1.0
WALL_HEIGHT = 2.5
EYE_HEIGHT = 1.5


@dataclass(frozen=True)
class Pose:
    """Where the agent stands and where its camera points.

    Parameters
    ----------
    x : float
        Position along the room's width, in metres.
    y : float
        Position along the room's depth, in metres.
    heading : float
        Direction faced, in degrees, 0 = +y, clockwise.
    pitch : float, default 0.0
        Camera pitch in degrees, positive looks up; the moves keep it in ``{-30, 0, 30}``.
    """

    x: float
    y: float
    heading: float  # degrees, 0 = +y, clockwise
    pitch: float = 0.0  # degrees, positive looks up


@dataclass(frozen=True)
class Room:
    """A rectangular room: its size, its furniture and the objects placed in it.

    Parameters
    ----------
    size : tuple of (float, float)
        ``(width, depth)`` in metres.
    boxes : ndarray, shape (K, 4)
        Furniture footprints as ``x0, y0, x1, y1`` in metres; they block moves and views.
    box_rgb : ndarray of uint8, shape (K, 3)
        Colour of each piece of furniture.
    objects : ndarray of int, shape (M,)
        Indices into :data:`~icml25.embodiedbench.objects.CATALOGUE` of the objects in the room.
    positions : ndarray, shape (M, 2)
        Floor position ``(x, y)`` of each object, in metres.
    """

    size: tuple[float, float]
    boxes: np.ndarray  # (K, 4)
    box_rgb: np.ndarray  # (K, 3) uint8
    objects: np.ndarray  # (M,) int
    positions: np.ndarray  # (M, 2)

    def heights(self) -> np.ndarray:  # (M,)
        return np.array([HEIGHTS[CATALOGUE[i].height] for i in self.objects])

    def free(self, xy: np.ndarray) -> np.ndarray:
        """Whether the agent's footprint fits at each point of ``xy`` (..., 2)."""
        x, y = xy[..., 0, None], xy[..., 1, None]
        w, d = self.size
        inside = (x[..., 0] > RADIUS) & (x[..., 0] < w - RADIUS)
        inside &= (y[..., 0] > RADIUS) & (y[..., 0] < d - RADIUS)
        b = self.boxes
        hit = (x > b[:, 0] - RADIUS) & (x < b[:, 2] + RADIUS)
        hit &= (y > b[:, 1] - RADIUS) & (y < b[:, 3] + RADIUS)
        return inside & ~hit.any(axis=-1)


def move(room: Room, pose: Pose, action: int) -> tuple[Pose, bool]:
    """The pose after atomic action ``action`` (0-7, the order of :data:`ACTIONS`), and whether
    it could be done (a move into furniture or a wall, or a tilt past 30 degrees, cannot)."""
    if action in (0, 1, 2, 3):
        # forward, backward, rightward, leftward, relative to the heading
        angle = np.radians(pose.heading + (0.0, 180.0, 90.0, -90.0)[action])
        target = np.array([pose.x + STEP * np.sin(angle), pose.y + STEP * np.cos(angle)])
        if not room.free(target):
            return pose, False
        return replace(pose, x=float(target[0]), y=float(target[1])), True
    if action in (4, 5):
        return replace(pose, heading=(pose.heading + (TURN if action == 4 else -TURN)) % 360), True
    pitch = pose.pitch + (TILT if action == 6 else -TILT)
    if pitch not in PITCHES:
        return pose, False
    return replace(pose, pitch=pitch), True


def distance(room: Room, pose: Pose, target: int) -> float:
    """Floor-plane distance from the agent to object ``target`` (an index into the room's)."""
    x, y = room.positions[target].tolist()  # floats: one object, not an array expression
    return math.hypot(x - pose.x, y - pose.y)


def generate_room(rng: np.random.Generator, n_objects: int = 6, n_boxes: int = 3) -> Room:
    """Draw a random room with furniture and objects to find.

    The room is 5 to 8 m a side; each piece of furniture is 0.5 to 1.5 m a side, at least 0.8 m
    from the walls. The objects are distinct catalogue types, each at a point where the agent's
    footprint fits, at least 0.4 m from the walls and more than 1 m from each other.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of all random draws.
    n_objects : int, default 6
        Number of objects, at most the size of the catalogue (12).
    n_boxes : int, default 3
        Number of pieces of furniture.

    Returns
    -------
    Room
        The room with ``n_objects`` placed objects.

    Raises
    ------
    RuntimeError
        When the objects could not all be placed (draw another room).
    """
    w, d = rng.uniform(5.0, 8.0, size=2)
    lo = rng.uniform([0.8, 0.8], [w - 2.0, d - 2.0], size=(n_boxes, 2))
    boxes = np.concatenate([lo, lo + rng.uniform(0.5, 1.5, size=(n_boxes, 2))], axis=1)
    boxes[:, 2] = np.minimum(boxes[:, 2], w - 0.8)
    boxes[:, 3] = np.minimum(boxes[:, 3], d - 0.8)
    box_rgb = rng.integers(90, 150, size=(n_boxes, 3)).astype(np.uint8)
    kinds = rng.choice(len(CATALOGUE), size=n_objects, replace=False)
    room = Room((float(w), float(d)), boxes, box_rgb, kinds, np.zeros((n_objects, 2)))
    # rejection sampling of object places: free floor, 1 m apart
    candidates = rng.uniform([0.4, 0.4], [w - 0.4, d - 0.4], size=(400, 2))
    candidates = candidates[room.free(candidates)]
    chosen: list[np.ndarray] = []
    for point in candidates:
        if all(np.hypot(*(point - c)) > 1.0 for c in chosen):
            chosen.append(point)
        if len(chosen) == n_objects:
            break
    if len(chosen) < n_objects:
        raise RuntimeError("generate_room: no room for the objects; draw another room")
    return replace(room, positions=np.array(chosen))
