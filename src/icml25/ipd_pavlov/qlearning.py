"""Self-play tabular Q-learning in the iterated prisoner's dilemma.

Bertrand, Duque, Calvano & Gidel, "Self-play Q-learners can provably collude in the iterated
prisoner's dilemma", ICML 2025 (arXiv 2312.08484).

Game. Actions ``D = 0`` and ``C = 1``. With the incentive to cooperate ``1 < g < 2``, the row
player's reward is

    r(a, b) = 2 (1 - a) + g (a + b),       so  P = r(D,D) = 2,  T = r(D,C) = 2 + g,
                                               S = r(C,D) = g,  R = r(C,C) = 2 g,

and ``T > R > P > S``. A player's state is the previous pair of actions (its own first, then
the other's): ``DD, DC, CD, CC`` are states ``0, 1, 2, 3`` (``s = 2 a_self + a_other``).

Learning. Both players act on one shared table ``Q`` of shape ``(4, 2)``, greedily (ties go to
D), each flipping its action with probability ``epsilon``. The table learns from player 1's
experience only (the paper's self-play scheme):

    Q(s, a1) <- Q(s, a1) + alpha [ r(a1, a2) + gamma max_a Q(s', a) - Q(s, a1) ],
    s = (a1_prev, a2_prev),  s' = (a1, a2).

The paper starts from ``Q0``, the value of always-defect against a uniformly random opponent
(its Eq. for the always-defect initialisation). Theorem 3.2 (epsilon = 0) shows three phases:
always-defect ``DDDD`` -> lose-shift ``CDDD`` -> Pavlov ``CDDC`` (win-stay, lose-shift), which
is a fixed point iff ``gamma (R - P) > T - R``; Theorem 3.3 extends this to small epsilon with
high probability.
"""

from __future__ import annotations

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real

MAX_FLOATS = 2**30  # an array of more float64s (8 GiB) is refused as a size typo

STATES = ("DD", "DC", "CD", "CC")
ACTIONS = ("D", "C")
PAVLOV = "CDDC"
ALWAYS_DEFECT = "DDDD"
LOSE_SHIFT = "CDDD"


def payoffs(g: float = 1.8) -> np.ndarray:
    """The row player's payoff matrix ``r[a_self, a_other]``, actions indexed D = 0, C = 1.

    Parameters
    ----------
    g : float, default 1.8
        Incentive to cooperate, ``1 < g < 2``.

    Returns
    -------
    r : ndarray, shape (2, 2)
        ``[[P, T], [S, R]] = [[2, 2 + g], [g, 2 g]]``.
    """
    g = check_real("g", g, low=1.0, high=2.0, low_open=True, high_open=True)
    return np.array([[2.0, 2.0 + g], [g, 2.0 * g]])


def pavlov_is_fixed_point(g: float = 1.8, gamma: float = 0.6) -> bool:
    """Whether Pavlov is a fixed point of the learning dynamics: ``gamma (R - P) > T - R``.

    Parameters
    ----------
    g : float, default 1.8
        Incentive to cooperate, ``1 < g < 2``.
    gamma : float, default 0.6
        Discount factor, ``0 <= gamma < 1``.

    Returns
    -------
    bool
        True iff ``gamma (R - P) > T - R``.
    """
    gamma = check_real("gamma", gamma, low=0.0, high=1.0, high_open=True)
    r = payoffs(g)
    P, T, R = r[0, 0], r[0, 1], r[1, 1]
    return bool(gamma * (R - P) > T - R)


def initial_q(g: float = 1.8, gamma: float = 0.6) -> np.ndarray:
    """The always-defect initialisation ``Q0``: shape (4, 2), the same row for every state.

    ``Q0(s, D) = (P + T) / (2 (1 - gamma))`` and
    ``Q0(s, C) = (S + R) / 2 + gamma (P + T) / (2 (1 - gamma))``: play the action once against
    an opponent who plays uniformly at random, then defect for ever.

    Parameters
    ----------
    g : float, default 1.8
        Incentive to cooperate, ``1 < g < 2``.
    gamma : float, default 0.6
        Discount factor, ``0 <= gamma < 1``.

    Returns
    -------
    q0 : ndarray, shape (4, 2)
        The initial table, columns D and C, the same row for every state.
    """
    gamma = check_real("gamma", gamma, low=0.0, high=1.0, high_open=True)
    r = payoffs(g)
    defect_forever = (r[0, 0] + r[0, 1]) / (2.0 * (1.0 - gamma))
    row = [defect_forever, (r[1, 0] + r[1, 1]) / 2.0 + gamma * defect_forever]
    return np.tile(row, (4, 1))


