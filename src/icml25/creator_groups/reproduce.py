"""Reproduction: group strategies of content creators on top-K platforms (Yu, Yao & Pan, ICML 2025).

Cells:

- ``lbr``: a batch of replicates of the paper's synthetic environment (``d = 5``, ``m = 10``
  users on the sphere with weights ``[100, 50, 20, 10, 10, 5, 2, 1, 1, 1] / 200``, ``n``
  creators with random initial contents, ``beta``), run together: local better-response
  dynamics with a halving step, to its stopping rule (or ``rounds``), for every reward, group
  size and ``K``, all from the same users and the same initial contents;
- ``poa``: a batch of random small discrete instances (``n = 4`` creators, 3-4 contents, 2-4
  users, relevance uniform in [0, 1] or binary); every profile enumerated, group PNE and PoA for
  every reward, group size and ``K``, the PNE welfare range per ``K`` (claim c), and the
  Self-Greedy construction checked against the enumeration;
- ``trap``: our exposure-reward construction (:func:`~icml25.creator_groups.exposure_trap`)
  for one ``(K, epsilon)``, one group of all creators.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.creator_groups.discrete import brute_force_equilibria, exposure_trap, self_greedy
from icml25.creator_groups.dynamics import local_better_response
from icml25.creator_groups.game import PAPER_USER_WEIGHTS, REWARDS, equal_groups, sample_sphere


@dataclass(frozen=True)
class Config:
    d: int = 5
    n: int = 10
    beta: float = 0.1
    eta: float = 0.1  # initial LBR step
    eta_min: float = 1e-3  # stopping rule: every group's step below eta_min ...
    patience: int = 20  # ... and no accepted move for patience rounds
    epsilon: float = 1e-6  # a move must raise its group's utility by more than epsilon
    rounds: int = 2000  # the most LBR rounds
    Ks: tuple[int, ...] = (1, 2, 3, 4, 5)
    group_sizes: tuple[int, ...] = (1, 2, 10)
    lbr_batches: int = 4
    lbr_batch: int = 16  # replicates run together (vectorised) in one cell
    trace_K: int = 3  # K whose welfare trajectories are kept for the figure
    poa_batches: int = 8
    poa_instances: int = 60
    poa_n: int = 4
    poa_Ks: tuple[int, ...] = (1, 2, 3)
    poa_group_sizes: tuple[int, ...] = (1, 2, 4)
    poa_betas: tuple[float, ...] = (0.05, 0.1, 0.3, 1.0)
    trap_Ks: tuple[int, ...] = (1, 2, 3)
    trap_epsilons: tuple[float, ...] = (0.1, 0.03, 0.01)
    trap_beta: float = 0.05


SCALES = {
    "smoke": Config(
        rounds=150,
        Ks=(1, 3),
        lbr_batches=1,
        lbr_batch=3,
        poa_batches=2,
        poa_instances=15,
        trap_Ks=(2,),
        trap_epsilons=(0.01,),
    ),
    "default": Config(),
    "paper": Config(lbr_batches=8, rounds=5000, poa_batches=40),
}


def cells(config: Config) -> list[dict]:
    lbr = [{"part": "lbr", "batch": b} for b in range(config.lbr_batches)]
    poa = [{"part": "poa", "batch": b} for b in range(config.poa_batches)]
    trap = [
        {"part": "trap", "K": K, "epsilon": e} for K in config.trap_Ks for e in config.trap_epsilons
    ]
    return lbr + poa + trap


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "lbr":
        return _lbr(config, seed)
    if cell["part"] == "poa":
        return _poa(config, seed)
    return _trap(config, cell["K"], cell["epsilon"])


def _lbr(config: Config, seed: int) -> dict:
    """A batch of replicates; every (reward, group size, K) from the same users and contents."""
    users, start, dynamics = np.random.SeedSequence(seed).spawn(3)
    B, m, n, d = config.lbr_batch, len(PAPER_USER_WEIGHTS), config.n, config.d
    X = sample_sphere(B * m, d, users).reshape(B, m, d)
    S0 = sample_sphere(B * n, d, start).reshape(B, n, d)
    out: dict = {"start": {}, "final": {}, "stopped": {}, "drift": {}, "trace": {}}
    for reward in REWARDS:
        for g in config.group_sizes:
            for K in config.Ks:
                run = local_better_response(
                    S0,
                    X,
                    PAPER_USER_WEIGHTS,
                    K,
                    config.beta,
                    equal_groups(n, g),
                    reward,
                    config.eta,
                    config.rounds,
                    dynamics,  # the same proposal stream for every setting
                    eta_min=config.eta_min,
                    patience=config.patience,
                    tol=config.epsilon,
                )
                W = run.welfare  # (T + 1, B)
                key = f"{reward}|{g}|{K}"
                out["start"][key] = W[0].tolist()
                out["final"][key] = W[-1].tolist()
                out["stopped"][key] = run.stopped.tolist()
                out["drift"][key] = np.abs(W[-1] - W[(3 * len(W)) // 4]).tolist()
                if K == config.trace_K:
                    out["trace"][key] = W[::5, 0].tolist()
    return out


def _poa(config: Config, seed: int) -> dict:
    """Random discrete instances, all rewards, group sizes and K; PoA and PNE welfare ranges."""
    rng = np.random.default_rng(seed)
    rows, drops, best = [], [], None
    for i in range(config.poa_instances):
        q, m = int(rng.integers(3, 5)), int(rng.integers(2, 5))
        beta = float(rng.choice(config.poa_betas))
        binary = i % 2 == 0
        R = (rng.random((q, m)) < 0.5).astype(float) if binary else rng.random((q, m))
        p = rng.dirichlet(np.ones(m))
        ranges = {}  # (g, reward) -> [min, max] PNE welfare per K (None: no PNE)
        for g in config.poa_group_sizes:
            for reward in REWARDS:
                ranges[g, reward] = []
                for K in config.poa_Ks:
                    eq = brute_force_equilibria(
                        R, p, config.poa_n, K, beta, equal_groups(config.poa_n, g), reward
                    )
                    pne = eq.pne_welfare
                    span = [float(pne.min()), float(pne.max())] if pne.size else None
                    ranges[g, reward].append(span)
                    sg = self_greedy(
                        R, p, config.poa_n, K, beta, equal_groups(config.poa_n, g), reward
                    )
                    at = np.ravel_multi_index(tuple(sg.profile), (len(R),) * config.poa_n)
                    rows.append(
                        [i, binary, g, reward == "engagement", K, eq.price_of_anarchy]
                        + [sg.converged, bool(eq.is_pne[at]), sg.welfare / eq.optimum]
                    )
                drop = _largest_sure_drop(ranges[g, reward])
                drops.append([g, reward == "engagement", drop])
                if g > 1 and (best is None or drop > best["drop"]):
                    best = {
                        "drop": drop,
                        "R": R.tolist(),
                        "p": p.tolist(),
                        "beta": beta,
                        "group_size": g,
                        "reward": reward,
                    }
        if best is not None and best["R"] == R.tolist():  # this instance holds the best drop
            best["ranges"] = ranges[best["group_size"], best["reward"]]
            best["ranges_individual"] = ranges.get((1, best["reward"]))
    # columns: instance, binary, group size, engagement?, K, PoA (nan: no PNE), Self-Greedy
    # stopped?, its profile a PNE (brute force)?, its welfare / optimum
    return {"rows": rows, "drops": drops, "best_drop": best}


def _largest_sure_drop(ranges: list) -> float:
    """``max_K min W_PNE(K) - max W_PNE(K+1)`` over consecutive K with PNE (-inf if none)."""
    drops = [
        a[0] - b[1]
        for a, b in zip(ranges[:-1], ranges[1:], strict=True)
        if a is not None and b is not None
    ]
    return max(drops, default=-np.inf)


def _trap(config: Config, K: int, epsilon: float) -> dict:
    R, p, n = exposure_trap(K, epsilon)
    out = {}
    for reward in REWARDS:
        eq = brute_force_equilibria(R, p, n, K, config.trap_beta, np.zeros(n, dtype=int), reward)
        out[reward] = {
            "poa": eq.price_of_anarchy,
            "optimum": eq.optimum,
            "worst_pne": float(eq.pne_welfare.min()),
            "pne_fraction": float(eq.is_pne.mean()),
        }
    return out
