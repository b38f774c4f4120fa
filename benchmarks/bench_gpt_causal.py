"""gpt_causal: the ordered causal discovery against causality-lab's ordered ICD on the same
attention, and the bitboard Othello engine against a plain Python engine.

1. Engine: random legal games played to the end. The anchor is what a user would write: one
   game at a time on a list-of-lists board (``othello_reference.ReferenceOthello``), a legal
   move found by scanning the 8 directions from every square. Ours plays all games at once on
   ``uint64`` bitboards (``othello.play_games``). Throughput in moves per second.
2. Causal discovery (the anchor): the ordered search of ``causal_discovery`` on the correlation
   of a causal softmax attention over T tokens (n = 64, alpha = 0.01, conditioning sets up to
   2), beside causality-lab's ``LearnStructOrderedICD`` with ``CondIndepParCorr`` on the same
   correlation matrix (as its CLEANN explainer sets it up), imported from ``--official-src`` (a
   checkout of IntelLabs/causality-lab outside this repository; its code is never copied here).
   Compared: time, edges, the edges only one of them finds, and the p-values of causality-lab's
   CI test on every test our search ran. To explain the edge differences, a third search (a
   naive loop, one CI test per call) runs ours in causality-lab's non-stable order (an edge is
   removed as soon as a test accepts independence, and later tests see the thinned graph).
   Without ``--official-src`` only our search and the naive loop run.

    OMP_NUM_THREADS=1 python benchmarks/bench_gpt_causal.py --official-src /tmp/causality-lab
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from itertools import combinations
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.gpt_causal.causal_discovery import (  # noqa: E402
    _tests_of_size,
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


def non_stable_loop(R: np.ndarray, n: int, alpha: float, max_cond: int) -> np.ndarray:
    """Our search in causality-lab's non-stable order, one CI test per Python call: an edge is
    removed as soon as a test accepts independence, and later tests draw their conditioning
    sets from the thinned graph. Returns the skeleton (T, T), symmetric."""
    T = len(R)
    adj = np.triu(np.ones((T, T), dtype=bool), 1)
    for r in range(max_cond + 1):
        for j in range(T):
            for i in np.flatnonzero(adj[:, j]):
                parents = [k for k in np.flatnonzero(adj[:, j]) if k != i]
                for Z in combinations(parents, r):
                    idx = (i, j) + Z
                    P = np.linalg.inv(R[np.ix_(idx, idx)])
                    rho = -P[0, 1] / np.sqrt(abs(P[0, 0] * P[1, 1]))
                    z = np.sqrt(n - r - 3) * np.arctanh(min(abs(rho), 1 - 1e-12))
                    if 2 * stats.norm.sf(z) > alpha:
                        adj[i, j] = False
                        break
    return adj | adj.T


def causality_lab(R: np.ndarray, n: int, alpha: float, max_cond: int):
    """causality-lab's ordered ICD with its partial-correlation test on the correlation ``R``
    (set up as its CLEANN explainer does): (skeleton (T, T), CI tests run, the CI test)."""
    from causal_discovery_algs.ordered_icd import LearnStructOrderedICD  # noqa: PLC0415
    from causal_discovery_utils.cond_indep_tests import CondIndepParCorr  # noqa: PLC0415

    T = len(R)
    ci = CondIndepParCorr(
        threshold=alpha, dataset=None, num_records=n, num_vars=T, count_tests=True
    )
    ci.correlation_matrix = R
    search = LearnStructOrderedICD(set(range(T)), list(range(T)), ci, max_cond_size=max_cond)
    search.learn_structure()
    graph = search.graph
    skeleton = np.array([[i != j and graph.is_connected(i, j) for j in range(T)] for i in range(T)])
    return skeleton, sum(ci.test_counter), ci


def official_pvalues_gap(ci, R: np.ndarray, n: int, alpha: float, max_cond: int) -> tuple:
    """On every CI test our search ran: the largest |log p (ours) - log p (causality-lab)| over
    tests whose causality-lab p-value exceeds 1e-12 (its ``1 - cdf`` rounds smaller ones to 0),
    and the number of tests whose decision (p > alpha) differs."""
    s = ordered_causal_discovery(R, n, alpha, max_cond)
    T = len(R)
    adj = np.triu(np.ones((T, T), dtype=bool), 1)
    gap, flips = 0.0, 0
    logs = iter(s.log_pvalues)
    for r in range(max_cond + 1):  # replay our tests in the order our search ran them
        xs, ys, zs = _tests_of_size(adj, r)
        if len(xs) == 0:
            break
        removed = []
        for x, y, Z in zip(xs, ys, zs, strict=True):
            ours, theirs = next(logs), ci.calc_statistic(int(x), int(y), tuple(int(z) for z in Z))
            if theirs > 1e-12:
                gap = max(gap, abs(ours - np.log(theirs)))
            flips += (ours > np.log(alpha)) != (theirs > alpha)
            if ours > np.log(alpha):
                removed.append((x, y))
        for x, y in removed:
            adj[x, y] = False
    return gap, flips


def discovery(official_src: str | None, repeat: int = 3) -> str:
    rows = []
    for T in (8, 16, 24, 31):
        R = attention_correlation(attention(T, np.random.default_rng(T)))
        t_ours = t_lab = float("inf")
        for _ in range(repeat):  # interleaved, best of ``repeat``
            begin = time.perf_counter()
            s = ordered_causal_discovery(R, 64, 0.01, 2)
            t_ours = min(t_ours, time.perf_counter() - begin)
            if official_src:
                begin = time.perf_counter()
                lab, lab_tests, ci = causality_lab(R, 64, 0.01, 2)
                t_lab = min(t_lab, time.perf_counter() - begin)
        ours = s.adjacency | s.adjacency.T
        loop = non_stable_loop(R, 64, 0.01, 2)
        row = [T, s.log_pvalues.size, t_ours, int(ours.sum()) // 2]
        if official_src:
            gap, flips = official_pvalues_gap(ci, R, 64, 0.01, 2)
            row += [
                lab_tests,
                t_lab,
                t_lab / t_ours,
                int(lab.sum()) // 2,
                (ours.sum() / 2) / (lab.sum() / 2),
                int((lab & ~ours).sum()) // 2,
                int((ours & ~lab).sum()) // 2,
                int((loop != lab).sum()) // 2,
                gap,
                flips,
            ]
        else:
            row += ["skipped"] * 10
        rows.append(row)
    return table(DISCOVERY_HEADER, rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--official-src", help="a checkout of IntelLabs/causality-lab")
    args = parser.parse_args()
    if args.official_src:
        sys.path.insert(0, args.official_src)
    else:
        print(
            "no --official-src: the causality-lab columns are skipped; fetch"
            " IntelLabs/causality-lab (github) into a folder outside this repository and pass its"
            " path",
            flush=True,
        )
    print(discovery(args.official_src), flush=True)

    rows = []
    for n_ref, n_ours in [(50, 1000), (200, 10000)]:
        t_ref, m_ref, moves_ref = measure(lambda n=n_ref: reference_games(n, 0), repeat=1)
        t_ours, m_ours, moves_ours = measure(lambda n=n_ours: bitboard_games(n, 0), repeat=3)
        mps_ref, mps_ours = moves_ref / t_ref, moves_ours / t_ours
        rows.append([n_ref, n_ours, mps_ref, mps_ours, mps_ours / mps_ref, m_ref, m_ours])
    print(table(ENGINE_HEADER, rows), flush=True)


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
    "CI tests (ours)",
    "ours s",
    "edges (ours)",
    "CI tests (causality-lab)",
    "causality-lab s",
    "time ratio (lab / ours)",
    "edges (causality-lab)",
    "edge ratio (ours / lab)",
    "edges only in lab",
    "edges only in ours",
    "non-stable loop vs lab: edges differing",
    "max log-p gap (ours vs lab)",
    "CI decisions differing",
]

if __name__ == "__main__":
    main()
