"""The predator-avoidance task of Han et al., *Of Mice and Machines* (ICML 2025), to Gymnasium's
API, and a vectorised variant that steps many arenas in one numpy call.

Each step the prey takes one of five actions (wait/peek, up, down, left, right; a move into an
obstacle or the border leaves it in place), then the predator moves. As in the official
environment's robot, the predator heads for the prey's cell while it sees it (line of sight
between cell centres), keeps going to where it last saw it, and otherwise patrols to a random
cell hidden from where it stands; it starts at a random cell hidden from the prey's start. It
makes ``predator_speed`` hops per step on average (1.5: one hop, and a second with probability
0.5). We use 1.0 by default: at 1.5 (the official robot's top speed relative to the prey) a
hand-made evasive policy is caught in 58% of the episodes of our small arena (47% at 1.0; see
the README). The episode ends with ``goal_reward`` when the prey reaches the goal, with
``capture_reward`` when the predator comes within ``capture_radius`` (in cells) of the prey, and
is truncated after ``max_steps``. With ``random_start`` = p (exploring starts, for training) a
share p of the episodes start the prey on a random free cell and the predator on a random cell
that does not see it.

Observation (2 N + 1,) float32 in [0, 1]: one-hot of the prey's cell, one-hot of the predator's
cell when the prey sees it (zeros otherwise), and a 1 when it is seen. N is the number of free
cells of the layout.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

from icml25.common.validate import check_int
from icml25.predator_rl.arena import ACTION_NAMES, MAX_FLOATS, Layout, make_layout

CAPTURED, SUCCESS, TIMEOUT = -1, 1, 0


@dataclass(frozen=True)
class ArenaConfig:
    """The task's constants (shared by ``PreyArenaEnv`` and ``VecPreyArena``).

    Parameters
    ----------
    max_steps : int, default 100
        Steps after which an episode is truncated, a Python int ``>= 1``.
    predator_speed : float, default 1.0
        Mean predator hops per step, in ``[0, 4]``: the integer part every step and one more
        with probability equal to the fractional part.
    capture_radius : float, default 1.0
        Capture distance in cells, between cell centres, finite and ``>= 0``.
    goal_reward : float, default 1.0
        Reward on reaching the goal, finite.
    capture_reward : float, default -1.0
        Reward on capture, finite.
    random_start : float, default 0.0
        Share of exploring starts (the prey on a random free cell other than the goal, the
        predator on a cell that does not see it), in ``[0, 1]``.
    """

    max_steps: int = 100
    predator_speed: float = 1.0  # mean hops per step
    capture_radius: float = 1.0  # cells, between centres
    goal_reward: float = 1.0
    capture_reward: float = -1.0
    random_start: float = 0.0  # share of exploring starts (the prey on a random free cell)

    def __post_init__(self) -> None:
        if not isinstance(self.max_steps, int) or self.max_steps < 1:
            raise ValueError(f"max_steps must be a positive int, got {self.max_steps!r}")
        if not 0.0 <= self.predator_speed <= 4.0:
            raise ValueError(f"predator_speed must be in [0, 4], got {self.predator_speed}")
        if not self.capture_radius >= 0 or not np.isfinite(self.capture_radius):
            raise ValueError(f"capture_radius must be finite and >= 0, got {self.capture_radius}")
        for name in ("goal_reward", "capture_reward"):
            if not np.isfinite(getattr(self, name)):
                raise ValueError(f"{name} must be finite, got {getattr(self, name)}")
        if not 0.0 <= self.random_start <= 1.0:
            raise ValueError(f"random_start must be in [0, 1], got {self.random_start}")


class VecPreyArena:
    """``num_envs`` arenas with the same layout stepped together (numpy, no Python loop over
    arenas). Arenas do not reset themselves: after ``step``, call ``reset(done)`` for the ones
    that ended (``step`` returns the observation of the state reached, terminal or not).

    ``step`` returns ``obs`` (E, 2N + 1), ``reward`` (E,), ``terminated`` (E,), ``truncated``
    (E,) and ``info``, a dict of (E,) arrays: ``outcome`` (1 goal, -1 captured, 0 otherwise),
    ``length`` (steps so far), ``waits`` (wait/peek actions so far), ``cover_steps`` (steps
    ending in a cover cell before the prey first set foot on open ground: the caution measure).

    Parameters
    ----------
    layout : Layout or None, default None
        The arena shared by all copies; None means ``make_layout("occluded")``.
    num_envs : int, default 1
        Number of arenas ``E``, ``>= 1``.
    config : ArenaConfig or None, default None
        The task's constants; None means ``ArenaConfig()``.
    seed : int, numpy.random.Generator or None, default None
        Seed of the generator of starts and predator moves, or the generator itself.

    Notes
    -----
    Attributes: ``n_cells`` (N, the free cells), ``obs_dim`` (``2 N + 1``), and the state
    arrays ``prey``, ``predator`` (E,) free-cell numbers and ``t`` (E,) steps so far. All
    arenas are reset on construction.
    """

    def __init__(
        self,
        layout: Layout | None = None,
        num_envs: int = 1,
        config: ArenaConfig | None = None,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        if not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        self.layout = make_layout("occluded") if layout is None else layout
        if not isinstance(self.layout, Layout):
            raise TypeError(f"layout must be a Layout, got {type(self.layout).__name__}")
        self.config = ArenaConfig() if config is None else config
        if not isinstance(self.config, ArenaConfig):
            raise TypeError(f"config must be an ArenaConfig, got {type(self.config).__name__}")
        if num_envs * (2 * len(self.layout.cells) + 1) > MAX_FLOATS:
            raise ValueError(f"num_envs is too large: {num_envs} observations of the layout")
        self.num_envs = int(num_envs)
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        L = self.layout
        self.n_cells = len(L.cells)
        self.obs_dim = 2 * self.n_cells + 1
        self._vis = L.visibility
        self._hop = L.next_hop
        self._move = L.transitions
        self._open = L.open_ground
        self._spawns = L.predator_spawns
        diff = L.cells[:, None, :] - L.cells[None, :, :]
        self._near = np.sqrt((diff**2).sum(-1)) <= self.config.capture_radius + 1e-9  # (N, N)
        E = self.num_envs
        self.prey = np.full(E, L.start_index)
        self.predator = np.zeros(E, int)
        self.destination = np.zeros(E, int)
        self.t = np.zeros(E, int)
        self.waits = np.zeros(E, int)
        self.cover_steps = np.zeros(E, int)
        self.crossed = np.zeros(E, bool)
        self.reset()

    def reset(self, mask: np.ndarray | None = None) -> np.ndarray:
        """Reset the arenas where ``mask`` (E,) is True (all when None); -> obs (E, 2N + 1)."""
        if mask is not None:
            m = np.asarray(mask)
            flags = m.dtype == bool or (m.dtype.kind in "iu" and np.isin(m, (0, 1)).all())
            if m.shape != (self.num_envs,) or not flags:
                raise ValueError(
                    f"mask must be ({self.num_envs},) bools, got shape {np.shape(mask)}"
                )
        mask = np.ones(self.num_envs, bool) if mask is None else np.asarray(mask, bool)
        spawn = self._spawns[self.rng.integers(0, len(self._spawns), self.num_envs)]
        start = np.full(self.num_envs, self.layout.start_index)
        if self.config.random_start > 0:
            # exploring starts: the prey anywhere but the goal, the predator where it cannot see
            anywhere = self.rng.integers(0, self.n_cells - 1, self.num_envs)
            anywhere += anywhere >= self.layout.goal_index
            explore = self.rng.random(self.num_envs) < self.config.random_start
            start = np.where(explore, anywhere, start)
            scores = self.rng.random((self.num_envs, self.n_cells)) - self._vis[start]
            scores -= 2 * self._near[start]
            spawn = np.where(start == self.layout.start_index, spawn, scores.argmax(1))
        self.prey[mask] = start[mask]
        self.predator[mask] = spawn[mask]
        self.destination[mask] = spawn[mask]
        for counter in (self.t, self.waits, self.cover_steps):
            counter[mask] = 0
        self.crossed[mask] = False
        return self.observe()

    def observe(self) -> np.ndarray:
        """(E, 2N + 1) float32: prey one-hot, predator one-hot when visible, visible flag."""
        E, N = self.num_envs, self.n_cells
        obs = np.zeros((E, 2 * N + 1), np.float32)
        rows = np.arange(E)
        obs[rows, self.prey] = 1.0
        seen = self._vis[self.prey, self.predator]
        obs[rows[seen], N + self.predator[seen]] = 1.0
        obs[:, -1] = seen
        return obs

    def step(self, actions: np.ndarray):
        """Advance every arena by one step; ``actions`` (E,) ints in [0, 5)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be ({self.num_envs},) ints, got {actions!r}")
        if (actions < 0).any() or (actions >= len(ACTION_NAMES)).any():
            raise ValueError(f"actions must lie in [0, {len(ACTION_NAMES)}), got {actions}")
        cfg = self.config
        # random numbers of fixed shapes every step: the stream does not depend on the state
        patrol_scores = self.rng.random((self.num_envs, self.n_cells))  # (E, N)
        extra_hop = self.rng.random(self.num_envs) < cfg.predator_speed % 1.0  # (E,)

        self.prey = self._move[self.prey, actions]
        self.t += 1
        self.waits += actions == 0
        self.crossed |= self._open[self.prey]
        self.cover_steps += ~self.crossed
        success = self.prey == self.layout.goal_index
        captured = self._near[self.prey, self.predator] & ~success

        # the predator: chase what it sees, else finish the last chase, else patrol
        sees = self._vis[self.predator, self.prey]
        self.destination = np.where(sees, self.prey, self.destination)
        arrived = (self.predator == self.destination) & ~sees
        hidden_pick = np.argmax(patrol_scores - self._vis[self.predator], axis=1)
        self.destination = np.where(arrived, hidden_pick, self.destination)
        hops = int(cfg.predator_speed) + extra_hop
        for h in range(int(np.ceil(cfg.predator_speed))):
            moving = (h < hops) & ~success & ~captured
            self.predator = np.where(
                moving, self._hop[self.predator, self.destination], self.predator
            )
            captured |= self._near[self.prey, self.predator] & moving

        terminated = success | captured
        truncated = (self.t >= cfg.max_steps) & ~terminated
        reward = cfg.goal_reward * success + cfg.capture_reward * captured
        outcome = np.where(success, SUCCESS, np.where(captured, CAPTURED, TIMEOUT))
        info = {
            "outcome": outcome,
            "length": self.t.copy(),
            "waits": self.waits.copy(),
            "cover_steps": self.cover_steps.copy(),
        }
        return self.observe(), reward.astype(np.float32), terminated, truncated, info


