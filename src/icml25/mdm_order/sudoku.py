"""A vectorised Sudoku toolkit on candidate bitmasks: checks, singles, exact counting solver.

Kim et al., *Train for the Worst, Plan for the Best: Understanding Token Ordering in Masked
Diffusions* (ICML 2025), evaluate masked diffusion models on Sudoku (Sec. 5, Tables 2 and 5).
Their data (Shah et al.) cannot be downloaded here, so puzzles are made by
:mod:`icml25.mdm_order.generate`, with the tools of this module.

A grid is a row of 81 ints in row-major order, ``0`` for a blank and ``1..9`` for a digit; a
batch is ``(N, 81)``. A *candidate mask* is a ``uint16`` per cell whose bit ``d - 1`` says that
digit ``d`` is still possible there; a cell is *fixed* when one bit is left.

- :func:`propagate`: the two *singles* rules to a fixed point, for a whole batch at once:
  naked singles (a fixed digit leaves its 20 peers) and hidden singles (a digit with one place
  left in a row, column or box goes there);
- :func:`count_solutions`: exact solver, a depth-first search over a stack of batched states
  (propagate, drop dead states, branch on the cell with fewest candidates), counting up to
  ``limit`` solutions per puzzle;
- :func:`singles_solvable`: the difficulty split (solved by the singles rules alone, or "hard");
- :func:`search_effort`: difficulty as the solver's search (guesses to find the solution and
  prove it unique); :func:`singles_rounds`: the solver's order (round at which each cell is
  fixed).
"""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_int
from icml25.mdm_order._checks import check_cells

ALL = np.uint16(0x1FF)  # the nine candidate bits
POPCOUNT = np.array([bin(m).count("1") for m in range(512)], dtype=np.int8)  # (512,)
DIGIT_OF = np.zeros(512, dtype=np.int8)  # the digit of a one-bit mask, 0 otherwise
DIGIT_OF[1 << np.arange(9)] = np.arange(1, 10)


def _units() -> np.ndarray:
    """``(27, 9)`` cell indices of the 9 rows, 9 columns and 9 boxes."""
    cells = np.arange(81).reshape(9, 9)
    boxes = cells.reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(9, 9)
    return np.concatenate([cells, cells.T, boxes])


