"""Local better-response (LBR) dynamics of groups of creators (Yu, Yao & Pan, ICML 2025,
Algorithm 2, after Yao et al. 2024).

At every round each group, in a random order, draws a random direction for each of its members
in the tangent space of the sphere at ``s_i``, proposes ``s_i' = (s_i + eta g_i) / |s_i + eta g_i|``
for all members at once, and keeps the move only if it raises the group's utility
``U_G = sum_{i in G} u_i`` (by more than ``tol``, so that rounding never counts as a gain). A
profile where no group finds a better local move is a (local) equilibrium of the group game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real
from icml25.creator_groups.game import (
    REWARDS,
    _matching,
    _rewards,
    check_game,
    check_groups,
)


@dataclass(frozen=True)
class Dynamics:
    """An LBR run: final contents ``S`` ``(n, d)``, welfare after each round ``(rounds + 1,)``
    (entry 0 the start) and the fraction of proposals accepted in each round ``(rounds,)``."""

    S: np.ndarray
    welfare: np.ndarray
    accepted: np.ndarray


def local_better_response(
    S0,
    X,
    p,
    K: int,
    beta: float,
    groups,
    reward: str = "exposure",
    eta: float = 0.1,
    rounds: int = 400,
    seed=0,
    tol: float = 1e-12,
) -> Dynamics:
    """Run LBR from contents ``S0`` ``(n, d)`` against users ``X`` ``(m, d)`` with weights ``p``.

    ``groups``: labels ``(n,)`` (see :func:`~icml25.creator_groups.game.equal_groups`);
    ``reward``: ``"exposure"`` or ``"engagement"``; ``eta``: step on the sphere; ``seed``: the
    directions and the order of the groups.
    """
    S = np.asarray(S0, dtype=float)
    X = np.asarray(X, dtype=float)
    if S.ndim != 2 or X.ndim != 2 or S.shape[1] != X.shape[1]:
        raise ValueError(
            f"S0 (n, d) and X (m, d) must be matrices with the same d, got {S.shape}, {X.shape}"
        )
    for name, A in (("S0", S), ("X", X)):
        if not np.allclose(np.linalg.norm(A, axis=1), 1.0, atol=1e-9):
            raise ValueError(f"{name} must have unit-norm rows (points on the sphere)")
    _, p, K, beta = check_game(S @ X.T, p, K, beta)
    labels = check_groups(groups, S.shape[0])
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    eta = check_real("eta", eta, low=0.0, high=np.inf, low_open=True, high_open=True)
    rounds = check_int("rounds", rounds, minimum=0)
    tol = check_real("tol", tol, low=0.0, high=np.inf, high_open=True)
    rng = np.random.default_rng(seed)
    members = [np.flatnonzero(labels == g) for g in range(labels.max() + 1)]

    def utility(S_, idx):
        return _rewards(S_ @ X.T, p, K, beta, reward)[idx].sum()

    welfare = np.empty(rounds + 1)
    welfare[0] = _matching(S @ X.T, K, beta)[1] @ p
    accepted = np.zeros(rounds)
    for t in range(rounds):
        for g in rng.permutation(len(members)):
            idx = members[g]
            z = rng.normal(size=(idx.size, S.shape[1]))  # (|G|, d)
            z -= np.sum(z * S[idx], axis=1, keepdims=True) * S[idx]  # tangent at s_i
            z /= np.linalg.norm(z, axis=1, keepdims=True)
            proposal = S.copy()
            step = S[idx] + eta * z
            proposal[idx] = step / np.linalg.norm(step, axis=1, keepdims=True)
            if utility(proposal, idx) > utility(S, idx) + tol:
                S = proposal
                accepted[t] += 1.0 / len(members)
        welfare[t + 1] = _matching(S @ X.T, K, beta)[1] @ p
    return Dynamics(S, welfare, accepted)
