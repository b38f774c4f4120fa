"""Local better-response (LBR) dynamics of groups of creators (Yu, Yao & Pan, ICML 2025,
Algorithm 2, after Yao et al. 2024), with a decaying step and a stated stopping rule.

At every round each group, in a random order, draws a random direction ``g_i`` for each of its
members in the tangent space of the sphere at ``s_i``, proposes
``s_i' = (s_i + eta_G g_i) / |s_i + eta_G g_i|`` for all members at once, and keeps the move only
if it raises the group's utility ``U_G = sum_{i in G} u_i`` by more than ``tol`` (the stated
``epsilon`` of the equilibrium; rounding and vanishing gains are not moves).

Step and stop (our choice; the paper's schedule is not available to us): each group has its own
step ``eta_G``, starting at ``eta``; after ``patience`` consecutive refused proposals it is
halved (it never grows back). A run stops at the first round where every group's step is below
``eta_min`` and no proposal has been accepted for ``patience`` rounds: the profile is then a
local ``tol``-equilibrium at the scale ``eta_min`` (each group's last ``patience`` random joint
moves, of step below ``eta_min``, gained at most ``tol``). With a
fixed step LBR never stops (a group jitters around its optimum with moves of size ``eta``);
halving makes the moves shrink to the scale ``eta_min``.

Runs may be batched: ``S0`` ``(B, n, d)`` and ``X`` ``(B, m, d)`` run ``B`` independent
replicates at once (each with its own random group order, directions, steps and stopping time).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real
from icml25.creator_groups.game import (
    REWARDS,
    _check_seed,
    _check_size,
    _matching,
    _rewards,
    check_game,
    check_groups,
)


@dataclass(frozen=True)
class Dynamics:
    """An LBR run (leading ``B`` axis only for batched input).

    Parameters
    ----------
    S : numpy.ndarray
        Final contents (B, n, d), unit-norm rows.
    welfare : numpy.ndarray
        User welfare (T + 1, B) after each round; entry 0 is the start, and a stopped replicate
        keeps its final value.
    accepted : numpy.ndarray
        Fraction (T, B) of the groups' proposals accepted in each round.
    stopped : numpy.ndarray
        Round (B,) at which the stopping rule held; ``-1`` when it never held within the rounds.
    eta : numpy.ndarray
        The groups' final steps (B, G).

    Notes
    -----
    Property ``converged`` (B,): whether the stopping rule held (``stopped >= 0``).
    """

    S: np.ndarray
    welfare: np.ndarray
    accepted: np.ndarray
    stopped: np.ndarray
    eta: np.ndarray

    @property
    def converged(self) -> np.ndarray:
        """``(B,)``: whether the stopping rule held."""
        return self.stopped >= 0


def local_better_response(
    S0,
    X,
    p,
    K: int,
    beta: float,
    groups,
    reward: str = "exposure",
    eta: float = 0.1,
    rounds: int = 3000,
    seed=0,
    tol: float = 1e-6,
    eta_min: float = 1e-3,
    patience: int = 20,
) -> Dynamics:
    """Run local better-response dynamics of creator groups (Algorithm 2).

    Run LBR from contents ``S0`` ``(n, d)`` or ``(B, n, d)`` against users ``X`` ``(m, d)``
    or ``(B, m, d)`` with weights ``p`` ``(m,)``.

    ``groups``: labels ``(n,)`` (see :func:`~icml25.creator_groups.game.equal_groups`);
    ``reward``: ``"exposure"`` or ``"engagement"``; ``eta``: initial step on the sphere;
    ``rounds``: the most rounds; ``tol``, ``eta_min``, ``patience``: the smallest gain that
    counts, the step halving and the stopping rule (module docstring; ``eta_min = 0`` never
    stops and ``patience`` larger than ``rounds`` keeps the step fixed); ``seed``: the group
    orders and the directions.

    Parameters
    ----------
    S0 : array_like, shape (n, d) or (B, n, d)
        The creators' starting contents, unit-norm rows (points on the sphere ``S^{d-1}``).
        A leading ``B`` axis runs ``B`` independent replicates at once.
    X : array_like, shape (m, d) or (B, m, d)
        The users, unit-norm rows with the same ``d`` as ``S0``; a ``(m, d)`` array is shared
        by all replicates, a ``(B, m, d)`` one needs ``S0`` batched with the same ``B``.
    p : array_like, shape (m,)
        Finite, non-negative user weights (for example ``PAPER_USER_WEIGHTS``).
    K : int
        Number of contents shown to each user, ``1 <= K <= n``.
    beta : float
        Temperature of the users' softmax choice among the top ``K``, ``beta > 0``.
    groups : array_like of int, shape (n,)
        Group label of each creator: integers ``0..G-1``, each used at least once.
    reward : {"exposure", "engagement"}, default "exposure"
        What the platform pays a creator: the probability its content is consumed, or that
        probability times its relevance to the user.
    eta : float, default 0.1
        Initial step of every group on the sphere, ``eta > 0``.
    rounds : int, default 3000
        The most rounds to run, ``rounds >= 0``.
    seed : int, SeedSequence or Generator, default 0
        Seed of ``numpy.random.default_rng`` for the group orders and the random directions;
        negative integers, floats and strings are refused.
    tol : float, default 1e-6
        The smallest gain of a group's utility that counts as a move, ``tol >= 0``.
    eta_min : float, default 1e-3
        A run stops once every group's step is below ``eta_min`` (and no move was accepted
        for ``patience`` rounds); ``0`` never stops.
    patience : int, default 20
        Consecutive refused proposals after which a group's step is halved, and quiet rounds
        the stopping rule needs, ``patience >= 1``.

    Returns
    -------
    Dynamics
        The run: ``S`` final contents ``(n, d)``, ``welfare`` ``(T + 1,)`` user welfare after
        each round (entry 0 the start), ``accepted`` ``(T,)`` fraction of the groups'
        proposals accepted per round, ``stopped`` the round the stopping rule held (``-1``
        if never) and ``eta`` ``(G,)`` the final steps; with batched input each field has a
        ``B`` axis (``S`` ``(B, n, d)``, ``welfare`` ``(T + 1, B)``, ``accepted`` ``(T, B)``,
        ``stopped`` ``(B,)``, ``eta`` ``(B, G)``).
    """
    S = real_array("S0", S0)
    X = real_array("X", X)
    batched = S.ndim == 3
    if S.ndim not in (2, 3) or X.ndim not in (2, S.ndim) or S.shape[-1] != X.shape[-1]:
        raise ValueError(
            f"S0 (n, d) or (B, n, d) and X (m, d) or (B, m, d) must have the same d, got "
            f"{S.shape}, {X.shape}"
        )
    for name, A in (("S0", S), ("X", X)):
        if not np.allclose(np.linalg.norm(A, axis=-1), 1.0, atol=1e-9):
            raise ValueError(f"{name} must have unit-norm rows (points on the sphere)")
    S = S if batched else S[None]  # (B, n, d)
    if X.ndim == 3 and X.shape[0] != S.shape[0]:
        raise ValueError(f"X (B, m, d) must have B = {S.shape[0]} like S0, got {X.shape}")
    X = np.broadcast_to(X if X.ndim == 3 else X[None], (S.shape[0],) + X.shape[-2:])  # (B, m, d)
    _, p, K, beta = check_game(S[0] @ X[0].T, p, K, beta)
    labels = check_groups(groups, S.shape[1])
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    eta = check_real("eta", eta, low=0.0, high=np.inf, low_open=True, high_open=True)
    rounds = check_int("rounds", rounds, minimum=0)
    _check_size("rounds", (rounds + 1) * S.shape[0])
    _check_seed(seed)
    tol = check_real("tol", tol, low=0.0, high=np.inf, high_open=True)
    eta_min = check_real("eta_min", eta_min, low=0.0, high=np.inf, high_open=True)
    patience = check_int("patience", patience, minimum=1)
    run = _lbr(
        S,
        X,
        p,
        K,
        beta,
        labels,
        reward,
        eta,
        rounds,
        np.random.default_rng(seed),
        tol,
        eta_min,
        patience,
    )
    if batched:
        return run
    return Dynamics(run.S[0], run.welfare[:, 0], run.accepted[:, 0], run.stopped[0], run.eta[0])


def _lbr(S, X, p, K, beta, labels, reward, eta0, rounds, rng, tol, eta_min, patience):
    """The batched loop of :func:`local_better_response`, arguments already checked; each round
    computes only the replicates that have not stopped."""
    B, n, d = S.shape
    G = labels.max() + 1
    member = labels[None, :] == np.arange(G)[:, None]  # (G, n)
    Xt = np.swapaxes(X, 1, 2)  # (B, d, m)
    S = S.copy()
    current = _rewards(S @ Xt, p, K, beta, reward)  # (B, n)
    eta = np.full((B, G), eta0)  # (B, G) each group's step
    streak = np.zeros((B, G), dtype=int)  # consecutive refusals since the last halving
    quiet = np.zeros(B, dtype=int)  # rounds since the last accepted proposal
    stopped = np.full(B, -1)
    W = [_matching(S @ Xt, K, beta)[1] @ p]  # (B,) per round
    accepted = []
    for t in range(rounds):
        a = np.flatnonzero(stopped < 0)  # (A,) replicates still running
        if a.size == 0:
            break
        rows = np.arange(a.size)
        Sa, Xa, cur, eta_a, streak_a = S[a], Xt[a], current[a], eta[a], streak[a]
        order = rng.permuted(np.tile(np.arange(G), (a.size, 1)), axis=1)  # (A, G)
        took = np.zeros(a.size)
        for k in range(G):
            g = order[:, k]  # (A,) the group that moves in each replicate
            mask = member[g]  # (A, n)
            z = rng.normal(size=Sa.shape)  # (A, n, d)
            z -= np.sum(z * Sa, axis=2, keepdims=True) * Sa  # tangent at s_i
            z /= np.linalg.norm(z, axis=2, keepdims=True)
            step = Sa + eta_a[rows, g][:, None, None] * z
            proposal = np.where(
                mask[..., None], step / np.linalg.norm(step, axis=2, keepdims=True), Sa
            )
            new = _rewards(proposal @ Xa, p, K, beta, reward)  # (A, n)
            accept = ((new - cur) * mask).sum(axis=1) > tol  # (A,) the group's gain
            Sa = np.where(accept[:, None, None], proposal, Sa)
            cur = np.where(accept[:, None], new, cur)
            took += accept / G
            streak_a[rows, g] = np.where(accept, 0, streak_a[rows, g] + 1)
            halve = streak_a[rows, g] >= patience
            eta_a[rows, g] = np.where(halve, eta_a[rows, g] / 2, eta_a[rows, g])
            streak_a[rows, g] = np.where(halve, 0, streak_a[rows, g])
        S[a], current[a], eta[a], streak[a] = Sa, cur, eta_a, streak_a
        quiet[a] = np.where(took > 0, 0, quiet[a] + 1)
        stopped[a[(eta_a < eta_min).all(axis=1) & (quiet[a] >= patience)]] = t + 1
        W.append(W[-1].copy())
        W[-1][a] = _matching(Sa @ Xa, K, beta)[1] @ p
        accepted.append(np.zeros(B))
        accepted[-1][a] = took
    T = len(accepted)
    return Dynamics(
        S,
        np.array(W).reshape(T + 1, B),
        np.array(accepted).reshape(T, B),
        stopped,
        eta,
    )
