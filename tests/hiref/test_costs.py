"""Ground costs: leaf matrices with the true cost's assignments, exact and ACA factors, and HiRef
on the Euclidean cost."""

import numpy as np
import pytest
import torch
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist

from icml25.hiref import (
    euclidean_factors,
    hiref,
    is_permutation,
    sqeuclidean_factors,
    transport_cost,
)
from icml25.hiref.costs import (
    COSTS,
    cross_approximation,
    factor_error,
    leaf_costs,
    symmetric_factors,
)


def clouds(n, d=2, seed=0, shift=1.0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(n, d)) * 0.5 + shift


def test_sqeuclidean_leaf_cost_differs_by_row_and_column_constants():
    # -2 (x - xbar).(y - ybar) = |x - y|^2 - u_i - v_j: same assignments (tolerance 1e-9)
    X, Y = clouds(40, d=3, seed=1)
    valid = np.ones((1, 40, 1), dtype=bool)
    C = leaf_costs(X[None], Y[None], valid, "sqeuclidean")[0]
    D = C - cdist(X, Y, "sqeuclidean")
    np.testing.assert_allclose(D - D[:, :1] - D[:1, :] + D[0, 0], 0.0, atol=1e-9)
    np.testing.assert_allclose(leaf_costs(X[None], Y[None], valid, "euclidean")[0], cdist(X, Y))


def test_aca_reproduces_its_pivot_rows_and_columns_and_converges_with_rank():
    X, Y = clouds(300, seed=2, shift=0.0)  # overlapping clouds: the hardest case for low rank
    C = cdist(X, Y)
    errors = []
    for rank in (4, 16, 64):
        A, B = cross_approximation(torch.from_numpy(X), torch.from_numpy(Y), rank)
        residual = C - (A @ B.T).numpy()
        # ACA interpolates: its `rank` pivot rows and columns are exact (to rounding), so at
        # least `rank` rows and columns of the residual vanish
        exact_rows = np.sort(np.abs(residual).max(1))[:rank]
        exact_cols = np.sort(np.abs(residual).max(0))[:rank]
        assert exact_rows.max() < 1e-9 and exact_cols.max() < 1e-9
        errors.append(np.linalg.norm(residual) / np.linalg.norm(C))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.05


def test_euclidean_factors_are_symmetric_for_one_cloud_and_average_both_directions():
    X, Y = clouds(200, seed=7, shift=0.0)
    A, B = euclidean_factors(torch.from_numpy(X), torch.from_numpy(X), 8)
    C = (A @ B.T).numpy()
    np.testing.assert_allclose(C, C.T, atol=1e-12)
    # the average of two approximations of C is no worse than the worse one (triangle inequality)
    C = cdist(X, Y)
    A, B = euclidean_factors(torch.from_numpy(X), torch.from_numpy(Y), 8)
    U, V = cross_approximation(torch.from_numpy(X), torch.from_numpy(Y), 8)
    Ut, Vt = cross_approximation(torch.from_numpy(Y), torch.from_numpy(X), 8)
    one, other = np.linalg.norm((U @ V.T).numpy() - C), np.linalg.norm((Ut @ Vt.T).numpy() - C.T)
    assert np.linalg.norm((A @ B.T).numpy() - C) <= max(one, other) * (1 + 1e-12)


def test_symmetric_factors_factor_the_cost_with_equal_sides_for_one_cloud():
    # C = F M G^T: the same cost as the plain factors, F == G bit for bit when X == Y
    X, Y = clouds(120, d=3, seed=9, shift=0.5)
    Xt, Yt = torch.from_numpy(X), torch.from_numpy(Y)
    F, G, M = symmetric_factors(Xt, Yt, "sqeuclidean")
    assert F.shape == G.shape == (120, 5) and torch.equal(M, M.T)
    np.testing.assert_allclose((F @ M @ G.T).numpy(), cdist(X, Y, "sqeuclidean"), atol=1e-10)
    F, G, M = symmetric_factors(Xt, Yt, "euclidean", 8)
    A, B = euclidean_factors(Xt, Yt, 8)
    assert F.shape == G.shape == (120, 16) and torch.equal(M, M.T)
    np.testing.assert_allclose((F @ M @ G.T).numpy(), (A @ B.T).numpy(), atol=1e-12)
    for cost in COSTS:
        F, G, _ = symmetric_factors(Xt, Xt.clone(), cost, 8)
        assert torch.equal(F, G)


def test_aca_is_exact_on_separated_clouds_and_stops_on_exact_blocks():
    X, Y = clouds(200, seed=3, shift=8.0)  # far apart: the distance is smooth, low rank
    A, B = euclidean_factors(torch.from_numpy(X), torch.from_numpy(Y), 24)
    np.testing.assert_allclose((A @ B.T).numpy(), cdist(X, Y), rtol=1e-7)
    # a rank-1 block (one point repeated) gets zero terms after the first
    P = np.repeat(X[:1], 10, axis=0)
    A, B = cross_approximation(torch.from_numpy(P), torch.from_numpy(Y[:10]), 5)
    assert torch.count_nonzero(A[:, 1:]) == 0
    np.testing.assert_allclose((A @ B.T).numpy(), cdist(P, Y[:10]), rtol=1e-12)


