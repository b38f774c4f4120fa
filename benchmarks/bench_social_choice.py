"""social_choice: ours against the official code (sara-fish/gen-soc-choice-next-gen) for slate
construction and the cBJR check, on the paper's synthetic model.

The official ``synthetic_experiments/main.py`` (imported from ``--official-src``, never copied
here) is pure Python; it runs in this interpreter on the same profiles: each instance's agents
are drawn once by :func:`random_profile` (``I`` issues x 5 opinions, ``n = 60``, ``B = 15``) and
handed to both, theirs as ``Agent`` objects with the same opinions.

1. Slates, exact queries (``beta = delta = 0``, ``gamma = mu = 1``): their
   ``base_slate_generation`` (``version=0``, the "simple" process, levels ``2I..0``) against our
   :func:`democratic_process` with :class:`SyntheticOracles` (levels ``2I..0``, cost caps
   ``I..1``). Both pick uniformly at random among the statements of largest support (theirs:
   Python's ``random`` seeded by the instance, as their ``process_iteration``; ours: the oracle's
   seed), so slates differ per instance and the results are compared over instances: mean
   utility, bottom-10% utility (mean of the 6 lowest, their ``process_satisfaction_file``) of
   the assigned statements (unassigned agents 0), and the largest deviation ``d`` at ``c = 0``
   (our checker on both slates).
2. The cBJR check: their ``approx_BJR_fullfilled`` against our :func:`deviation_ratios` on the
   same slate (ours) and the same candidate statements (all ``6^I - 1``), for every slack
   ``c = 0..2I``; the largest ``|d_ours - d_official|`` over instances and slacks.

Times are interleaved (ours, then theirs, per instance), CPU seconds of the process
(``time.process_time``) on one thread. ``--issues`` sets ``I``
for the checker (theirs loops over statements x slacks x levels x agents in Python: at the
paper's ``I = 5`` about a minute per slate here, so the default checks ``I = 3`` and ``4``).

    python benchmarks/bench_social_choice.py --official-src /tmp/anchors/social_choice \\
        [--instances 10] [--instances-large 4] [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.social_choice import (  # noqa: E402
    SyntheticOracles,
    democratic_process,
    deviation_ratios,
    enumerate_statements,
    random_profile,
    statement_costs,
    utility_matrix,
)

N, B, OPINIONS = 60, 15, 5


def load_official(src: Path):
    spec = importlib.util.spec_from_file_location(
        "official_synthetic", src / "synthetic_experiments" / "main.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def official_agents(official, profile):
    issues = {t + 1: official.Issue(t + 1, OPINIONS) for t in range(profile.shape[1])}
    agents = [
        official.Agent(i, {t + 1: int(profile[i, t]) for t in range(profile.shape[1])})
        for i in range(profile.shape[0])
    ]
    return issues, agents


def our_slate(U, costs, issues, seed) -> np.ndarray:
    """(n,) utility of each agent's assigned statement (0 if unassigned)."""
    oracles = SyntheticOracles(U, costs, seed=seed)
    slate = democratic_process(
        N,
        B,
        range(2 * issues, -1, -1),
        range(issues, 0, -1),
        oracles.disc,
        oracles.gen,
        oracles.cost,
    )
    mine = np.array(slate.statements + [0])[slate.assignment]
    return np.where(slate.assignment >= 0, U[mine, np.arange(N)], 0.0)


