"""Brute-force pure Nash equilibria of the group game on small discrete instances, and the Price
of Anarchy (Yu, Yao & Pan, ICML 2025, Section 4).

Every creator chooses one of ``q`` contents; content ``a`` has relevance ``R[a, j]`` to user
``j`` (``R`` ``(q, m)``, the discrete version of ``sigma_ij = <s_i, x_j>``; binary when
``R`` is 0/1). A profile is a pure Nash equilibrium (PNE) of the group game when no group ``G``
can raise ``U_G = sum_{i in G} u_i`` by changing its members' contents jointly. The Price of
Anarchy is ``PoA = max_s W(s) / min_{s PNE} W(s)``. The paper proves ``PoA <= K + 1`` with
engagement rewards (``<= 2`` for binary relevance) and that exposure rewards admit instances
with arbitrarily large PoA.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real
from icml25.creator_groups.game import (
    REWARDS,
    _check_size,
    _matching,
    _rewards,
    check_game,
    check_groups,
)

MAX_PROFILES = 2**20  # q^n above this is refused: the enumeration is exponential


@dataclass(frozen=True)
class Equilibria:
    """Every profile of a discrete game, its welfare and group utilities, and which are PNE.

    Parameters
    ----------
    profiles : numpy.ndarray
        All profiles (q^n, n): the content index each creator chooses, in C order.
    welfare : numpy.ndarray
        User welfare ``W`` (q^n,) of each profile.
    utilities : numpy.ndarray
        Group utilities ``U_G`` (q^n, G) of each profile.
    is_pne : numpy.ndarray
        Bool (q^n,): whether the profile is a pure Nash equilibrium of the group game.

    Notes
    -----
    Properties: ``optimum`` is ``max_s W(s)``, ``pne_welfare`` the welfare at each PNE and
    ``price_of_anarchy`` ``max_s W(s) / min_{PNE} W(s)``.
    """

    profiles: np.ndarray
    welfare: np.ndarray
    utilities: np.ndarray
    is_pne: np.ndarray

    @property
    def optimum(self) -> float:
        """``max_s W(s)`` over all profiles."""
        return float(self.welfare.max())

    @property
    def pne_welfare(self) -> np.ndarray:
        """``W`` at each PNE ``(#PNE,)`` (empty when there is none)."""
        return self.welfare[self.is_pne]

    @property
    def price_of_anarchy(self) -> float:
        """``max_s W(s) / min_{PNE} W(s)``; nan if no PNE exists, inf if a PNE has ``W <= 0``."""
        if not self.is_pne.any():
            return float("nan")
        worst = float(self.pne_welfare.min())
        return self.optimum / worst if worst > 0 else float("inf")


def all_profiles(n: int, q: int) -> np.ndarray:
    """Enumerate all ``q^n`` profiles of ``n`` creators choosing among ``q`` contents.

    Parameters
    ----------
    n : int
        Number of creators, ``>= 1``.
    q : int
        Number of contents, ``>= 1``; ``q^n`` may be at most ``2**20``.

    Returns
    -------
    numpy.ndarray
        Content indices (q^n, n) in C order (creator 0 varies slowest).
    """
    n = check_int("n", n, minimum=1)
    q = check_int("q", q, minimum=1)
    if q > 1 and (n > 20 or q**n > MAX_PROFILES):  # n > 20: q^n > 2^20, not computed
        raise ValueError(f"q^n must be at most {MAX_PROFILES} profiles, got {q}^{n}")
    return np.stack(np.unravel_index(np.arange(q**n), (q,) * n), axis=1)


def brute_force_equilibria(
    R,
    p,
    n: int,
    K: int,
    beta: float,
    groups,
    reward: str = "engagement",
    tol: float = 1e-10,
) -> Equilibria:
    """Enumerate every profile of a discrete game and mark the group PNE.

    For each group ``G`` the best joint deviation is the maximum of ``U_G`` over the axes of
    ``G``'s members in the ``(q,) * n`` tensor of profiles, so the whole check is vectorised.

    Parameters
    ----------
    R : array_like, shape (q, m)
        Relevance ``R[a, j]`` of content ``a`` to user ``j``, finite.
    p : array_like, shape (m,)
        Finite, non-negative user weights.
    n : int
        Number of creators, ``>= 1``; ``q^n`` may be at most ``2**20``.
    K : int
        Number of contents shown to each user, ``1 <= K <= n``.
    beta : float
        Temperature of the users' softmax choice, ``beta > 0``.
    groups : array_like of int, shape (n,)
        Group label of each creator: integers ``0..G-1``, each used at least once.
    reward : {"engagement", "exposure"}, default "engagement"
        Which reward the platform pays the creators.
    tol : float, default 1e-10
        A deviation must raise ``U_G`` by more than ``tol`` to count (rounding is not a gain),
        ``tol >= 0``.

    Returns
    -------
    Equilibria
        All ``q^n`` profiles with their welfare (q^n,), group utilities (q^n, G) and PNE flags
        (q^n,).
    """
    R = real_array("R", R)
    if R.ndim != 2:
        raise ValueError(f"R must be a (q, m) relevance matrix, got shape {R.shape}")
    profiles = all_profiles(n, R.shape[0])  # (P, n)
    sigma = R[profiles]  # (P, n, m)
    sigma, p, K, beta = check_game(sigma, p, K, beta)
    labels = check_groups(groups, n)
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    tol = check_real("tol", tol, low=0.0, high=np.inf, high_open=True)
    welfare = _matching(sigma, K, beta)[1] @ p  # (P,)
    member = labels[:, None] == np.arange(labels.max() + 1)  # (n, G)
    utilities = _rewards(sigma, p, K, beta, reward) @ member  # (P, G)
    shape = (R.shape[0],) * n
    is_pne = np.ones(len(profiles), dtype=bool)
    for g in range(member.shape[1]):
        U = utilities[:, g].reshape(shape)
        best = np.max(U, axis=tuple(np.flatnonzero(member[:, g])), keepdims=True)
        is_pne &= (U >= np.broadcast_to(best, shape) - tol).ravel()
    return Equilibria(profiles, welfare, utilities, is_pne)


def exposure_trap(K: int, epsilon: float) -> tuple[np.ndarray, np.ndarray, int]:
    """A discrete instance on which exposure rewards have a large PoA (our construction).

    ``K + 1`` users of equal weight; content ``a < K + 1`` serves user ``a`` alone (relevance
    1), the last content is a near-useless "generic" one (relevance ``epsilon`` to everyone);
    ``n = K + 1`` creators. When all creators form one group, the group's total exposure
    ``sum_j p_j sum_i P(i|j) = sum_j p_j`` is the same in every profile, so every profile is a
    PNE, including "everyone generic" with ``W = epsilon + beta log K``, while one creator per
    user gives ``W ~ 1``: the PoA grows without bound as ``epsilon, beta -> 0``.

    Parameters
    ----------
    K : int
        Number of contents shown to each user, ``>= 1``.
    epsilon : float
        Relevance of the generic content to every user, in ``(0, 1)``.

    Returns
    -------
    R : numpy.ndarray
        Relevance (K + 2, K + 1): the identity on the first ``K + 1`` rows, then a row of
        ``epsilon``.
    p : numpy.ndarray
        Equal user weights ``1 / (K + 1)``, shape (K + 1,).
    n : int
        Number of creators, ``K + 1``.
    """
    K = check_int("K", K, minimum=1)
    _check_size("K", (K + 2) * (K + 1))
    epsilon = check_real("epsilon", epsilon, low=0.0, high=1.0, low_open=True, high_open=True)
    R = np.vstack([np.eye(K + 1), np.full((1, K + 1), epsilon)])  # (K + 2, K + 1)
    return R, np.full(K + 1, 1.0 / (K + 1)), K + 1


@dataclass(frozen=True)
class SelfGreedy:
    """The result of :func:`self_greedy`.

    Parameters
    ----------
    profile : numpy.ndarray
        Content index (n,) chosen by each creator.
    welfare : float
        User welfare ``W`` of the profile.
    converged : bool
        Whether the last sweep had no move, so that no group had a better joint deviation: a
        group PNE.
    sweeps : int
        Number of best-response sweeps run after the greedy placement.
    """

    profile: np.ndarray
    welfare: float
    converged: bool
    sweeps: int


def self_greedy(
    R,
    p,
    n: int,
    K: int,
    beta: float,
    groups,
    reward: str = "engagement",
    max_sweeps: int = 50,
    tol: float = 1e-10,
) -> SelfGreedy:
    """Construct a group PNE greedily (the paper's Algorithm 1 by name, "Self-Greedy Algorithm
    for Constructing a PNE"; its steps are **our reconstruction**, the paper's text was not
    available to us).

    1. Greedy placement: groups ``0, 1, ...`` enter in turn; each chooses the joint contents of
       its members that maximise its own utility ``U_G`` in the game among the creators already
       placed and itself (top-``min(K, #placed)``), all ``q^|G|`` choices enumerated.
    2. Self-interested repair: sweeps over the groups in the same order; a group moves to its
       best joint response to all the others when that gains more than ``tol``. A sweep without
       a move ends the run at a group PNE (exact: every joint deviation was compared).

    Ties go to the first choice in C order.

    Parameters
    ----------
    R : array_like, shape (q, m)
        Relevance ``R[a, j]`` of content ``a`` to user ``j``, finite.
    p : array_like, shape (m,)
        Finite, non-negative user weights.
    n : int
        Number of creators, ``>= 1``.
    K : int
        Number of contents shown to each user, ``1 <= K <= n``.
    beta : float
        Temperature of the users' softmax choice, ``beta > 0``.
    groups : array_like of int, shape (n,)
        Group label of each creator: integers ``0..G-1``, each used at least once; groups enter
        and sweep in the order of their labels.
    reward : {"engagement", "exposure"}, default "engagement"
        Which reward the platform pays the creators.
    max_sweeps : int, default 50
        The most repair sweeps, ``>= 0`` (best response may cycle where no PNE exists).
    tol : float, default 1e-10
        A group moves only when its best response gains more than ``tol``, ``tol >= 0``.

    Returns
    -------
    SelfGreedy
        The final profile (n,), its welfare, whether the last sweep was quiet (``converged``)
        and the number of sweeps.
    """
    R = real_array("R", R)
    if R.ndim != 2:
        raise ValueError(f"R must be a (q, m) relevance matrix, got shape {R.shape}")
    n = check_int("n", n, minimum=1)
    labels = check_groups(groups, n)
    _, p, K, beta = check_game(np.zeros((n, R.shape[1])) + R[0], p, K, beta)
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    max_sweeps = check_int("max_sweeps", max_sweeps, minimum=0)
    tol = check_real("tol", tol, low=0.0, high=np.inf, high_open=True)
    q = R.shape[0]
    members = [np.flatnonzero(labels == g) for g in range(labels.max() + 1)]

    def best_response(profile, present, idx):
        """Best joint choice of creators ``idx`` among the ``present`` ones: (choice, U)."""
        choices = all_profiles(idx.size, q)  # (q^s, s)
        trial = np.repeat(profile[None], len(choices), axis=0)  # (q^s, n)
        trial[:, idx] = choices
        sigma = R[trial[:, present]]  # (q^s, |present|, m)
        own = np.isin(present, idx)  # (|present|,)
        U = _rewards(sigma, p, min(K, present.size), beta, reward)[:, own].sum(axis=1)
        best = int(np.argmax(U))
        return choices[best], U[best], U

    profile = np.zeros(n, dtype=int)
    placed = np.zeros(0, dtype=int)
    for idx in members:
        placed = np.sort(np.concatenate([placed, idx]))
        profile[idx] = best_response(profile, placed, idx)[0]
    everyone = np.arange(n)
    converged, sweeps = False, 0
    while not converged and sweeps < max_sweeps:
        sweeps += 1
        converged = True
        for idx in members:
            choice, best, U = best_response(profile, everyone, idx)
            current = U[np.ravel_multi_index(tuple(profile[idx]), (q,) * idx.size)]
            if best > current + tol:
                profile[idx] = choice
                converged = False
    welfare = float(_matching(R[profile], K, beta)[1] @ p)
    return SelfGreedy(profile, welfare, converged, sweeps)
