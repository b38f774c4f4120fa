"""mdm_order: the batched Sudoku toolkit and decoder against what a user would otherwise write.

1. Uniqueness check (count solutions up to 2) of N generated puzzles:
   - ``ours``: :func:`icml25.mdm_order.count_solutions`, all puzzles at once on bitmasks
     (singles propagation, then a depth-first search over a stack shared by the batch);
   - ``backtracking``: the textbook recursive solver, one puzzle at a time in pure Python
     (fewest-candidates cell first, sets of legal digits), counting to 2.
   Agreement: both must find exactly one solution, the same one.
2. Masked-diffusion decoding (top_margin, 50 steps) of N puzzles with a small
   :class:`~icml25.mdm_order.SudokuMDM` (d = 128, 3 layers, untrained: the cost does not depend
   on the weights): ``ours`` decodes the batch together; ``one by one`` calls the same decoder
   per puzzle, as a loop over a dataset would.
3. Training throughput of the default-scale model (puzzles per second, batch 64).

    python benchmarks/bench_mdm_order.py [--n 200]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.mdm_order import (  # noqa: E402
    MDMConfig,
    SudokuMDM,
    count_solutions,
    make_puzzles,
    solve,
    train_mdm,
)


def backtracking_count(puzzle: np.ndarray, limit: int = 2) -> tuple[int, np.ndarray | None]:
    """Recursive backtracking on one puzzle: (number of solutions up to ``limit``, first)."""
    g = [int(v) for v in puzzle]
    rows = [set(g[9 * r : 9 * r + 9]) - {0} for r in range(9)]
    cols = [{g[9 * r + c] for r in range(9)} - {0} for c in range(9)]
    boxes = [
        {g[9 * (3 * (b // 3) + i) + 3 * (b % 3) + j] for i in range(3) for j in range(3)} - {0}
        for b in range(9)
    ]
    found: list = []

    def rec() -> None:
        best, options = -1, None
        for i in range(81):
            if g[i] == 0:
                r, c = divmod(i, 9)
                b = 3 * (r // 3) + c // 3
                legal = set(range(1, 10)) - rows[r] - cols[c] - boxes[b]
                if options is None or len(legal) < len(options):
                    best, options = i, legal
                    if len(legal) <= 1:
                        break
        if options is None:
            found.append(list(g))
            return
        r, c = divmod(best, 9)
        b = 3 * (r // 3) + c // 3
        for v in options:
            g[best] = v
            rows[r].add(v), cols[c].add(v), boxes[b].add(v)
            rec()
            rows[r].discard(v), cols[c].discard(v), boxes[b].discard(v)
            g[best] = 0
            if len(found) >= limit:
                return

    rec()
    return len(found), (np.array(found[0]) if found else None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200)
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = []
    for kind in ("singles", "hard"):
        p, s = make_puzzles(args.n, (30, 36), kind, seed=0, pool=16)
        t_ours, mem, (counts, first) = measure(lambda p=p: count_solutions(p, limit=2), repeat=1)
        t0 = time.perf_counter()
        theirs = [backtracking_count(q) for q in p]
        t_bt = time.perf_counter() - t0
        agree = all(c == 1 and (f == x).all() for (c, f), x in zip(theirs, s, strict=True))
        agree = agree and (counts == 1).all() and (first == s).all()
        rows.append([f"uniqueness, {kind}", args.n, t_ours, t_bt, t_bt / t_ours, agree])
    torch.manual_seed(0)
    model = SudokuMDM(MDMConfig(d_model=128, n_layer=3, n_head=4, d_ff=512, peer_attention=True))
    model.eval()
    p, s = make_puzzles(args.n, (30, 36), "singles", seed=1, pool=16)
    t_ours, _, batched = measure(lambda: solve(p, model, "top_margin", 50, seed=0), repeat=1)
    k = min(20, args.n)  # one by one is slow: time k puzzles and scale
    t0 = time.perf_counter()
    for q in p[:k]:
        solve(q[None], model, "top_margin", 50, seed=0)
    t_one = (time.perf_counter() - t0) * args.n / k
    rows.append(["decoding 50 steps, d=128 L=3", args.n, t_ours, t_one, t_one / t_ours, "-"])
    log = train_mdm(p, s, config=model.config, steps=20, batch=64, warmup=2, seed=0)
    print(f"training throughput (batch 64, d=128, L=3, peer attention, 1 thread): "
          f"{log.puzzles_per_second:.1f} puzzles/s")  # fmt: skip
    print(table(HEADER, rows))


HEADER = ["task", "N", "ours s", "anchor s", "anchor / ours", "same answers"]

if __name__ == "__main__":
    main()
