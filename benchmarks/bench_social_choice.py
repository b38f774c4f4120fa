"""social_choice: the slate process and the cBJR checker against what a user would do instead.

1. The checker. Ours (:func:`icml25.social_choice.deviation_ratios`: one matrix product per
   utility level) against the direct loop over (statement, level) with numpy over agents, the
   shape of the official checker, on the paper's synthetic universe (5 issues x 5 opinions; the
   loop gets the 1,525 statements of cost <= 3, n = 60, slacks c = 0..10). Agreement: the
   largest ratio at every slack.
2. The slate. In the paper's synthetic model (n = 60, B = 15, exact queries), ours against the
   clustering a user would reach for: k-means (``scipy.cluster.vq.kmeans2``) of the agents'
   opinion vectors into k = 3 groups, one statement per group taking the rounded centroid's
   opinion on all 5 issues (cost 5 each, so the budget is spent exactly), and against a random
   slate of the same cost. An agent's utility: her best statement in the slate (ours also with
   the statement she is assigned to, the paper's definition; unassigned agents 0). Mean
   utility, bottom-10% utility and the largest cBJR deviation d at c = 0 (d >= 1 is a
   violation), over 20 instances.

    python benchmarks/bench_social_choice.py [--instances 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.cluster.vq import kmeans2

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.social_choice import (  # noqa: E402
    SyntheticOracles,
    democratic_process,
    deviation_ratios,
    enumerate_statements,
    random_profile,
    statement_costs,
    utility_matrix,
)

N, B, SLACKS = 60, 15, np.arange(11)
NAMES = (
    "ours, assigned statement",
    "ours, best statement",
    "k-means, 3 centroid statements",
    "random slate",
)


def loop_checker(U, costs, current, budget, slacks):
    """The definition as a loop over (statement, level), vectorised over agents only."""
    n = U.shape[1]
    best = np.zeros(len(slacks))
    for s in range(U.shape[0]):
        need = max(1, int(np.ceil(costs[s] * n / budget - 1e-9)))
        for level in np.unique(U):
            approve = U[s] >= level
            for k, c in enumerate(slacks):
                best[k] = max(best[k], (approve & (current < level - c)).sum() / need)
    return best


def ours(U, costs, seed, best=False):
    """Utility for the assigned statement (unassigned: 0), or with ``best`` for the best one."""
    oracles = SyntheticOracles(U, costs, seed=seed)
    slate = democratic_process(
        N, B, range(10, -1, -1), range(5, 0, -1), oracles.disc, oracles.gen, oracles.cost
    )
    if best:
        return U[slate.statements].max(axis=0)
    mine = np.array(slate.statements + [0])[slate.assignment]
    return np.where(slate.assignment >= 0, U[mine, np.arange(N)], 0.0)


def kmeans_slate(U, statements, profile, seed):
    centroids, label = kmeans2(profile.astype(float), 3, minit="++", seed=seed)
    rows = np.clip(np.rint(centroids), 1, 5).astype(int)  # (3, I)
    chosen = [int(np.flatnonzero((statements == r).all(axis=1))[0]) for r in rows]
    return U[chosen].max(axis=0)  # each agent takes her best statement of the three


def random_slate(U, costs, seed):
    rng = np.random.default_rng(seed)
    chosen = rng.choice(np.flatnonzero(costs == 5), size=3, replace=False)
    return U[chosen].max(axis=0)


def bottom10(u):
    return float(np.sort(u)[: max(1, int(np.ceil(0.1 * u.size)))].mean())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--instances", type=int, default=20)
    args = parser.parse_args()
    statements = enumerate_statements(5, 5)
    costs = statement_costs(statements)
    profile = random_profile(N, 5, 5, 0)
    U = utility_matrix(statements, profile, 5)
    current = ours(U, costs, 0)
    short = costs <= 3  # the loop gets the 1,525 statements of cost <= 3
    Us, cs = U[short], costs[short]
    t_ours, mem_ours, fast = measure(lambda: deviation_ratios(Us, cs, current, B, SLACKS))
    t_loop, mem_loop, slow = measure(lambda: loop_checker(Us, cs, current, B, SLACKS), 1)
    t_all, _, _ = measure(lambda: deviation_ratios(U, costs, current, B, SLACKS))
    print(
        f"cBJR checker, 1,525 statements x 60 agents x 11 slacks (ours on all 7,775: {t_all:.3g} s)"
    )
    print(
        table(
            ["checker", "seconds", "peak MB", "time x", "max |ratio diff|"],
            [
                ["ours (matmul per level)", t_ours, mem_ours, 1.0, 0.0],
                [
                    "loop over (statement, level)",
                    t_loop,
                    mem_loop,
                    t_loop / t_ours,
                    float(np.abs(fast - slow).max()),
                ],
            ],
        ),
        flush=True,
    )
    rows = {name: [] for name in NAMES}
    for i in range(args.instances):
        profile = random_profile(N, 5, 5, 1000 + i)
        U = utility_matrix(statements, profile, 5)
        for name, fn, fn_args in (
            (NAMES[0], ours, (U, costs, i)),
            (NAMES[1], ours, (U, costs, i, True)),
            (NAMES[2], kmeans_slate, (U, statements, profile, i)),
            (NAMES[3], random_slate, (U, costs, i)),
        ):
            t0 = time.perf_counter()
            u = fn(*fn_args)
            elapsed = time.perf_counter() - t0
            d = deviation_ratios(U, costs, u, B, (0.0,))[0]
            rows[name].append([u.mean(), bottom10(u), d, float(d >= 1), elapsed])
    print(f"\nslates in the synthetic model, n = {N}, B = {B}, {args.instances} instances (mean)")
    print(
        table(
            ["slate", "mean utility", "bottom-10%", "max d at c=0", "violating fraction", "s"],
            [[name, *np.mean(r, axis=0).tolist()] for name, r in rows.items()],
        )
    )


if __name__ == "__main__":
    main()