class PreyArenaEnv(gym.Env):
    """One arena to Gymnasium's API (``gymnasium.utils.env_checker.check_env`` passes).

    ``info`` carries ``outcome`` (1 goal, -1 captured, 0 otherwise), ``is_success``,
    ``length``, ``waits`` and ``cover_steps``.

    Parameters
    ----------
    layout : Layout or str, default "occluded"
        A ``Layout``, or a kind for ``make_layout``: ``"occluded"``, ``"open"`` or ``"random"``
        (drawn from ``layout_seed``).
    config : ArenaConfig or None, default None
        The task's constants; None means ``ArenaConfig()``.
    render_mode : {None, "rgb_array"}, default None
        With ``"rgb_array"``, ``render`` returns the image of :func:`render_arena`.
    layout_seed : int, default 0
        Seed of a ``"random"`` layout (used only when ``layout`` is a string).
    size : int, default 11
        Side of the square arena built from a string ``layout``, ``>= 5``.

    Notes
    -----
    Observations are float32 vectors (2 N + 1,) in ``[0, 1]``; actions are ``Discrete(5)``.
    ``reset(seed=...)`` makes the episode's random stream Gymnasium's ``np_random``.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 8}

    def __init__(
        self,
        layout: Layout | str = "occluded",
        config: ArenaConfig | None = None,
        render_mode: str | None = None,
        layout_seed: int = 0,
        size: int = 11,
    ) -> None:
        if isinstance(layout, str):
            layout = make_layout(layout, size=size, seed=layout_seed)
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self._core = VecPreyArena(layout, 1, config, seed=0)
        self.layout = self._core.layout
        self.observation_space = gym.spaces.Box(0.0, 1.0, (self._core.obs_dim,), np.float32)
        self.action_space = gym.spaces.Discrete(len(ACTION_NAMES))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._core.rng = self.np_random
        obs = self._core.reset()
        return obs[0], {}

    def step(self, action):
        if np.ndim(action) != 0 or not np.issubdtype(np.asarray(action).dtype, np.integer):
            raise ValueError(f"action must be an integer in [0, {len(ACTION_NAMES)}): {action!r}")
        obs, reward, terminated, truncated, info = self._core.step(np.array([int(action)]))
        info = {k: int(v[0]) for k, v in info.items()}
        info["is_success"] = info["outcome"] == SUCCESS
        return obs[0], float(reward[0]), bool(terminated[0]), bool(truncated[0]), info

    def render(self):
        if self.render_mode != "rgb_array":
            return None
        return render_arena(self.layout, prey=self._core.prey[0], predator=self._core.predator[0])


COLOURS = {
    "cover": (235, 235, 235),
    "open": (255, 250, 215),
    "wall": (60, 60, 60),
    "goal": (120, 200, 120),
    "start": (160, 190, 230),
    "prey": (40, 90, 200),
    "predator": (210, 40, 40),
}


def render_arena(
    layout: Layout, prey: int | None = None, predator: int | None = None, scale: int = 16
) -> np.ndarray:
    """Draw an arena as an RGB image, with the prey and the predator if given.

    Obstacles are dark, open ground pale yellow, cover grey, the start light blue, the goal
    green, the prey blue and the predator red.

    Parameters
    ----------
    layout : Layout
        The arena, of grid shape (H, W).
    prey : int or None, default None
        Free-cell number of the prey, in ``[0, N)``; None draws no prey.
    predator : int or None, default None
        Free-cell number of the predator, in ``[0, N)``; None draws no predator.
    scale : int, default 16
        Pixels per cell side, ``>= 1`` (the image may hold at most ``2**30`` bytes).

    Returns
    -------
    numpy.ndarray
        Image (H * scale, W * scale, 3), uint8.
    """
    if not isinstance(layout, Layout):
        raise TypeError(f"layout must be a Layout, got {type(layout).__name__}")
    check_int("scale", scale, minimum=1)
    pixels = 3 * layout.walls.size * scale**2
    if pixels > MAX_FLOATS:
        raise ValueError(f"scale is too large: an image of {pixels} bytes (at most 2**30)")
    for name, cell in (("prey", prey), ("predator", predator)):
        if cell is not None and (
            isinstance(cell, bool)
            or not isinstance(cell, numbers.Integral)
            or not 0 <= cell < len(layout.cells)
        ):
            raise ValueError(f"{name} must be a free-cell number in [0, {len(layout.cells)})")
    H, W = layout.shape
    img = np.zeros((H, W, 3), np.uint8)
    img[:] = COLOURS["wall"]
    kinds = np.where(layout.open_ground, 1, 0)
    for k, name in ((0, "cover"), (1, "open")):
        cells = layout.cells[kinds == k]
        img[cells[:, 0], cells[:, 1]] = COLOURS[name]
    img[layout.start] = COLOURS["start"]
    img[layout.goal] = COLOURS["goal"]
    for cell, name in ((prey, "prey"), (predator, "predator")):
        if cell is not None:
            r, c = layout.cells[int(cell)]
            img[r, c] = COLOURS[name]
    return np.kron(img, np.ones((scale, scale, 1), np.uint8))