def self_play(
    alpha: float,
    epsilon: float,
    steps: int,
    runs: int,
    *,
    g: float = 1.8,
    gamma: float = 0.6,
    q0: np.ndarray | None = None,
    seed: int | np.random.Generator = 0,
    record_every: int | None = None,
):
    """Run ``runs`` independent self-play Q-learners for ``steps`` steps, all at once.

    Parameters
    ----------
    alpha : float
        Step size, in ``(0, 1]``.
    epsilon : float
        Probability that each player flips its greedy action, in ``[0, 1]``.
    steps : int
        Number of plays of the stage game, ``>= 1``.
    runs : int
        Number of independent learners simulated side by side, ``>= 1``.
    g : float, default 1.8
        Incentive to cooperate, ``1 < g < 2``.
    gamma : float, default 0.6
        Discount factor, ``0 <= gamma < 1``.
    q0 : ndarray, shape (4, 2), optional
        Initial table; default ``initial_q(g, gamma)``.
    seed : int or numpy.random.Generator, default 0
        Seed (``>= 0``) or generator of the exploration flips.
    record_every : int, optional
        If given (``>= 1``), also return the tables every ``record_every`` steps.

    Returns
    -------
    q : ndarray, shape (runs, 4, 2)
        The final tables.
    trajectory : dict
        Only when ``record_every`` is given: ``"step"`` of shape (K,) and ``"q"`` of shape
        (K, runs, 4, 2), the tables after steps 0, record_every, 2 record_every, ...;
        ``"policy_path"``, for each run the list of the distinct greedy policies it went
        through, in order, tracked at every step whatever ``record_every``; and
        ``"path_step"``, for each run an int array of the steps at which each of those policies
        began (0 for the first; a policy that begins at step t is the one after update t).

    Notes
    -----

    Every run starts from state DD (both defected), as in the paper's code. Player 2 reads the
    shared table from its own point of view (its own previous action first).
    """
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True)
    epsilon = check_real("epsilon", epsilon, low=0.0, high=1.0)
    steps = check_int("steps", steps, minimum=1)
    runs = check_int("runs", runs, minimum=1)
    gamma = check_real("gamma", gamma, low=0.0, high=1.0, high_open=True)
    r = payoffs(g).ravel()  # (4,), index 2 a1 + a2
    if q0 is None:
        q0 = initial_q(g, gamma)
    q0 = real_array("q0", q0)
    if q0.shape != (4, 2) or not np.all(np.isfinite(q0)):
        raise ValueError(f"q0 must be a finite array of shape (4, 2), got shape {q0.shape}")
    _check_size("runs", 8 * runs)
    if record_every is not None:
        record_every = check_int("record_every", record_every, minimum=1)
        _check_size("record_every", 8 * runs * (steps // record_every + 1), "the recorded tables")
    if not isinstance(seed, np.random.Generator):
        check_int("seed", seed, minimum=0)
    rng = np.random.default_rng(seed)

    q = np.tile(q0.ravel(), runs)  # (runs * 8,), flat index 8 run + 2 s + a
    base = 8 * np.arange(runs)  # (runs,)
    a1 = np.zeros(runs, dtype=np.int64)  # previous actions, start at DD
    a2 = np.zeros(runs, dtype=np.int64)
    tracking = record_every is not None
    recorded = [q.copy()] if tracking else []
    code = np.full(runs, _policy_code(q0))  # bit s set iff the greedy action in state s is C
    changes = []  # (step, runs that changed policy, their new codes), in order of time
    block = max(1, min(steps, 2**20 // runs))
    for start in range(0, steps, block):
        n = min(block, steps - start)
        flips = rng.random((n, 2, runs)) < epsilon if epsilon > 0 else np.zeros((n, 2, runs), bool)
        for t in range(n):
            state = 2 * a1 + a2  # player 1's state (own action first)
            s1 = base + 2 * state  # flat offset of its row
            s2 = base + 4 * a2 + 2 * a1  # player 2's own view of the same history
            b1 = ((q[s1 + 1] > q[s1]) ^ flips[t, 0]).astype(np.int64)  # greedy, ties to D
            b2 = ((q[s2 + 1] > q[s2]) ^ flips[t, 1]).astype(np.int64)
            nxt = base + 4 * b1 + 2 * b2
            target = r[2 * b1 + b2] + gamma * np.maximum(q[nxt], q[nxt + 1])
            idx = s1 + b1
            q[idx] += alpha * (target - q[idx])
            a1, a2 = b1, b2
            if tracking:
                cooperate = (q[s1 + 1] > q[s1]).astype(np.int64)  # only row s1 changed
                new = (code & ~(1 << state)) | (cooperate << state)
                moved = np.flatnonzero(new != code)
                if moved.size:
                    changes.append((start + t + 1, moved, new[moved]))
                code = new
                if (start + t + 1) % record_every == 0:
                    recorded.append(q.copy())
    q = q.reshape(runs, 4, 2)
    if not tracking:
        return q
    path, path_step = _paths(_policy_code(q0), changes, runs)
    trajectory = {
        "step": np.arange(len(recorded)) * record_every,
        "q": np.stack(recorded).reshape(len(recorded), runs, 4, 2),
        "policy_path": path,
        "path_step": path_step,
    }
    return q, trajectory


def _check_size(name: str, floats: int, what: str = "an array") -> None:
    """ValueError naming ``name`` when an array it sizes would hold more than 2**30 floats."""
    if floats > MAX_FLOATS:
        raise ValueError(f"{name} is too large: {what} would hold {floats} floats (at most 2**30)")


def _check_word(name: str, word) -> None:
    """A greedy policy: 4 letters C or D, one per state DD, DC, CD, CC."""
    if not isinstance(word, str) or len(word) != 4 or not set(word) <= set(ACTIONS):
        raise ValueError(
            f"{name} must be a policy of 4 letters C or D such as 'CDDC', got {word!r}"
        )


def _check_trajectory(trajectory: dict, steps: int | None = None) -> None:
    """``trajectory`` as ``self_play(..., record_every=k)`` returns it and, given ``steps``, a
    number of steps that the run it records can have had."""
    if not isinstance(trajectory, dict):
        raise TypeError(
            f"trajectory must be the dict of self_play(..., record_every=k), got "
            f"{type(trajectory).__name__}"
        )
    missing = sorted({"step", "policy_path", "path_step"} - trajectory.keys())
    if missing:
        raise ValueError(f"trajectory must hold the keys of self_play's trajectory: {missing}")
    if steps is None:
        return
    recorded = np.asarray(trajectory["step"])
    low = max([int(recorded[-1])] + [int(began[-1]) for began in trajectory["path_step"]])
    high = low + int(recorded[1] - recorded[0]) - 1 if recorded.size > 1 else None
    if steps < low or (high is not None and steps > high):
        raise ValueError(
            f"steps must be the run's number of steps, in [{low}, {high}] for this trajectory, "
            f"got {steps}"
        )


def _policy_code(q0: np.ndarray) -> int:
    """The greedy policy of one table as 4 bits, bit s set iff C is strictly better in state s."""
    return int(sum(1 << s for s in range(4) if q0[s, 1] > q0[s, 0]))


def _paths(start: int, changes: list, runs: int) -> tuple[list[list[str]], list[np.ndarray]]:
    """Per run, its policies in order (the start, then each change recorded during play) and
    the steps at which each of them began (0 for the start)."""
    words = ["".join("C" if code >> s & 1 else "D" for s in range(4)) for code in range(16)]
    if changes:
        when = np.concatenate([np.full(m.size, t) for t, m, _ in changes])
        who = np.concatenate([m for _, m, _ in changes])
        what = np.concatenate([c for _, _, c in changes])
        order = np.argsort(who, kind="stable")  # group by run, keeping time order
        bounds = np.cumsum(np.bincount(who, minlength=runs))[:-1]
        codes, steps = np.split(what[order], bounds), np.split(when[order], bounds)
    else:
        codes, steps = [np.empty(0, np.int64)] * runs, [np.empty(0, np.int64)] * runs
    paths = [[words[start]] + [words[c] for c in run] for run in codes]
    return paths, [np.concatenate([[0], run]).astype(np.int64) for run in steps]


def time_in_policy(trajectory: dict, word: str, steps: int, start: int = 0) -> np.ndarray:
    """Share of the steps ``start < t <= steps`` that each run spent with greedy policy ``word``.

    ``trajectory`` is what ``self_play(..., record_every=k)`` returns with ``steps`` steps; the
    policy after step ``t`` counts for step ``t``. Returns shape (runs,).

    Parameters
    ----------
    trajectory : dict
        What ``self_play(..., record_every=k)`` returns as its second value.
    word : str
        A greedy policy: 4 letters C or D over states DD, DC, CD, CC, such as ``"CDDC"``.
    steps : int
        The run's number of steps, ``>= 1``.
    start : int, default 0
        Steps up to ``start`` are not counted, ``0 <= start < steps``.

    Returns
    -------
    share : ndarray, shape (runs,)
        Share of the steps in ``(start, steps]`` each run spent with policy ``word``.
    """
    steps = check_int("steps", steps, minimum=1)
    start = check_int("start", start, minimum=0)
    if start >= steps:
        raise ValueError(f"start must be < steps = {steps}, got {start}")
    _check_trajectory(trajectory, steps)
    _check_word("word", word)
    shares = []
    for path, began in zip(trajectory["policy_path"], trajectory["path_step"], strict=True):
        ends = np.append(began[1:], steps + 1)  # policy i holds for steps began[i] .. ends[i]-1
        inside = np.clip(ends, start + 1, steps + 1) - np.clip(began, start + 1, steps + 1)
        shares.append(inside[np.asarray(path) == word].sum() / (steps - start))
    return np.asarray(shares)


def count_switches(trajectory: dict, first: str, second: str, start: int = 0) -> np.ndarray:
    """Per run, how many times its greedy policy moved directly between ``first`` and ``second``
    (either way) after step ``start``. ``trajectory`` as in ``time_in_policy``; shape (runs,).

    Parameters
    ----------
    trajectory : dict
        What ``self_play(..., record_every=k)`` returns as its second value.
    first : str
        A greedy policy of 4 letters C or D, such as ``"CDDC"``.
    second : str
        Another greedy policy of 4 letters C or D.
    start : int, default 0
        Only switches at steps after ``start`` count, ``>= 0``.

    Returns
    -------
    switches : ndarray of int64, shape (runs,)
        Direct moves between ``first`` and ``second``, either way, per run.
    """
    start = check_int("start", start, minimum=0)
    _check_trajectory(trajectory)
    _check_word("first", first)
    _check_word("second", second)
    pairs = {(first, second), (second, first)}
    counts = []
    for path, began in zip(trajectory["policy_path"], trajectory["path_step"], strict=True):
        moves = zip(path[:-1], path[1:], began[1:], strict=True)
        counts.append(sum((a, b) in pairs and t > start for a, b, t in moves))
    return np.array(counts, dtype=np.int64)


def policy(q: np.ndarray):
    """The greedy policy of Q tables as 4-letter strings over states DD, DC, CD, CC.

    ``q`` of shape (4, 2) gives a str; shape (..., 4, 2) gives an array of str of shape (...).
    Ties go to D, as in play. Pavlov is ``'CDDC'``, always-defect ``'DDDD'``, lose-shift ``'CDDD'``.

    Parameters
    ----------
    q : array_like of float, shape (..., 4, 2)
        Q tables, columns D and C.

    Returns
    -------
    str or ndarray of str
        The policy of one table (``q`` of shape (4, 2)), else an array of shape (...).
    """
    q = real_array("q", q)
    if q.ndim < 2 or q.shape[-2:] != (4, 2):
        raise ValueError(f"q must have shape (..., 4, 2), got {q.shape}")
    cooperate = q[..., 1] > q[..., 0]  # (..., 4)
    letters = np.where(cooperate, "C", "D")
    words = np.char.add(
        np.char.add(letters[..., 0], letters[..., 1]), np.char.add(letters[..., 2], letters[..., 3])
    )
    return str(words) if q.ndim == 2 else words
