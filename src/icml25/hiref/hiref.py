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
"""

from __future__ import annotations

import math
import numbers
import time

import numpy as np
import torch
from scipy.optimize import linear_sum_assignment

from icml25.common.validate import check_int
from icml25.hiref.costs import (
    check_cost,
    factor_error,
    leaf_costs,
    pair_costs,
    symmetric_factors,
)
from icml25.hiref.lowrank import _objective, _solve, check_solver_options
from icml25.hiref.rank_schedule import child_sizes, rank_schedule

__all__ = ["hiref", "hiref_factored", "transport_cost", "check_point_clouds", "is_permutation"]

_LEAF_CHUNK_ENTRIES = 1 << 22  # leaf entries formed at once, costs or points (32 MB, float64)


def check_point_clouds(X, Y) -> tuple[np.ndarray, np.ndarray]:
    """Validate two point clouds: float arrays of the same shape ``(n, d)``, finite, ``n >= 1``.

    Returns them as float64 numpy arrays; raises ValueError naming ``X`` or ``Y``.
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
    """Whether ``perm`` holds each of ``0..n-1`` exactly once."""
    perm = np.asarray(perm)
    return perm.shape == (n,) and np.array_equal(np.sort(perm), np.arange(n))


def transport_cost(X, Y, perm, cost: str = "sqeuclidean") -> float:
    """Mean cost of the pairing ``X[i] <-> Y[perm[i]]``: ``(1/n) sum_i c(x_i, y_perm(i))`` with
    ``c = |x - y|^2`` (``cost="sqeuclidean"``) or ``|x - y|`` (``"euclidean"``)."""
    X, Y = check_point_clouds(X, Y)
    check_cost(cost)
    perm = np.asarray(perm)
    if not np.issubdtype(perm.dtype, np.integer) or not is_permutation(perm, len(X)):
        raise ValueError(f"perm must be a permutation of 0..{len(X) - 1}")
    return float(np.mean(pair_costs(X, Y[perm], cost)))


