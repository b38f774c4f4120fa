"""maxmin_eig: time and quality of the relaxation, its rounding and greedy, against n and m.

Greedy is the anchor a user would otherwise pick. Each row is one E-optimal design instance
(weak dimension 4, k = 20); quality is the increase over lambda_min(M) as a fraction of the
relaxation bound's increase. Rows whose relaxation would exceed the time budget are skipped
and said so: that is where the SDP stops being practical here.

    python benchmarks/bench_maxmin_eig.py [--budget SECONDS]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.maxmin_eig import e_optimal_design, greedy, relax, rounding_draws, value  # noqa: E402

SIZES = [(30, 150), (60, 300), (120, 600), (200, 1000)]


def timed(fn):
    begin = time.perf_counter()
    out = fn()
    return time.perf_counter() - begin, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--budget",
        type=float,
        default=600.0,
        help="skip a method once its previous size took more than budget/8 s",
    )
    args = parser.parse_args()
    k, rows, slow = 20, [], set()
    for n, m in SIZES:
        M, As = e_optimal_design(n, m, 4, seed=0)
        base = value(M, As, [])
        row = [n, m]
        if "relax" in slow:
            rows.append(row + ["skipped"] * 6)
            continue
        t_relax, (x, bound) = timed(lambda M=M, As=As: relax(M, As, k))
        t_round, (_, values) = timed(
            lambda x=x, M=M, As=As: rounding_draws(x, M, As, k, trials=200, seed=0)
        )
        gain = bound - base
        row += [
            t_relax,
            t_round,
            float((values.mean() - base) / gain),
            float((values.max() - base) / gain),
        ]
        if "greedy" in slow:
            row += ["skipped", "skipped"]
        else:
            t_greedy, chosen = timed(lambda M=M, As=As: greedy(M, As, k))
            row += [t_greedy, float((value(M, As, chosen) - base) / gain)]
            slow |= {"greedy"} if t_greedy > args.budget / 8 else set()
        slow |= {"relax"} if t_relax > args.budget / 8 else set()
        rows.append(row)
        print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


HEADER = [
    "n",
    "m",
    "relax s",
    "200 roundings s",
    "mean draw ratio",
    "best draw ratio",
    "greedy s",
    "greedy ratio",
]

if __name__ == "__main__":
    main()
