"""Rendering panels ``(type, size, colour, slots)`` to small grey images with numpy.

A panel is a 2 x 2 layout of ``cell`` x ``cell`` pixel cells (24 x 24 pixels by default); an
occupied cell holds one shape: a regular polygon (triangle, square, pentagon) or a circle of
circumradius ``RADIUS[size] * cell``, filled with grey ``GREY[colour]`` on white. Shapes are
drawn by their half-plane inequalities at 4x resolution and box-averaged (anti-aliasing), so
the images are a deterministic function of the attributes alone.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from icml25.common.validate import check_int
from icml25.ucgs_avr.rules import DOMAIN, TYPES

RADIUS = {1: 0.22, 2: 0.33, 3: 0.45}  # circumradius / cell width
GREY = {1: 180, 2: 100, 3: 10}  # fill, 0 = black; background 255
SIDES = {"triangle": 3, "square": 4, "circle": 0}
_SUPERSAMPLE = 4


def _shape_mask(kind: str, radius: float, n: int) -> np.ndarray:
    """Coverage ``(n, n)`` in [0, 1] of one centred shape in an ``n`` x ``n`` cell."""
    m = n * _SUPERSAMPLE
    xs = (np.arange(m) + 0.5) / m - 0.5  # cell coordinates in [-0.5, 0.5]
    x, y = np.meshgrid(xs, xs)  # (m, m), y grows downwards
    sides = SIDES[kind]
    if sides == 0:
        inside = x**2 + y**2 <= radius**2
    else:
        offset = np.pi / 4 if sides == 4 else -np.pi / 2  # square axis-aligned, others apex up
        normals = offset + np.pi / sides + 2 * np.pi * np.arange(sides) / sides  # (S,)
        proj = x[..., None] * np.cos(normals) + y[..., None] * np.sin(normals)  # (m, m, S)
        inside = (proj <= radius * np.cos(np.pi / sides)).all(-1)
    return inside.reshape(n, _SUPERSAMPLE, n, _SUPERSAMPLE).mean(axis=(1, 3))


@lru_cache(maxsize=8)
def cell_library(cell: int = 12) -> np.ndarray:
    """Every cell image: one shape of each type, size and colour on white.

    Cached (up to 8 sizes).

    Parameters
    ----------
    cell : int, default 12
        Side of a cell in pixels, ``>= 1``.

    Returns
    -------
    numpy.ndarray of uint8, shape (types, sizes, colours, cell, cell)
        The images, ``(3, 3, 3, cell, cell)``; read-only.
    """
    check_int("cell", cell, minimum=1)
    lib = np.empty((len(TYPES), len(RADIUS), len(GREY), cell, cell), dtype=np.uint8)
    for t, kind in enumerate(TYPES):
        for s in RADIUS:
            cover = _shape_mask(kind, RADIUS[s], cell)
            for c in GREY:
                lib[t, s - 1, c - 1] = np.rint(255 * (1 - cover) + GREY[c] * cover)
    lib.setflags(write=False)
    return lib


def render(panels, cell: int = 12) -> np.ndarray:
    """Panels ``(..., 4)`` ints -> grey images ``(..., 2 cell, 2 cell)`` uint8, vectorised.

    Cells are numbered clockwise from the top left (0 top left, 1 top right, 2 bottom right,
    3 bottom left), matching the rotation of position progressions.

    Parameters
    ----------
    panels : array_like of int, shape (..., 4)
        ``(type, size, colour, slots)`` in the attributes' domains.
    cell : int, default 12
        Side of a cell in pixels, ``>= 4``.

    Returns
    -------
    numpy.ndarray of uint8, shape (..., 2 cell, 2 cell)
        Grey images, 255 white background.
    """
    panels = np.asarray(panels)
    if panels.ndim < 1 or panels.shape[-1] != 4 or not np.issubdtype(panels.dtype, np.integer):
        raise ValueError(f"panels must be an integer array (..., 4), got {panels.shape}")
    if isinstance(cell, bool) or not isinstance(cell, int) or cell < 4:
        raise ValueError(f"cell must be an int >= 4 pixels, got {cell!r}")
    for name, col in (("type", 0), ("size", 1), ("colour", 2), ("position", 3)):
        lo, hi = DOMAIN[name]
        if ((panels[..., col] < lo) | (panels[..., col] > hi)).any():
            raise ValueError(f"panels[..., {col}] ({name}) must lie in [{lo}, {hi}]")
    lib = cell_library(cell)
    shape = lib[panels[..., 0], panels[..., 1] - 1, panels[..., 2] - 1]  # (..., cell, cell)
    bits = (panels[..., 3:4] >> np.arange(4)) & 1  # (..., 4) occupancy of cells 0..3
    cells = np.where(bits[..., None, None] == 1, shape[..., None, :, :], np.uint8(255))
    # (..., 4, cell, cell) in clockwise order -> 2 x 2 grid rows (0, 1) and (3, 2)
    top = np.concatenate([cells[..., 0, :, :], cells[..., 1, :, :]], axis=-1)
    bottom = np.concatenate([cells[..., 3, :, :], cells[..., 2, :, :]], axis=-1)
    return np.concatenate([top, bottom], axis=-2)


def image_cells(images: np.ndarray) -> np.ndarray:
    """Split panel images into their four cells (clockwise): the patches the codebook tokenises.

    Parameters
    ----------
    images : array_like, shape (..., 2c, 2c)
        Square panel images with an even side.

    Returns
    -------
    numpy.ndarray, shape (..., 4, c * c)
        The flattened cells, top left, top right, bottom right, bottom left.
    """
    images = np.asarray(images)
    if images.ndim < 2:
        raise ValueError(f"images must be an array (..., 2c, 2c), got shape {images.shape}")
    h, w = images.shape[-2:]
    if h != w or h % 2 or h == 0:
        raise ValueError(f"images must be square with an even side, got {images.shape}")
    c = h // 2
    cells = [
        images[..., :c, :c],
        images[..., :c, c:],
        images[..., c:, c:],
        images[..., c:, :c],
    ]
    return np.stack(cells, axis=-3).reshape(*images.shape[:-2], 4, c * c)
