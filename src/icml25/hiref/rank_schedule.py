"""The rank-annealing schedule of Hierarchical Refinement (Halmos et al., ICML 2025, Sec. 3.3).

HiRef splits both point clouds recursively: level ``i`` cuts every block into ``r_i`` co-clusters,
so after ``k`` levels there are ``R = r_1 r_2 ... r_k`` leaf blocks of about ``n / R`` points,
which are then matched exactly. The paper chooses the ranks by minimising the number of
low-rank subproblems solved across the hierarchy,

    r_1 + r_1 r_2 + r_1 r_2 r_3 + ... ,                                   (paper, Sec. 3.3)

over factorisations with every ``r_i <= max_rank`` and ``k <= max_depth``, the official code
``rank_annealing.optimal_rank_schedule`` after first taking out the base-case block size.

What the paper and its code leave open is an ``n`` with a large prime factor (a prime ``n`` gives
an empty schedule and a crash there). Our rule, for any ``n >= 1``:

1. if ``n <= leaf_size`` there is nothing to split: one exact leaf;
2. divisible case (the paper's): ``leaf`` = the largest divisor of ``n`` that is ``<= leaf_size``;
   if ``leaf >= leaf_size / 2`` and ``m = n / leaf`` factors into ranks ``<= max_rank`` within
   ``max_depth`` levels, the schedule is the minimiser of the paper's objective over those
   factorisations, sorted ascending; every block of a level then has the same size;
3. otherwise: ``R`` = the smallest integer ``>= ceil(n / leaf_size)`` that does factor so, with
   the same minimisation; blocks of a level then have sizes ``floor`` or ``ceil`` of
   ``n / (r_1 ... r_i)`` (they differ by at most one point), a block of ``s`` points splits into
   children of sizes ``s // r`` or ``s // r + 1``, and each leaf has at most ``leaf_size`` points.
   No padding point ever enters the transport problem: the solver carries a zero-mass row.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache

from icml25.common.validate import check_int

__all__ = ["rank_schedule", "min_partial_product_factorisation", "child_sizes"]


def min_partial_product_factorisation(
    m: int, max_depth: int, max_rank: int
) -> tuple[int, ...] | None:
    """The paper's dynamic programme: ranks ``r_1..r_k`` (``k <= max_depth``,
    ``2 <= r_i <= max_rank``) with ``prod r_i = m`` minimising ``r_1 + r_1 r_2 + ... + r_1...r_k``;
    ``None`` if none exists.

    Returned sorted ascending (the order the paper uses); ``()`` for ``m = 1``. ``m``,
    ``max_depth`` below 1 and ``max_rank`` below 2 are refused (ValueError).

    Parameters
    ----------
    m : int
        The number of leaf blocks to factor, ``>= 1``.
    max_depth : int
        The most levels ``k``, ``>= 1``.
    max_rank : int
        The largest rank ``r_i``, ``>= 2``.

    Returns
    -------
    tuple of int or None
        The ranks ``(r_1, ..., r_k)`` ascending, ``()`` for ``m = 1``, or None when ``m`` has
        no such factorisation.
    """
    return _factorisation(
        check_int("m", m, minimum=1),
        check_int("max_depth", max_depth, minimum=1),
        check_int("max_rank", max_rank, minimum=2),
    )


@lru_cache(maxsize=4096)
def _factorisation(m: int, max_depth: int, max_rank: int) -> tuple[int, ...] | None:
    if m == 1:
        return ()

    @cache
    def best(d: int, depth: int) -> tuple[float, tuple[int, ...]]:
        # minimal r + r * best(d / r) over divisors r of d; depth levels left
        if d == 1:
            return 0.0, ()
        if depth == 0:
            return math.inf, ()
        out: tuple[float, tuple[int, ...]] = (math.inf, ())
        for r in range(2, min(max_rank, d) + 1):
            if d % r:
                continue
            sub, ranks = best(d // r, depth - 1)
            value = r + r * sub
            if value < out[0]:
                out = (value, (r, *ranks))
        return out

    value, ranks = best(m, max_depth)
    if not math.isfinite(value):
        return None
    return tuple(sorted(ranks))


def rank_schedule(
    n: int, *, max_rank: int = 4, leaf_size: int = 256, max_depth: int = 10
) -> tuple[tuple[int, ...], int]:
    """The rank schedule for ``n`` points: ``(ranks, leaf)``.

    ``ranks = (r_1, ..., r_k)`` are the ranks of the low-rank OT problems at each level and
    ``leaf`` the largest leaf block (``ceil(n / prod(ranks))``, always ``<= leaf_size``), where
    the bijection is finished by an exact assignment. See the module docstring for the rule.

    Parameters
    ----------
    n : int
        The number of points of each cloud, ``>= 1``.
    max_rank : int, default 4
        The largest rank of a level, ``>= 2``.
    leaf_size : int, default 256
        The largest leaf block, ``>= 1``.
    max_depth : int, default 10
        The most levels, ``>= 1``.

    Returns
    -------
    ranks : tuple of int
        The ranks ``(r_1, ..., r_k)``, ascending; ``()`` when ``n <= leaf_size``.
    leaf : int
        The largest leaf block, ``ceil(n / prod(ranks))``, at most ``leaf_size``.

    Raises
    ------
    ValueError
        If an argument is out of range, or ``max_rank ** max_depth * leaf_size < n``.

    Examples
    --------
    >>> rank_schedule(4096)
    ((4, 4), 256)
    >>> rank_schedule(2**20, max_rank=16, leaf_size=128)  # the official code gives [16, 64, 1024]
    ((2, 16, 16, 16), 128)
    >>> rank_schedule(10_007)  # a prime: unequal blocks, sizes differ by at most one point
    ((3, 4, 4), 209)
    """
    n = check_int("n", n, minimum=1)
    max_rank = check_int("max_rank", max_rank, minimum=2)
    leaf_size = check_int("leaf_size", leaf_size, minimum=1)
    max_depth = check_int("max_depth", max_depth, minimum=1)
    if n <= leaf_size:
        return (), n
    # (2) the paper's case: the base block divides n
    leaf = max(d for d in range(1, leaf_size + 1) if n % d == 0)
    if 2 * leaf >= leaf_size:
        ranks = _factorisation(n // leaf, max_depth, max_rank)
        if ranks is not None:
            return ranks, leaf
    # (3) any n: the smallest smooth number of leaves with leaves of at most leaf_size points
    if max_rank**max_depth * leaf_size < n:
        raise ValueError(
            f"n = {n} needs more than max_depth = {max_depth} levels of rank <= max_rank = "
            f"{max_rank} to reach leaves of leaf_size = {leaf_size}; raise one of them"
        )
    total = -(-n // leaf_size)
    while True:
        ranks = _factorisation(total, max_depth, max_rank)
        if ranks is not None:
            return ranks, -(-n // total)
        total += 1


def child_sizes(size: int, rank: int) -> list[int]:
    """Sizes of the ``rank`` children of a block of ``size`` points: as equal as possible.

    ``1 <= rank <= size`` (every child holds a point), else ValueError.

    Parameters
    ----------
    size : int
        The number of points of the block, ``>= 1``.
    rank : int
        The number of children, ``1 <= rank <= size``.

    Returns
    -------
    list of int
        The ``rank`` child sizes, ``size // rank`` or ``size // rank + 1`` (the larger first),
        summing to ``size``.
    """
    size = check_int("size", size, minimum=1)
    rank = check_int("rank", rank, minimum=1)
    if rank > size:
        raise ValueError(f"rank must be at most size = {size} (one point per child), got {rank}")
    return _child_sizes(size, rank)


def _child_sizes(size: int, rank: int) -> list[int]:
    return [size // rank + (z < size % rank) for z in range(rank)]
