"""HiRef beyond one machine: the levels below a depth, and the leaves, as Dask tasks.

After the first ``depth`` levels the frontier's blocks are independent problems. The blocks
are cut into contiguous groups; each group's rows of ``X`` and ``Y`` are shipped once
(``client.scatter``) to the worker that refines the group through the remaining levels and
solves its leaves (``refine.refine`` and ``refine.solve_leaves``, the code a single process
runs). A block's result does not depend on the blocks it is solved with (``refine``'s
docstring), so the permutation is the single-process one, bit for bit, when the workers and
the driver run torch with the same number of threads (tests/hiref/test_distributed.py runs
it on a scheduler and two workers started with the ``dask`` command line).
"""

from __future__ import annotations

import time

import numpy as np
import torch

from icml25.hiref.refine import Problem, merge_levels, refine, solve_leaves


def default_depth(ranks: tuple[int, ...], threads: int) -> int:
    """The first depth with at least two blocks per worker thread (at least 1, at most all
    levels): the driver solves the levels above it alone, one block at level 0."""
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


def _local(block_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A group's blocks (Bg, m) of global indices -> (their rows in block order, the same
    blocks as positions in those rows, -1 padded)."""
    valid = block_rows >= 0
    rows = block_rows[valid]
    local = np.full(block_rows.shape, -1, dtype=np.int64)
    local[valid] = np.arange(len(rows))
    return rows, local


def _refine_group(problem: Problem, lx, ly, ranks, first_level, first_block):
    """A Dask task: one group's remaining levels and leaves, torch on the worker's threads.

    Returns (perm of the group's rows, level records, operation count, leaf seconds)."""
    from distributed import get_worker  # noqa: PLC0415 (only ever called on a worker)

    previous = torch.get_num_threads()
    torch.set_num_threads(get_worker().state.nthreads)
    try:
        ix = torch.from_numpy(lx)
        iy = torch.from_numpy(ly)
        leaves_x, leaves_y, records, work = refine(problem, ix, iy, ranks, first_level, first_block)
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
        rows_x, lx = _local(ix[first:end])
        rows_y, ly = _local(iy[first:end])
        part = client.scatter(problem.take(rows_x, rows_y), hash=False)  # shipped once
        future = client.submit(
            _refine_group, part, lx, ly, tuple(ranks), first_level, first, pure=False
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