def test_aca_batched_with_padding_matches_one_by_one():
    X, Y = clouds(64, seed=4, shift=0.0)
    Xb = torch.zeros(2, 64, 2, dtype=torch.float64)
    Yb = torch.zeros(2, 64, 2, dtype=torch.float64)
    Xb[0], Yb[0] = torch.from_numpy(X), torch.from_numpy(Y)
    Xb[1, :50], Yb[1, :50] = torch.from_numpy(X[:50]), torch.from_numpy(Y[:50])
    mask = torch.arange(64).unsqueeze(0) < torch.tensor([[64], [50]])
    A, B = euclidean_factors(Xb, Yb, 8, mask)  # (2, 64, 16)
    A1, B1 = euclidean_factors(torch.from_numpy(X[:50]), torch.from_numpy(Y[:50]), 8)
    np.testing.assert_allclose(A[1, :50].numpy(), A1.numpy(), atol=1e-12)
    np.testing.assert_allclose(B[1, :50].numpy(), B1.numpy(), atol=1e-12)
    assert torch.count_nonzero(A[1, 50:]) == 0 and torch.count_nonzero(B[1, 50:]) == 0
    # a rank-1 block (one point repeated) beside a full one: its later steps add zero terms,
    # the other block's do not
    Xb[1] = Xb[1, :1]
    A, B = cross_approximation(Xb, Yb, 4, mask)
    assert torch.count_nonzero(A[1, :, 1:]) == 0 and torch.count_nonzero(A[0, :, 3]) > 0
    np.testing.assert_allclose(
        (A[1, :50] @ B[1, :50].T).numpy(), cdist(Xb[1, :50], Yb[1, :50]), rtol=1e-12
    )
    error = factor_error(A, B, Xb, Yb, "euclidean", mask, torch.Generator().manual_seed(0))
    assert 0 < error < 0.2
    # the squared Euclidean factors are exact: their sampled error is rounding only
    A, B = sqeuclidean_factors(Xb, Yb)
    exact = factor_error(A, B, Xb, Yb, "sqeuclidean", mask, torch.Generator().manual_seed(0))
    assert exact < 1e-12


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 257, 1031])
def test_euclidean_hiref_is_a_permutation(n):
    X, Y = clouds(n, seed=5)
    perm = hiref(X, Y, cost="euclidean", leaf_size=16, max_iter=30)
    assert is_permutation(perm, n)


@pytest.mark.parametrize("n", [2, 8, 40])
def test_euclidean_one_leaf_equals_linear_sum_assignment(n):
    X, Y = clouds(n, d=3, seed=n)
    C = cdist(X, Y)
    rows, cols = linear_sum_assignment(C)
    perm = hiref(X, Y, cost="euclidean")
    assert transport_cost(X, Y, perm, cost="euclidean") == pytest.approx(C[rows, cols].mean())


def test_euclidean_near_optimal_identical_zero_and_translation_invariant():
    X, Y = clouds(1024, seed=6, shift=3.0)
    C = cdist(X, Y)
    rows, cols = linear_sum_assignment(C)
    perm, info = hiref(X, Y, cost="euclidean", seed=1, log=True)
    # measured 1.0003 (separated clouds: the factors are near exact, factor_error ~1e-6)
    assert transport_cost(X, Y, perm, cost="euclidean") <= 1.005 * C[rows, cols].mean()
    assert info["cost"] == pytest.approx(transport_cost(X, Y, perm, cost="euclidean"))
    assert all(level["factor_error"] < 1e-3 for level in info["levels"])
    shift = np.array([-5.0, 2.0])
    assert np.array_equal(perm, hiref(X + shift, Y + shift, cost="euclidean", seed=1))
    same = hiref(X, X.copy(), cost="euclidean", leaf_size=32)
    assert transport_cost(X, X, same, cost="euclidean") == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("cost", COSTS)
def test_identical_clouds_give_the_identity_on_any_blas(cost, seed):
    # bit-identical splits by construction (costs.symmetric_factors + the subsolver's mix), not
    # by luck of rounding. With the plain factors C = A B^T, Q and R differed by 1e-8 and which
    # points left their own image depended on MKL's kernel: on these six cases 0/0/0/9/2/0
    # points on AVX-512, 71/69/9/2/3/0 with MKL_ENABLE_INSTRUCTIONS=AVX2, none with SSE4_2
    X = np.random.default_rng(seed).normal(size=(1000, 2))
    perm = hiref(X, X.copy(), cost=cost, leaf_size=32, seed=seed)
    assert np.array_equal(perm, np.arange(1000))


def test_euclidean_log_does_not_change_the_map():
    X, Y = clouds(700, seed=8, shift=0.0)
    perm, info = hiref(X, Y, cost="euclidean", leaf_size=32, seed=3, log=True)
    assert np.array_equal(perm, hiref(X, Y, cost="euclidean", leaf_size=32, seed=3))
    assert all(0 <= level["factor_error"] < 0.5 for level in info["levels"])


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda X, Y, m: (X, Y, 0, None), "rank"),
        (lambda X, Y, m: (X, Y, 2.5, None), "rank"),
        (lambda X, Y, m: (X.long(), Y, 4, None), "X"),
        (lambda X, Y, m: (X, Y[:, :5], 4, None), "Y"),
        (lambda X, Y, m: (X, Y, 4, m.int()), "mask"),
        (lambda X, Y, m: (X, Y, 4, m.flip(-1)), "mask"),
    ],
)
def test_bad_factor_input_raises(make, name):
    X, Y = (torch.from_numpy(c).unsqueeze(0) for c in clouds(10))
    mask = torch.arange(10).unsqueeze(0) < 8
    with pytest.raises(ValueError, match=name):
        euclidean_factors(*make(X, Y, mask))


def test_euclidean_transport_cost_and_bad_cost_rank():
    X, Y = clouds(6)
    expected = np.linalg.norm(X - Y, axis=1).mean()
    assert transport_cost(X, Y, np.arange(6), cost="euclidean") == pytest.approx(expected)
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="cost_rank"):
            hiref(X, Y, cost="euclidean", cost_rank=bad)