def _gather(points: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """points (n, d), idx (B, m) with -1 padding -> (B, m, d), padding rows zero."""
    out = points[idx.clamp(min=0)]
    return out * (idx >= 0).unsqueeze(-1).to(points.dtype)


def _split(idx: torch.Tensor, P: torch.Tensor, caps: torch.Tensor) -> torch.Tensor:
    """Greedy capacity split of every block by its soft assignment, batched.

    idx (B, m) point indices (-1 = padding); P (B, r, m) soft assignment, cluster-major as the
    subsolver returns it; caps (B, r) child sizes. Cluster z (in order) takes the caps[:, z]
    points of largest P[:, z, :] not yet taken.
    Returns the children's indices, (B * r, max cap), -1 padded.
    """
    B, r, m = P.shape
    kmax = int(caps.max())
    score = P.masked_fill((idx < 0).unsqueeze(1), -math.inf)
    taken = torch.zeros(B, m, dtype=torch.bool, device=idx.device)
    rank_in_child = torch.arange(kmax, device=idx.device).unsqueeze(0)  # (1, kmax)
    children = []
    for z in range(r):
        s = score[:, z, :].masked_fill(taken, -math.inf)  # (B, m)
        top = s.topk(kmax, dim=1, sorted=True).indices  # (B, kmax)
        valid = rank_in_child < caps[:, z : z + 1]  # (B, kmax)
        taken |= torch.zeros_like(taken).scatter(1, top, valid)
        children.append(idx.gather(1, top).masked_fill(~valid, -1))
    return torch.stack(children, dim=1).reshape(B * r, kmax)


def _block_coupling_cost(
    Xp: torch.Tensor, Yp: torch.Tensor, ix: torch.Tensor, iy: torch.Tensor
) -> float:
    """Mean cost of the coupling sending each X-block uniformly onto its Y-block.

    For a block pair of s points: (1/s^2) sum |x - y|^2 = Var(X_b) + Var(Y_b) + |xbar - ybar|^2;
    returns sum_b (s_b / n) of that, i.e. the transport cost of the level's block coupling.
    """
    mask = (ix >= 0).to(Xp.dtype)  # (B, m)
    sizes = mask.sum(1)  # (B,)
    Xb, Yb = _gather(Xp, ix), _gather(Yp, iy)  # (B, m, d)
    xbar = Xb.sum(1) / sizes.unsqueeze(1)
    ybar = Yb.sum(1) / sizes.unsqueeze(1)
    var_x = ((Xb - xbar.unsqueeze(1)) ** 2 * mask.unsqueeze(-1)).sum((1, 2)) / sizes
    var_y = ((Yb - ybar.unsqueeze(1)) ** 2 * mask.unsqueeze(-1)).sum((1, 2)) / sizes
    per_block = var_x + var_y + ((xbar - ybar) ** 2).sum(1)
    return float((per_block * sizes).sum() / sizes.sum())


def _solve_leaves(ix: np.ndarray, iy: np.ndarray, perm: np.ndarray, leaf_cost):
    """Exact assignment on every leaf; costs formed a chunk of leaves at a time (float64).

    ix, iy (B, m) leaf indices, -1 padded at the end of a row; writes perm[ix] = iy[assignment].
    ``leaf_cost(cx, cy, valid)`` gives a chunk's dense costs (c, m, m) (``costs.leaf_costs``
    for points: the true cost, or one with the same optimal assignments that scipy's solver
    finishes faster); ``leaf_cost.entries`` is its largest temporary per leaf.
    """
    B, m = ix.shape
    chunk = max(1, _LEAF_CHUNK_ENTRIES // max(1, leaf_cost.entries))
    sizes = (ix >= 0).sum(1)
    valid = (ix >= 0)[:, :, None]  # (B, m, 1)
    for start in range(0, B, chunk):
        cx, cy = ix[start : start + chunk], iy[start : start + chunk]
        C = leaf_cost(cx, cy, valid[start : start + chunk])  # (c, m, m)
        for j in range(len(cx)):
            s = sizes[start + j]
            rows, cols = linear_sum_assignment(C[j, :s, :s])
            perm[cx[j, rows]] = cy[j, cols]


def _best_of_restarts(A, Bf, mix, a, g, restarts, gamma, max_iter, min_iter, inner_iter, tol, gen):
    """The subsolver from ``restarts`` random starts at once (stacked along the batch); each
    block keeps the start whose coupling has the lowest LR objective. Shapes (cluster-major, as
    ``lowrank._solve``): A, Bf (B, k, m) with ``C = A^T mix Bf``, mix (k, k); a (B, m); g (B, r);
    returns Q, R (B, r, m), their LR objectives (B,), iterations, converged.
    """
    blocks = A.shape[0]
    tile = (restarts, 1, 1)
    Q, R, history, iterations, converged = _solve(
        A.repeat(tile),
        Bf.repeat(tile),
        a.repeat(restarts, 1),
        a.repeat(restarts, 1),
        g.repeat(restarts, 1),
        gamma=gamma,
        max_iter=max_iter,
        min_iter=min_iter,
        inner_iter=inner_iter,
        tol=tol,
        generator=gen,
        mix=mix,
    )
    value = _objective(A.repeat(tile), Bf.repeat(tile), Q, R, g.repeat(restarts, 1), mix)
    best = value.view(restarts, blocks).argmin(0) * blocks + torch.arange(blocks, device=A.device)
    return Q[best], R[best], value[best], iterations, converged


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


def _refine(n, ranks, level_factors, solver, restarts, device, log_level):
    """Algorithm 1's levels, every block of a level at once; returns the leaves and the log.

    ``level_factors(ix, iy, mask, sizes)`` gives the blocks' cost factors ``C = A mix Bf^T``,
    A, Bf (B, m, k) with padding rows zero, and ``mix`` (k, k) or None; ``log_level(level, ix,
    iy)`` adds a level's cost-specific entries. ix, iy (B, m) are -1 padded index blocks.
    """
    gamma, max_iter, min_iter, inner_iter, tol, seed = solver
    generator = torch.Generator().manual_seed(seed)  # draws on the CPU: same on any device
    ix = torch.arange(n, device=device).unsqueeze(0)  # (1, n): the frontier's X blocks
    iy = torch.arange(n, device=device).unsqueeze(0)
    levels, work = [], 0.0
    for r in ranks:
        t0 = time.perf_counter()
        blocks, m = ix.shape
        mask = ix >= 0  # (B, m)
        sizes = mask.sum(1)  # (B,)
        caps = torch.tensor([child_sizes(int(s), r) for s in sizes.tolist()], device=device)
        A, Bf, mix = level_factors(ix, iy, mask, sizes)
        k = A.shape[-1]
        maskf = mask.unsqueeze(-1).to(A.dtype)
        A = (A * maskf).transpose(1, 2).contiguous()  # (B, k, m): the subsolver's layout
        Bf = (Bf * maskf).transpose(1, 2).contiguous()
        a = mask.to(A.dtype) / sizes.unsqueeze(1)  # (B, m)
        g = caps.to(A.dtype) / sizes.unsqueeze(1)  # (B, r)
        Q, R, objective, iterations, converged = _best_of_restarts(
            A, Bf, mix, a, g, restarts, gamma, max_iter, min_iter, inner_iter, tol, generator
        )
        ix, iy = _split(ix, Q, caps), _split(iy, R, caps)
        work += 2.0 * restarts * (iterations + 1) * n * r * (2 * k + 4 * inner_iter + 4)
        level = {
            "rank": r,
            "blocks": blocks,
            "block_size": m,
            "iterations": iterations,
            "converged": converged,
            "seconds": time.perf_counter() - t0,
            "lr_objective": float((objective * sizes).sum() / n),
        }
        log_level(level, ix, iy)
        levels.append(level)
    return ix.cpu().numpy(), iy.cpu().numpy(), levels, work


def _finish(ixn, iyn, n, leaf_cost, levels, work, begin, ranks, leaf, pair_cost, log, device):
    """Exact leaves, the permutation check, and the output (numpy, or torch on ``device``)."""
    t0 = time.perf_counter()
    perm = np.full(n, -1, dtype=np.int64)
    _solve_leaves(ixn, iyn, perm, leaf_cost)
    sizes = (ixn >= 0).sum(1)
    work += float(np.sum(sizes.astype(np.float64) ** 3))
    leaf_seconds = time.perf_counter() - t0
    if not is_permutation(perm, n):  # an invariant of the construction, never expected
        raise RuntimeError("hiref produced a map that is not a permutation; please report")
    out = perm if device is None else torch.from_numpy(perm).to(device)
    if not log:
        return out
    info = {
        "ranks": tuple(ranks),
        "leaf": int(leaf),
        "levels": levels,
        "leaf_seconds": leaf_seconds,
        "seconds": time.perf_counter() - begin,
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
):
    """Hierarchical Refinement (Halmos et al., ICML 2025, Algorithm 1): a bijection ``X -> Y``.

    Parameters
    ----------
    X, Y : float arrays of the same shape ``(n, d)``: numpy arrays, or torch tensors on any
        device (the levels then run on that device, the leaves on the CPU, and ``perm`` is a
        torch tensor on that device). Equal sizes: see the README for ``n_x != n_y``.
    cost : ``"sqeuclidean"`` (``|x - y|^2``, exact factors ``A B^T`` with ``k = d + 2``) or
        ``"euclidean"`` (``|x - y|``: adaptive cross approximation of rank ``cost_rank`` in
        both directions, averaged, ``costs.euclidean_factors``; their error on sampled entries
        is in the log; leaves use the exact cost either way). Any other cost given as factors
        ``C = A B^T``: ``hiref_factored``.
    ranks : the rank schedule ``(r_1, ..., r_k)``; by default ``rank_schedule(n, max_rank=...,
        leaf_size=..., max_depth=...)``. Leaves get ``ceil(n / prod(ranks))`` points or fewer.
    gamma, max_iter, min_iter, inner_iter, tol : the low-rank subsolver's step and iterations
        (``lowrank.lowrank_ot``), used at every level.
    restarts : the subsolver runs from this many random starts at every level (stacked along
        the batch, so ``restarts`` times the level's work) and each block keeps the coupling
        with the lowest LR objective. 1 (the paper's single start) is the default; 4-8 remove
        most of the excess cost on data sets whose clusters a single start cuts (README).
    cost_rank : rank of each cross approximation of the Euclidean cost in every block (the
        factors have ``2 cost_rank`` columns; ignored for ``"sqeuclidean"``, whose factors are
        exact).
    seed : seeds the subsolver's initialisation; same seed, same output.
    log : also return a dict: ``ranks``, ``leaf``, per-level ``levels`` (rank, blocks, block
        size, seconds, subsolver iterations, converged, ``lr_objective`` of the chosen low-rank
        couplings, ``cost`` of the level's block coupling (squared Euclidean only), and for
        ``"euclidean"`` ``factor_error``, the worst block's relative error of its factors),
        ``leaf_seconds``, ``seconds``, ``work`` (an operation count), ``cost``.

    Returns
    -------
    perm : int64 array ``(n,)``, a permutation: ``X[i]`` is paired with ``Y[perm[i]]``.
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
    power = 2 if cost == "sqeuclidean" else 1  # cost(s x, s y) = s^power cost(x, y)

    # translation: centre both clouds on their joint mean; scale: unit mean square radius.
    centre = 0.5 * (X64.mean(0) + Y64.mean(0))
    X64, Y64 = X64 - centre, Y64 - centre
    scale = math.sqrt(0.5 * (np.mean(X64**2) + np.mean(Y64**2)) * d) or 1.0
    Xp = torch.from_numpy(X64 / scale).to(device=device, dtype=torch.float32)  # (n, d)
    Yp = torch.from_numpy(Y64 / scale).to(device=device, dtype=torch.float32)  # (n, d)
    errors = []  # the Euclidean factors' sampled error per level, for the log only

    def level_factors(ix, iy, mask, sizes):
        Xb, Yb = _gather(Xp, ix), _gather(Yp, iy)  # (B, m, d)
        centre_b = (Xb.sum(1) + Yb.sum(1)) / (2 * sizes).unsqueeze(1)  # (B, d)
        maskf = mask.unsqueeze(-1).to(Xp.dtype)
        Xc = (Xb - centre_b.unsqueeze(1)) * maskf  # (B, m, d)
        Yc = (Yb - centre_b.unsqueeze(1)) * maskf
        # C = A mix Bf^T with A computed from Xc exactly as Bf from Yc: when X == Y, A == Bf
        # bit for bit, hence Q == R, equal children in equal order, at every level
        if cost == "sqeuclidean":
            return symmetric_factors(Xc, Yc, cost)  # (B, m, d + 2), exact
        m = ix.shape[1]
        A, Bf, mix = symmetric_factors(Xc.double(), Yc.double(), cost, min(cost_rank, m), mask)
        if log:  # its own stream: the subsolver's draws must not depend on log
            error_gen = torch.Generator().manual_seed(solver[-1] + len(errors))
            errors.append(
                factor_error(*(t.cpu() for t in (A @ mix, Bf, Xc, Yc)), cost, mask.cpu(), error_gen)
            )
        return A.to(Xp.dtype), Bf.to(Xp.dtype), mix.to(Xp.dtype)  # k = 2 min(rank, m)

    def log_level(level, ix, iy):
        level["lr_objective"] *= scale**power
        if cost == "sqeuclidean":
            level["cost"] = _block_coupling_cost(Xp, Yp, ix, iy) * scale**2
        else:
            level["factor_error"] = errors[-1] if log else None

    ixn, iyn, levels, work = _refine(n, ranks, level_factors, solver, restarts, device, log_level)

    def leaf_cost(cx, cy, ok):
        return leaf_costs(X64[np.maximum(cx, 0)], Y64[np.maximum(cy, 0)], ok, cost)

    def pair_cost(perm):
        return float(np.mean(pair_costs(X64, Y64[perm], cost)))

    per_leaf = leaf * leaf * d if cost == "euclidean" else leaf * max(leaf, d)
    leaf_cost.entries = per_leaf
    return _finish(ixn, iyn, n, leaf_cost, levels, work, begin, ranks, leaf, pair_cost, log, device)


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
    # each factor at unit root-mean-square entry: C / (sa sb) has the same optimal couplings
    sa = float(np.sqrt(np.mean(A64**2))) or 1.0
    sb = float(np.sqrt(np.mean(B64**2))) or 1.0
    Ap = torch.from_numpy(A64 / sa).to(device=device, dtype=torch.float32)  # (n, k)
    Bp = torch.from_numpy(B64 / sb).to(device=device, dtype=torch.float32)  # (n, k)

    def level_factors(ix, iy, mask, sizes):
        return _gather(Ap, ix), _gather(Bp, iy), None  # (B, m, k) each

    def log_level(level, ix, iy):
        level["lr_objective"] *= sa * sb

    ixn, iyn, levels, work = _refine(n, ranks, level_factors, solver, restarts, device, log_level)

    def leaf_cost(cx, cy, ok):
        return A64[np.maximum(cx, 0)] @ B64[np.maximum(cy, 0)].transpose(0, 2, 1)  # (c, m, m)

    def pair_cost(perm):
        return float(np.mean(np.sum(A64 * B64[perm], axis=1)))

    leaf_cost.entries = leaf * max(leaf, k)
    return _finish(ixn, iyn, n, leaf_cost, levels, work, begin, ranks, leaf, pair_cost, log, device)
