"""The refinement itself: Algorithm 1's levels, batched over blocks, and the exact leaves.

A level takes the frontier's blocks, ``ix, iy`` of shape ``(B, m)`` (point indices, ``-1``
padding at the end of a row), solves one low-rank problem per block pair (``lowrank._solve``,
all blocks as one batch) and splits every block into ``r`` children. Each block's result
depends on that block alone: its start is drawn from its own random stream, keyed by
``(seed, level, block id, restart)``, it stops on its own tolerance, and the tensor width of
every level is fixed by the level above (``ceil(width / r)``), not by the blocks present. So
any set of blocks of a level can be refined apart from the others, on a Dask worker, with the
same result as in one batch on one torch thread (``distributed.py``;
``tests/hiref/test_distributed.py`` checks it).
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy.optimize import linear_sum_assignment

from icml25.hiref.costs import factor_error, leaf_costs, symmetric_factors
from icml25.hiref.lowrank import _objective, _solve, random_start
from icml25.hiref.rank_schedule import _child_sizes

_LEAF_CHUNK_ENTRIES = 1 << 22  # leaf entries formed at once, costs or points (32 MB, float64)


@dataclass
class Problem:
    """A HiRef problem as the levels and leaves see it; ``take`` cuts out a group of rows.

    X, Y (n, d) float64: the centred points (``cost`` ``"sqeuclidean"`` or ``"euclidean"``),
    or the cost's factors (``"factored"``, ``C_ij = X_i . Y_j``). The levels see
    ``X / scales[0]`` and ``Y / scales[1]`` in float32; the leaves the float64 rows.
    ``solver`` is ``(gamma, max_iter, min_iter, inner_iter, tol, seed)``.
    """

    X: np.ndarray
    Y: np.ndarray
    cost: str
    scales: tuple[float, float]
    solver: tuple
    restarts: int = 1
    cost_rank: int = 16
    log: bool = False
    errors: dict = field(default_factory=dict)  # level -> the Euclidean factors' error

    def take(self, rows_x: np.ndarray, rows_y: np.ndarray) -> Problem:
        """The same problem on the rows ``X[rows_x]``, ``Y[rows_y]`` (what a worker needs)."""
        return Problem(
            self.X[rows_x], self.Y[rows_y], self.cost, self.scales, self.solver,
            self.restarts, self.cost_rank, self.log,
        )  # fmt: skip

    def points(self, device) -> tuple[torch.Tensor, torch.Tensor]:
        """The float32 points (or factors) the levels work on, (n, d) each."""
        sx, sy = self.scales
        return (
            torch.from_numpy(self.X / sx).to(device=device, dtype=torch.float32),
            torch.from_numpy(self.Y / sy).to(device=device, dtype=torch.float32),
        )

    def level_factors(self, Xp, Yp, ix, iy, mask, sizes, level: int):
        """The blocks' cost factors ``C = A mix Bf^T``: A, Bf (B, m, k), mix (k, k) or None."""
        Xb, Yb = gather(Xp, ix), gather(Yp, iy)  # (B, m, d)
        if self.cost == "factored":
            return Xb, Yb, None
        centre = (Xb.sum(1) + Yb.sum(1)) / (2 * sizes).unsqueeze(1)  # (B, d)
        maskf = mask.unsqueeze(-1).to(Xp.dtype)
        Xc = (Xb - centre.unsqueeze(1)) * maskf  # (B, m, d)
        Yc = (Yb - centre.unsqueeze(1)) * maskf
        # C = A mix Bf^T with A computed from Xc exactly as Bf from Yc: when X == Y, A == Bf
        # bit for bit, hence Q == R, equal children in equal order, at every level
        if self.cost == "sqeuclidean":
            return symmetric_factors(Xc, Yc, self.cost)  # (B, m, d + 2), exact
        rank = min(self.cost_rank, ix.shape[1])
        A, Bf, mix = symmetric_factors(Xc.double(), Yc.double(), self.cost, rank, mask)
        if self.log:  # its own stream per level: the subsolver's draws must not depend on log
            gen = torch.Generator().manual_seed(self.solver[-1] + level)
            cpu = (t.cpu() for t in (A @ mix, Bf, Xc, Yc))
            self.errors[level] = factor_error(*cpu, self.cost, mask.cpu(), gen)
        return A.to(Xp.dtype), Bf.to(Xp.dtype), mix.to(Xp.dtype)  # k = 2 min(rank, m)

    def leaf_cost(self, cx: np.ndarray, cy: np.ndarray, valid: np.ndarray) -> np.ndarray:
        """A chunk of leaves' dense costs (c, m, m), float64, with the true optimal assignments."""
        Xl, Yl = self.X[np.maximum(cx, 0)], self.Y[np.maximum(cy, 0)]  # (c, m, d)
        if self.cost == "factored":
            return Xl @ Yl.transpose(0, 2, 1)
        return leaf_costs(Xl, Yl, valid, self.cost)

    def leaf_entries(self, leaf: int) -> int:
        """The largest temporary per leaf, in entries (sets the chunk of leaves formed at once)."""
        d = self.X.shape[1]
        return leaf * leaf * d if self.cost == "euclidean" else leaf * max(leaf, d)


