"""The top-K recommendation game with groups of creators (Yu, Yao & Pan, ICML 2025, Section 2).

The framework is the competing content creation game of Yao et al. (2023) that the paper builds
on. ``n`` creators choose content ``s_i`` (unit vectors in ``R^d``), ``m`` users ``x_j`` with
weights ``p_j``; relevance ``sigma_ij = <s_i, x_j>``. The platform shows user ``j`` the ``K``
most relevant contents ``T_K(j)`` and the user picks one by the softmax (random-utility) rule

    P(i | j) = exp(sigma_ij / beta) / sum_{l in T_K(j)} exp(sigma_lj / beta),   i in T_K(j),

zero otherwise. User welfare is the expected utility of the choice under Gumbel noise of scale
``beta`` (up to the noise's constant mean),

    W(s) = sum_j p_j beta log sum_{i in T_K(j)} exp(sigma_ij / beta).

Creators are paid by exposure, ``u_i = sum_j p_j P(i | j)``, or by user engagement,
``u_i = sum_j p_j P(i | j) sigma_ij``; a group ``G`` plays to maximise ``U_G = sum_{i in G} u_i``.

Ties at the K-th place are broken uniformly at random and we return expectations: a creator tied
at the boundary with ``t`` others for ``r`` remaining slots is shown with probability ``r / t``
(since tied contents have the same relevance, the normaliser does not depend on which are shown).
"""

from __future__ import annotations

import numbers

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real

REWARDS = ("exposure", "engagement")
MAX_FLOATS = 2**30  # an array of more numbers (8 GiB of float64) is refused as a size typo


def _check_size(name: str, count: int) -> None:
    """ValueError naming ``name`` when an array it sizes would hold more than 2**30 numbers."""
    if count > MAX_FLOATS:
        raise ValueError(f"{name} is too large: an array of {count} numbers (at most 2**30)")


def _check_seed(seed) -> None:
    """A seed for ``numpy.random.default_rng``: negative integers, strings and floats are
    refused by name (sequences of integers, SeedSequences and Generators pass through)."""
    if isinstance(seed, str | float | bool) or (isinstance(seed, numbers.Integral) and seed < 0):
        raise ValueError(f"seed must be a non-negative integer (or a SeedSequence), got {seed!r}")


