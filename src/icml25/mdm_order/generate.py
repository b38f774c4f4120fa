"""Puzzles with a unique solution, made here (the paper's data, Shah et al., is not reachable).

Kim et al. (ICML 2025, Sec. 5 and App. D) train on ~1.8M puzzles that a human-style solver
finishes without backtracking and keep the remaining ones as the "hard" set (Table 5). We draw
our own:

1. random full grids (:func:`random_solutions`): three diagonal boxes filled with random
   permutations (they share no unit), the rest completed by the exact solver with a random
   digit order;
2. puzzles (:func:`make_puzzles`): blank a random set of cells, keeping ``givens`` digits, and
   classify: ``"singles"`` when naked and hidden singles solve it (unique by construction),
   ``"hard"`` when it has exactly one solution (checked by counting to 2) and the solver's
   search needs at least ``min_guesses`` guesses (1: singles do not solve it). Rejected draws
   are redrawn.
3. :func:`augment`: the validity-preserving symmetries of Sudoku (digit relabelling, rows
   within a band, bands, columns within a stack, stacks, transposition), used on training
   batches.
"""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_int
from icml25.mdm_order._checks import check_cells, check_entries
from icml25.mdm_order.sudoku import count_solutions, search_effort, singles_solvable

KINDS = ("singles", "hard")


def random_solutions(n: int, seed: int, pool: int = 64) -> np.ndarray:
    """Draw random complete Sudoku grids.

    ``pool`` base grids are made by the exact solver: the three diagonal boxes (which share no
    unit) are filled with random permutations and the rest is completed with a random digit order.
    Each output is one of them, picked at random, under a random symmetry (:func:`augment`).

    Parameters
    ----------
    n : int
        Number of grids, ``>= 1``.
    seed : int
        Seed of the numpy generator, ``>= 0``.
    pool : int, default 64
        Number of base grids drawn by the solver, ``>= 1``.

    Returns
    -------
    grids : ndarray of int64, shape (n, 81)
        Complete valid grids, digits ``1..9``.
    """
    n = check_int("n", n, minimum=1)
    pool = check_int("pool", pool, minimum=1)
    check_int("seed", seed, minimum=0)
    check_entries("max(n, pool) x 81 cells", max(n, pool) * 81)
    rng = np.random.default_rng(seed)
    grids = np.zeros((pool, 9, 9), dtype=np.int64)
    for b in range(3):  # the diagonal boxes are independent
        perms = rng.permuted(np.tile(np.arange(1, 10), (pool, 1)), axis=1)  # (pool, 9)
        grids[:, 3 * b : 3 * b + 3, 3 * b : 3 * b + 3] = perms.reshape(pool, 3, 3)
    seed_dfs = int(rng.integers(2**31))
    counts, base = count_solutions(grids.reshape(pool, 81), limit=1, seed=seed_dfs)
    assert (counts == 1).all()  # any diagonal-box fill completes
    base = base[rng.integers(pool, size=n)]  # (n, 81)
    return _augment(base, base, rng)[1]


def _remove_greedily(puzzles, order, stop, keeps) -> np.ndarray:
    """Blank the cells of ``order`` ``(N, 81)`` one by one, undoing a blank that makes
    ``keeps(puzzles) -> (N,) bool`` False, until ``stop(puzzles, rows)`` holds (or the order
    ends); ``rows`` are the indices of the puzzles passed."""
    puzzles = puzzles.copy()
    rows = np.arange(len(puzzles))
    for j in range(81):
        rows = rows[~stop(puzzles[rows], rows)]
        if not rows.size:
            break
        trial = puzzles[rows]
        trial[np.arange(len(rows)), order[rows, j]] = 0
        ok = keeps(trial)
        puzzles[rows[ok]] = trial[ok]
    return puzzles


def _at_target(target: np.ndarray):
    return lambda puzzles, rows: (puzzles > 0).sum(1) <= target[rows]


def _unique(puzzles: np.ndarray) -> np.ndarray:
    return count_solutions(puzzles, limit=2)[0] == 1


