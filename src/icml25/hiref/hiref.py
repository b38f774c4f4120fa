"""Hierarchical Refinement: a bijective OT map in linear space (Halmos et al., ICML 2025).

The paper's Proposition (its Sec. 3): when the optimal transport between two uniform point sets
of size ``n`` is a permutation ``sigma``, an optimal rank-``r`` coupling with uniform inner
marginal ``g = 1/r`` co-clusters the data: ``x_i`` and ``y_sigma(i)`` land in co-clusters with
the same label. HiRef (Algorithm 1) uses it recursively:

    frontier <- {(X, Y)}
    for level i = 1..k with rank r_i:                    # the rank schedule, rank_schedule.py
        for every block pair (X_b, Y_b) of the frontier:   # here: all blocks at once, batched
            (Q, R) <- low-rank OT of rank r_i on C[X_b, Y_b]   # lowrank.py, costs.py factors
            split X_b by Q and Y_b by R into r_i equal-size children, child z <-> child z
    at the leaves (<= leaf_size points): an exact assignment        # linear_sum_assignment

The output is always a permutation: every level partitions both clouds into children of equal
sizes and the leaves are solved by an exact assignment. Memory is ``O(n (d + r))`` (plus
``O(n cost_rank)`` for the Euclidean factors): the ``n x n`` cost is never formed, only the
``leaf x leaf`` costs of the leaves, a chunk at a time.

Choices where the paper is silent (see README): all blocks of a level have equal size (up to one
point when ``n`` has a large prime factor), so a level is one ``(blocks, r, m)`` tensor
computation; the split is the official code's greedy capacity split (cluster ``z`` takes the
``cap`` rows of largest ``Q[:, z]`` among rows not taken); each block is centred before its
cost factors are formed (both costs are translation-invariant), so the pairing does not
depend on where the clouds sit; the Euclidean cost's factors are approximate (adaptive cross
approximation, costs.py) and their sampled error is logged; leaves are solved exactly
rather than by the official code's rank-``leaf`` coupling with top-1 extraction. Every block's
factors are in the form ``C = F M G^T`` of ``costs.symmetric_factors``, with ``F`` computed
from the X-block by the same operations as ``G`` from the Y-block, and the subsolver updates
``Q`` and ``R`` by the same operations too: identical clouds (``X == Y`` bit for bit) get
bit-identical splits at every level, hence the identity map and cost 0, on any BLAS.

This module checks the input and runs the parts: ``refine.py`` (the levels and the leaves),
``distributed.py`` (the levels below a depth as Dask tasks), ``lowrank.py`` (the subsolver).
"""

from __future__ import annotations

import math
import numbers
import time

import numpy as np
import torch

from icml25.common.validate import check_int
from icml25.hiref.costs import check_cost, pair_costs
from icml25.hiref.distributed import default_depth, refine_on_dask
from icml25.hiref.lowrank import check_solver_options
from icml25.hiref.rank_schedule import rank_schedule
from icml25.hiref.refine import Problem, refine, solve_leaves

__all__ = ["hiref", "hiref_factored", "transport_cost", "check_point_clouds", "is_permutation"]


def check_point_clouds(X, Y) -> tuple[np.ndarray, np.ndarray]:
    """Validate two point clouds: float arrays of the same shape ``(n, d)``, finite, ``n >= 1``.

    Returns them as float64 numpy arrays; raises ValueError naming ``X`` or ``Y``.

    Parameters
    ----------
    X, Y : array_like or torch.Tensor, shape (n, d)
        The two point clouds: real numeric (not boolean), 2-D, non-empty, finite and of the
        same shape; a torch tensor is detached and copied to the CPU.

    Returns
    -------
    X, Y : numpy.ndarray, shape (n, d)
        The two clouds as float64 numpy arrays.

    Raises
    ------
    ValueError
        If either cloud is not a finite, non-empty, real 2-D array, or the shapes differ.
    """
    out = []
    for name, value in (("X", X), ("Y", Y)):
        if isinstance(value, torch.Tensor):
            value = value.detach().cpu().numpy()
        try:
            arr = np.asarray(value)
        except Exception as err:  # ragged lists and the like
            raise ValueError(f"{name} must be a numeric array of shape (n, d): {err}") from None
        if arr.dtype == bool or not (
            np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)
        ):
            raise ValueError(f"{name} must have a real numeric dtype, got {arr.dtype}")
        if arr.ndim != 2:
            raise ValueError(f"{name} must be 2-D of shape (n, d), got shape {arr.shape}")
        if arr.shape[0] == 0 or arr.shape[1] == 0:
            raise ValueError(f"{name} must be non-empty, got shape {arr.shape}")
        arr = arr.astype(np.float64)
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} must be finite (no NaN or inf)")
        out.append(arr)
    if out[0].shape != out[1].shape:
        raise ValueError(
            f"Y must have the shape of X {out[0].shape} (a bijection needs equal sizes), "
            f"got {out[1].shape}"
        )
    return out[0], out[1]


