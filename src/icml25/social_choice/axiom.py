"""The proportionality axiom cBJR (cost-based balanced justified representation) and a checker.

Boehmer, Fish & Procaccia (ICML 2025), Section 3. An agent's utility for a slate ``W`` is her
utility for the statement she is assigned to, ``u_i(W)``. A group ``S`` *deviates* at slack
``c`` with a statement ``alpha`` at level ``l`` when every ``i`` in ``S`` has ``u_i(alpha) >= l``
and ``u_i(W) < l - c``. Its size relative to what ``alpha`` costs is

    d = |S| / ceil(c(alpha) n / B).

``W`` satisfies cBJR when no group deviates with ``d >= 1`` at ``c = 0``; the approximate
guarantee of the paper's theorem (queries ``Disc`` beta-accurate, ``Gen`` (gamma, delta,
mu)-accurate) is that no group deviates with ``c > 2 beta + delta`` and ``d > 1 / (gamma mu)``.

Over a finite universe of candidate statements (rows of ``utilities``) the largest deviating
group of each ``(alpha, l, c)`` is all agents that qualify, so the checker is exact: for each
level (only the distinct utility values matter) one matrix product counts, for every statement
and every slack, the agents who would deviate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_real


@dataclass(frozen=True)
class Deviation:
    """The largest deviating group at one slack ``c``.

    Parameters
    ----------
    slack : float
        The slack ``c``.
    ratio : float
        ``d = |S| / ceil(c(alpha) n / B)`` (the denominator at least 1); 0 if no agent
        deviates.
    statement : int
        Row of ``utilities`` of the statement ``alpha``; -1 if none.
    level : float
        The level ``l``; nan if none.
    group : numpy.ndarray
        (|S|,) int: the agents of the group (empty if none).
    """

    slack: float
    ratio: float
    statement: int
    level: float
    group: np.ndarray


def deviation_ratios(
    utilities: np.ndarray,
    costs: np.ndarray,
    slate_utility: np.ndarray,
    budget: float,
    slacks: Sequence[float] = (0.0,),
) -> np.ndarray:
    """The largest deviating-group ratio ``d`` at each slack ``c``.

    Parameters
    ----------
    utilities : numpy.ndarray
        (m, n) finite true utilities ``u_i(alpha)`` of ``m`` candidate statements for ``n``
        agents, non-empty.
    costs : numpy.ndarray
        (m,) non-negative finite costs ``c(alpha)``.
    slate_utility : numpy.ndarray
        (n,) finite utility ``u_i(W)`` of each agent for the slate.
    budget : float
        The budget ``B``, finite and ``> 0``.
    slacks : sequence of float, default (0.0,)
        The slacks ``c``, non-empty, finite and ``>= 0``.

    Returns
    -------
    numpy.ndarray
        (len(slacks),): the ratio of :func:`largest_deviations` at each slack (0 where no
        agent deviates).
    """
    return np.array(
        [d.ratio for d in largest_deviations(utilities, costs, slate_utility, budget, slacks)]
    )


def largest_deviations(
    utilities: np.ndarray,
    costs: np.ndarray,
    slate_utility: np.ndarray,
    budget: float,
    slacks: Sequence[float] = (0.0,),
) -> list[Deviation]:
    """The largest deviating group (by ``d``) at each slack ``c`` in ``slacks``.

    Exact over the finite universe of the rows of ``utilities`` (module docstring).

    Parameters
    ----------
    utilities : numpy.ndarray
        (m, n) finite true utilities ``u_i(alpha)`` of ``m`` candidate statements for ``n``
        agents, non-empty.
    costs : numpy.ndarray
        (m,) non-negative finite costs ``c(alpha)``.
    slate_utility : numpy.ndarray
        (n,) finite utility ``u_i(W)`` of each agent for the slate.
    budget : float
        The budget ``B``, finite and ``> 0``.
    slacks : sequence of float, default (0.0,)
        The slacks ``c``, non-empty, finite and ``>= 0``.

    Returns
    -------
    list of Deviation
        One per slack, in the order of ``slacks``.

    Raises
    ------
    ValueError
        If an array has another shape or holds NaN or inf, a cost or slack is negative, or
        ``budget`` is not positive.
    """
    U, costs, current, budget, slacks = _check(utilities, costs, slate_utility, budget, slacks)
    m, n = U.shape
    need = np.maximum(1, np.ceil(costs * n / budget - 1e-9))  # (m,)
    levels = np.unique(U)  # (L,) a deviation at l also holds at the next utility value >= l
    best = np.full(slacks.size, -1.0)
    where = np.zeros((slacks.size, 2), dtype=int)  # (statement, level index) of the best
    for j, level in enumerate(levels):
        approve = (U >= level).astype(np.float32)  # (m, n)
        below = (current[None, :] < level - slacks[:, None]).astype(np.float32)  # (C, n)
        ratio = (approve @ below.T) / need[:, None]  # (m, C)
        arg = ratio.argmax(axis=0)  # (C,)
        top = ratio[arg, np.arange(slacks.size)]
        better = top > best
        best[better] = top[better]
        where[better] = np.stack([arg[better], np.full(better.sum(), j)], axis=1)
    out = []
    for k, c in enumerate(slacks):
        s, j = where[k]
        group = np.flatnonzero((U[s] >= levels[j]) & (current < levels[j] - c))
        if group.size == 0:
            out.append(Deviation(float(c), 0.0, -1, float("nan"), group))
        else:
            out.append(Deviation(float(c), float(best[k]), int(s), float(levels[j]), group))
    return out


def satisfies_cbjr(
    utilities: np.ndarray,
    costs: np.ndarray,
    slate_utility: np.ndarray,
    budget: float,
    slack: float = 0.0,
    factor: float = 1.0,
) -> bool:
    """Whether the slate satisfies (c, d)-cBJR.

    (c, d)-cBJR holds when no group deviates at slack ``c`` with ratio ``d >= factor``;
    ``c = 0``, ``d = 1`` is cBJR itself.

    Parameters
    ----------
    utilities : numpy.ndarray
        (m, n) finite true utilities ``u_i(alpha)`` of ``m`` candidate statements for ``n``
        agents, non-empty.
    costs : numpy.ndarray
        (m,) non-negative finite costs ``c(alpha)``.
    slate_utility : numpy.ndarray
        (n,) finite utility ``u_i(W)`` of each agent for the slate.
    budget : float
        The budget ``B``, finite and ``> 0``.
    slack : float, default 0.0
        The slack ``c``, finite and ``>= 0``.
    factor : float, default 1.0
        The ratio ``d`` a deviating group must reach, finite and ``> 0``.

    Returns
    -------
    bool
        True when the largest deviating-group ratio at ``slack`` is below ``factor``.
    """
    factor = check_real("factor", factor, low=0.0, high=math.inf, low_open=True, high_open=True)
    ratio = deviation_ratios(utilities, costs, slate_utility, budget, (slack,))[0]
    return bool(ratio < factor)


def _check(utilities, costs, slate_utility, budget, slacks):
    U = np.asarray(utilities, dtype=float)
    if U.ndim != 2 or U.size == 0 or not np.all(np.isfinite(U)):
        raise ValueError("utilities must be a non-empty finite (m, n) array")
    costs = np.asarray(costs, dtype=float)
    if costs.shape != (U.shape[0],) or np.any(costs < 0) or not np.all(np.isfinite(costs)):
        raise ValueError(f"costs must be a non-negative ({U.shape[0]},) array")
    current = np.asarray(slate_utility, dtype=float)
    if current.shape != (U.shape[1],) or not np.all(np.isfinite(current)):
        raise ValueError(f"slate_utility must be a finite ({U.shape[1]},) array")
    budget = check_real("budget", budget, low=0.0, high=math.inf, low_open=True, high_open=True)
    slacks = np.atleast_1d(np.asarray(slacks, dtype=float))
    if (
        slacks.ndim != 1
        or slacks.size == 0
        or np.any(slacks < 0)
        or not np.all(np.isfinite(slacks))
    ):
        raise ValueError("slacks must be a non-empty sequence of finite numbers >= 0")
    return U, costs, current, budget, slacks
