"""A first-person colour image of the room, by ray casting (vectorised over pixels).

EB-Navigation gives the agent only its first-person RGB view (AI2-THOR, 500 x 500, field of
view 100 degrees). Ours is the same geometry drawn simply: one ray per image column against the
walls and the furniture boxes (slab test), floor and ceiling per pixel from the camera's pitch,
a floor checkerboard of 0.5 m tiles so that motion shows, and each object as a flat-coloured
ball, box, cone or column at its height, hidden behind whatever is nearer in its column.
"""

from __future__ import annotations

import numpy as np

from icml25.embodiedbench.objects import CATALOGUE
from icml25.embodiedbench.world import EYE_HEIGHT, WALL_HEIGHT, Pose, Room

FOV = 100.0  # horizontal field of view, degrees (the official configuration)
FLOOR = (np.array([150, 120, 90]), np.array([120, 95, 70]))  # checkerboard tiles
CEILING = np.array([215, 215, 205])
WALL = np.array([190, 185, 170])
FAR = 1e9


def angles(width: int, height: int, pitch: float) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal offsets of the columns (W,) and elevations of the rows (H,), in radians."""
    vfov = FOV * height / width
    across = np.radians(FOV * ((np.arange(width) + 0.5) / width - 0.5))
    up = np.radians(pitch + vfov * (0.5 - (np.arange(height) + 0.5) / height))
    return across, up


def cast(room: Room, pose: Pose, across: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distance along each column's ray to the first wall or box (W,), and what it hit:
    -1 the room's walls, k >= 0 box k (W,)."""
    bearing = np.radians(pose.heading) + across  # (W,)
    dx, dy = np.sin(bearing), np.cos(bearing)
    with np.errstate(divide="ignore"):
        inv_x, inv_y = 1.0 / dx, 1.0 / dy
    w, d = room.size
    # leaving the room: the positive root of each wall plane
    tx = np.where(dx > 0, (w - pose.x) * inv_x, -pose.x * inv_x)
    ty = np.where(dy > 0, (d - pose.y) * inv_y, -pose.y * inv_y)
    depth, what = np.minimum(tx, ty), np.full(across.shape, -1)
    b = room.boxes  # (K, 4)
    if len(b):
        t1x, t2x = (b[:, None, 0] - pose.x) * inv_x, (b[:, None, 2] - pose.x) * inv_x  # (K, W)
        t1y, t2y = (b[:, None, 1] - pose.y) * inv_y, (b[:, None, 3] - pose.y) * inv_y
        enter = np.maximum(np.minimum(t1x, t2x), np.minimum(t1y, t2y))
        leave = np.minimum(np.maximum(t1x, t2x), np.maximum(t1y, t2y))
        enter = np.where((enter <= leave) & (enter > 0), enter, FAR)  # (K, W)
        nearest = enter.argmin(axis=0)
        t_box = enter[nearest, np.arange(len(across))]
        what = np.where(t_box < depth, nearest, what)
        depth = np.minimum(depth, t_box)
    return depth, what


def render(room: Room, pose: Pose, width: int = 128, height: int = 96) -> np.ndarray:
    """Draw the agent's first-person view of the room.

    One ray per image column against the walls and the furniture (slab test), floor and ceiling
    per pixel from the camera pitch, a 0.5 m floor checkerboard, and each object as a flat-coloured
    shape at its height, hidden behind whatever is nearer. The horizontal field of view is 100
    degrees.

    Parameters
    ----------
    room : Room
        The room.
    pose : Pose
        The agent's position, heading and camera pitch.
    width : int, default 128
        Image width in pixels.
    height : int, default 96
        Image height in pixels.

    Returns
    -------
    image : ndarray of uint8, shape (height, width, 3)
        The RGB view.
    """
    across, up = angles(width, height, pose.pitch)
    depth, what = cast(room, pose, across)  # (W,)
    tan_up = np.tan(up)[:, None]  # (H, 1)
    bearing = np.radians(pose.heading) + across
    # the horizontal distance at which each pixel's ray meets the floor or the ceiling
    with np.errstate(divide="ignore", invalid="ignore"):
        to_floor = np.where(tan_up < 0, -EYE_HEIGHT / tan_up, FAR)  # (H, 1)
        to_ceiling = np.where(tan_up > 0, (WALL_HEIGHT - EYE_HEIGHT) / tan_up, FAR)
    floor = to_floor < depth  # (H, W)
    ceiling = to_ceiling < depth
    image = np.empty((height, width, 3))
    shade = np.clip(1.2 - depth / 12.0, 0.45, 1.0)[None, :, None]  # (1, W, 1)
    surface = np.where(what[:, None] >= 0, 0, 1)  # box or room wall
    colours = np.concatenate([room.box_rgb, WALL[None]], axis=0).astype(float)  # (K + 1, 3)
    image[:] = colours[np.where(surface[:, 0] == 0, what, len(room.boxes))][None] * shade
    fx = pose.x + np.where(floor, to_floor, 0) * np.sin(bearing)  # floor point hit (H, W)
    fy = pose.y + np.where(floor, to_floor, 0) * np.cos(bearing)
    tile = ((np.floor(fx / 0.5) + np.floor(fy / 0.5)) % 2).astype(int)
    image[floor] = np.where(tile[floor][:, None] == 0, FLOOR[0], FLOOR[1])
    image[ceiling & ~floor] = CEILING
    _draw_objects(image, room, pose, across, up, depth)
    return image.round().astype(np.uint8)


def _draw_objects(image, room, pose, across, up, depth) -> None:
    """Paint the objects, farthest first, where nearer than the wall in their columns."""
    rel = room.positions - (pose.x, pose.y)  # (M, 2)
    dist = np.hypot(rel[:, 0], rel[:, 1])
    heights = room.heights()
    order = np.argsort(-dist)
    a = across[None, :]  # (1, W)
    e = up[:, None]  # (H, 1)
    for m in order:  # at most a dozen objects; each is one vectorised mask over the pixels
        kind = CATALOGUE[room.objects[m]]
        bearing = np.arctan2(rel[m, 0], rel[m, 1]) - np.radians(pose.heading)
        bearing = (bearing + np.pi) % (2 * np.pi) - np.pi
        if abs(bearing) > np.radians(FOV) / 2 + 0.3 or dist[m] < 0.05:
            continue
        centre = np.arctan2(heights[m] + kind.size - EYE_HEIGHT, dist[m])
        r = np.arctan2(kind.size, dist[m])
        u, v = (a - bearing) / r, (e - centre) / r  # (H, W) in units of the object's radius
        if kind.shape == "ball":
            mask = u**2 + v**2 <= 1
        elif kind.shape == "box":
            mask = (np.abs(u) <= 1) & (np.abs(v) <= 0.7)
        elif kind.shape == "cone":
            mask = (v >= -1) & (v <= 1) & (np.abs(u) <= (1 - v) / 2)
        else:  # column
            mask = (np.abs(u) <= 0.6) & (np.abs(v) <= 1)
        mask &= dist[m] < depth[None, :]
        image[mask] = kind.rgb
