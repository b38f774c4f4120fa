"""HiRef on a user-supplied factored cost, and on torch tensors (CPU here; CUDA where present)."""

import numpy as np
import pytest
import torch
from scipy.optimize import linear_sum_assignment

from icml25.hiref import (
    hiref,
    hiref_factored,
    is_permutation,
    sample,
    sqeuclidean_factors,
    transport_cost,
)
from icml25.hiref.baselines import exact_cost


def clouds(n, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(n, d)) * 0.5 + 1.0


@pytest.mark.parametrize("n", [1, 5, 64])
def test_factored_tiny_n_equals_linear_sum_assignment(n):
    # a cost that is no distance: C_ij = -x_i . y_j (maximise the inner product), rank d
    X, Y = clouds(n, seed=n)
    C = -X @ Y.T
    rows, cols = linear_sum_assignment(C)
    perm, info = hiref_factored(-X, Y, log=True)
    assert np.array_equal(perm[rows], cols)
    assert info["cost"] == pytest.approx(C[rows, cols].mean())


def test_factored_squared_euclidean_matches_points():
    X, Y = sample("halfmoon_scurve", 1024, 0)
    A, B = (t.numpy() for t in sqeuclidean_factors(X, Y))  # (n, d + 2)
    perm, info = hiref_factored(A, B, seed=0, log=True)
    assert is_permutation(perm, 1024)
    assert info["cost"] == pytest.approx(transport_cost(X, Y, perm))
    assert info["cost"] <= 1.02 * exact_cost(X, Y)
    assert len(info["levels"]) == len(info["ranks"]) >= 1


def test_factored_bad_input_raises():
    with pytest.raises(ValueError, match="Y must have the shape of X"):
        hiref_factored(np.ones((8, 3)), np.ones((8, 2)))
    with pytest.raises(ValueError, match="restarts"):
        hiref_factored(np.ones((8, 3)), np.ones((8, 3)), restarts=0)


def test_torch_input_gives_torch_output_and_the_numpy_map():
    X, Y = clouds(2000, d=2, seed=4)
    expected, info = hiref(X, Y, seed=3, leaf_size=64, log=True)
    Xt, Yt = torch.from_numpy(X), torch.from_numpy(Y)
    perm, info_t = hiref(Xt, Yt, seed=3, leaf_size=64, log=True)
    assert isinstance(perm, torch.Tensor) and perm.dtype == torch.int64
    assert perm.device == Xt.device
    assert np.array_equal(perm.numpy(), expected)  # the same computation as for numpy input
    assert info_t["cost"] == info["cost"]
    single = hiref(Xt.float(), Yt.float(), seed=3, leaf_size=64)
    assert is_permutation(single.numpy(), 2000)
    factored = hiref_factored(*sqeuclidean_factors(Xt, Yt), seed=3, leaf_size=64)
    assert isinstance(factored, torch.Tensor) and is_permutation(factored.numpy(), 2000)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_tensors_run_on_the_device():
    X, Y = sample("gaussians", 4096, 0)
    cpu, info = hiref(X, Y, seed=0, log=True)
    Xc, Yc = torch.from_numpy(X).cuda(), torch.from_numpy(Y).cuda()
    perm, info_c = hiref(Xc, Yc, seed=0, log=True)
    assert perm.is_cuda and is_permutation(perm.cpu().numpy(), 4096)
    assert info_c["cost"] == pytest.approx(info["cost"], rel=1e-2)


def test_unequal_sizes_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="a bijection needs equal sizes"):
        hiref(np.zeros((10, 2)), np.zeros((12, 2)))


@pytest.mark.parametrize(("nx", "ny"), [(6, 9), (300, 200)])
def test_unequal_sizes_by_replication_recipe(nx, ny):
    # the README's recipe: X repeated L / nx times and Y L / ny times (L = lcm) turns OT between
    # uniform weights of unequal sizes into an assignment of L points; its pairs carry 1 / L
    import ot

    rng = np.random.default_rng(nx)
    X, Y = rng.normal(size=(nx, 2)), rng.normal(size=(ny, 2)) + 1.0
    L = np.lcm(nx, ny)
    rows, cols = np.repeat(np.arange(nx), L // nx), np.repeat(np.arange(ny), L // ny)
    perm = hiref(X[rows], Y[cols], seed=0)
    plan = np.zeros((nx, ny))
    np.add.at(plan, (rows, cols[perm]), 1.0 / L)
    np.testing.assert_allclose(plan.sum(1), 1.0 / nx)
    np.testing.assert_allclose(plan.sum(0), 1.0 / ny)
    M = ot.dist(X, Y)
    exact = float(np.sum(ot.emd(np.full(nx, 1 / nx), np.full(ny, 1 / ny), M) * M))
    cost = float(np.sum(plan * M))
    assert exact - 1e-9 <= cost <= (1.0 + 1e-9 if L <= 256 else 1.02) * exact