def official_slate(official, profile, seed) -> np.ndarray:
    issues, agents = official_agents(official, profile)
    random.seed(seed)
    with contextlib.redirect_stdout(io.StringIO()):
        _, satisfaction = official.base_slate_generation(
            agents, issues, 2 * len(issues), B, -(OPINIONS // 2), version=0, app=True
        )
    return np.array([satisfaction[a][0] for a in agents], dtype=float)


def official_check(official, profile, current) -> np.ndarray:
    issues, agents = official_agents(official, profile)
    satisfaction = {a: [float(u), None] for a, u in zip(agents, current, strict=True)}
    with contextlib.redirect_stdout(io.StringIO()):
        quality, _ = official.approx_BJR_fullfilled(
            agents, issues, satisfaction, B, -(OPINIONS // 2), OPINIONS // 2
        )
    return np.array([quality[c] for c in sorted(quality)])


def bottom10(u) -> float:
    return float(np.sort(u)[: max(1, int(0.1 * u.size))].mean())


def timed(fn):
    begin = time.process_time()
    out = fn()
    return time.process_time() - begin, out


def slate_rows(official, issues: int, instances: int) -> list:
    statements = enumerate_statements(issues, OPINIONS)
    costs = statement_costs(statements)
    res = {"ours": [], "official": []}
    for i in range(instances):
        profile = random_profile(N, issues, OPINIONS, 1000 + i)
        U = utility_matrix(statements, profile, OPINIONS)
        for name, fn in (
            ("ours", lambda U=U, i=i: our_slate(U, costs, issues, i)),
            ("official", lambda p=profile, i=i: official_slate(official, p, i)),
        ):
            t, u = timed(fn)
            d = deviation_ratios(U, costs, u, B, (0.0,))[0]
            res[name].append([t, u.mean(), bottom10(u), d])
    ours, theirs = np.array(res["ours"]), np.array(res["official"])  # (instances, 4)
    rows = []
    for j, metric in ((1, "mean utility"), (2, "bottom-10% utility"), (3, "max d at c = 0")):
        diff = ours[:, j] - theirs[:, j]
        rows.append(
            [
                f"I = {issues}, {instances} instances",
                metric,
                float(ours[:, 0].mean()),
                float(theirs[:, 0].mean()),
                float(theirs[:, 0].mean() / ours[:, 0].mean()),
                float(ours[:, j].mean()),
                float(theirs[:, j].mean()),
                float(ours[:, j].mean() / theirs[:, j].mean()),
                f"{diff.mean():+.3f} ± {diff.std(ddof=1) / np.sqrt(len(diff)):.3f}",
                f"{ours[:, j].std():.3f} / {theirs[:, j].std():.3f}",
            ]
        )
    return rows


def check_rows(official, issues: int, instances: int) -> list:
    statements = enumerate_statements(issues, OPINIONS)
    costs = statement_costs(statements)
    slacks = np.arange(2 * issues + 1)
    t_ours, t_theirs, worst, violated = [], [], 0.0, [0, 0]
    for i in range(instances):
        profile = random_profile(N, issues, OPINIONS, 2000 + i)
        U = utility_matrix(statements, profile, OPINIONS)
        current = our_slate(U, costs, issues, i)
        t, mine = timed(lambda U=U, c=current: deviation_ratios(U, costs, c, B, slacks))
        t_ours.append(t)
        t, theirs = timed(lambda p=profile, c=current: official_check(official, p, c))
        t_theirs.append(t)
        worst = max(worst, float(np.abs(mine - theirs).max()))
        violated[0] += bool(mine[0] >= 1)
        violated[1] += bool(theirs[0] >= 1)
    return [
        f"I = {issues}, {len(statements)} statements, {instances} slates",
        float(np.mean(t_ours)),
        float(np.mean(t_theirs)),
        float(np.mean(t_theirs) / np.mean(t_ours)),
        f"{worst:.1e}",
        f"{violated[0]} / {violated[1]}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--official-src", type=Path, default=None)
    parser.add_argument("--instances", type=int, default=10, help="instances at I = 3")
    parser.add_argument(
        "--instances-large", type=int, default=4, help="slates at I = 4 (half as many checks)"
    )
    parser.add_argument("--quick", action="store_true", help="I = 3 only, 3 instances")
    args = parser.parse_args()
    if args.official_src is None:
        print(
            "no --official-src: nothing to compare. Fetch github:sara-fish/gen-soc-choice-next-gen "
            "into a folder outside this repository and pass it."
        )
        return
    official = load_official(args.official_src)
    instances = 3 if args.quick else args.instances
    few = 3 if args.quick else args.instances_large
    slate_sizes = ((3, instances),) if args.quick else ((3, instances), (4, few))
    check_sizes = ((3, instances),) if args.quick else ((3, instances), (4, max(1, few // 2)))
    print(f"threads: 1 (pure Python / numpy); n = {N}, B = {B}, {OPINIONS} opinions per issue")
    rows = [r for issues, count in slate_sizes for r in slate_rows(official, issues, count)]
    header = [
        "setting",
        "result",
        "ours s",
        "official s",
        "time ratio",
        "ours",
        "official",
        "ratio",
        "diff ± s.e.",
        "sd over instances ours / official",
    ]
    print("\nslates, exact queries (per instance: ours, then theirs)")
    print(table(header, rows), flush=True)
    checks = [check_rows(official, issues, count) for issues, count in check_sizes]
    header = [
        "setting",
        "ours s",
        "official s",
        "time ratio",
        "max abs d diff over c = 0..2I",
        "cBJR violated (d >= 1 at c = 0) ours / official",
    ]
    print("\ncBJR check on our slates, every slack c")
    print(table(header, checks))


if __name__ == "__main__":
    main()
