"""Reproduction: self-play Q-learners in the iterated prisoner's dilemma end up playing Pavlov.

Cells: the paper's grid of step sizes alpha x exploration rates epsilon, each cell ``runs``
independent tabular learners from the always-defect start ``Q0``, run for a horizon that follows
the learning dynamics (``horizon_steps``); two controls over the same alphas and the small
epsilons (<= 0.05): ``Q0`` halved (phase 1 never ends: the learners never leave always-defect),
and ``g = 1.5, gamma = 0.4``, where phases 1 and 2 still end but Pavlov is not a fixed point
(``gamma (R - P) = 0.4 <= T - R = 0.5``); the small-epsilon grid again at the shorter
horizon ``alpha T = 20`` (a diagnostic); and the paper's deep Q-learning self-play (its Fig. 5),
one cell per seed.

Every setting is measured over time, not by a final snapshot: the share of a final window of
steps that the greedy policy spends in Pavlov, and the switches between lose-shift and Pavlov
inside that window.

Figures: Q(s, C) - Q(s, D) over time for states DD, CC, DC (the paper's Fig. 3), the Pavlov share
over alpha x epsilon (its Fig. 4), the share of runs in Pavlov over time with and without the
fixed point, and the deep Q-network's cooperation per state over iterations (its Fig. 5).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from icml25.ipd_pavlov.deep import deep_self_play
from icml25.ipd_pavlov.qlearning import (
    ALWAYS_DEFECT,
    LOSE_SHIFT,
    PAVLOV,
    count_switches,
    initial_q,
    policy,
    self_play,
    time_in_policy,
)

CELL_THREADS = 1
MAIN, Q0_HALVED, NOT_FIXED_POINT = "paper", "q0_halved", "g1.5_gamma0.4"
SETTINGS = {  # setting -> (g, gamma, scale of Q0)
    MAIN: (1.8, 0.6, 1.0),
    Q0_HALVED: (1.8, 0.6, 0.5),
    NOT_FIXED_POINT: (1.5, 0.4, 1.0),
}
DQN = "dqn"  # the official code's setting: payoffs T, R, P, S = 1, 0, -2, -3 and gamma = 0.8
DYNAMICS, SHORT_HORIZON = "dynamics", "alpha*T=20"  # the two horizons
SMALL_EPSILON = 0.05
THREE_PHASES = [ALWAYS_DEFECT, LOSE_SHIFT, PAVLOV]
WORDS = ["".join("C" if code >> s & 1 else "D" for s in range(4)) for code in range(16)]


@dataclass(frozen=True)
class Config:
    alphas: tuple[float, ...]
    epsilons: tuple[float, ...]
    runs: int
    alpha_steps: float = 20.0  # alpha * T >= 20: the three phases take alpha * T of about 1-2
    explore_steps: float = 100.0  # alpha * epsilon * T >= 100: entries moved only by exploration
    max_steps: int = 200_000  # the cap on both
    window: float = 0.2  # the final share of steps in which the policy is measured
    records: int = 200  # points kept for the curves over time
    dqn_seeds: int = 5  # the paper's Fig. 5 shows 5 runs
    dqn_iterations: int = 10_000
    dqn_pretrain: int = 600
    dqn_games: int = 16_384


SCALES = {
    "smoke": Config(
        alphas=(1e-2,),
        epsilons=(0.0, 0.05),
        runs=50,
        max_steps=10_000,
        dqn_seeds=1,
        dqn_iterations=200,
        dqn_pretrain=50,
        dqn_games=1024,
    ),
    "default": Config(alphas=(1e-3, 1e-2, 1e-1), epsilons=(0.0, 0.01, 0.05, 0.1, 0.2), runs=100),
    "paper": Config(
        alphas=(1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1),
        epsilons=(0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2),
        runs=100,
        max_steps=2_000_000,
        dqn_seeds=5,
        dqn_iterations=30_000,
    ),
}


def horizon_steps(config: Config, alpha: float, epsilon: float, horizon: str = DYNAMICS) -> int:
    """Steps of a run. ``DYNAMICS``: ``T = max(alpha_steps / alpha, explore_steps / (alpha
    epsilon))``, capped at ``max_steps``; the second term is the time an entry visited only after
    an exploratory move (states DC, CD; action D in CC) needs to settle. ``SHORT_HORIZON``:
    ``alpha_steps / alpha`` alone, the shorter horizon."""
    steps = math.ceil(config.alpha_steps / alpha)
    if horizon == DYNAMICS and epsilon > 0:
        steps = max(steps, math.ceil(config.explore_steps / (alpha * epsilon)))
    return min(steps, config.max_steps)


def cells(config: Config) -> list[dict]:
    """The grid, the two controls, the shorter horizon, and the deep Q-learning seeds."""
    small = [e for e in config.epsilons if e <= SMALL_EPSILON]
    grid = [(MAIN, a, e, DYNAMICS) for a in config.alphas for e in config.epsilons]
    for setting in (Q0_HALVED, NOT_FIXED_POINT):
        grid += [(setting, a, e, DYNAMICS) for a in config.alphas for e in small]
    grid += [(MAIN, a, e, SHORT_HORIZON) for a in config.alphas for e in small]
    tabular = [{"setting": s, "alpha": a, "epsilon": e, "horizon": h} for s, a, e, h in grid]
    deep = [{"setting": DQN, "replicate": k} for k in range(config.dqn_seeds)]
    return tabular + deep


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["setting"] == DQN:
        return _run_deep(config, cell, seed)
    g, gamma, q0_scale = SETTINGS[cell["setting"]]
    steps = horizon_steps(config, cell["alpha"], cell["epsilon"], cell["horizon"])
    q, trajectory = self_play(
        cell["alpha"],
        cell["epsilon"],
        steps,
        config.runs,
        g=g,
        gamma=gamma,
        q0=q0_scale * initial_q(g, gamma),
        seed=seed,
        record_every=max(1, steps // config.records),
    )
    final = policy(q)  # (runs,)
    start = steps - math.ceil(config.window * steps)  # the window is steps start+1 .. steps
    switches = count_switches(trajectory, LOSE_SHIFT, PAVLOV, start)  # (runs,)
    dq = trajectory["q"][..., 1] - trajectory["q"][..., 0]  # (K, runs, 4)
    return {
        "steps": steps,
        "pavlov_rate": float(np.mean(final == PAVLOV)),
        "pavlov_share_runs": time_in_policy(trajectory, PAVLOV, steps, start),  # (runs,)
        "switching_rate": float(np.mean(switches > 0)),
        "mean_switches": float(switches.mean()),
        "policies": dict(Counter(final.tolist())),
        "three_phase_rate": float(np.mean([p == THREE_PHASES for p in trajectory["policy_path"]])),
        "record_step": trajectory["step"],  # (K,)
        "pavlov_over_time": np.mean(policy(trajectory["q"]) == PAVLOV, axis=1),  # (K,)
        "dq_mean": dq.mean(axis=1),  # (K, 4)
        "dq_std": dq.std(axis=1),  # (K, 4)
    }


def _run_deep(config: Config, cell: dict, seed: int) -> dict:
    out = deep_self_play(
        iterations=config.dqn_iterations,
        pretrain_iterations=config.dqn_pretrain,
        games=config.dqn_games,
        seed=seed,
    )
    codes = out["policy"]  # (iterations,)
    start = config.dqn_iterations - math.ceil(config.window * config.dqn_iterations)
    window = codes[start:]
    first = max(start, 1)
    prev, cur = codes[first - 1 : -1], codes[first:]  # the moves inside the window
    pair = [WORDS.index(LOSE_SHIFT), WORDS.index(PAVLOV)]
    switch = (prev != cur) & np.isin(prev, pair) & np.isin(cur, pair)
    every = max(1, config.dqn_iterations // (5 * config.records))
    return {
        "pretrain_policy": WORDS[out["pretrain_policy"]],
        "final_policy": WORDS[codes[-1]],
        "pavlov_share": float(np.mean(window == WORDS.index(PAVLOV))),
        "switches": int(switch.sum()),
        "window_policies": {WORDS[c]: int(n) for c, n in Counter(window.tolist()).items()},
        "iteration": np.arange(1, config.dqn_iterations + 1)[::every],  # (K,)
        "q_gap": out["q_gap"][::every],  # (K, 4)
        "cooperation": out["cooperation"][::every],  # (K, 4)
    }