def make_puzzles(
    n: int, givens: tuple[int, int], kind: str, seed: int, pool: int = 64, min_guesses: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Make puzzles of one kind, each with a unique solution.

    From a random full grid (:func:`random_solutions`), cells are blanked in a random order, each
    blank kept only if naked and hidden singles still solve the puzzle, until a target number of
    givens drawn uniformly in ``givens`` is reached (or no cell can go, which leaves a few more
    givens). ``"singles"`` returns these puzzles. ``"hard"`` goes on blanking in a new random
    order, keeping a blank only while the solution stays unique (counted to 2), and stops at the
    first puzzle whose search effort (:func:`~icml25.mdm_order.sudoku.search_effort`) reaches
    ``min_guesses``; draws that never get there are redrawn.

    Parameters
    ----------
    n : int
        Number of puzzles, ``>= 1``.
    givens : tuple of (int, int)
        ``(low, high)`` range of the number of givens of the first stage, with
        ``17 <= low <= high <= 80``.
    kind : {"singles", "hard"}
        Puzzles the singles rules solve, or unique puzzles that need search.
    seed : int
        Seed of the numpy generator, ``>= 0``.
    pool : int, default 64
        Base grids per call of :func:`random_solutions`, ``>= 1``.
    min_guesses : int, default 1
        Least search effort of a ``"hard"`` puzzle, ``>= 1``; 1 means the first puzzle that the
        singles rules do not solve. Not used by ``"singles"``.

    Returns
    -------
    puzzles : ndarray of int64, shape (n, 81)
        The puzzles, 0 for a blank.
    solutions : ndarray of int64, shape (n, 81)
        Their solutions.
    """
    n = check_int("n", n, minimum=1)
    check_int("seed", seed, minimum=0)
    check_entries("n x 81 cells", n * 81)
    try:
        low, high = givens
    except (TypeError, ValueError):
        raise ValueError(f"givens must be a pair (low, high), got {givens!r}") from None
    low, high = (check_int("givens", g, minimum=17) for g in (low, high))
    if high < low or high > 80:
        raise ValueError(f"givens must be (low, high) with 17 <= low <= high <= 80, got {givens}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    min_guesses = check_int("min_guesses", min_guesses, minimum=1)
    rng = np.random.default_rng(seed)
    found_p, found_s, have = [], [], 0
    while have < n:
        batch = n - have if kind == "singles" else 2 * (n - have) + 16
        sol = random_solutions(batch, int(rng.integers(2**31)), pool)
        target = rng.integers(low, high + 1, size=batch)  # (batch,)
        order = rng.random((batch, 81)).argsort(1)  # (batch, 81)
        puzzles = _remove_greedily(sol, order, _at_target(target), singles_solvable)
        ok = np.ones(batch, dtype=bool)
        if kind == "hard":
            order = rng.random((batch, 81)).argsort(1)
            hard_enough = lambda p, _: search_effort(p) >= min_guesses  # noqa: E731
            puzzles = _remove_greedily(puzzles, order, hard_enough, _unique)
            ok = search_effort(puzzles) >= min_guesses
        found_p.append(puzzles[ok])
        found_s.append(sol[ok])
        have += int(ok.sum())
    return np.concatenate(found_p)[:n], np.concatenate(found_s)[:n]


def augment(puzzles: np.ndarray, solutions: np.ndarray, rng: np.random.Generator):
    """Apply one random Sudoku symmetry per row to puzzles and solutions alike.

    The symmetries keep a grid valid: relabelling the digits, permuting rows within a band, bands,
    columns within a stack and stacks, and transposing (with probability 1/2).

    Parameters
    ----------
    puzzles : ndarray of int, shape (B, 81)
        Grids with entries ``0..9`` (0 = blank).
    solutions : ndarray of int, shape (B, 81)
        Grids of the same shape with entries ``0..9``, transformed with the same symmetry per row.
    rng : numpy.random.Generator
        Source of the random symmetries; anything else raises TypeError.

    Returns
    -------
    puzzles : ndarray of int64, shape (B, 81)
        The transformed puzzles (blanks stay 0).
    solutions : ndarray of int64, shape (B, 81)
        The transformed solutions.
    """
    check_cells("puzzles", puzzles, 9)
    check_cells("solutions", solutions, 9)
    if np.shape(puzzles) != np.shape(solutions):
        raise ValueError(
            f"solutions must have the shape of puzzles {np.shape(puzzles)}, "
            f"got {np.shape(solutions)}"
        )
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return _augment(puzzles, solutions, rng)


def _augment(puzzles: np.ndarray, solutions: np.ndarray, rng: np.random.Generator):
    B = len(puzzles)
    digit = np.concatenate(  # (B, 10): 0 stays blank
        [np.zeros((B, 1), np.int64), rng.permuted(np.tile(np.arange(1, 10), (B, 1)), axis=1)], 1
    )

    def lines() -> np.ndarray:  # (B, 9) a random permutation of rows (or columns)
        bands = rng.permuted(np.tile(np.arange(3), (B, 1)), axis=1)  # (B, 3)
        within = rng.permuted(np.tile(np.arange(3), (B * 3, 1)), axis=1).reshape(B, 3, 3)
        return (3 * bands[:, :, None] + within).reshape(B, 9)

    rows, cols = lines(), lines()
    cells = rows[:, :, None] * 9 + cols[:, None, :]  # (B, 9, 9)
    flip = rng.random(B) < 0.5
    cells[flip] = cells[flip].transpose(0, 2, 1)
    cells = cells.reshape(B, 81)
    take = np.take_along_axis
    out_p = take(digit, take(puzzles, cells, 1), 1)
    out_s = take(digit, take(solutions, cells, 1), 1)
    return out_p, out_s
