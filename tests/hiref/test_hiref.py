"""HiRef's invariants: always a permutation, exact on tiny n, translation invariance, bad input."""

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from icml25.hiref import hiref, is_permutation, rank_schedule, transport_cost


def clouds(n, d=2, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(n, d)) * 0.5 + 1.0


@pytest.mark.parametrize("leaf_size", [4, 256])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 13, 64, 65, 97, 127, 128, 256, 257, 1024, 1031])
def test_output_is_a_permutation(n, leaf_size):
    X, Y = clouds(n)
    perm = hiref(X, Y, seed=1, leaf_size=leaf_size, max_iter=30)
    assert perm.dtype == np.int64
    assert is_permutation(perm, n)


@pytest.mark.parametrize("n", [10_007, 4096])
def test_permutation_large_prime_and_power_of_two(n):
    X, Y = clouds(n, seed=2)
    perm, info = hiref(X, Y, log=True, max_iter=20, min_iter=5)
    assert is_permutation(perm, n)
    assert info["leaf"] <= 256 and len(info["ranks"]) >= 2
    assert transport_cost(X, Y, perm) == pytest.approx(info["cost"])


def test_identical_clouds_cost_zero():
    X, _ = clouds(1000, seed=3)
    perm = hiref(X, X.copy(), seed=0, leaf_size=32)
    assert transport_cost(X, X, perm) == 0.0
    assert np.array_equal(perm, np.arange(1000))


@pytest.mark.parametrize("n", [1, 2, 3, 8, 20, 64])
def test_tiny_n_equals_linear_sum_assignment(n):
    X, Y = clouds(n, d=3, seed=n)
    C = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    rows, cols = linear_sum_assignment(C)
    perm = hiref(X, Y)
    assert np.array_equal(perm[rows], cols)
    assert transport_cost(X, Y, perm) == pytest.approx(C[rows, cols].mean())


def test_translation_invariance():
    X, Y = clouds(2000, seed=4)
    shift = np.array([3.0, -2.0])
    first = hiref(X, Y, seed=5, leaf_size=64)
    assert np.array_equal(first, hiref(X + shift, Y + shift, seed=5, leaf_size=64))


def test_deterministic_for_a_seed_and_near_optimal():
    X, Y = clouds(512, seed=6)
    first, second = hiref(X, Y, seed=7, leaf_size=64), hiref(X, Y, seed=7, leaf_size=64)
    assert np.array_equal(first, second)
    C = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    rows, cols = linear_sum_assignment(C)
    assert transport_cost(X, Y, first) <= 1.01 * C[rows, cols].mean()


def test_log_reports_levels():
    X, Y = clouds(1000, seed=8)
    perm, info = hiref(X, Y, log=True, leaf_size=64)
    ranks, leaf = rank_schedule(1000, leaf_size=64)
    assert info["ranks"] == ranks and info["leaf"] == leaf
    assert len(info["levels"]) == len(ranks)
    for level in info["levels"]:
        assert {"rank", "blocks", "seconds", "iterations", "converged", "cost"} <= set(level)
    # a finer partition never costs more than the coarser block coupling it refines
    costs = [level["cost"] for level in info["levels"]] + [info["cost"]]
    assert all(b <= a + 1e-6 for a, b in zip(costs, costs[1:], strict=False))


def test_user_ranks_and_unequal_blocks():
    X, Y = clouds(999, seed=9)
    perm, info = hiref(X, Y, ranks=(3, 7), log=True)
    assert is_permutation(perm, 999)
    assert info["leaf"] == 48


def test_restarts_keep_the_lowest_objective_per_block():
    # the level-1 LR objective with k starts is the minimum over those starts: each start alone
    # (same generator stream: start j of the batch is start j of a 1-block run) is never lower
    # (a fixed number of iterations, so that the batch's stopping test cannot differ)
    X, Y = clouds(600, seed=10)
    fixed = {"ranks": (3,), "max_iter": 40, "min_iter": 40, "seed": 11, "log": True}
    _, with_four = hiref(X, Y, restarts=4, **fixed)
    _, with_one = hiref(X, Y, restarts=1, **fixed)
    assert with_four["levels"][0]["lr_objective"] <= with_one["levels"][0]["lr_objective"] + 1e-5


def test_restarts_improve_a_torn_data_set():
    # checkerboard (five squares to four), n = 1024: one start often cuts a square in two;
    # the best of 8 starts is within 0.2% of exact on all three seeds (measured 1.0003-1.0005)
    from icml25.hiref.datasets import sample

    for seed in range(3):
        X, Y = sample("checkerboard", 1024, seed)
        C = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
        rows, cols = linear_sum_assignment(C)
        perm = hiref(X, Y, restarts=8, seed=seed)
        assert is_permutation(perm, 1024)
        assert transport_cost(X, Y, perm) <= 1.002 * C[rows, cols].mean()


BAD = [
    ("X", lambda X, Y: (X[:10], Y)),  # different sizes
    ("Y", lambda X, Y: (X, Y[:, :1])),  # different dimensions
    ("X", lambda X, Y: (np.where(np.arange(20)[:, None] == 3, np.nan, X), Y)),
    ("Y", lambda X, Y: (X, np.where(np.arange(20)[:, None] == 3, np.inf, Y))),
    ("X", lambda X, Y: (X[:0], Y[:0])),  # empty
    ("X", lambda X, Y: (X[:, 0], Y[:, 0])),  # 1-D
    ("X", lambda X, Y: (X.astype(str), Y)),  # non-numeric
    ("Y", lambda X, Y: (X, Y.astype(complex))),
    ("X", lambda X, Y: (X > 0, Y)),  # boolean
]


@pytest.mark.parametrize(("name", "make"), BAD)
def test_bad_point_clouds_raise(name, make):
    X, Y = clouds(20)
    with pytest.raises(ValueError, match=name):
        hiref(*make(X, Y))


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"cost": "cosine"}, "cost"),
        ({"ranks": (1, 4)}, "ranks"),
        ({"ranks": (64,)}, "ranks"),
        ({"ranks": 4}, "ranks"),
        ({"max_rank": 1}, "max_rank"),
        ({"leaf_size": 0}, "leaf_size"),
        ({"max_depth": 0}, "max_depth"),
        ({"gamma": -1.0}, "gamma"),
        ({"gamma": float("nan")}, "gamma"),
        ({"tol": 0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"inner_iter": 0}, "inner_iter"),
        ({"restarts": 0}, "restarts"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_bad_arguments_raise(kwargs, name):
    X, Y = clouds(20)
    with pytest.raises(ValueError, match=name):
        hiref(X, Y, **kwargs)


def test_transport_cost_checks_perm():
    X, Y = clouds(5)
    assert transport_cost(X, Y, np.arange(5)) == pytest.approx(np.mean(((X - Y) ** 2).sum(1)))
    with pytest.raises(ValueError, match="perm"):
        transport_cost(X, Y, np.array([0, 0, 1, 2, 3]))
    with pytest.raises(ValueError, match="cost"):
        transport_cost(X, Y, np.arange(5), cost="l1")
