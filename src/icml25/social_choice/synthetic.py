"""The paper's synthetic model and its exact and noisy query oracles.

Boehmer, Fish & Procaccia (ICML 2025), Section 5 (synthetic experiments; setting as in the
official ``synthetic_experiments/main.py``). ``I`` issues, each with opinions ``1..K``; an agent
holds one opinion ``a_t`` on every issue ``t``; a statement takes an opinion ``s_t`` on a
non-empty subset of the issues and costs the size of that subset. Agent ``i``'s utility is

    u_i(alpha) = sum_{t addressed by alpha} (floor(K / 2) - |a_it - s_t|),

so with ``K = 5`` each addressed issue adds between -2 and 2 and the top level is ``r = 2 I``.

Oracles over the finite universe of all ``(K + 1)^I - 1`` statements:

- ``Disc`` beta-accurate: ``u_i(alpha) + e_{i, alpha}`` with ``e`` uniform on the integers of
  ``[-beta, beta]``, drawn once per (agent, statement) so repeated queries agree;
- ``Gen`` (gamma, delta, mu)-accurate: a uniformly random statement ``alpha`` with
  ``c(alpha) <= x`` whose support at level ``l - delta`` in ``S`` is at least ``gamma`` times the
  best support at level ``l`` among statements of cost at most ``ceil(mu x)``.

``beta = delta = 0, gamma = mu = 1`` are the exact oracles (a random optimal statement).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from icml25.common.arrays import int_array
from icml25.common.validate import check_int, check_real


def enumerate_statements(num_issues: int, num_opinions: int) -> np.ndarray:
    """Every statement of the synthetic model.

    Parameters
    ----------
    num_issues : int
        Number of issues ``I``, ``>= 1``.
    num_opinions : int
        Opinions ``K`` per issue, ``>= 1``.

    Returns
    -------
    numpy.ndarray
        (m, I) int, ``m = (K + 1)^I - 1`` (the empty statement left out): entry 0 means the
        issue is not addressed, else it is the statement's opinion ``1..K`` on it.
    """
    num_issues = check_int("num_issues", num_issues, minimum=1)
    num_opinions = check_int("num_opinions", num_opinions, minimum=1)
    grids = np.meshgrid(*[np.arange(num_opinions + 1)] * num_issues, indexing="ij")
    statements = np.stack([g.ravel() for g in grids], axis=1)  # ((K+1)^I, I)
    return statements[1:]  # drop the empty statement (all zeros, first in this order)


def random_profile(n: int, num_issues: int, num_opinions: int, seed) -> np.ndarray:
    """The paper's agents: opinions drawn uniformly from ``1..K`` on every issue.

    Parameters
    ----------
    n : int
        Number of agents, ``>= 1``.
    num_issues : int
        Number of issues ``I``, ``>= 1``.
    num_opinions : int
        Opinions ``K`` per issue, ``>= 1``.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the draw (anything ``numpy.random.default_rng`` accepts).

    Returns
    -------
    numpy.ndarray
        (n, I) int opinions in ``1..K``.
    """
    n = check_int("n", n, minimum=1)
    num_issues = check_int("num_issues", num_issues, minimum=1)
    num_opinions = check_int("num_opinions", num_opinions, minimum=1)
    return np.random.default_rng(seed).integers(1, num_opinions + 1, size=(n, num_issues))


def utility_matrix(statements: np.ndarray, profile: np.ndarray, num_opinions: int) -> np.ndarray:
    """The utility ``u_i(alpha)`` of every statement for every agent.

    Parameters
    ----------
    statements : numpy.ndarray
        (m, I) integers: an opinion ``1..num_opinions`` per issue, 0 where it says nothing.
    profile : numpy.ndarray
        (n, I) integers: each agent's opinion ``1..num_opinions`` on every issue.
    num_opinions : int
        Opinions ``K`` per issue, ``>= 1``.

    Returns
    -------
    numpy.ndarray
        (m, n) int: ``u_i(alpha) = sum_{t addressed} (floor(K / 2) - |a_it - s_t|)``.
    """
    num_opinions = check_int("num_opinions", num_opinions, minimum=1)
    statements = int_array("statements", statements, ndim=2, low=0, high=num_opinions)
    profile = int_array("profile", profile, ndim=2, low=1, high=num_opinions)
    if statements.shape[1] != profile.shape[1]:
        raise ValueError("statements (m, I) and profile (n, I) must share the number of issues")
    per_issue = num_opinions // 2 - np.abs(statements[:, None, :] - profile[None, :, :])
    return np.where(statements[:, None, :] > 0, per_issue, 0).sum(axis=2)  # (m, n)


def statement_costs(statements: np.ndarray) -> np.ndarray:
    """The cost ``c(alpha)`` of each statement: the number of issues it addresses.

    Parameters
    ----------
    statements : numpy.ndarray
        (m, I): 0 where a statement does not address an issue, positive where it does.

    Returns
    -------
    numpy.ndarray
        (m,) int costs.
    """
    return (np.asarray(statements) > 0).sum(axis=1)


@dataclass
class SyntheticOracles:
    """``Disc`` and ``Gen`` on a finite universe; statements are row indices of ``utilities``.

    Use ``disc``, ``gen`` and ``cost`` as the three queries of
    :func:`~icml25.social_choice.democratic_process`.

    Parameters
    ----------
    utilities : numpy.ndarray
        (m, n) true utilities ``u_i(alpha)``.
    costs : numpy.ndarray
        (m,) costs ``c(alpha)``.
    beta : int, default 0
        ``Disc`` error bound, ``>= 0``: each answer is off by an integer in ``[-beta, beta]``.
    gamma : float, default 1.0
        ``Gen`` support factor, in ``(0, 1]``.
    delta : int, default 0
        ``Gen`` level slack, ``>= 0``.
    mu : float, default 1.0
        ``Gen`` cost factor, in ``(0, 1]``.
    seed : int, numpy.random.SeedSequence or None, default 0
        Seeds the ``Disc`` errors and ``Gen``'s random choice among acceptable statements
        (two spawned generators).

    Notes
    -----
    ``beta, gamma, delta, mu = 0, 1, 0, 1`` are the exact oracles. After construction,
    ``noise`` (m, n) holds the fixed ``Disc`` errors and ``rng`` the generator of ``Gen``.
    """

    utilities: np.ndarray
    costs: np.ndarray
    beta: int = 0
    gamma: float = 1.0
    delta: int = 0
    mu: float = 1.0
    seed: int | np.random.SeedSequence | None = 0
    noise: np.ndarray = field(init=False, repr=False)
    rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.utilities = np.asarray(self.utilities, dtype=float)
        self.costs = np.asarray(self.costs, dtype=float)
        if self.utilities.ndim != 2 or self.costs.shape != (self.utilities.shape[0],):
            raise ValueError("utilities must be (m, n) and costs (m,)")
        self.beta = check_int("beta", self.beta, minimum=0)
        self.delta = check_int("delta", self.delta, minimum=0)
        self.gamma = check_real("gamma", self.gamma, low=0.0, high=1.0, low_open=True)
        self.mu = check_real("mu", self.mu, low=0.0, high=1.0, low_open=True)
        noise_rng, self.rng = np.random.default_rng(self.seed).spawn(2)
        self.noise = noise_rng.integers(-self.beta, self.beta + 1, size=self.utilities.shape)

    def disc(self, agents: np.ndarray, alpha: int) -> np.ndarray:
        """``(s,)`` Disc(i, alpha) for the agents ``agents``: within ``beta`` of the truth."""
        return self.utilities[alpha, agents] + self.noise[alpha, agents]

    def gen(self, agents: np.ndarray, level: float, x: float) -> int | None:
        """Gen(S, l, x): a random statement of cost <= x supported at level ``l - delta`` by at
        least ``gamma`` times the best support at level ``l`` within cost ``ceil(mu x)``."""
        sub = self.utilities[:, agents]  # (m, s)
        within = self.costs <= math.ceil(self.mu * x - 1e-9)
        if not within.any():
            return None
        best = (sub[within] >= level).sum(axis=1).max()
        need = math.ceil(self.gamma * best - 1e-9)
        ok = (self.costs <= x) & ((sub >= level - self.delta).sum(axis=1) >= need)
        candidates = np.flatnonzero(ok)
        return int(self.rng.choice(candidates)) if candidates.size else None

    def cost(self, alpha: int) -> float:
        return float(self.costs[alpha])
