"""OmniBal's model partition: stage boundaries for P pipeline stages that minimise the simulated
1F1B iteration time, against the equal-layer and parameter-balanced splits.

A partition of L layers is P - 1 cuts ``0 < c_1 < ... < c_{P-1} < L``; stage p holds layers
``[c_p, c_{p+1})``. Its micro-batch times are the sums of the layers' profiled forward and
backward times; if memory is given, each stage gets the adaptive recomputation plan of
``recompute.py`` and its backward grows by the recomputed forwards (a partition on which some
stage cannot fit even with full recomputation costs infinity). OmniBal searches around a balanced
start; we start from the cuts where the cumulative time crosses ``p / P`` of the total, evaluate
every move of each cut by up to ``radius`` layers (all (2 radius + 1)^(P - 1) combinations) and
repeat from the best until nothing improves. ``brute_force_partition`` enumerates all
``C(L - 1, P - 1)`` partitions (for tests and small models).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int
from icml25.omnibal.pipeline import Schedule, one_f_one_b
from icml25.omnibal.recompute import adaptive_recompute


@dataclass(frozen=True)
class LayerCosts:
    """Per-layer costs of one micro-batch: forward and backward seconds (L,), activation bytes
    saved for the backward (L,), bytes of the layer's input (its checkpoint) (L,), parameters
    (L,).

    Parameters
    ----------
    forward : ndarray, shape (L,)
        Forward time of each layer for one micro-batch (seconds, or FLOPs).
    backward : ndarray, shape (L,)
        Backward time of each layer for one micro-batch.
    act : ndarray, shape (L,)
        Activation bytes each layer saves for its backward.
    ckpt : ndarray, shape (L,)
        Bytes of each layer's input (what it keeps if recomputed).
    params : ndarray, shape (L,)
        Parameters of each layer.
    """

    forward: np.ndarray
    backward: np.ndarray
    act: np.ndarray
    ckpt: np.ndarray
    params: np.ndarray

    def __post_init__(self) -> None:
        shapes = {np.shape(getattr(self, k)) for k in ("forward", "backward", "act", "ckpt")}
        shapes.add(np.shape(self.params))
        if len(shapes) != 1 or len(next(iter(shapes))) != 1:
            raise ValueError("LayerCosts arrays must all be (L,) of the same length")

    @property
    def n_layers(self) -> int:
        return len(self.forward)


@dataclass(frozen=True)
class Memory:
    """Memory model: a per-stage budget in bytes and static bytes per parameter (weights,
    gradients and optimizer state).

    Parameters
    ----------
    budget : float
        Memory budget of one stage, in bytes.
    bytes_per_param : float, default 16.0
        Static bytes per parameter (weights, gradients and optimizer state).
    """

    budget: float
    bytes_per_param: float = 16.0


@dataclass(frozen=True)
class Plan:
    """A partition and what the cost model says of it.

    Parameters
    ----------
    cuts : tuple of int
        The P - 1 stage boundaries, strictly increasing in ``(0, L)``.
    time : float
        Simulated 1F1B iteration time; infinity if some stage cannot fit its memory.
    schedule : Schedule or None
        The simulated schedule; None for an infeasible partition.
    recompute : tuple of ndarray or None
        Per stage, the bool mask of its recomputed layers; None without a memory model or
        for an infeasible partition.
    """

    cuts: tuple[int, ...]
    time: float
    schedule: Schedule | None
    recompute: tuple[np.ndarray, ...] | None


def _check(costs: LayerCosts, n_stages: int) -> int:
    n_stages = check_int("n_stages", n_stages, minimum=1)
    if n_stages > costs.n_layers:
        raise ValueError(
            f"n_stages must be <= the number of layers {costs.n_layers}, got {n_stages}"
        )
    return n_stages


def evaluate(costs: LayerCosts, cuts, n_micro: int, memory: Memory | None = None) -> Plan:
    """Simulated 1F1B time of a partition (with adaptive recomputation if ``memory``).

    Parameters
    ----------
    costs : LayerCosts
        Per-layer costs of one micro-batch.
    cuts : sequence of int
        The stage boundaries, strictly increasing in ``(0, L)``; empty for one stage.
    n_micro : int
        Micro-batches per iteration ``M``, ``>= 1``.
    memory : Memory, optional
        Memory model; given, each stage gets its adaptive recomputation plan and its backward
        grows by the recomputed forwards.

    Returns
    -------
    Plan
        The partition, its time (infinity if a stage cannot fit even with full
        recomputation), its schedule and its recomputation masks.
    """
    bounds = [0, *cuts, costs.n_layers]
    n_stages = len(bounds) - 1
    fwd, bwd, plans = np.zeros(n_stages), np.zeros(n_stages), []
    for p, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        f = costs.forward[lo:hi]
        fwd[p], bwd[p] = f.sum(), costs.backward[lo:hi].sum()
        if memory is not None:
            plan = adaptive_recompute(
                f,
                costs.act[lo:hi],
                costs.ckpt[lo:hi],
                memory.bytes_per_param * costs.params[lo:hi].sum(),
                min(n_stages - p, n_micro),
                memory.budget,
            )
            if plan is None:
                return Plan(tuple(cuts), float("inf"), None, None)
            bwd[p] += f[plan].sum()
            plans.append(plan)
    schedule = one_f_one_b(fwd, bwd, n_micro)
    return Plan(tuple(int(c) for c in cuts), schedule.time, schedule, tuple(plans) or None)


def equal_layer_partition(n_layers: int, n_stages: int) -> tuple[int, ...]:
    """Cuts giving every stage the same number of layers (the first stages one more).

    Parameters
    ----------
    n_layers : int
        Number of layers ``L``.
    n_stages : int
        Number of pipeline stages ``P``, ``1 <= P <= L``.

    Returns
    -------
    cuts : tuple of int
        The P - 1 stage boundaries.
    """
    sizes = np.full(n_stages, n_layers // n_stages)
    sizes[: n_layers % n_stages] += 1
    return tuple(int(c) for c in np.cumsum(sizes)[:-1])


def balanced_cuts(weights, n_stages: int) -> tuple[int, ...]:
    """Cuts where the cumulative weight crosses p / P of the total, kept strictly increasing."""
    w = np.asarray(weights, float)
    cum = np.cumsum(w)
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, n_stages) / n_stages) + 1
    cuts = np.clip(cuts, np.arange(1, n_stages), len(w) - n_stages + np.arange(1, n_stages))
    for i in range(1, len(cuts)):
        cuts[i] = max(cuts[i], cuts[i - 1] + 1)
    return tuple(int(c) for c in cuts)


def param_balanced_partition(costs: LayerCosts, n_stages: int) -> tuple[int, ...]:
    """Cuts balancing the parameter count of the stages (what a split by model size does).

    Parameters
    ----------
    costs : LayerCosts
        Per-layer costs; only ``costs.params`` is used.
    n_stages : int
        Number of pipeline stages ``P``, ``1 <= P <= L``.

    Returns
    -------
    cuts : tuple of int
        The P - 1 stage boundaries, where the cumulative parameters cross ``p / P`` of the
        total.
    """
    return balanced_cuts(costs.params, _check(costs, n_stages))


def search_partition(
    costs: LayerCosts,
    n_stages: int,
    n_micro: int,
    *,
    memory: Memory | None = None,
    radius: int = 2,
    max_rounds: int = 50,
) -> Plan:
    """Local search from the time-balanced cuts (OmniBal's partition search).

    Parameters
    ----------
    costs : LayerCosts
        Per-layer costs of one micro-batch.
    n_stages : int
        Number of pipeline stages ``P``, ``1 <= P <= L``.
    n_micro : int
        Micro-batches per iteration ``M``.
    memory : Memory, optional
        Memory model for the adaptive recomputation of each stage.
    radius : int, default 2
        Each cut moves by up to this many layers per round, ``>= 1``.
    max_rounds : int, default 50
        Most rounds of the search.

    Returns
    -------
    Plan
        The best partition found (a local optimum of the simulated 1F1B time).
    """
    n_stages = _check(costs, n_stages)
    radius = check_int("radius", radius, minimum=1)
    best = evaluate(costs, balanced_cuts(costs.forward + costs.backward, n_stages), n_micro, memory)
    moves = list(itertools.product(range(-radius, radius + 1), repeat=n_stages - 1))
    for _ in range(max_rounds):
        improved = False
        base = np.array(best.cuts)
        for move in moves:
            cuts = base + move
            if n_stages > 1 and (cuts[0] < 1 or cuts[-1] >= costs.n_layers):
                continue
            if (np.diff(cuts) < 1).any():
                continue
            plan = evaluate(costs, cuts, n_micro, memory)
            if plan.time < best.time - 1e-12:
                best, improved = plan, True
        if not improved:
            break
    return best


def brute_force_partition(
    costs: LayerCosts, n_stages: int, n_micro: int, memory: Memory | None = None
) -> Plan:
    """The optimum over all contiguous partitions (C(L - 1, P - 1) of them).

    Parameters
    ----------
    costs : LayerCosts
        Per-layer costs of one micro-batch.
    n_stages : int
        Number of pipeline stages ``P``, ``1 <= P <= L``.
    n_micro : int
        Micro-batches per iteration ``M``.
    memory : Memory, optional
        Memory model for the adaptive recomputation of each stage.

    Returns
    -------
    Plan
        The partition of least simulated time.
    """
    n_stages = _check(costs, n_stages)
    plans = (
        evaluate(costs, cuts, n_micro, memory)
        for cuts in itertools.combinations(range(1, costs.n_layers), n_stages - 1)
    )
    return min(plans, key=lambda plan: plan.time)