def is_permutation(perm, n: int) -> bool:
    """Whether ``perm`` holds each of ``0..n-1`` exactly once.

    Parameters
    ----------
    perm : array_like, shape (n,)
        The candidate map, integer indices.
    n : int
        The number of points the permutation must cover.

    Returns
    -------
    bool
        True if ``perm`` has shape ``(n,)`` and holds each of ``0..n-1`` once.
    """
    perm = np.asarray(perm)
    return perm.shape == (n,) and np.array_equal(np.sort(perm), np.arange(n))


def transport_cost(X, Y, perm, cost: str = "sqeuclidean") -> float:
    """Mean cost of the pairing ``X[i] <-> Y[perm[i]]``: ``(1/n) sum_i c(x_i, y_perm(i))`` with
    ``c = |x - y|^2`` (``cost="sqeuclidean"``) or ``|x - y|`` (``"euclidean"``).

    Parameters
    ----------
    X, Y : array_like or torch.Tensor, shape (n, d)
        The two point clouds, finite and of the same shape (``check_point_clouds``).
    perm : array_like of int, shape (n,)
        A permutation of ``0..n-1``: ``X[i]`` is paired with ``Y[perm[i]]``.
    cost : {"sqeuclidean", "euclidean"}, default "sqeuclidean"
        The ground cost ``c``.

    Returns
    -------
    float
        The mean cost of the pairing, in the units of ``c`` (squared distance by default).

    Raises
    ------
    ValueError
        If the clouds are invalid, ``cost`` is unknown or ``perm`` is not an integer
        permutation of ``0..n-1``.
    """
    X, Y = check_point_clouds(X, Y)
    check_cost(cost)
    perm = np.asarray(perm)
    if not np.issubdtype(perm.dtype, np.integer) or not is_permutation(perm, len(X)):
        raise ValueError(f"perm must be a permutation of 0..{len(X) - 1}")
    return float(np.mean(pair_costs(X, Y[perm], cost)))


def _check_ranks(ranks, n: int, max_rank: int) -> tuple[int, ...]:
    try:
        ranks = tuple(ranks)
    except TypeError:
        raise ValueError(f"ranks must be a sequence of integers >= 2, got {ranks!r}") from None
    for r in ranks:
        if isinstance(r, bool) or not isinstance(r, numbers.Integral) or r < 2:
            raise ValueError(f"ranks must be a sequence of integers >= 2, got {ranks!r}")
    if math.prod(ranks) > n:
        raise ValueError(f"ranks must multiply to at most n = {n}, got {ranks!r}")
    return tuple(int(r) for r in ranks)


