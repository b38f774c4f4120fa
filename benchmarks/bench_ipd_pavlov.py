"""ipd_pavlov: vectorised self-play against the anchor, one run at a time in a Python loop.

The anchor is what a user of the paper's notebook runs: a scalar loop over steps, one run after
another, drawing each player's exploration flip with a separate call to the generator. Ours
simulates all runs at once (numpy over runs), as ``self_play`` does for the reproduction.

    python benchmarks/bench_ipd_pavlov.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.ipd_pavlov import PAVLOV, initial_q, payoffs, policy, self_play  # noqa: E402


def anchor(alpha: float, epsilon: float, steps: int, runs: int, seed: int = 0) -> np.ndarray:
    """The notebook's way: one run at a time, one step at a time, flips drawn one by one."""
    rng = np.random.default_rng(seed)
    r, q0, gamma = payoffs(), initial_q().reshape(2, 2, 2), 0.6
    finals = []
    for _ in range(runs):
        q = q0.copy()
        a1 = a2 = 0
        for _ in range(steps):
            own, other = q[a1, a2].argmax(), q[a2, a1].argmax()
            b1 = own if rng.random() > epsilon else 1 - own
            b2 = other if rng.random() > epsilon else 1 - other
            q[a1, a2, b1] += alpha * (r[b1, b2] + gamma * q[b1, b2].max() - q[a1, a2, b1])
            a1, a2 = b1, b2
        finals.append(q.reshape(4, 2))
    return np.stack(finals)


def main() -> None:
    rows = []
    for alpha, steps, runs in [(1e-2, 2_000, 100), (1e-3, 20_000, 100)]:
        args = (alpha, 0.05, steps, runs)
        t_anchor, _, q_anchor = measure(lambda args=args: anchor(*args), repeat=1)
        t_ours, m_ours, q_ours = measure(lambda args=args: self_play(*args), repeat=3)
        rows.append(
            [
                alpha,
                steps,
                runs,
                t_anchor,
                t_ours,
                t_anchor / t_ours,
                m_ours,
                float(np.mean(policy(q_anchor) == PAVLOV)),
                float(np.mean(policy(q_ours) == PAVLOV)),
            ]
        )
    print(
        table(
            [
                "alpha",
                "steps",
                "runs",
                "anchor s",
                "ours s",
                "speed-up",
                "ours peak MB",
                "anchor Pavlov rate",
                "ours Pavlov rate",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    main()
