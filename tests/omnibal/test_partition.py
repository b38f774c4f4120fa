"""Partition search against brute force, the adaptive recompute knapsack against enumeration."""

import itertools

import numpy as np
import pytest

from icml25.omnibal import (
    LayerCosts,
    Memory,
    adaptive_recompute,
    brute_force_partition,
    equal_layer_partition,
    evaluate,
    param_balanced_partition,
    search_partition,
    stage_memory,
)


def _costs(L, seed):
    rng = np.random.default_rng(seed)
    act = rng.uniform(1, 3, L)
    return LayerCosts(
        rng.uniform(0.5, 2, L), rng.uniform(1, 4, L), act, act / 8, rng.uniform(0.1, 1, L)
    )


@pytest.mark.parametrize("L, P, seed", [(6, 2, 0), (8, 3, 1), (9, 4, 2), (10, 3, 3), (10, 4, 4)])
def test_search_finds_the_brute_force_optimum(L, P, seed):
    costs = _costs(L, seed)
    assert search_partition(costs, P, 8).time == pytest.approx(
        brute_force_partition(costs, P, 8).time
    )


@pytest.mark.parametrize("seed", range(3))
def test_search_with_memory_finds_the_brute_force_optimum(seed):
    costs = _costs(9, seed)
    memory = Memory(budget=14.0, bytes_per_param=2.0)
    best = brute_force_partition(costs, 3, 6, memory)
    assert np.isfinite(best.time)
    assert search_partition(costs, 3, 6, memory=memory, radius=3).time == pytest.approx(best.time)


def test_searched_partition_beats_equal_layers_on_heterogeneous_layers():
    # four cheap layers then four expensive ones: equal layers put both expensive pairs last
    f = np.array([1, 1, 1, 1, 4, 4, 4, 4], float)
    costs = LayerCosts(f, 2 * f, f, f / 4, f)
    equal = evaluate(costs, equal_layer_partition(8, 4), 8)
    assert equal.cuts == (2, 4, 6)
    assert search_partition(costs, 4, 8).time < equal.time
    assert param_balanced_partition(costs, 2) == (6,)


def test_recompute_plan_is_the_cheapest_feasible_subset():
    rng = np.random.default_rng(0)
    for _ in range(20):
        f, act = rng.uniform(0.1, 1, 7), rng.uniform(1, 4, 7)
        ckpt, static, k = act * rng.uniform(0, 0.5, 7), 3.0, 3
        budget = rng.uniform(stage_memory(act, ckpt, static, k, np.ones(7, bool)),
                             stage_memory(act, ckpt, static, k, np.zeros(7, bool)))  # fmt: skip
        plan = adaptive_recompute(f, act, ckpt, static, k, budget, units=20000)
        assert stage_memory(act, ckpt, static, k, plan) <= budget
        best = min(
            f[list(s)].sum()
            for r in range(8)
            for s in itertools.combinations(range(7), r)
            if stage_memory(act, ckpt, static, k, np.isin(np.arange(7), s)) <= budget
        )
        assert f[plan].sum() <= best * 1.01 + 1e-12  # exact up to the memory rounding


def test_recompute_edge_cases():
    f, act, ckpt = np.ones(3), np.full(3, 2.0), np.full(3, 0.5)
    assert not adaptive_recompute(f, act, ckpt, 0.0, 2, 100.0).any()  # fits without recompute
    assert adaptive_recompute(f, act, ckpt, 0.0, 2, 2.0) is None  # even full does not fit
    assert adaptive_recompute(f, act, ckpt, 0.0, 2, 3.0).all()  # exactly full recompute


def test_bad_inputs():
    costs = _costs(5, 0)
    with pytest.raises(ValueError, match="n_stages"):
        search_partition(costs, 6, 4)
    with pytest.raises(ValueError, match="n_stages"):
        brute_force_partition(costs, 0, 4)
    with pytest.raises(ValueError, match="LayerCosts"):
        LayerCosts(np.ones(3), np.ones(2), np.ones(3), np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="forward, act and ckpt"):
        adaptive_recompute(np.ones(2), np.ones(3), np.ones(3), 0.0, 1, 1.0)
