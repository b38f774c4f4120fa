"""A 6x6 Othello engine on bitboards, vectorised over a batch of games.

Rohekar et al. (ICML 2025) test a GPT trained on Othello move sequences (8x8 in the paper; 6x6
here, for a CPU budget). A board is two ``uint64`` bitboards, the stones of the side to move
``own`` and of its opponent ``opp``; square ``s = 6 r + c`` is bit ``s``. A move is legal when it
is empty and brackets a run of opponent stones in one of the 8 directions; the bracketed runs
flip. Both are computed for a whole batch at once by shifting bitboards in the 8 directions with
edge masks (no loop over games). A side with no legal move passes; the game ends when neither
side can move. Sequences record moves only (passes are implicit, as in Othello-GPT).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "SIZE",
    "SQUARES",
    "initial_boards",
    "legal_moves",
    "flips",
    "to_mask",
    "popcount",
    "play_games",
]

SIZE = 6
SQUARES = SIZE * SIZE
_U = np.uint64
_FULL = _U((1 << SQUARES) - 1)
_NOT_COL0 = _U(sum(1 << (r * SIZE) for r in range(SIZE)) ^ ((1 << SQUARES) - 1))
_NOT_COL5 = _U(sum(1 << (r * SIZE + SIZE - 1) for r in range(SIZE)) ^ ((1 << SQUARES) - 1))
# (shift, mask applied after the shift): a positive shift moves bits towards higher squares
_DIRECTIONS = (
    (1, _NOT_COL0),  # east: column + 1
    (-1, _NOT_COL5),  # west
    (SIZE, _FULL),  # south: row + 1
    (-SIZE, _FULL),  # north
    (SIZE + 1, _NOT_COL0),  # south-east
    (SIZE - 1, _NOT_COL5),  # south-west
    (-SIZE + 1, _NOT_COL0),  # north-east
    (-SIZE - 1, _NOT_COL5),  # north-west
)
_BITS = np.left_shift(_U(1), np.arange(SQUARES, dtype=np.uint64))  # (36,)


def _shift(b: np.ndarray, shift: int, mask: np.uint64) -> np.ndarray:
    if shift > 0:
        return (b << _U(shift)) & mask & _FULL
    return (b >> _U(-shift)) & mask


def initial_boards(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` starting positions, black to move: ``(own, opp)`` each ``(n,)`` uint64. White holds
    the squares (2, 2) and (3, 3), black (2, 3) and (3, 2)."""
    white = _BITS[2 * SIZE + 2] | _BITS[3 * SIZE + 3]
    black = _BITS[2 * SIZE + 3] | _BITS[3 * SIZE + 2]
    return np.full(n, black, dtype=np.uint64), np.full(n, white, dtype=np.uint64)