def gather(points: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """points (n, d), idx (B, m) with -1 padding -> (B, m, d), padding rows zero."""
    out = points[idx.clamp(min=0)]
    return out * (idx >= 0).unsqueeze(-1).to(points.dtype)


def split(idx: torch.Tensor, P: torch.Tensor, caps: torch.Tensor, width: int) -> torch.Tensor:
    """Greedy capacity split of every block by its soft assignment, batched.

    idx (B, m) point indices (-1 = padding); P (B, r, m) soft assignment, cluster-major as the
    subsolver returns it; caps (B, r) child sizes, at most ``width``. Cluster z (in order)
    takes the caps[:, z] points of largest P[:, z, :] not yet taken.
    Returns the children's indices, (B * r, width), -1 padded.
    """
    B, r, m = P.shape
    score = P.masked_fill((idx < 0).unsqueeze(1), -math.inf)
    taken = torch.zeros(B, m, dtype=torch.bool, device=idx.device)
    rank_in_child = torch.arange(width, device=idx.device).unsqueeze(0)  # (1, width)
    children = []
    for z in range(r):
        s = score[:, z, :].masked_fill(taken, -math.inf)  # (B, m)
        top = s.topk(width, dim=1, sorted=True).indices  # (B, width)
        valid = rank_in_child < caps[:, z : z + 1]  # (B, width)
        taken |= torch.zeros_like(taken).scatter(1, top, valid)
        children.append(idx.gather(1, top).masked_fill(~valid, -1))
    return torch.stack(children, dim=1).reshape(B * r, width)


def _block_coupling_cost(Xp, Yp, ix, iy) -> float:
    """Sum over blocks of ``s_b`` times the mean cost of the coupling sending the X-block
    uniformly onto its Y-block, ``Var(X_b) + Var(Y_b) + |xbar - ybar|^2`` (divided by ``n``:
    the transport cost of the level's block coupling)."""
    mask = (ix >= 0).to(Xp.dtype)  # (B, m)
    sizes = mask.sum(1)  # (B,)
    Xb, Yb = gather(Xp, ix), gather(Yp, iy)  # (B, m, d)
    xbar = Xb.sum(1) / sizes.unsqueeze(1)
    ybar = Yb.sum(1) / sizes.unsqueeze(1)
    var_x = ((Xb - xbar.unsqueeze(1)) ** 2 * mask.unsqueeze(-1)).sum((1, 2)) / sizes
    var_y = ((Yb - ybar.unsqueeze(1)) ** 2 * mask.unsqueeze(-1)).sum((1, 2)) / sizes
    return float(((var_x + var_y + ((xbar - ybar) ** 2).sum(1)) * sizes).sum())


def block_starts(seed, level, first_block, blocks, restarts, width, r) -> torch.Tensor:
    """The subsolver's starts, (restarts * blocks, r, width): block ``first_block + b`` at this
    level, start ``t``, draws from its own stream, seeded by ``SeedSequence((seed, level,
    block, t))``, so its start does not depend on which other blocks are solved with it."""
    out = torch.empty(restarts * blocks, r, width)
    for t in range(restarts):
        for b in range(blocks):
            key = np.random.SeedSequence((seed, level, first_block + b, t))
            gen = torch.Generator().manual_seed(int(key.generate_state(1, np.uint64)[0]))
            out[t * blocks + b] = random_start(1, width, r, gen)[0]
    return out


def _best_of_restarts(A, Bf, mix, a, g, starts, restarts, solver):
    """The subsolver from ``restarts`` starts at once (stacked along the batch); each block keeps
    the start whose coupling has the lowest LR objective. Shapes (cluster-major, as
    ``lowrank._solve``): A, Bf (B, k, m) with ``C = A^T mix Bf``, mix (k, k); a (B, m); g (B, r);
    starts (restarts * B, r, m). Returns Q, R (B, r, m), their LR objectives (B,), and the
    iterations (restarts * B,) and convergence (restarts * B,) of every start.
    """
    gamma, max_iter, min_iter, inner_iter, tol, _ = solver
    blocks = A.shape[0]
    tile = (restarts, 1, 1)
    A, Bf, a, g = A.repeat(tile), Bf.repeat(tile), a.repeat(restarts, 1), g.repeat(restarts, 1)
    Q, R, _, iterations, converged = _solve(
        A, Bf, a, a, g, starts.to(A.device, A.dtype),
        gamma=gamma, max_iter=max_iter, min_iter=min_iter, inner_iter=inner_iter, tol=tol,
        mix=mix,
    )  # fmt: skip
    value = _objective(A, Bf, Q, R, g, mix)
    best = value.view(restarts, blocks).argmin(0) * blocks + torch.arange(blocks, device=A.device)
    return Q[best], R[best], value[best], iterations, converged


def refine(problem: Problem, ix, iy, ranks, first_level=0, first_block=0, device=None):
    """Algorithm 1's levels ``ranks`` from ``first_level`` on, every block of a level at once.

    ix, iy (B, m): the blocks of level ``first_level``, -1 padded, whose first block is block
    ``first_block`` of that level (children of block ``b`` are ``b r .. b r + r - 1``; the ids
    key the random starts). Returns the leaves ``ix, iy`` (numpy), one record per level
    (``merge_levels`` combines records of groups of blocks; ``hiref`` normalises them) and the
    operation count.
    """
    Xp, Yp = problem.points(device)
    records, work = [], 0.0
    for level, r in enumerate(ranks, start=first_level):
        t0 = time.perf_counter()
        blocks, width = ix.shape
        mask = ix >= 0  # (B, m)
        sizes = mask.sum(1)  # (B,)
        caps = torch.tensor([_child_sizes(int(s), r) for s in sizes.tolist()], device=ix.device)
        A, Bf, mix = problem.level_factors(Xp, Yp, ix, iy, mask, sizes, level)
        k = A.shape[-1]
        maskf = mask.unsqueeze(-1).to(A.dtype)
        A = (A * maskf).transpose(1, 2).contiguous()  # (B, k, m): the subsolver's layout
        Bf = (Bf * maskf).transpose(1, 2).contiguous()
        a = mask.to(A.dtype) / sizes.unsqueeze(1)  # (B, m)
        g = caps.to(A.dtype) / sizes.unsqueeze(1)  # (B, r)
        seed, restarts = problem.solver[-1], problem.restarts
        starts = block_starts(seed, level, first_block, blocks, restarts, width, r)
        Q, R, objective, iterations, converged = _best_of_restarts(
            A, Bf, mix, a, g, starts, restarts, problem.solver
        )
        child_width = -(-width // r)  # every level's width follows from the one above
        ix, iy = split(ix, Q, caps, child_width), split(iy, R, caps, child_width)
        first_block *= r
        per_start = sizes.repeat(problem.restarts).to(torch.float64)  # (restarts * B,)
        passes = float(((iterations + 1).to(torch.float64) * per_start).sum())
        inner = problem.solver[3]
        work += 2.0 * passes * r * (2 * k + 4 * inner + 4)
        record = {
            "rank": r,
            "blocks": blocks,
            "block_size": width,
            "iterations": int(iterations.max()),
            "iteration_sum": int(iterations.sum()),
            "starts": int(iterations.numel()),
            "converged": bool(converged.all()),
            "seconds": time.perf_counter() - t0,
            "lr_sum": float((objective * sizes).sum()),
        }
        if problem.cost == "sqeuclidean" and problem.log:
            record["cost_sum"] = _block_coupling_cost(Xp, Yp, ix, iy)
        if level in problem.errors:
            record["factor_error"] = problem.errors[level]
        records.append(record)
    return ix.cpu().numpy(), iy.cpu().numpy(), records, work


def merge_levels(groups: list[list[dict]]) -> list[dict]:
    """The records of one level's groups of blocks, combined into the level's record."""
    merged = []
    for records in zip(*groups, strict=True):
        merged.append(
            {
                "rank": records[0]["rank"],
                "blocks": sum(r["blocks"] for r in records),
                "block_size": records[0]["block_size"],
                "iterations": max(r["iterations"] for r in records),
                "iteration_sum": sum(r["iteration_sum"] for r in records),
                "starts": sum(r["starts"] for r in records),
                "converged": all(r["converged"] for r in records),
                "seconds": sum(r["seconds"] for r in records),
                "lr_sum": sum(r["lr_sum"] for r in records),
                **{
                    key: combine(r[key] for r in records)
                    for key, combine in (("cost_sum", sum), ("factor_error", max))
                    if key in records[0]
                },
            }
        )
    return merged


def solve_leaves(problem: Problem, ix: np.ndarray, iy: np.ndarray) -> tuple[np.ndarray, float]:
    """Exact assignment on every leaf; costs formed a chunk of leaves at a time (float64).

    ix, iy (B, m) leaf indices into ``problem``'s rows, -1 padded at the end of a row. Returns
    ``perm`` with ``perm[ix] = iy[assignment]`` (-1 for rows in no leaf) and the operation
    count ``sum s^3``. One call into scipy per leaf, on ``torch.get_num_threads()`` threads
    (scipy's solver releases the GIL; each leaf's answer is its own, so the same on any count).
    """
    B, m = ix.shape
    perm = np.full(len(problem.X), -1, dtype=np.int64)
    chunk = max(1, _LEAF_CHUNK_ENTRIES // max(1, problem.leaf_entries(m)))
    sizes = (ix >= 0).sum(1)
    valid = (ix >= 0)[:, :, None]  # (B, m, 1)
    with ThreadPoolExecutor(torch.get_num_threads()) as pool:
        for start in range(0, B, chunk):
            cx, cy = ix[start : start + chunk], iy[start : start + chunk]
            C = problem.leaf_cost(cx, cy, valid[start : start + chunk])  # (c, m, m)
            square = [C[j, :s, :s] for j, s in enumerate(sizes[start : start + chunk])]
            for j, (rows, cols) in enumerate(pool.map(linear_sum_assignment, square)):
                perm[cx[j, rows]] = cy[j, cols]
    return perm, float(np.sum(sizes.astype(np.float64) ** 3))
