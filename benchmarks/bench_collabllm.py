"""collabllm: the paper's sampled multiturn-aware reward against its exact expectation.

The anchor is what one would compute when the continuations can be enumerated: the exact
expectation of the conversation reward over every continuation of the rollout assistant
(``exact_multiturn_aware_reward``). The paper samples a few continuations instead (3 in the
official code), because a language model's continuations cannot be enumerated. On the opening
states of hidden-intent requests, for every candidate action, we time both and report how far
the 3-sample estimate is from the expectation and how often it picks the same best action
(what decides the chosen reply of a preference pair).

    python benchmarks/bench_collabllm.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.collabllm import (  # noqa: E402
    N_ACTIONS,
    BasePolicy,
    Conversation,
    ProgrammaticUser,
    draw_tasks,
    exact_multiturn_aware_reward,
    multiturn_aware_reward,
)

WINDOWS = (2, 4, 6, 8)  # messages after the candidate (the official default: 4)
N_PER_CELL = 10  # requests per (family, ambiguity level): 120 opening states


def main() -> None:
    torch.set_num_threads(1)
    tasks = draw_tasks(N_PER_CELL, range(4), np.random.default_rng(0))
    base, user = BasePolicy(), ProgrammaticUser()
    rows = []
    for window in WINDOWS:

        def sampled(window=window):
            rng = np.random.default_rng(1)
            return np.array(
                [
                    [
                        multiturn_aware_reward(
                            Conversation.open(t), a, base, user, max_new_turns=window, rng=rng
                        )
                        for a in range(N_ACTIONS)
                    ]
                    for t in tasks
                ]
            )  # (T, A)

        def exact(window=window):
            return np.array(
                [
                    [
                        exact_multiturn_aware_reward(
                            Conversation.open(t), a, base, user, max_new_turns=window
                        )
                        for a in range(N_ACTIONS)
                    ]
                    for t in tasks
                ]
            )

        t_exact, m_exact, r_exact = measure(exact, repeat=1)
        t_mc, m_mc, r_mc = measure(sampled, repeat=1)
        best_same = float(np.mean(r_mc.argmax(1) == r_exact.argmax(1)))
        rows.append(
            [
                window,
                len(tasks) * N_ACTIONS,
                t_exact,
                t_mc,
                t_exact / t_mc,
                m_mc,
                float(np.abs(r_mc - r_exact).mean()),
                best_same,
            ]
        )
        print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


HEADER = [
    "window (messages)",
    "candidates",
    "exact s",
    "3 samples s",
    "exact / sampled time",
    "sampled peak MB",
    "mean |sampled - exact|",
    "same best action",
]

if __name__ == "__main__":
    main()