UNITS = _units()  # (27, 9)
CELL_UNITS = np.stack([np.flatnonzero((UNITS == c).any(1)) for c in range(81)])  # (81, 3)
CELL_SLOT = np.stack([np.flatnonzero(UNITS[CELL_UNITS[c]] == c) % 9 for c in range(81)])  # (81, 3)
PEERS = np.stack(
    [np.setdiff1d(np.unique(UNITS[CELL_UNITS[c]]), [c]) for c in range(81)]
)  # (81, 20) the cells sharing a unit with each cell
ROW, COL = np.divmod(np.arange(81), 9)  # (81,), (81,)
BOX = (ROW // 3) * 3 + COL // 3  # (81,)


def check_grids(name: str, grids, *, blanks: bool = True) -> np.ndarray:
    """Validate Sudoku grids and return them as an ``(N, 81)`` int64 array.

    Parameters
    ----------
    name : str
        Name of the argument, used in the error messages.
    grids : array_like of int
        One grid ``(81,)`` or ``(9, 9)``, or a batch ``(N, 81)`` or ``(N, 9, 9)``, ``N >= 1``, in
        row-major cell order. Integer-valued floats are accepted.
    blanks : bool, default True
        Whether ``0`` (a blank) is allowed; when False every entry must be a digit ``1..9``.

    Returns
    -------
    grids : ndarray of int64, shape (N, 81)
        The grids, one per row.

    Raises
    ------
    ValueError
        For a ragged or non-integer array, another shape, an entry outside ``0..9`` (``1..9``
        when ``blanks`` is False), or a digit that repeats in a row, column or box.
    """
    try:
        arr = np.asarray(grids)
    except ValueError as err:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular array of digits: {err}") from None
    if arr.dtype.kind not in "iu" and not (arr.dtype.kind == "f" and np.all(arr == np.round(arr))):
        raise ValueError(f"{name} must hold integers 0-9, got dtype {arr.dtype}")
    if arr.shape in ((81,), (9, 9)):
        arr = arr.reshape(1, 81)
    elif arr.ndim == 3 and arr.shape[1:] == (9, 9):
        arr = arr.reshape(-1, 81)
    if arr.ndim != 2 or arr.shape[1] != 81 or arr.shape[0] == 0:
        raise ValueError(
            f"{name} must have shape (81,), (9, 9), (N, 81) or (N, 9, 9), got {arr.shape}"
        )
    arr = arr.astype(np.int64)
    low = 0 if blanks else 1
    if arr.min() < low or arr.max() > 9:
        raise ValueError(f"{name} must hold digits {low}-9 (0 = blank), got values outside")
    onehot = arr[:, UNITS][..., None] == np.arange(1, 10)  # (N, 27, 9, 9)
    bad = (onehot.sum(2) > 1).any((1, 2))  # (N,)
    if bad.any():
        raise ValueError(
            f"{name} contradicts itself: a digit repeats in a row, column or box "
            f"(grid {int(np.flatnonzero(bad)[0])})"
        )
    return arr


def to_candidates(grids: np.ndarray) -> np.ndarray:
    """Turn grids into candidate bitmasks.

    A digit ``d`` becomes the mask with only bit ``d - 1`` set; a blank becomes ``0x1FF`` (all
    nine digits possible).

    Parameters
    ----------
    grids : ndarray of int, shape (N, 81)
        Grids with entries ``0..9`` (0 = blank); ``N`` may be 0. Other shapes and dtypes are
        refused with ValueError.

    Returns
    -------
    cand : ndarray of uint16, shape (N, 81)
        The candidate mask of every cell.
    """
    check_cells("grids", grids, 9)
    return _to_candidates(grids)


def _to_candidates(grids: np.ndarray) -> np.ndarray:
    bits = np.left_shift(1, np.maximum(grids - 1, 0)).astype(np.uint16)
    return np.where(grids > 0, bits, ALL).astype(np.uint16)


def to_grids(cand: np.ndarray) -> np.ndarray:
    """Turn candidate bitmasks back into grids.

    Parameters
    ----------
    cand : ndarray of int, shape (N, 81)
        Candidate masks with entries ``0..511``; ``N`` may be 0. Other shapes and dtypes are
        refused with ValueError.

    Returns
    -------
    grids : ndarray of int64, shape (N, 81)
        The digit of every fixed cell (one bit left), 0 for the other cells.
    """
    check_cells("cand", cand, 511)
    return _to_grids(cand)


def _to_grids(cand: np.ndarray) -> np.ndarray:
    return DIGIT_OF[cand].astype(np.int64)


def eliminate(cand: np.ndarray) -> np.ndarray:
    """One naked-singles round: every fixed digit is removed from its 20 peers. ``(N, 81)``."""
    fixed = np.where(POPCOUNT[cand] == 1, cand, 0).astype(np.uint16)  # (N, 81)
    seen = np.bitwise_or.reduce(fixed[:, PEERS], axis=2)  # (N, 81)
    return np.where(fixed > 0, cand, cand & ~seen).astype(np.uint16)


def hidden_singles(cand: np.ndarray) -> np.ndarray:
    """``(N, 81)`` mask of the digits each cell must take because it is their only place in one
    of its units (0 where none; two bits mean a contradiction)."""
    in_unit = cand[:, UNITS]  # (N, 27, 9)
    bits = (in_unit[..., None] >> np.arange(9, dtype=np.uint16)) & 1  # (N, 27, 9 cells, 9 digits)
    only = bits.sum(2, dtype=np.int8) == 1  # (N, 27, 9 digits)
    forced = (bits.astype(bool) & only[:, :, None, :]) @ (1 << np.arange(9))  # (N, 27, 9 cells)
    per_cell = forced[:, CELL_UNITS, CELL_SLOT]  # (N, 81, 3)
    return np.bitwise_or.reduce(per_cell, axis=2).astype(np.uint16)


def is_dead(cand: np.ndarray) -> np.ndarray:
    """``(N,)`` True where the state has no solution for a local reason: an empty cell, two fixed
    peers with one digit, a digit with no place in a unit."""
    pop = POPCOUNT[cand]
    fixed = np.where(pop == 1, cand, 0).astype(np.uint16)
    clash = ((fixed[:, :, None] & fixed[:, PEERS]) > 0).any((1, 2))
    covered = np.bitwise_or.reduce(cand[:, UNITS], axis=2)  # (N, 27)
    return (pop == 0).any(1) | clash | (covered != ALL).any(1)


def propagate(cand: np.ndarray, hidden: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Apply the singles rules to a fixed point, for a whole batch at once.

    Each round removes every fixed digit from its 20 peers (naked singles) and, if ``hidden``,
    places every digit that has one cell left in a row, column or box (hidden singles). Only rows
    that still change are recomputed.

    Parameters
    ----------
    cand : ndarray of int, shape (N, 81)
        Candidate masks with entries ``0..511`` (see :func:`to_candidates`). Other shapes and
        dtypes are refused with ValueError.
    hidden : bool, default True
        Whether to apply hidden singles as well as naked singles.

    Returns
    -------
    cand : ndarray of uint16, shape (N, 81)
        The reduced candidate masks.
    dead : ndarray of bool, shape (N,)
        True where a contradiction was found; the masks of such a row are meaningless.
    """
    check_cells("cand", cand, 511)
    return _propagate(cand, hidden)


def _propagate(cand: np.ndarray, hidden: bool = True) -> tuple[np.ndarray, np.ndarray]:
    cand = np.array(cand, dtype=np.uint16, copy=True)
    dead = np.zeros(len(cand), dtype=bool)
    active = np.arange(len(cand))
    while active.size:
        cur = cand[active]
        new = eliminate(cur)
        if hidden:
            forced = hidden_singles(new)
            new = np.where(forced > 0, new & forced, new).astype(np.uint16)
            dead[active[(POPCOUNT[forced] > 1).any(1)]] = True
        bad = is_dead(new)
        dead[active[bad]] = True
        changed = (new != cur).any(1) & ~bad
        cand[active] = new
        active = active[changed & ~dead[active]]
    return cand, dead


def singles_solvable(puzzles) -> np.ndarray:
    """Tell which puzzles naked and hidden singles alone solve.

    Such a puzzle has a unique solution. The paper's "hard" split is the unique puzzles for which
    this is False.

    Parameters
    ----------
    puzzles : array_like of int
        Grids as accepted by :func:`check_grids` (0 = blank).

    Returns
    -------
    solvable : ndarray of bool, shape (N,)
        True where propagation fills every cell without a contradiction.
    """
    grids = check_grids("puzzles", puzzles)
    cand, dead = _propagate(_to_candidates(grids))
    return ~dead & (POPCOUNT[cand] == 1).all(1)


def singles_rounds(puzzles) -> np.ndarray:
    """Give the round of the singles rules at which each cell gets fixed.

    A round is one naked-singles elimination followed by hidden singles, on the state left by the
    previous rounds. Sorting the blanks by their round gives the order in which a human-style
    solver fills the grid, the "solver's order" of the paper's autoregressive baseline.

    Parameters
    ----------
    puzzles : array_like of int
        Grids as accepted by :func:`check_grids` (0 = blank).

    Returns
    -------
    rounds : ndarray of int, shape (N, 81)
        0 for a clue, ``k >= 1`` for a cell first fixed in round ``k``, -1 for a cell the singles
        rules never fix.
    """
    grids = check_grids("puzzles", puzzles)
    cand = _to_candidates(grids)
    rounds = np.where(grids > 0, 0, -1)  # (N, 81)
    for k in range(1, 82):
        new = eliminate(cand)
        forced = hidden_singles(new)
        new = np.where(POPCOUNT[forced] == 1, new & forced, new).astype(np.uint16)
        fresh = (POPCOUNT[new] == 1) & (rounds < 0)
        if not fresh.any():
            break
        rounds[fresh] = k
        cand = new
    return rounds


def count_solutions(
    puzzles, limit: int = 2, seed: int | None = None, chunk: int = 4096
) -> tuple[np.ndarray, np.ndarray]:
    """Count the solutions of each puzzle, stopping at ``limit``.

    A depth-first search over one stack of states shared by all puzzles: each round pops as many
    states as there are unfinished puzzles (at most ``chunk``), propagates singles, records the
    solved states and pushes two children of each other state, on its cell with fewest
    candidates: the digit taken (explored first) and the digit excluded.

    Parameters
    ----------
    puzzles : array_like of int
        Grids as accepted by :func:`check_grids` (0 = blank).
    limit : int, default 2
        Stop counting a puzzle at this many solutions, ``>= 1``; 2 tells unique from not.
    seed : int or None, default None
        With a seed (``>= 0``) the digit tried first at a branching is random (used to draw random
        full grids); None tries the smallest digit first.
    chunk : int, default 4096
        Most states popped in one round, ``>= 1``.

    Returns
    -------
    counts : ndarray of int64, shape (N,)
        Number of solutions found, in ``0..limit``.
    first : ndarray of int64, shape (N, 81)
        The first solution found for each puzzle, zeros where there is none.
    """
    counts, first, _ = _search(puzzles, limit, seed, chunk)
    return counts, first


def search_effort(puzzles, chunk: int = 4096) -> np.ndarray:
    """Measure a puzzle's difficulty as the exact solver's search.

    The count of branchings (guesses) :func:`count_solutions` makes to count the solutions up to
    2, that is to find the solution and prove it unique, with singles propagated at every node and
    the smallest digit tried first.

    Parameters
    ----------
    puzzles : array_like of int
        Grids as accepted by :func:`check_grids` (0 = blank).
    chunk : int, default 4096
        Most states popped in one round of the search, ``>= 1``.

    Returns
    -------
    guesses : ndarray of int64, shape (N,)
        Branchings per puzzle; 0 when naked and hidden singles alone settle it.
    """
    return _search(puzzles, 2, None, chunk)[2]


def _search(puzzles, limit, seed, chunk) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The depth-first search of :func:`count_solutions`; also returns the branchings ``(N,)``."""
    grids = check_grids("puzzles", puzzles)
    limit = check_int("limit", limit, minimum=1)
    chunk = check_int("chunk", chunk, minimum=1)
    if seed is not None:
        check_int("seed", seed, minimum=0)
    rng = np.random.default_rng(seed) if seed is not None else None
    n = len(grids)
    counts = np.zeros(n, dtype=np.int64)
    guesses = np.zeros(n, dtype=np.int64)
    first = np.zeros((n, 81), dtype=np.int64)
    stack_cand, stack_owner = _to_candidates(grids), np.arange(n)
    while len(stack_owner):
        # one state per open puzzle on average: depth first for each, batched across them
        take = min(chunk, len(stack_owner), max(1, int((counts < limit).sum())))
        cand, owner = stack_cand[-take:], stack_owner[-take:]
        stack_cand, stack_owner = stack_cand[:-take], stack_owner[:-take]
        keep = counts[owner] < limit
        cand, dead = _propagate(cand[keep])
        owner = owner[keep][~dead]
        cand = cand[~dead]
        pop = POPCOUNT[cand].astype(np.int64)  # (S, 81)
        solved = (pop == 1).all(1)
        for i in np.flatnonzero(solved):  # few per round; order matters for `limit`
            if counts[owner[i]] == 0:
                first[owner[i]] = _to_grids(cand[i : i + 1])[0]
            counts[owner[i]] = min(counts[owner[i]] + 1, limit)
        cand, owner, pop = cand[~solved], owner[~solved], pop[~solved]
        if not len(owner):
            continue
        guesses += np.bincount(owner, minlength=n)
        cell = np.argmin(np.where(pop > 1, pop, 99), axis=1)  # (S,)
        rows = np.arange(len(owner))
        mask = cand[rows, cell]
        if rng is None:
            take = mask & (~mask + 1)  # lowest set bit
        else:
            bits = (mask[:, None] >> np.arange(9, dtype=np.uint16)) & 1  # (S, 9)
            score = np.where(bits > 0, rng.random(bits.shape), -1.0)
            take = (1 << np.argmax(score, axis=1)).astype(np.uint16)
        with_digit, without = cand.copy(), cand.copy()
        with_digit[rows, cell] = take
        without[rows, cell] = mask & ~take
        # LIFO: the "digit taken" children are explored first
        stack_cand = np.concatenate([stack_cand, without, with_digit])
        stack_owner = np.concatenate([stack_owner, owner, owner])
    return counts, first, guesses


def solve_exact(puzzles) -> np.ndarray:
    """Solve puzzles that have exactly one solution.

    Parameters
    ----------
    puzzles : array_like of int
        Grids as accepted by :func:`check_grids` (0 = blank).

    Returns
    -------
    solutions : ndarray of int64, shape (N, 81)
        The unique solution of each puzzle.

    Raises
    ------
    ValueError
        When a puzzle has no solution or more than one.
    """
    counts, first = count_solutions(puzzles, limit=2)
    if (counts != 1).any():
        i = int(np.flatnonzero(counts != 1)[0])
        raise ValueError(f"puzzles must have exactly one solution; puzzle {i} has {counts[i]}+")
    return first