def check_game(sigma, p, K: int, beta: float) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Validate the arguments of one top-K game, raising ValueError naming the bad one.

    Parameters
    ----------
    sigma : array_like, shape (..., n, m)
        Relevance ``sigma_ij`` of creator ``i``'s content to user ``j``, finite, with
        ``n, m >= 1``; leading axes index profiles.
    p : array_like, shape (m,)
        Finite, non-negative user weights ``p_j``.
    K : int
        Number of contents shown to each user, ``1 <= K <= n``.
    beta : float
        Temperature of the users' softmax choice among the top ``K``, ``beta > 0`` and finite.

    Returns
    -------
    sigma : numpy.ndarray
        The relevance as a float array (..., n, m).
    p : numpy.ndarray
        The user weights as a float array (m,).
    K : int
        The number of contents shown.
    beta : float
        The temperature.
    """
    sigma = real_array("sigma", sigma)
    if sigma.ndim < 2 or 0 in sigma.shape[-2:] or not np.all(np.isfinite(sigma)):
        raise ValueError(
            f"sigma must be a finite array of shape (..., n, m) with n, m >= 1, got shape "
            f"{sigma.shape}"
        )
    n, m = sigma.shape[-2:]
    p = real_array("p", p, nonempty=False)
    if p.shape != (m,) or not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"p must be {m} finite non-negative user weights, got {p!r}")
    K = check_int("K", K, minimum=1)
    if K > n:
        raise ValueError(f"K must be at most the number of creators n = {n}, got {K}")
    beta = check_real("beta", beta, low=0.0, high=np.inf, low_open=True, high_open=True)
    return sigma, p, K, beta


def top_k_matching(sigma, K: int, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """The top-K softmax matching of every user.

    Parameters
    ----------
    sigma : (..., n, m) relevance of creator ``i`` to user ``j``.
    K : number of contents shown to each user.
    beta : temperature of the users' choice (random-utility noise scale).

    Returns
    -------
    P : (..., n, m) probability that user ``j`` consumes creator ``i``'s content (columns sum
        to 1), expected over uniform tie-breaking at the K-th place.
    value : (..., m) ``beta log sum_{T_K(j)} exp(sigma_ij / beta)``, user ``j``'s welfare.
    """
    sigma = real_array("sigma", sigma)
    sigma, _, K, beta = check_game(sigma, np.ones(sigma.shape[-1:]), K, beta)
    return _matching(sigma, K, beta)


def _matching(sigma: np.ndarray, K: int, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`top_k_matching` without the argument checks (for the inner loops)."""
    n = sigma.shape[-2]
    kth = np.partition(sigma, n - K, axis=-2)[..., n - K, :][..., None, :]  # (..., 1, m)
    top = sigma.max(axis=-2, keepdims=True)  # (..., 1, m) largest, for a stable exponent
    above, tied = sigma > kth, sigma == kth  # (..., n, m)
    slots = K - above.sum(axis=-2, keepdims=True)  # (..., 1, m) slots left for the tied
    shown = above + tied * (slots / tied.sum(axis=-2, keepdims=True))  # (..., n, m) in [0, 1]
    weight = shown * np.exp((sigma - top) / beta)  # (..., n, m)
    Z = weight.sum(axis=-2, keepdims=True)  # (..., 1, m)
    value = (top + beta * np.log(Z))[..., 0, :]  # (..., m)
    return weight / Z, value


def user_welfare(sigma, p, K: int, beta: float) -> np.ndarray:
    """User welfare ``W = sum_j p_j beta log sum_{i in T_K(j)} exp(sigma_ij / beta)``.

    Parameters
    ----------
    sigma : array_like, shape (..., n, m)
        Relevance ``sigma_ij`` of creator ``i``'s content to user ``j``, finite, with
        ``n, m >= 1``; leading axes index profiles.
    p : array_like, shape (m,)
        Finite, non-negative user weights ``p_j``.
    K : int
        Number of contents shown to each user, ``1 <= K <= n``.
    beta : float
        Temperature of the users' softmax choice among the top ``K``, ``beta > 0`` and finite.

    Returns
    -------
    numpy.ndarray or float
        Welfare ``W`` of each profile, shape ``(...)`` (a numpy scalar for one profile
        ``sigma`` (n, m)); ties at the K-th place are averaged over uniform tie-breaking.
    """
    sigma, p, K, beta = check_game(sigma, p, K, beta)
    return _matching(sigma, K, beta)[1] @ p


def creator_rewards(sigma, p, K: int, beta: float, reward: str = "exposure") -> np.ndarray:
    """Each creator's reward ``u_i`` under exposure or engagement pay.

    Exposure pays ``u_i = sum_j p_j P(i|j)``, engagement ``u_i = sum_j p_j P(i|j) sigma_ij``,
    with ``P(i|j)`` the top-K softmax matching (expected over tie-breaking).

    Parameters
    ----------
    sigma : array_like, shape (..., n, m)
        Relevance ``sigma_ij`` of creator ``i``'s content to user ``j``, finite, with
        ``n, m >= 1``; leading axes index profiles.
    p : array_like, shape (m,)
        Finite, non-negative user weights ``p_j``.
    K : int
        Number of contents shown to each user, ``1 <= K <= n``.
    beta : float
        Temperature of the users' softmax choice among the top ``K``, ``beta > 0`` and finite.
    reward : {"exposure", "engagement"}, default "exposure"
        Which reward the platform pays.

    Returns
    -------
    numpy.ndarray
        Rewards ``u_i`` (..., n) of the creators in each profile.
    """
    sigma, p, K, beta = check_game(sigma, p, K, beta)
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
    return _rewards(sigma, p, K, beta, reward)


