"""creator_groups: our vectorised game code against the field's library and what a user would write.

No official code (none released). Anchor: Gambit (``pygambit``, the game-theory library), its
``nash.enumpure_solve`` on the same game: the group game with each group as one player whose
strategies are the group's joint contents and whose payoff is the group's summed reward ``U_G``
(so its pure Nash equilibria are exactly the group PNE; groups of 1 are the plain PNE). The
payoff tables are computed once with our :func:`creator_rewards` on every profile and handed to
Gambit (``from_arrays``) in a subprocess (``--gambit-python``, a venv with pygambit, kept out
of our environment); Gambit's time is building the game and the search, ours is
:func:`brute_force_equilibria` including the rewards. Agreement: the same PNE set.
Without ``--gambit-python`` those rows are skipped.

Extra (naive, not anchors):

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

    python benchmarks/bench_creator_groups.py --gambit-python /tmp/anchors/venv-libs/bin/python
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.creator_groups import (  # noqa: E402
    all_profiles,
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


GAMBIT_SIZES = [(3, 3, 1), (4, 3, 2), (4, 4, 1), (6, 3, 1), (6, 3, 2), (8, 3, 2)]
GAMBIT = r"""
import json, sys, time
import numpy as np
import pygambit as gbt
d = np.load(sys.argv[1])
out = {"version": gbt.__version__, "runs": []}
for key in sorted(k for k in d.files if k.startswith("U")):
    U = d[key]  # (G, s, ..., s) each group's payoff over the groups' joint strategies
    t0 = time.perf_counter()
    game = getattr(gbt, "StrategicGame", gbt.Game).from_arrays(*list(U))  # 17.0: StrategicGame
    t1 = time.perf_counter()
    result = gbt.nash.enumpure_solve(game)
    seconds, solve = time.perf_counter() - t0, time.perf_counter() - t1
    pne = []
    for eq in result.equilibria:
        probs = [[float(v[1] if isinstance(v, tuple) else v) for v in eq[player]]
                 for player in game.players]  # 17.0 yields (strategy, probability) pairs
        pne.append([int(np.argmax(row)) for row in probs])
    out["runs"].append([key, seconds, solve, pne])
json.dump(out, open(sys.argv[2], "w"))
"""


def gambit_rows(python: str) -> list[list]:
    """Group PNE by Gambit's enumpure_solve on the group game against ours (see the module)."""
    folder = Path(tempfile.mkdtemp(prefix="bench_creator_groups_"))
    games, ours = {}, {}
    for i, (n, q, size) in enumerate(GAMBIT_SIZES):
        rng = np.random.default_rng(n * 10 + q)
        R, p = rng.random((q, 3)), rng.dirichlet(np.ones(3))
        groups = equal_groups(n, size)
        t_ours, _, eq = measure(
            lambda: brute_force_equilibria(R, p, n, 2, 0.1, groups, "engagement")  # noqa: B023
        )
        u = creator_rewards(R[all_profiles(n, q)], p, 2, 0.1, "engagement")  # (q^n, n)
        U = u @ (groups[:, None] == np.arange(groups.max() + 1))  # (q^n, G), groups consecutive
        G, s = U.shape[1], q**size
        games[f"U{i}"] = U.T.reshape((G,) + (s,) * G)
        ours[f"U{i}"] = (n, q, size, t_ours, eq.is_pne)
    np.savez(folder / "games.npz", **games)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    cmd = [python, "-c", GAMBIT, str(folder / "games.npz"), str(folder / "out.json")]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"pygambit failed:\n{run.stderr[-3000:]}")
    out = json.loads((folder / "out.json").read_text())
    rows = []
    for key, seconds, solve, pne in out["runs"]:
        n, q, size, t_ours, is_pne = ours[key]
        G = -(-n // size)
        theirs = np.zeros(q**n, dtype=bool)
        for joint in pne:  # group strategies -> flat profile index (C order, consecutive groups)
            theirs[np.ravel_multi_index(tuple(joint), (q**size,) * G)] = True
        rows.append([n, q, size, q**n, t_ours, seconds, solve, seconds / t_ours, int(is_pne.sum()),
                     len(pne), int(is_pne.sum()) - len(pne),
                     bool(np.array_equal(theirs, is_pne))])  # fmt: skip
    print(f"pygambit {out['version']}")
    return rows


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
    parser = argparse.ArgumentParser()
    parser.add_argument("--gambit-python", default=None, help="a venv with pygambit")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.gambit_python:
        header = ["n", "q", "group size", "profiles", "ours s", "gambit s", "of it enumpure s",
                  "time ratio (gambit/ours)", "ours PNE", "gambit PNE",
                  "PNE difference (ours - gambit)", "same PNE set"]  # fmt: skip
        print(table(header, gambit_rows(args.gambit_python)), flush=True)
        print()
    else:
        print("No --gambit-python: skipping the Gambit rows (make a venv with "
              "`pip install pygambit` and pass its python).")  # fmt: skip
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
