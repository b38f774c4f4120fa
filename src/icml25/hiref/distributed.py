"""HiRef beyond one machine: the levels below a depth, and the leaves, as Dask tasks.

After the first ``depth`` levels the frontier's blocks are independent problems. The blocks
are cut into contiguous groups, two per worker thread; each group's rows of ``X`` and ``Y``
are shipped once (``client.scatter``; the task itself carries only the blocks' sizes) to the
worker that refines the group through the remaining levels and solves its leaves
(``refine.refine`` and ``refine.solve_leaves``, the code a single process runs). Each task runs
torch on one thread: a worker with ``T`` threads runs ``T`` tasks side by side, one core each.
A block's result does not depend on the blocks it is solved with (``refine``'s docstring), so
for CPU input the permutation is the single-process one, bit for bit, when the driver also runs
torch on one thread (tests/hiref/test_distributed.py, on a scheduler and two workers started
with the ``dask`` command line); with more threads on the driver, float32 sums split across
threads round differently and a near-tie in a split may go the other way.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from icml25.hiref.refine import Problem, merge_levels, refine, solve_leaves


def default_depth(ranks: tuple[int, ...], threads: int) -> int:
    """The first depth with at least two blocks per worker thread (at most all levels; 0 when
    there is no level): the driver solves the levels above it alone, one block at level 0."""
    blocks = 1
    for depth, r in enumerate(ranks, start=1):
        blocks *= r
        if blocks >= 2 * threads:
            return depth
    return len(ranks)


def _groups(blocks: int, count: int) -> list[tuple[int, int]]:
    """``count`` contiguous ranges of blocks, as equal as possible: [(first, end), ...]."""
    edges = np.linspace(0, blocks, min(count, blocks) + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def _local_blocks(sizes: np.ndarray, width: int) -> torch.Tensor:
    """A group's blocks as positions in its shipped rows: block ``b`` holds rows ``offset_b ..
    offset_b + sizes_b - 1``, -1 padded at the end to ``width``, as the blocks it came from
    (padding is always at the end of a block's row). (Bg,) -> (Bg, width)."""
    position = np.arange(width)  # (width,)
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))  # (Bg,)
    local = offsets[:, None] + position[None, :]
    return torch.from_numpy(np.where(position[None, :] < sizes[:, None], local, -1))


def _refine_group(problem: Problem, sizes, width, ranks, first_level, first_block):
    """A Dask task: one group's remaining levels and leaves, torch on one thread.

    X- and Y-blocks have the same sizes, hence the same local layout. Returns (perm of the
    group's rows, level records, operation count, leaf seconds)."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        ix = _local_blocks(sizes, width)
        leaves_x, leaves_y, records, work = refine(
            problem, ix, ix.clone(), ranks, first_level, first_block
        )
        t0 = time.perf_counter()
        perm, leaf_work = solve_leaves(problem, leaves_x, leaves_y)
        return perm, records, work + leaf_work, time.perf_counter() - t0
    finally:
        torch.set_num_threads(previous)


def refine_on_dask(client, problem: Problem, ix, iy, ranks, first_level: int, groups: int):
    """The levels ``ranks`` from ``first_level`` on and the leaves, ``groups`` Dask tasks.

    ix, iy (B, m): the blocks of level ``first_level`` (torch or numpy, -1 padded). Returns the
    permutation of all rows, the merged level records, the operation count, and the seconds
    the tasks spent on leaves (summed over tasks).
    """
    ix, iy = np.asarray(torch.as_tensor(ix).cpu()), np.asarray(torch.as_tensor(iy).cpu())
    futures = {}
    for first, end in _groups(ix.shape[0], groups):
        bx, by = ix[first:end], iy[first:end]  # (Bg, m) each, the same sizes
        rows_x, rows_y = bx[bx >= 0], by[by >= 0]  # in block order
        part = client.scatter(problem.take(rows_x, rows_y), hash=False)  # shipped once
        sizes = (bx >= 0).sum(1)  # (Bg,)
        future = client.submit(
            _refine_group, part, sizes, bx.shape[1], tuple(ranks), first_level, first, pure=False
        )
        futures[future] = (rows_x, rows_y)
    perm = np.full(len(problem.X), -1, dtype=np.int64)
    records, work, leaf_seconds = [], 0.0, 0.0
    for future, (rows_x, rows_y) in futures.items():
        part_perm, part_records, part_work, part_leaf_seconds = future.result()
        perm[rows_x] = rows_y[part_perm]
        records.append(part_records)
        work += part_work
        leaf_seconds += part_leaf_seconds
    return perm, merge_levels(records), work, leaf_seconds