def _rewards(sigma, p, K, beta, reward) -> np.ndarray:
    """:func:`creator_rewards` without the argument checks (for the inner loops)."""
    P = _matching(sigma, K, beta)[0]  # (..., n, m)
    return (P if reward == "exposure" else P * sigma) @ p


def check_groups(groups, n: int) -> np.ndarray:
    """Validate group labels of ``n`` creators, raising ValueError when they are malformed.

    Parameters
    ----------
    groups : array_like of int, shape (n,)
        Group label of each creator: integers ``0..G-1``, each value used at least once.
    n : int
        Number of creators the labels must cover.

    Returns
    -------
    numpy.ndarray
        The labels as an int array (n,).
    """
    labels = np.asarray(groups)
    ok = labels.shape == (n,) and np.issubdtype(labels.dtype, np.integer)
    if ok:
        ok = labels.min() >= 0 and np.array_equal(np.unique(labels), np.arange(labels.max() + 1))
    if not ok:
        raise ValueError(
            f"groups must be {n} integer labels using every value 0..G-1, got {groups!r}"
        )
    return labels.astype(int)


def equal_groups(n: int, size: int) -> np.ndarray:
    """Labels of consecutive groups of ``size`` creators.

    ``size = 1`` is the game of individual creators, ``size = n`` one group of all creators.

    Parameters
    ----------
    n : int
        Number of creators, ``>= 1`` (at most ``2**30``).
    size : int
        Creators per group, ``1 <= size <= n``; the last group may be smaller.

    Returns
    -------
    numpy.ndarray
        Labels (n,), creator ``i`` in group ``i // size``.
    """
    n = check_int("n", n, minimum=1)
    _check_size("n", n)
    size = check_int("size", size, minimum=1)
    if size > n:
        raise ValueError(f"size must be at most n = {n}, got {size}")
    return np.arange(n) // size


def group_utilities(rewards, groups) -> np.ndarray:
    """Group utilities ``U_G = sum_{i in G} u_i``, the summed rewards of each group's members.

    Parameters
    ----------
    rewards : array_like, shape (..., n)
        Rewards ``u_i`` of the creators (for example from :func:`creator_rewards`).
    groups : array_like of int, shape (n,)
        Group label of each creator: integers ``0..G-1``, each used at least once.

    Returns
    -------
    numpy.ndarray
        Utilities (..., G), column ``g`` the sum over the members of group ``g``.
    """
    rewards = real_array("rewards", rewards)
    if rewards.ndim < 1:
        raise ValueError(f"rewards must have shape (..., n), got shape {rewards.shape}")
    labels = check_groups(groups, rewards.shape[-1])
    member = labels[:, None] == np.arange(labels.max() + 1)  # (n, G)
    return rewards @ member


def sample_sphere(count: int, d: int, seed) -> np.ndarray:
    """Draw points uniformly on the unit sphere ``S^{d-1}`` (normalised Gaussian vectors).

    Parameters
    ----------
    count : int
        Number of points, ``>= 1`` (``count d`` at most ``2**30``).
    d : int
        Dimension of the ambient space, ``>= 2``.
    seed : int, SeedSequence or Generator
        Seed of ``numpy.random.default_rng``; negative integers, floats, booleans and strings
        are refused.

    Returns
    -------
    numpy.ndarray
        Unit-norm rows (count, d).
    """
    count = check_int("count", count, minimum=1)
    d = check_int("d", d, minimum=2)
    _check_size("count", count * d)
    _check_seed(seed)
    z = np.random.default_rng(seed).normal(size=(count, d))
    return z / np.linalg.norm(z, axis=1, keepdims=True)


# The paper's synthetic environment: d = 5, m = 10 users on S^4 with these weights.
PAPER_USER_WEIGHTS = np.array([100, 50, 20, 10, 10, 5, 2, 1, 1, 1]) / 200.0
