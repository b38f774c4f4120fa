"""creator_groups: our vectorised game code against what a user would otherwise write.

1. Group PNE enumeration on small discrete instances (relevance uniform in [0, 1], 3 users,
   beta = 0.1, K = 2, engagement rewards):

   - ``ours``: :func:`icml25.creator_groups.brute_force_equilibria`, rewards of all ``q^n``
     profiles in one batch, each group's best joint deviation a max over the group's axes of the
     ``(q,) * n`` tensor;
   - ``naive``: loops over profiles, groups and the group's joint deviations (itertools), the
     reward of each deviation computed on its own (:func:`creator_rewards` per profile).

   Agreement: the two PNE sets must be identical.

2. Top-K softmax matching and welfare at platform size (``n`` creators, ``m`` users, ``d = 32``):
   ours (numpy sort + masked softmax, exact tie rule) against ``torch.topk`` + ``softmax`` on one
   thread (no tie rule; random contents have no ties). Agreement: max |W_ours - W_torch|.

3. Finding one group PNE (groups of 2, 3 contents, 3 users, K = 2, engagement rewards):
   :func:`icml25.creator_groups.self_greedy` (greedy placement, then group best-response
   sweeps) against enumerating every profile with ``brute_force_equilibria`` and taking a PNE.
   Agreement: Self-Greedy's profile is in the brute force's PNE set.

    python benchmarks/bench_creator_groups.py
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.creator_groups import (  # noqa: E402
    brute_force_equilibria,
    creator_rewards,
    equal_groups,
    sample_sphere,
    self_greedy,
    top_k_matching,
)

PNE_SIZES = [(3, 3, 1), (3, 3, 3), (4, 3, 2), (4, 4, 1), (4, 4, 2)]  # (n, q, group size)
GREEDY_SIZES = [4, 6, 8, 10]  # n creators, groups of 2, q = 3
MATCH_SIZES = [(100, 1000, 5), (1000, 10000, 10), (2000, 20000, 50)]  # (n, m, K)


def naive_pne(R, p, n, K, beta, groups, reward):
    q = R.shape[0]
    stable = []
    for profile in itertools.product(range(q), repeat=n):
        base = creator_rewards(R[list(profile)], p, K, beta, reward)
        ok = True
        for g in np.unique(groups):
            idx = np.flatnonzero(groups == g)
            for dev in itertools.product(range(q), repeat=idx.size):
                other = np.array(profile)
                other[idx] = dev
                u = creator_rewards(R[other], p, K, beta, reward)
                if u[idx].sum() > base[idx].sum() + 1e-10:
                    ok = False
                    break
            if not ok:
                break
        stable.append(ok)
    return np.array(stable)


def torch_welfare(sigma: torch.Tensor, p: torch.Tensor, K: int, beta: float) -> float:
    top = torch.topk(sigma, K, dim=0).values  # (K, m)
    return float(beta * torch.logsumexp(top / beta, dim=0) @ p)


def main() -> None:
    torch.set_num_threads(1)
    rows = []
    for n, q, size in PNE_SIZES:
        rng = np.random.default_rng(n * 10 + q)
        R, p = rng.random((q, 3)), rng.dirichlet(np.ones(3))
        groups = equal_groups(n, size)
        t_ours, mem, eq = measure(
            lambda: brute_force_equilibria(R, p, n, 2, 0.1, groups, "engagement")  # noqa: B023
        )
        t_naive, _, naive = measure(
            lambda: naive_pne(R, p, n, 2, 0.1, groups, "engagement"),  # noqa: B023
            repeat=1,
        )
        same = bool(np.array_equal(eq.is_pne, naive))
        rows.append([n, q, size, q**n, t_ours, mem, t_naive / t_ours, int(eq.is_pne.sum()), same])
    print(
        table(
            [
                "n",
                "q",
                "group size",
                "profiles",
                "ours s",
                "ours MB",
                "naive time x",
                "PNE",
                "same",
            ],
            rows,
        )
    )
    print()
    rows = []
    for n, m, K in MATCH_SIZES:
        S, X = sample_sphere(n, 32, [n, 0]), sample_sphere(m, 32, [n, 1])
        sigma = S @ X.T  # (n, m)
        p = np.full(m, 1.0 / m)
        t_ours, mem, (_, value) = measure(lambda: top_k_matching(sigma, K, 0.1))  # noqa: B023
        sig_t, p_t = torch.from_numpy(sigma), torch.from_numpy(p)
        t_torch, _, w_torch = measure(lambda: torch_welfare(sig_t, p_t, K, 0.1))  # noqa: B023
        rows.append([n, m, K, t_ours, mem, t_torch, abs(float(value @ p) - w_torch)])
    print(table(["n", "m", "K", "ours s", "ours MB", "torch topk s", "|W diff|"], rows))
    print()
    rows = []
    for n in GREEDY_SIZES:
        rng = np.random.default_rng(n)
        R, p = rng.random((3, 3)), rng.dirichlet(np.ones(3))
        groups = equal_groups(n, 2)
        t_sg, mem_sg, sg = measure(
            lambda: self_greedy(R, p, n, 2, 0.1, groups, "engagement")  # noqa: B023
        )
        t_bf, mem_bf, eq = measure(
            lambda: brute_force_equilibria(R, p, n, 2, 0.1, groups, "engagement"),  # noqa: B023
            repeat=1,
        )
        at = np.ravel_multi_index(tuple(sg.profile), (3,) * n)
        rows.append(
            [n, 3**n, t_sg, mem_sg, t_bf, mem_bf, t_bf / t_sg, sg.converged, bool(eq.is_pne[at])]
        )
    header = ["n", "profiles", "Self-Greedy s", "SG MB", "brute force s", "BF MB", "BF time x"]
    print(table(header + ["SG stopped", "SG profile is a PNE"], rows))


if __name__ == "__main__":
    main()