def legal_moves(own: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """Bitboard of the legal moves of the side to move, per game: ``(B,)`` uint64.

    Parameters
    ----------
    own : ndarray of uint64, shape (B,)
        Stones of the side to move.
    opp : ndarray of uint64, shape (B,)
        Stones of its opponent.

    Returns
    -------
    legal : ndarray of uint64, shape (B,)
        Bit ``s`` set where square ``s`` is a legal move.
    """
    empty = ~(own | opp) & _FULL
    legal = np.zeros_like(own)
    for shift, mask in _DIRECTIONS:
        run = _shift(own, shift, mask) & opp
        for _ in range(SIZE - 3):  # a run of opponent stones is at most SIZE - 2 long
            run |= _shift(run, shift, mask) & opp
        legal |= _shift(run, shift, mask) & empty
    return legal


def flips(own: np.ndarray, opp: np.ndarray, move: np.ndarray) -> np.ndarray:
    """Bitboard of the opponent stones flipped by playing ``move`` (square indices, any shape
    broadcasting with ``own``); 0 where the move flips nothing (an illegal move), and 0 on an
    occupied square, where no stone can be played.

    Parameters
    ----------
    own : ndarray of uint64
        Stones of the side to move.
    opp : ndarray of uint64
        Stones of its opponent.
    move : array_like of int
        Square indices in ``[0, 36)``, broadcasting with ``own``.

    Returns
    -------
    flipped : ndarray of uint64
        Bitboard of the flipped stones, of the broadcast shape.
    """
    m = _BITS[np.asarray(move)]
    own, opp, m = np.broadcast_arrays(own, opp, m)
    m = np.where((m & (own | opp)) != 0, _U(0), m)  # an occupied square starts no run
    out = np.zeros(m.shape, dtype=np.uint64)
    for shift, mask in _DIRECTIONS:
        x, run = m, np.zeros_like(m)
        going = np.ones(m.shape, dtype=bool)
        for _ in range(SIZE - 1):
            x = _shift(x, shift, mask)
            bracket = going & ((x & own) != 0)
            out |= np.where(bracket, run, _U(0))
            going &= (x & opp) != 0
            run = np.where(going, run | x, run)
    return out


def to_mask(b: np.ndarray) -> np.ndarray:
    """Bitboards ``(...,)`` -> booleans ``(..., 36)``, square ``s`` at index ``s``."""
    return ((np.asarray(b)[..., None] >> np.arange(SQUARES, dtype=np.uint64)) & _U(1)).astype(bool)


def popcount(b: np.ndarray) -> np.ndarray:
    return np.bitwise_count(np.asarray(b, dtype=np.uint64)).astype(np.int64)


def play_games(
    n: int, rng: np.random.Generator, policy: str = "random", epsilon: float = 0.1
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``n`` games to the end, all at once.

    Parameters
    ----------
    n : int
        Number of games, ``>= 1``.
    rng : numpy.random.Generator
        Source of the move choices.
    policy : str, default "random"
        ``"random"`` picks a legal move uniformly (the paper's out-of-distribution "random
        legal moves" games); ``"greedy"`` is the "intent to win" player: the legal move
        flipping the most stones (ties at random), or, with probability ``epsilon``, a
        uniformly random legal move.
    epsilon : float, default 0.1
        Exploration probability of the greedy player, in ``[0, 1]``.

    Returns
    -------
    moves : ndarray of int64, shape (n, 32)
        The squares played in order, -1 after the end.
    legal : ndarray of bool, shape (n, 33, 36)
        ``legal[g, t]`` the legal moves of the side to move after ``t`` moves (after any
        pass), empty once the game is over.
    """
    if policy not in ("random", "greedy"):
        raise ValueError(f"policy must be 'random' or 'greedy', got {policy!r}")
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
    if int(n) < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    max_moves = SQUARES - 4
    own, opp = initial_boards(n)
    moves = np.full((n, max_moves), -1, dtype=np.int64)
    legal_seq = np.zeros((n, max_moves + 1, SQUARES), dtype=bool)
    for t in range(max_moves + 1):
        legal = legal_moves(own, opp)
        stuck = legal == 0
        own, opp = np.where(stuck, opp, own), np.where(stuck, own, opp)  # pass
        legal = np.where(stuck, legal_moves(own, opp), legal)
        mask = to_mask(legal)  # (n, 36)
        legal_seq[:, t] = mask
        alive = legal != 0
        if t == max_moves or not alive.any():
            break
        score = rng.random((n, SQUARES))  # uniform tie-breaks / random choice
        if policy == "greedy":
            gain = popcount(flips(own[:, None], opp[:, None], np.arange(SQUARES)))  # (n, 36)
            explore = rng.random(n) < epsilon
            score = np.where(explore[:, None], score, gain + 0.5 * score)
        move = np.where(mask, score, -1.0).argmax(axis=1)  # (n,)
        f = flips(own, opp, move)
        own = np.where(alive, own | f | _BITS[move], own)
        opp = np.where(alive, opp & ~f, opp)
        moves[:, t] = np.where(alive, move, -1)
        own, opp = np.where(alive, opp, own), np.where(alive, own, opp)  # the other side moves next
    return moves, legal_seq