def _check_options(n, ranks, max_rank, leaf_size, max_depth, solver, restarts):
    """The schedule and the subsolver's options, checked: (ranks, leaf, solver, restarts)."""
    max_rank = check_int("max_rank", max_rank, minimum=2)
    leaf_size = check_int("leaf_size", leaf_size, minimum=1)
    max_depth = check_int("max_depth", max_depth, minimum=1)
    if ranks is None:
        ranks, leaf = rank_schedule(n, max_rank=max_rank, leaf_size=leaf_size, max_depth=max_depth)
    else:
        ranks = _check_ranks(ranks, n, max_rank)
        leaf = -(-n // math.prod(ranks)) if ranks else n
    solver = check_solver_options(*solver)
    return ranks, leaf, solver, check_int("restarts", restarts, minimum=1)


def _check_client(client, dask_depth, ranks: tuple[int, ...]):
    """None, or ``(client, depth, threads)``: the Dask client, the depth of the hand-off, and
    the worker threads of its cluster."""
    if client is None:
        if dask_depth is not None:
            raise ValueError("dask_depth needs a client (a dask.distributed.Client)")
        return None
    try:
        from distributed import Client  # noqa: PLC0415 (an optional dependency: icml25[dask])
    except ImportError:  # then no client can be one
        Client = ()  # noqa: N806
    if not isinstance(client, Client) or client.asynchronous:
        raise ValueError(
            f"client must be a (synchronous) dask.distributed.Client or None, got {client!r}"
        )
    workers = client.scheduler_info()["workers"].values()
    threads = max(1, sum(w["nthreads"] for w in workers))
    if dask_depth is None:
        return client, default_depth(ranks, threads), threads
    depth = check_int("dask_depth", dask_depth, minimum=0)
    if depth > len(ranks):
        raise ValueError(f"dask_depth must be at most the {len(ranks)} levels, got {depth}")
    return client, depth, threads


def _run(problem: Problem, n, ranks, leaf, dask, device, begin, pair_cost, lr_scale, cost_scale):
    """The levels and the leaves, here or (below ``dask``'s depth) on a Dask cluster; the
    permutation (numpy, or torch on ``device``) and, with ``problem.log``, the log."""
    index = torch.arange(n, device=device).unsqueeze(0)  # (1, n): the first level's block
    depth = len(ranks) if dask is None else dask[1]
    ix, iy, records, work = refine(problem, index, index.clone(), ranks[:depth], device=device)
    t0 = time.perf_counter()
    if dask is None:
        perm, leaf_work = solve_leaves(problem, ix, iy)
        work, leaf_seconds, dask_seconds = work + leaf_work, time.perf_counter() - t0, None
    else:
        client, depth, threads = dask
        perm, below, below_work, leaf_seconds = refine_on_dask(
            client, problem, ix, iy, ranks[depth:], depth, groups=2 * threads
        )
        records, work, dask_seconds = records + below, work + below_work, time.perf_counter() - t0
    if not is_permutation(perm, n):  # an invariant of the construction, never expected
        raise RuntimeError("hiref produced a map that is not a permutation; please report")
    out = perm if device is None else torch.from_numpy(perm).to(device)
    if not problem.log:
        return out
    levels = []
    for record in records:
        sums = ("lr_sum", "cost_sum", "iteration_sum", "starts")
        level = {key: value for key, value in record.items() if key not in sums}
        level["mean_iterations"] = record["iteration_sum"] / record["starts"]
        level["lr_objective"] = record["lr_sum"] / n * lr_scale
        if "cost_sum" in record:
            level["cost"] = record["cost_sum"] / n * cost_scale
        levels.append(level)
    info = {
        "ranks": tuple(ranks),
        "leaf": int(leaf),
        "levels": levels,
        "leaf_seconds": leaf_seconds,
        "seconds": time.perf_counter() - begin,
        "dask_depth": None if dask is None else dask[1],
        "dask_seconds": dask_seconds,
        "work": work,
        "cost": pair_cost(perm),
    }
    return out, info


def hiref(
    X,
    Y,
    *,
    cost: str = "sqeuclidean",
    ranks=None,
    max_rank: int = 4,
    leaf_size: int = 256,
    max_depth: int = 10,
    gamma: float = 1.0,
    max_iter: int = 200,
    min_iter: int = 20,
    inner_iter: int = 5,
    tol: float = 1e-6,
    restarts: int = 1,
    cost_rank: int = 16,
    seed: int = 0,
    log: bool = False,
    client=None,
    dask_depth: int | None = None,
):
    """Hierarchical Refinement (Halmos et al., ICML 2025, Algorithm 1): a bijection ``X -> Y``.

    Each level splits every block pair of ``X`` and ``Y`` points in ``r`` co-clusters with a
    rank-``r`` optimal-transport coupling, so memory stays linear in ``n``; the leaves are
    finished by an exact assignment.

    Parameters
    ----------
    X, Y : array_like or torch.Tensor, shape (n, d)
        Finite real arrays of the same shape ``(n, d)``, ``n, d >= 1``: numpy arrays, or torch
        tensors on any device (the levels then run on that device, the leaves on the CPU, and
        ``perm`` is a torch tensor on that device). Equal sizes: see the README for
        ``n_x != n_y``.
    cost : {"sqeuclidean", "euclidean"}, default "sqeuclidean"
        ``"sqeuclidean"`` (``|x - y|^2``, exact factors ``A B^T`` with ``k = d + 2``) or
        ``"euclidean"`` (``|x - y|``: adaptive cross approximation of rank ``cost_rank`` in
        both directions, averaged, ``costs.euclidean_factors``; their error on sampled entries
        is in the log; leaves use the exact cost either way). Any other cost given as factors
        ``C = A B^T``: ``hiref_factored``.
    ranks : sequence of int or None, default None
        The rank schedule ``(r_1, ..., r_k)``, each ``r_i >= 2`` and their product at most
        ``n``; by default (None) ``rank_schedule(n, max_rank=..., leaf_size=...,
        max_depth=...)``. Leaves get ``ceil(n / prod(ranks))`` points or fewer.
    max_rank : int, default 4
        The largest rank ``>= 2`` of the default schedule (used when ``ranks`` is None).
    leaf_size : int, default 256
        The largest leaf block ``>= 1`` of the default schedule, where the bijection is
        finished by an exact assignment (used when ``ranks`` is None).
    max_depth : int, default 10
        The most levels ``>= 1`` of the default schedule (used when ``ranks`` is None).
    gamma : float, default 1.0
        The low-rank subsolver's mirror-descent step (``lowrank.lowrank_ot``), relative to the
        gradient's spread, positive; used at every level.
    max_iter : int, default 200
        The subsolver's most outer iterations (``>= 1``) at every level.
    min_iter : int, default 20
        The subsolver's outer iterations (``>= 0``) before its stopping test.
    inner_iter : int, default 5
        The subsolver's Sinkhorn iterations (``>= 1``) per projection.
    tol : float, default 1e-6
        The subsolver stops when the relative change of its objective is below ``tol``
        (positive).
    restarts : int, default 1
        The subsolver runs from this many random starts at every level (stacked along
        the batch, so ``restarts`` times the level's work) and each block keeps the coupling
        with the lowest LR objective. 1 (the paper's single start) is the default; 4-8 remove
        most of the excess cost on data sets whose clusters a single start cuts (README).
    cost_rank : int, default 16
        Rank (``>= 1``) of each cross approximation of the Euclidean cost in every block (the
        factors have ``2 cost_rank`` columns; ignored for ``"sqeuclidean"``, whose factors are
        exact).
    seed : int, default 0
        Seeds the subsolver's initialisation (``>= 0``); same seed, same output.
    log : bool, default False
        Also return a dict: ``ranks``, ``leaf``, per-level ``levels`` (rank, blocks, block
        size, seconds, ``iterations`` (the most any block took: each block stops on its own)
        and ``mean_iterations``, converged (every block), ``lr_objective`` of the chosen
        low-rank couplings, ``cost`` of the level's block coupling (squared Euclidean only),
        and for ``"euclidean"`` ``factor_error``, the worst block's relative error of its
        factors), ``leaf_seconds``, ``seconds``, ``work`` (an operation count), ``cost``,
        ``dask_depth`` and ``dask_seconds`` (None without a client). Levels solved on Dask
        report the seconds summed over their tasks.
    client : dask.distributed.Client or None, default None
        A synchronous ``dask.distributed.Client``, or None (everything in this process). With a
        client, the levels from ``dask_depth`` on and the leaves are Dask tasks, one group of
        blocks each (two groups per worker thread), each group's rows shipped once; each task
        runs torch on one thread, on the CPU. For CPU input, same seed, same permutation as
        without a client when this process also runs torch on one thread
        (``distributed.py``).
    dask_depth : int or None, default None
        The number of levels solved here before the hand-off (from 0 to the number of
        levels); by default the first depth with at least two blocks per worker thread. Only
        with a ``client``.

    Returns
    -------
    perm : numpy.ndarray or torch.Tensor, shape (n,)
        An int64 permutation: ``X[i]`` is paired with ``Y[perm[i]]``; a torch tensor on
        ``X``'s device when ``X`` is a torch tensor.
    info : dict
        Only with ``log=True`` (then the return is ``(perm, info)``): the log described under
        ``log``.
    """
    begin = time.perf_counter()
    device = X.device if isinstance(X, torch.Tensor) else None
    X64, Y64 = check_point_clouds(X, Y)
    check_cost(cost)
    n, d = X64.shape
    ranks, leaf, solver, restarts = _check_options(
        n,
        ranks,
        max_rank,
        leaf_size,
        max_depth,
        (gamma, max_iter, min_iter, inner_iter, tol, seed),
        restarts,
    )
    cost_rank = check_int("cost_rank", cost_rank, minimum=1)
    dask = _check_client(client, dask_depth, ranks)
    power = 2 if cost == "sqeuclidean" else 1  # cost(s x, s y) = s^power cost(x, y)

    # translation: centre both clouds on their joint mean; scale: unit mean square radius.
    centre = 0.5 * (X64.mean(0) + Y64.mean(0))
    X64, Y64 = X64 - centre, Y64 - centre
    scale = math.sqrt(0.5 * (np.mean(X64**2) + np.mean(Y64**2)) * d) or 1.0
    problem = Problem(X64, Y64, cost, (scale, scale), solver, restarts, cost_rank, log)

    def pair_cost(perm):
        return float(np.mean(pair_costs(X64, Y64[perm], cost)))

    return _run(problem, n, ranks, leaf, dask, device, begin, pair_cost, scale**power, scale**2)


def hiref_factored(
    A,
    B,
    *,
    ranks=None,
    max_rank: int = 4,
    leaf_size: int = 256,
    max_depth: int = 10,
    gamma: float = 1.0,
    max_iter: int = 200,
    min_iter: int = 20,
    inner_iter: int = 5,
    tol: float = 1e-6,
    restarts: int = 1,
    seed: int = 0,
    log: bool = False,
    client=None,
    dask_depth: int | None = None,
):
    """Hierarchical Refinement (Algorithm 1) on a user-supplied factored cost ``C = A B^T``.

    ``C_ij = A_i . B_j`` for ``A``, ``B`` of shape ``(n, k)`` (numpy, or torch on any device:
    then the levels run there and ``perm`` is a torch tensor on it). A block pair's cost is
    the rows ``A[I_x] B[I_y]^T`` of the same factors, so every level costs ``O(n k r)`` per
    subsolver iteration and the leaves form ``leaf x leaf`` costs only. Any cost with a
    low-rank form fits: a kernel's feature map, a cost learned as an inner product, the
    squared Euclidean factors ``costs.sqeuclidean_factors``. The other options are
    ``hiref``'s; ``log["cost"]`` is ``(1/n) sum_i A_i . B_perm(i)``.

    Returns ``perm``, ``(n,)``, a permutation: row ``i`` of ``A`` is paired with row ``perm[i]``
    of ``B``.

    Parameters
    ----------
    A, B : array_like or torch.Tensor, shape (n, k)
        Finite real factors of the cost, ``C_ij = A_i . B_j``; a torch tensor ``A`` runs the
        levels on its device.
    ranks : sequence of int or None, default None
        The rank schedule ``(r_1, ..., r_k)`` (each ``>= 2``, product at most ``n``); None for
        ``rank_schedule(n, max_rank=..., leaf_size=..., max_depth=...)``.
    max_rank : int, default 4
        The largest rank ``>= 2`` of the default schedule.
    leaf_size : int, default 256
        The largest leaf block ``>= 1`` of the default schedule, solved exactly.
    max_depth : int, default 10
        The most levels ``>= 1`` of the default schedule.
    gamma : float, default 1.0
        The subsolver's mirror-descent step relative to the gradient's spread, positive.
    max_iter : int, default 200
        The subsolver's most outer iterations (``>= 1``) at every level.
    min_iter : int, default 20
        The subsolver's outer iterations (``>= 0``) before its stopping test.
    inner_iter : int, default 5
        The subsolver's Sinkhorn iterations (``>= 1``) per projection.
    tol : float, default 1e-6
        The subsolver's tolerance on the relative change of its objective, positive.
    restarts : int, default 1
        Random starts (``>= 1``) per level; each block keeps the lowest LR objective.
    seed : int, default 0
        Seeds the subsolver's initialisation (``>= 0``); same seed, same output.
    log : bool, default False
        Also return ``hiref``'s log dict (its levels without ``cost`` and ``factor_error``).
    client : dask.distributed.Client or None, default None
        A synchronous Dask client for the levels from ``dask_depth`` on and the leaves, or
        None to run everything in this process.
    dask_depth : int or None, default None
        The number of levels solved here before the hand-off to ``client``; only with one.

    Returns
    -------
    perm : numpy.ndarray or torch.Tensor, shape (n,)
        An int64 permutation: row ``i`` of ``A`` is paired with row ``perm[i]`` of ``B``.
    info : dict
        Only with ``log=True`` (then the return is ``(perm, info)``): the log, whose ``cost``
        is ``(1/n) sum_i A_i . B_perm(i)``.
    """
    begin = time.perf_counter()
    device = A.device if isinstance(A, torch.Tensor) else None
    A64, B64 = check_point_clouds(A, B)
    n, k = A64.shape
    ranks, leaf, solver, restarts = _check_options(
        n,
        ranks,
        max_rank,
        leaf_size,
        max_depth,
        (gamma, max_iter, min_iter, inner_iter, tol, seed),
        restarts,
    )
    dask = _check_client(client, dask_depth, ranks)
    # each factor at unit root-mean-square entry: C / (sa sb) has the same optimal couplings
    sa = float(np.sqrt(np.mean(A64**2))) or 1.0
    sb = float(np.sqrt(np.mean(B64**2))) or 1.0
    problem = Problem(A64, B64, "factored", (sa, sb), solver, restarts, log=log)

    def pair_cost(perm):
        return float(np.mean(np.sum(A64 * B64[perm], axis=1)))

    return _run(problem, n, ranks, leaf, dask, device, begin, pair_cost, sa * sb, 1.0)
