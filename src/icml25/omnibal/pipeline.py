"""The cost model: a 1F1B pipeline schedule and data-parallel steps.

1F1B (PipeDream-flush, as in Megatron-LM, which OmniBal's InternVL training uses): with P
stages and M micro-batches, stage p (0-based) first runs ``w_p = min(P - p - 1, M)`` forwards,
then alternates one forward and one backward, then drains the remaining backwards. Forward
``F(p, m)`` waits for ``F(p - 1, m)``, backward ``B(p, m)`` for ``B(p + 1, m)`` (plus ``p2p``
seconds of transfer between stages); an op starts when its stage is free and its input has
arrived. The iteration time is the end of the last op; with equal stages it is
``(M + P - 1)(f + b)``, the bubble being ``(P - 1)(f + b)``.

Data parallel: a step ends when the slowest rank has finished its backward and the gradient
all-reduce is done, so rank r idles ``max_r' c_r' - c_r`` at the all-reduce.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int


@dataclass(frozen=True)
class Schedule:
    """A simulated 1F1B iteration: its time and every op as (stage, kind, micro, start, end),
    kind 0 for forward and 1 for backward; ``ops`` is (2 P M, 5).

    Parameters
    ----------
    time : float
        End of the last op: the iteration time.
    ops : ndarray, shape (2 P M, 5)
        Every op as (stage, kind, micro, start, end).
    """

    time: float
    ops: np.ndarray

    def busy(self) -> np.ndarray:
        """Busy time of each stage (P,)."""
        stages = self.ops[:, 0].astype(int)
        return np.bincount(stages, weights=self.ops[:, 4] - self.ops[:, 3])

    def bubble_fraction(self) -> float:
        """Idle fraction of the P x time area."""
        busy = self.busy()
        return float(1 - busy.sum() / (len(busy) * self.time))


def stage_order(p: int, n_stages: int, n_micro: int) -> list[tuple[int, int]]:
    """The 1F1B op order of stage p: a list of (kind, micro)."""
    warm = min(n_stages - p - 1, n_micro)
    order = [(0, m) for m in range(warm)]
    for i in range(n_micro - warm):
        order += [(0, warm + i), (1, i)]
    return order + [(1, m) for m in range(n_micro - warm, n_micro)]


def one_f_one_b(forward, backward, n_micro: int, *, p2p: float = 0.0) -> Schedule:
    """Simulate one 1F1B iteration.

    Parameters
    ----------
    forward, backward : array_like of float, shape (P,)
        Time of one micro-batch's forward and backward on each stage; non-negative.
    n_micro : int
        Micro-batches per iteration ``M``, ``>= 1``.
    p2p : float, default 0.0
        Transfer time between neighbouring stages, added to each forward and backward input.

    Returns
    -------
    Schedule
        The iteration time and every op's start and end.
    """
    f = np.asarray(forward, float)
    b = np.asarray(backward, float)
    if f.ndim != 1 or f.shape != b.shape or f.size == 0 or (f < 0).any() or (b < 0).any():
        raise ValueError("forward and backward must be non-negative (P,) arrays of equal length")
    n_micro = check_int("n_micro", n_micro, minimum=1)
    n_stages = len(f)
    orders = [stage_order(p, n_stages, n_micro) for p in range(n_stages)]
    done = np.full((2, n_stages, n_micro), np.nan)  # end time of (kind, stage, micro)
    free = np.zeros(n_stages)
    pos = [0] * n_stages
    ops = []
    while len(ops) < 2 * n_stages * n_micro:
        progressed = False
        for p in range(n_stages):
            while pos[p] < len(orders[p]):
                kind, m = orders[p][pos[p]]
                if kind == 0:
                    ready = 0.0 if p == 0 else done[0, p - 1, m] + p2p
                else:
                    ready = done[0, p, m] if p == n_stages - 1 else done[1, p + 1, m] + p2p
                if np.isnan(ready):
                    break
                start = max(free[p], ready)
                end = start + (f[p] if kind == 0 else b[p])
                done[kind, p, m] = free[p] = end
                ops.append((p, kind, m, start, end))
                pos[p] += 1
                progressed = True
        if not progressed:  # pragma: no cover - 1F1B cannot deadlock
            raise RuntimeError("1F1B schedule deadlocked")
    ops = np.array(ops, float)
    return Schedule(float(ops[:, 4].max()), ops)


def data_parallel_steps(compute, allreduce: float = 0.0) -> dict:
    """Data-parallel steps from each rank's compute time.

    Parameters
    ----------
    compute : array_like of float, shape (S, R)
        Seconds of forward + backward of rank r at step s; non-negative.
    allreduce : float, default 0.0
        Seconds of the gradient all-reduce, added to every step.

    Returns
    -------
    steps : dict
        ``step_time``: ndarray, shape (S,), ``max_r compute + allreduce``; ``idle``: ndarray,
        shape (S, R), ``max_r compute - compute``, the wait at the gradient all-reduce.
    """
    c = np.asarray(compute, float)
    if c.ndim != 2 or (c < 0).any():
        raise ValueError("compute must be a non-negative (S, R) array")
    top = c.max(axis=1)
    return {"step_time": top + allreduce, "idle": top[:, None] - c}
