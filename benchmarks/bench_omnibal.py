"""omnibal: ISF balancing time at 50,000 and 1,000,000 samples, against two anchors.

- ``loop ISF``: the same iterative sort-and-fill written as the official code walks it, one
  sample at a time in Python (same seeds, so the groups must be identical to ours, and are
  checked to be);
- ``FFD``: two-dimensional first-fit-decreasing bin packing under the same budgets (samples by
  decreasing tokens, each into the first group where both budgets hold), compared on the
  balance metrics; its first-fit scan is O(n G), so it runs at 50,000 samples only.

Both budgets are the ones the argument search picks at 50,000 samples (V_max = 13 images,
T_max = 4416 tokens, thresholds 13 and 4160), 50 ISF iterations, 8 ranks, one thread.

    python benchmarks/bench_omnibal.py
"""

from __future__ import annotations

import os
import sys
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.omnibal import (  # noqa: E402
    balance_metrics,
    first_fit_decreasing,
    isf,
    random_batches,
    synthetic_lengths,
)

ARGS = {"vit_thresh": 13, "llm_thresh": 4160, "iterations": 50, "n_ranks": 8, "seed": 1}


def loop_isf(v, t, vit_max, llm_max, vit_thresh, llm_thresh, iterations, n_ranks, seed):
    """ISF one sample at a time (the official walk); returns the groups' members in order."""
    rng = np.random.default_rng(seed)
    kept = []
    pending = rng.permutation(len(v))
    for it in range(iterations):
        groups, cur, sv, st = [], [], 0, 0
        for i in pending:
            if sv + v[i] > vit_max or st + t[i] > llm_max:
                groups.append(cur)
                cur, sv, st = [], 0, 0
            cur.append(i)
            sv, st = sv + v[i], st + t[i]
        groups.append(cur)
        rest = []
        for g in groups:
            full = v[g].sum() >= vit_thresh or t[g].sum() >= llm_thresh
            (kept.append(g) if full or it == iterations - 1 else rest.extend(g))
        pending = rng.permutation(np.array(rest, dtype=np.int64))
        if pending.size == 0:
            break
    return np.concatenate(kept)


def row(name, n, seconds, peak, batches, v, t):
    m = balance_metrics(batches, v, t, llm_max=4416)
    return [name, n, seconds, peak, m["vision_imbalance"], m["language_imbalance"],
            m.get("fixed_length_pad_ratio", m["pad_ratio"]), m["mean_batch"]]  # fmt: skip


def main() -> None:
    rows = []
    for n in (50_000, 1_000_000):
        v, t = synthetic_lengths(n, np.random.default_rng(0))
        sec, peak, ours = measure(partial(isf, v, t, 13, 4416, **ARGS), repeat=3)
        rows.append(row("ISF (ours, vectorised)", n, sec, peak, ours, v, t))
        sec, peak, members = measure(partial(loop_isf, v, t, 13, 4416, **ARGS), repeat=1)
        assert np.array_equal(members, ours.members), "loop and vectorised ISF differ"
        rows.append(["ISF, loop per sample (same groups)", n, sec, peak, *rows[-1][4:]])
        if n <= 50_000:
            sec, peak, ffd = measure(partial(first_fit_decreasing, v, t, 13, 4416), repeat=1)
            rows.append(row("first-fit decreasing", n, sec, peak, ffd, v, t))
        sec, peak, rand = measure(partial(random_batches, n, 4, 8, seed=2), repeat=3)
        rows.append(row("random batches of 4 (no packing)", n, sec, peak, rand, v, t))
    print(f"threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    header = ["method", "samples", "seconds", "peak MB", "vision imb.", "language imb.",
              "pad ratio", "samples/group"]  # fmt: skip
    print(table(header, rows))


if __name__ == "__main__":
    main()
