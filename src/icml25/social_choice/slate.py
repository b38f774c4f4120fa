"""The slate-construction process of generative social choice with costs and approximate queries.

Boehmer, Fish & Procaccia, *Generative Social Choice: The Next Generation*, ICML 2025
(arXiv 2505.22939), the DemocraticProcess algorithm. ``n`` agents, statements ``alpha`` with a
cost ``c(alpha)`` (word count) and a budget ``B``. Two queries, supplied by the caller:

- ``disc(agents, alpha)``: the discriminative query ``Disc(i, alpha)``, the (estimated) utility
  ``u_i(alpha)`` of each agent in ``agents`` for ``alpha``;
- ``gen(agents, level, x)``: the generative query ``Gen(S, l, x)``, a statement of cost at most
  ``x`` that as many agents of ``S`` as possible approve at level ``l`` (``u_i >= l``), or None.

For each level ``l`` from high to low and each cost ``x`` from large to small, the process asks
``alpha = Gen(S, l, x)`` for the agents ``S`` still unassigned; if at least
``ceil(c(alpha) n / B)`` of them approve ``alpha`` at level ``l`` according to ``Disc``, it adds
``alpha`` to the slate, assigns it the ``ceil(c(alpha) n / B)`` supporters with the highest
``Disc`` value and asks again; otherwise it moves to the next cost. Every statement pays for
itself with ``c(alpha) n / B`` agents, so the slate's total cost is at most ``B``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real


@dataclass(frozen=True)
class Slate:
    """The output of :func:`democratic_process`.

    Parameters
    ----------
    statements : list
        The ``k`` chosen statements, in the order they were added.
    assignment : numpy.ndarray
        (n,) int: index into ``statements`` of each agent's statement, -1 if unassigned.
    levels : numpy.ndarray
        (k,): the level ``l`` at which each statement was added.
    costs : numpy.ndarray
        (k,): ``c(alpha)`` of each statement; ``costs.sum() <= budget``.
    disc_utility : numpy.ndarray
        (n,): ``Disc(i, alpha_i)`` for the assigned statement, nan if unassigned.
    """

    statements: list
    assignment: np.ndarray
    levels: np.ndarray
    costs: np.ndarray
    disc_utility: np.ndarray


def group_size(cost: float, n: int, budget: float) -> int:
    """The number of agents a statement of this cost must represent.

    Parameters
    ----------
    cost : float
        The statement's cost ``c(alpha)``, ``>= 0``.
    n : int
        Number of agents.
    budget : float
        The budget ``B``, ``> 0``.

    Returns
    -------
    int
        ``ceil(c(alpha) n / B)`` (a tolerance of 1e-9 absorbs rounding), at least 1 so that a
        statement of cost 0 is not free.
    """
    return max(1, math.ceil(cost * n / budget - 1e-9))


def democratic_process(
    n: int,
    budget: float,
    levels: Sequence[float],
    costs: Sequence[float],
    disc: Callable[[np.ndarray, Hashable], np.ndarray],
    gen: Callable[[np.ndarray, float, float], Hashable | None],
    cost: Callable[[Hashable], float],
) -> Slate:
    """Build a slate of total cost at most ``budget`` (DemocraticProcess of the paper).

    Parameters
    ----------
    n : int
        Number of agents ``N = {0, ..., n-1}``, ``n >= 1``.
    budget : float
        The budget ``B > 0`` (finite). A statement of cost ``c(alpha)`` must be approved by
        ``ceil(c(alpha) n / B)`` agents (at least one) to be added.
    levels : sequence of float
        Utility levels ``l``, tried from the largest to the smallest (non-empty, finite;
        duplicates are tried once).
    costs : sequence of float
        Cost caps ``x`` given to ``Gen``, tried from the largest to the smallest (non-empty,
        finite; duplicates are tried once).
    disc : callable
        The discriminative query: ``disc(agents (s,), alpha) -> (s,)`` utilities of the
        agents (an int array of agent indices) for statement ``alpha``.
    gen : callable
        The generative query: ``gen(agents (s,), l, x) -> alpha or None``, a statement of
        cost at most ``x`` that many of ``agents`` approve at level ``l``; ``c(alpha) <= x``
        is required (else ValueError). None ends the search at this level and cap.
    cost : callable
        ``cost(alpha) -> c(alpha) >= 0``, the cost of a statement.

    Returns
    -------
    Slate
        The chosen ``statements`` (a list, in the order they were added), ``assignment``
        ``(n,)`` int (each agent's statement index, -1 if unassigned), ``levels`` ``(k,)``
        and ``costs`` ``(k,)`` of the ``k`` statements (``costs.sum() <= budget``), and
        ``disc_utility`` ``(n,)`` (``Disc`` of each agent's statement, nan if unassigned).
    """
    n = check_int("n", n, minimum=1)
    budget = check_real("budget", budget, low=0.0, high=math.inf, low_open=True, high_open=True)
    levels = _descending("levels", levels)
    caps = _descending("costs", costs)
    remaining = np.arange(n)  # the agents S still unassigned
    assignment = np.full(n, -1)
    disc_utility = np.full(n, np.nan)
    chosen, chosen_levels, chosen_costs = [], [], []
    for level in levels:
        for x in caps:
            while remaining.size:
                alpha = gen(remaining, level, x)
                if alpha is None:
                    break
                c_alpha = float(cost(alpha))
                if not 0 <= c_alpha <= x:
                    raise ValueError(f"gen returned a statement of cost {c_alpha}, expected <= {x}")
                u = np.asarray(disc(remaining, alpha), dtype=float)  # (|S|,)
                need = group_size(c_alpha, n, budget)
                approve = np.flatnonzero(u >= level)
                if approve.size < need:
                    break
                top = approve[np.argsort(-u[approve], kind="stable")[:need]]
                assignment[remaining[top]] = len(chosen)
                disc_utility[remaining[top]] = u[top]
                chosen.append(alpha)
                chosen_levels.append(level)
                chosen_costs.append(c_alpha)
                remaining = np.delete(remaining, top)
    return Slate(chosen, assignment, np.array(chosen_levels), np.array(chosen_costs), disc_utility)


def _descending(name: str, values: Sequence[float]) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or array.size == 0 or not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be a non-empty 1-d sequence of finite numbers")
    return np.unique(array)[::-1]
