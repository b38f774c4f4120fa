"""The arena: a grid of free cells and obstacles, its lines of sight and its shortest paths.

Han et al., *Of Mice and Machines* (ICML 2025), use the cellworld "BotEvade" hexagonal arena
(world 21_05): the prey starts at one side, the goal is at the other, a cluster of occluding
obstacles sits between them, and a robot predator chases the prey while it can see it. cellworld
downloads its worlds at run time, so we rebuild the idea on a square grid: ``Layout`` holds the
obstacle mask, the start and the goal; ``visibility`` is the line-of-sight matrix between the
centres of free cells; ``shortest_paths`` the hop distances and the next hop towards every cell
(what the predator follows).

Shapes: the grid is (H, W); the N free cells are numbered in row-major order; ``visibility`` and
``distances`` are (N, N).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from icml25.common.arrays import real_array
from icml25.common.validate import check_int

MOVES = np.array([[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1]])  # wait/peek, up, down, left, right
ACTION_NAMES = ("wait", "up", "down", "left", "right")
KINDS = ("occluded", "open", "random")
MAX_FLOATS = 2**30  # an array of more floats (8 GiB) is refused as a size typo


@dataclass(frozen=True, eq=False)
class Layout:
    """An arena: ``walls`` (H, W) bool (True = obstacle), ``start`` and ``goal`` as (row, col).

    Raises ``ValueError`` when the start or the goal is not a free cell of the grid, or when no
    path of free cells joins them (an arena the prey cannot solve).

    Parameters
    ----------
    walls : numpy.ndarray
        Obstacle mask (H, W), bool, at least 2 cells (copied and made read-only).
    start : tuple of int
        The prey's start ``(row, col)``, a free cell.
    goal : tuple of int
        The goal ``(row, col)``, a free cell other than the start.
    open_quantile : float, default 0.5
        Open ground is the cells more exposed than this quantile of the free cells' exposure,
        in ``[0, 1)``.
    _cache : dict, optional
        Internal storage; leave it out.

    Notes
    -----
    Derived tables, over the N free cells numbered row-major: ``cells`` (N, 2), ``index``
    (H, W) (-1 on obstacles), ``visibility`` (N, N) bool, ``distances`` (N, N) hops,
    ``next_hop`` (N, N), ``transitions`` (N, 5), ``exposure`` (N,), ``open_ground`` (N,) bool
    and ``predator_spawns``; ``start_index`` and ``goal_index`` are free-cell numbers.
    """

    walls: np.ndarray
    start: tuple[int, int]
    goal: tuple[int, int]
    open_quantile: float = 0.5  # open ground: the cells more exposed than this quantile
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        walls = np.asarray(self.walls)
        if walls.ndim != 2 or walls.dtype != bool or walls.size < 2:
            raise ValueError(f"walls must be a 2-D bool array of at least 2 cells, got {walls!r}")
        if walls.size**2 > MAX_FLOATS:
            raise ValueError(f"walls is too large: {walls.size} cells, (N, N) tables of them")
        object.__setattr__(self, "walls", walls.copy())
        self.walls.setflags(write=False)
        for name in ("start", "goal"):
            cell = getattr(self, name)
            pair = isinstance(cell, tuple | list | np.ndarray) and len(cell) == 2
            if not pair or not all(isinstance(i, numbers.Integral) for i in cell):
                raise ValueError(f"{name} must be a (row, col) pair of integers, got {cell!r}")
            r, c = cell
            if not (0 <= r < walls.shape[0] and 0 <= c < walls.shape[1]) or walls[r, c]:
                raise ValueError(f"{name} must be a free cell inside the grid, got {(r, c)}")
            object.__setattr__(self, name, (int(r), int(c)))
        if self.start == self.goal:
            raise ValueError("start and goal must differ")
        if not 0.0 <= self.open_quantile < 1.0:
            raise ValueError(f"open_quantile must be in [0, 1), got {self.open_quantile}")
        if not np.isfinite(self.distances[self.start_index, self.goal_index]):
            raise ValueError("layout has no path of free cells from start to goal")

    @property
    def shape(self) -> tuple[int, int]:
        return self.walls.shape

    @cached_property
    def cells(self) -> np.ndarray:
        """(N, 2) row, column of the free cells, row-major."""
        return np.argwhere(~self.walls)

    @cached_property
    def index(self) -> np.ndarray:
        """(H, W) the number of each free cell, -1 on obstacles."""
        index = np.full(self.shape, -1)
        index[~self.walls] = np.arange(len(self.cells))
        return index

    @property
    def start_index(self) -> int:
        return int(self.index[self.start])

    @property
    def goal_index(self) -> int:
        return int(self.index[self.goal])

    @cached_property
    def visibility(self) -> np.ndarray:
        """(N, N) bool: the segment between the two cell centres crosses no obstacle."""
        return line_of_sight(self.walls, self.cells, self.cells)

    @cached_property
    def _paths(self) -> tuple[np.ndarray, np.ndarray]:
        return shortest_paths(self.walls, self.cells, self.index)

    @property
    def distances(self) -> np.ndarray:
        """(N, N) hop distances along free cells (inf when disconnected)."""
        return self._paths[0]

    @property
    def next_hop(self) -> np.ndarray:
        """(N, N) int: the neighbour of i on a shortest path from i to j (i itself when i = j or
        when j cannot be reached)."""
        return self._paths[1]

    @cached_property
    def transitions(self) -> np.ndarray:
        """(N, 5) the cell reached from each cell by each action (bumping a wall: stay)."""
        H, W = self.shape
        target = self.cells[:, None, :] + MOVES[None]  # (N, 5, 2)
        inside = (target >= 0).all(-1) & (target[..., 0] < H) & (target[..., 1] < W)
        rows, cols = np.clip(target[..., 0], 0, H - 1), np.clip(target[..., 1], 0, W - 1)
        nxt = self.index[rows, cols]
        stay = np.broadcast_to(np.arange(len(self.cells))[:, None], nxt.shape)
        return np.where(inside & (nxt >= 0), nxt, stay)

    @cached_property
    def exposure(self) -> np.ndarray:
        """(N,) the share of free cells visible from each cell."""
        return self.visibility.mean(1)

    @cached_property
    def open_ground(self) -> np.ndarray:
        """(N,) bool: cells more exposed than the ``open_quantile`` quantile of the free cells'
        exposure (crossing them, a prey is seen from much of the arena); the others are cover.
        The start and the goal are never open ground (the mice's start and goal are shelters)."""
        is_open = self.exposure > np.quantile(self.exposure, self.open_quantile)
        is_open[[self.start_index, self.goal_index]] = False
        return is_open

    @cached_property
    def predator_spawns(self) -> np.ndarray:
        """Free cells hidden from the start (the official environment spawns the predator there),
        or, in an arena without occlusion, those at least half the arena's side from the start
        (a layout where none exists raises ``ValueError``)."""
        hidden = ~self.visibility[self.start_index]
        if hidden.any():
            return np.flatnonzero(hidden)
        far = np.flatnonzero(self.distances[self.start_index] >= max(self.shape) / 2)
        if not len(far):
            raise ValueError("layout has no cell where the predator can spawn away from start")
        return far


def line_of_sight(walls: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) bool: whether the segment from the centre of cell a to the centre of cell
    b meets no obstacle.

    Exact: cell ``(r, c)`` is the closed square ``[r - 1/2, r + 1/2] x [c - 1/2, c + 1/2]``, and
    the segment ``p(t) = a + t (b - a)``, ``t in [0, 1]``, meets it when the parameter ranges
    over which each coordinate lies inside the square (slab clipping, Liang and Barsky) overlap.
    Touching counts, so a diagonal gap between two obstacles that meet at a corner blocks the
    view.

    Parameters
    ----------
    walls : numpy.ndarray
        Obstacle mask (H, W), bool.
    a : array_like
        Cell coordinates (A, 2) ``(row, col)`` of the segments' first ends, finite.
    b : array_like
        Cell coordinates (B, 2) of the segments' other ends, finite.

    Returns
    -------
    numpy.ndarray
        Bool (A, B): True where the segment from ``a[i]`` to ``b[j]`` meets no obstacle.
    """
    walls = np.asarray(walls)
    if walls.ndim != 2 or walls.dtype != bool:
        raise ValueError(f"walls must be a 2-D bool array, got {walls.dtype}, shape {walls.shape}")
    for name, value in (("a", a), ("b", b)):
        if real_array(name, value, ndim=2, nonempty=False).shape[1] != 2:
            raise ValueError(f"{name} must have shape ({name.upper()}, 2), got {np.shape(value)}")
    floats = 2 * len(a) * len(b) * int(walls.sum())
    if floats > MAX_FLOATS:
        raise ValueError(f"a, b and walls are too large: {floats} floats (at most 2**30)")
    a, b = np.asarray(a, float), np.asarray(b, float)
    obstacles = np.argwhere(walls).astype(float)  # (O, 2)
    if len(obstacles) == 0:
        return np.ones((len(a), len(b)), bool)
    start = a[:, None, None, :]  # (A, 1, 1, 2)
    delta = b[None, :, None, :] - start  # (A, B, 1, 2)
    lo, hi = obstacles - 0.5 - start, obstacles + 0.5 - start  # (A, 1, O, 2) each
    with np.errstate(divide="ignore", invalid="ignore"):
        t1, t2 = lo / delta, hi / delta  # (A, B, O, 2)
    moving = delta != 0
    # a coordinate that does not move is inside the slab for every t, or for none
    inside = (lo <= 0) & (hi >= 0)
    enter = np.where(moving, np.minimum(t1, t2), np.where(inside, -np.inf, np.inf))
    leave = np.where(moving, np.maximum(t1, t2), np.where(inside, np.inf, -np.inf))
    first = np.maximum(enter.max(-1), 0.0)  # (A, B, O)
    last = np.minimum(leave.min(-1), 1.0)
    return ~(first <= last + 1e-12).any(-1)


def shortest_paths(
    walls: np.ndarray, cells: np.ndarray, index: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Hop distances (N, N) and next hops (N, N) on the 4-connected graph of free cells, by
    breadth-first search from every cell (scipy's unweighted ``shortest_path``)."""
    H, W = walls.shape
    n = len(cells)
    rows, cols = [], []
    for dr, dc in ((1, 0), (0, 1)):
        r2, c2 = cells[:, 0] + dr, cells[:, 1] + dc
        ok = (r2 < H) & (c2 < W)
        j = np.full(n, -1)
        j[ok] = index[r2[ok], c2[ok]]
        keep = j >= 0
        rows += [np.flatnonzero(keep), j[keep]]
        cols += [j[keep], np.flatnonzero(keep)]
    i, j = np.concatenate(rows), np.concatenate(cols)
    graph = csr_matrix((np.ones(len(i)), (i, j)), shape=(n, n))
    dist, pred = shortest_path(graph, unweighted=True, directed=False, return_predecessors=True)
    # pred[j, i] is the cell before i on the path from j to i: the next hop from i towards j
    hop = pred.T.copy()
    hop[hop < 0] = np.broadcast_to(np.arange(n)[:, None], (n, n))[hop < 0]
    return dist, hop


def make_layout(kind: str = "occluded", size: int = 11, seed: int = 0, blocks: int = 5) -> Layout:
    """A square arena of side ``size``: start at the middle of the left wall, goal at the middle
    of the right wall.

    ``kind``:
    - ``"occluded"``: the paper's kind of arena (BotEvade world 21_05 in spirit): sheltered
      start and goal, four pillars and a central cross of occluding obstacles, so that the
      outer lanes are open ground seen from far while routes along the obstacles stay in cover;
    - ``"open"``: no obstacle;
    - ``"random"``: ``blocks`` random rectangles drawn from ``seed``, redrawn until start and
      goal are joined.

    Parameters
    ----------
    kind : {"occluded", "open", "random"}, default "occluded"
        Which arena to build (see above).
    size : int, default 11
        Side of the square grid, ``>= 5`` (``size**4`` at most ``2**30``).
    seed : int, default 0
        Seed of a ``"random"`` layout, ``>= 0``; unused by the other kinds.
    blocks : int, default 5
        Number of rectangles (1 or 2 cells per side) of a ``"random"`` layout, ``>= 0``.

    Returns
    -------
    Layout
        The arena; start ``(size // 2, 0)``, goal ``(size // 2, size - 1)``.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if not isinstance(size, int | np.integer) or size < 5:
        raise ValueError(f"size must be an int >= 5, got {size!r}")
    if size**4 > MAX_FLOATS:
        raise ValueError(f"size is too large: (size^2, size^2) tables of {size**4} entries")
    if kind == "random":
        check_int("blocks", blocks, minimum=0)
        check_int("seed", seed, minimum=0)
    mid = size // 2
    start, goal = (mid, 0), (mid, size - 1)
    walls = np.zeros((size, size), bool)
    if kind == "occluded":
        # sheltered start and goal (a wall on each side of them), pillars between which the
        # routes run in cover, and a cross in the middle that hides one half from the other
        for col in (1, size - 2):
            walls[mid - 1, col] = walls[mid + 1, col] = True
        q = size // 4
        for r in (mid - q - 1, mid + q):
            for c in (q, size - q - 2):
                walls[r : r + 2, c : c + 2] = True
        walls[mid - 2 : mid + 3, mid] = True
        walls[mid, mid - 1 : mid + 2] = True
        return Layout(walls, start, goal)
    if kind == "open":
        return Layout(walls, start, goal)
    rng = np.random.default_rng(seed)
    for _ in range(1000):
        walls[:] = False
        for _ in range(blocks):
            h, w = rng.integers(1, 3, 2)
            r, c = rng.integers(0, size - h + 1), rng.integers(1, size - w)
            walls[r : r + h, c : c + w] = True
        walls[start] = walls[goal] = False
        try:
            return Layout(walls, start, goal)
        except ValueError:
            continue
    raise RuntimeError(f"no connected random layout found for seed {seed}")
