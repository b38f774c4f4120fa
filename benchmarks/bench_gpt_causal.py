"""gpt_causal: the bitboard Othello engine against a plain Python engine, and the ordered causal
discovery's time against the number of tokens.

1. Engine: random legal games played to the end. The anchor is what a user would write: one
   game at a time on a list-of-lists board (``othello_reference.ReferenceOthello``), a legal
   move found by scanning the 8 directions from every square. Ours plays all games at once on
   ``uint64`` bitboards (``othello.play_games``). Throughput in moves per second.
2. Causal discovery: the ordered search of ``causal_discovery`` on the correlation of a causal
   softmax attention over T tokens, against the same search with one CI test per Python call
   (partial correlation by a matrix inverse per test, as causality-lab's ``CondIndepParCorr``
   does); both must find the same structure.

    OMP_NUM_THREADS=1 python benchmarks/bench_gpt_causal.py
"""

from __future__ import annotations

import random
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.gpt_causal.causal_discovery import (  # noqa: E402
    attention_correlation,
    ordered_causal_discovery,
)
from icml25.gpt_causal.othello import play_games  # noqa: E402
from icml25.gpt_causal.othello_reference import ReferenceOthello  # noqa: E402


def reference_games(n: int, seed: int) -> int:
    """Random games one at a time on the plain engine; returns the number of moves played."""
    rnd, count = random.Random(seed), 0
    for _ in range(n):
        game = ReferenceOthello()
        while legal := game.legal_moves():
            game.play(rnd.choice(legal))
            count += 1
    return count


def bitboard_games(n: int, seed: int) -> int:
    moves, _ = play_games(n, np.random.default_rng(seed), "random")
    return int((moves >= 0).sum())


def attention(T: int, rng: np.random.Generator, sharpness: float = 3.0) -> np.ndarray:
    """A causal softmax attention (T, T) from random scores."""
    scores = sharpness * rng.standard_normal((T, T))
    scores[np.triu_indices(T, 1)] = -np.inf
    A = np.exp(scores - scores.max(axis=1, keepdims=True))
    return A / A.sum(axis=1, keepdims=True)


def one_test_at_a_time(R: np.ndarray, n: int, alpha: float, max_cond: int) -> np.ndarray:
    """The same ordered, stable search with a Python call per CI test."""
    T = len(R)
    adj = np.triu(np.ones((T, T), dtype=bool), 1)
    for r in range(max_cond + 1):
        start = adj.copy()
        for j in range(T):
            parents = list(np.flatnonzero(start[:, j]))
            for i in parents:
                for Z in combinations([k for k in parents if k != i], r):
                    idx = (i, j) + Z
                    P = np.linalg.inv(R[np.ix_(idx, idx)])
                    rho = -P[0, 1] / np.sqrt(abs(P[0, 0] * P[1, 1]))
                    z = np.sqrt(n - r - 3) * np.arctanh(min(abs(rho), 1 - 1e-12))
                    if 2 * stats.norm.sf(z) > alpha:
                        adj[i, j] = False
    return adj


def main() -> None:
    rows = []
    for n_ref, n_ours in [(50, 1000), (200, 10000)]:
        t_ref, m_ref, moves_ref = measure(lambda n=n_ref: reference_games(n, 0), repeat=1)
        t_ours, m_ours, moves_ours = measure(lambda n=n_ours: bitboard_games(n, 0), repeat=3)
        mps_ref, mps_ours = moves_ref / t_ref, moves_ours / t_ours
        rows.append([n_ref, n_ours, mps_ref, mps_ours, mps_ours / mps_ref, m_ref, m_ours])
    print(table(ENGINE_HEADER, rows), flush=True)

    rows = []
    for T in (8, 16, 24, 31):
        R = attention_correlation(attention(T, np.random.default_rng(T)))
        t_ours, m_ours, s = measure(lambda R=R: ordered_causal_discovery(R, 64, 0.01, 2))
        t_loop, _, adj = measure(lambda R=R: one_test_at_a_time(R, 64, 0.01, 2), repeat=1)
        assert (adj == s.adjacency).all(), "the two searches disagree"
        rows.append(
            [T, s.log_pvalues.size, int(s.adjacency.sum()), t_loop, t_ours, t_loop / t_ours, m_ours]
        )
    print(table(DISCOVERY_HEADER, rows))


ENGINE_HEADER = [
    "games (plain)",
    "games (bitboard)",
    "plain moves/s",
    "bitboard moves/s",
    "ratio",
    "plain peak MB",
    "bitboard peak MB",
]
DISCOVERY_HEADER = [
    "tokens T",
    "CI tests",
    "edges",
    "one test per call s",
    "batched s",
    "speed-up",
    "batched peak MB",
]

if __name__ == "__main__":
    main()
