"""The low-rank subsolver on a factored cost and the rank schedule."""

import warnings

import numpy as np
import pytest
import torch

from icml25.hiref import (
    child_sizes,
    lowrank,
    lowrank_cost,
    lowrank_ot,
    min_partial_product_factorisation,
    rank_schedule,
    sqeuclidean_factors,
)
from icml25.hiref.costs import symmetric_factors
from icml25.hiref.lowrank import _mirror_step, _solve, random_start


def factors(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)).astype(np.float32)
    Y = (rng.normal(size=(n, 2)) + 1.0).astype(np.float32)
    A, B = sqeuclidean_factors(torch.from_numpy(X), torch.from_numpy(Y))
    return X, Y, A.numpy(), B.numpy()


def test_factors_give_the_squared_euclidean_cost():
    X, Y, A, B = factors(50)
    C = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(A @ B.T, C, rtol=1e-4, atol=1e-4)


def test_marginals_within_tolerance():
    _, _, A, B = factors()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        Q, R, log = lowrank_ot(A, B, 5, log=True)
    assert Q.shape == R.shape == (300, 5)
    assert (Q >= 0).all() and (R >= 0).all()
    np.testing.assert_allclose(Q.sum(1), 1 / 300, rtol=1e-4)  # rows exact: a
    np.testing.assert_allclose(R.sum(1), 1 / 300, rtol=1e-4)  # rows exact: b
    np.testing.assert_allclose(Q.sum(0), 1 / 5, atol=1e-3)  # columns: g, Sinkhorn tolerance
    np.testing.assert_allclose(R.sum(0), 1 / 5, atol=1e-3)
    assert log["marginal_error_g"] < 5e-3


def test_objective_decreases_below_the_independent_coupling():
    X, Y, A, B = factors()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        Q, R, log = lowrank_ot(A, B, 4, log=True)
    independent = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1).mean()  # rank-1 coupling
    value = lowrank_cost(A, B, Q, R)
    assert value < 0.8 * independent
    assert float(log["objective"][-1][0]) < float(log["objective"][0][0])


def test_batched_equals_one_by_one_and_is_seeded():
    _, _, A1, B1 = factors(100, seed=1)
    _, _, A2, B2 = factors(100, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        Qb, Rb = lowrank_ot(np.stack([A1, A2]), np.stack([B1, B2]), 3, seed=4)
        Qb2, _ = lowrank_ot(np.stack([A1, A2]), np.stack([B1, B2]), 3, seed=4)
    assert Qb.shape == (2, 100, 3)
    np.testing.assert_array_equal(Qb, Qb2)
    np.testing.assert_allclose(Qb.sum(-1), 1 / 100, rtol=1e-4)


def test_each_problem_of_a_batch_is_solved_as_if_alone():
    # every problem stops on its own and keeps its own iterates: batched with others (which
    # stop at other iterations) it gives the same bits as solved alone
    problems = [factors(120, seed=s) for s in range(3)]
    A = torch.stack([torch.from_numpy(p[2]).T for p in problems])  # (3, k, m)
    B = torch.stack([torch.from_numpy(p[3]).T for p in problems])
    a, g = torch.full((3, 120), 1 / 120), torch.full((3, 4), 0.25)
    start = random_start(3, 120, 4, torch.Generator().manual_seed(0))
    options = {"gamma": 1.0, "max_iter": 300, "min_iter": 5, "inner_iter": 5, "tol": 1e-4}
    Q, R, _, iterations, converged = _solve(A, B, a, a, g, start, **options)
    assert converged.all() and len(set(iterations.tolist())) > 1  # they stopped apart
    for i in range(3):
        one = slice(i, i + 1)
        Qi, Ri, _, it_i, _ = _solve(A[one], B[one], a[one], a[one], g[one], start[one], **options)
        assert torch.equal(Qi[0], Q[i]) and torch.equal(Ri[0], R[i])
        assert int(it_i[0]) == int(iterations[i])


def test_a_mirror_step_works_in_its_buffers():
    # the new iterate is written into the gradient's buffer (G, consumed) and the old one
    # floored in place; the result lies in Pi(a, .) with exact rows
    gen = torch.Generator().manual_seed(3)
    B, r, m = 2, 4, 50
    G, P = torch.rand(B, r, m, generator=gen), torch.rand(B, r, m, generator=gen) + 0.1
    P[:, 1, :10] = 0.0  # below the floor: must be raised to it
    a, g = torch.full((B, m), 1 / m), torch.full((B, r), 1 / r)
    floor, u = a.unsqueeze(1) * 1e-10, torch.empty(B, 1, m)
    old = P.clone()
    buffers = (G.data_ptr(), P.data_ptr(), u.data_ptr())
    out = _mirror_step(G, P, a, floor, g, 1.0, 5, u)
    assert (out.data_ptr(), P.data_ptr(), u.data_ptr()) == buffers
    assert torch.equal(P, torch.maximum(old, floor)) and not torch.equal(P, old)
    torch.testing.assert_close(out.sum(1), a, rtol=1e-5, atol=0)


def test_the_solver_allocates_nothing_per_iteration(monkeypatch):
    # the solver's iterations cycle fixed buffers (a fresh (B, r, m) tensor per step fragments
    # the heap at n = 2^20), so the allocations of (B, m) floats or more do not grow with the
    # number of iterations (the final projection, which copies, is left out here)
    from torch.profiler import ProfilerActivity, profile

    monkeypatch.setattr(lowrank, "_project_to_tolerance", lambda P, a, g: P)
    gen = torch.Generator().manual_seed(0)
    B, k, m, r = 3, 4, 400, 4
    A, Bf = torch.rand(B, k, m, generator=gen), torch.rand(B, k, m, generator=gen)
    a, g = torch.full((B, m), 1 / m), torch.full((B, r), 1 / r)
    start = random_start(B, m, r, torch.Generator().manual_seed(1))

    def allocations(iterations: int) -> int:
        options = {"max_iter": iterations, "min_iter": iterations, "tol": 1e-30}
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            _solve(A, Bf, a, a, g, start, gamma=1.0, inner_iter=5, **options)
        return sum(e.cpu_memory_usage >= B * m * 4 for e in prof.events())

    assert allocations(5) == allocations(45)


def _reference_lowrank_ot(A, B, rank, iters, seed, gamma=1.0, inner=5):
    """The mirror-descent update of the module docstring, written plainly on (m, r) numpy
    arrays in float64: the reference the batched cluster-major solver must reproduce."""
    m = A.shape[0]
    a, g = np.full(m, 1.0 / m), np.full(rank, 1.0 / rank)

    def project(K, sweeps):  # Sinkhorn onto rows a, columns g, ending on the rows
        u = a / K.sum(1)
        v = np.ones(rank)
        for _ in range(sweeps):
            v = g / (K.T @ u)
            u = a / (K @ v)
        return K * u[:, None] * v[None, :]

    def step(G, P):
        G = G - G.min(1, keepdims=True)
        K = np.exp(np.maximum(-gamma / G.max() * G, -30.0)) * np.maximum(P, a[:, None] * 1e-10)
        return project(K, inner)

    start = torch.rand(
        1, m, rank, generator=torch.Generator().manual_seed(seed), dtype=torch.float64
    )
    start = start[0].numpy() + 0.5
    Q, R = project(start.copy(), 4 * inner), project(start.copy(), 4 * inner)
    for _ in range(iters):
        Q, R = step(A @ (B.T @ R) / g, Q), step(B @ (A.T @ Q) / g, R)
    for P in (Q, R):  # the last projection: columns to 1e-5 of g
        while np.abs(P.sum(0) - g).sum() > 1e-5:
            P[:] = project(P, 10)
    return Q, R


def test_batched_cluster_major_solver_equals_the_plain_update():
    # float64, fixed iterations: the (batch, r, m) implementation is the (m, r) formula
    X, Y, _, _ = factors(200, seed=5)
    A, B = (
        t.numpy()
        for t in sqeuclidean_factors(
            torch.from_numpy(X.astype(np.float64)), torch.from_numpy(Y.astype(np.float64))
        )
    )
    Q_ref, R_ref = _reference_lowrank_ot(A, B, 4, iters=25, seed=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        Q, R = lowrank_ot(A, B, 4, max_iter=25, min_iter=25, tol=1e-300, seed=6)
    np.testing.assert_allclose(Q, Q_ref, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(R, R_ref, rtol=1e-9, atol=1e-14)


def test_non_uniform_marginals_and_padding_rows():
    _, _, A, B = factors(40)
    a = np.full(40, 1 / 38, dtype=np.float32)
    a[-2:] = 0.0  # two padding rows
    g = np.array([0.5, 0.3, 0.2], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        Q, R = lowrank_ot(A, B, 3, a=a, b=a, g=g)
    assert np.all(Q[-2:] == 0) and np.all(R[-2:] == 0)
    np.testing.assert_allclose(Q.sum(0), g, atol=1e-3)


def test_warns_when_not_converged():
    _, _, A, B = factors()
    with pytest.warns(RuntimeWarning, match="did not converge"):
        lowrank_ot(A, B, 4, max_iter=2, min_iter=0, tol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"rank": 0}, "rank"),
        ({"rank": 10_000}, "rank"),
        ({"rank": 2.5}, "rank"),
        ({"a": np.ones(7)}, "a"),
        ({"b": -np.ones(300) / 300}, "b"),
        ({"g": np.array([0.5, 0.6])}, "g"),
        ({"gamma": 0.0}, "gamma"),
        ({"tol": -1.0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"inner_iter": 0}, "inner_iter"),
        ({"seed": -3}, "seed"),
    ],
)
def test_bad_arguments_raise(kwargs, name):
    _, _, A, B = factors()
    args = {"rank": 2, **kwargs}
    rank = args.pop("rank")
    with pytest.raises(ValueError, match=name):
        lowrank_ot(A, B, rank, **args)


def test_bad_factors_raise():
    _, _, A, B = factors()
    with pytest.raises(ValueError, match="B"):
        lowrank_ot(A, B[:10], 2)
    with pytest.raises(ValueError, match="A"):
        lowrank_ot(A.astype(np.int64), B, 2)
    A = A.copy()
    A[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        lowrank_ot(A, B, 2)


def test_rank_schedule_follows_the_paper_when_n_divides():
    # the paper's objective r1 + r1 r2 + ... over factorisations of n / leaf
    assert min_partial_product_factorisation(64, 6, 4) == (4, 4, 4)
    assert min_partial_product_factorisation(1024, 6, 16) == (4, 16, 16)
    assert min_partial_product_factorisation(17, 6, 16) is None
    assert rank_schedule(4096) == ((4, 4), 256)
    assert rank_schedule(4096, leaf_size=64) == ((4, 4, 4), 64)
    assert rank_schedule(1024, max_rank=16, leaf_size=128) == ((8,), 128)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 64, 65, 127, 1031, 10_007, 2**20, 10**6, 84_172])
def test_rank_schedule_any_n(n):
    ranks, leaf = rank_schedule(n, max_rank=4, leaf_size=64, max_depth=10)
    assert leaf <= 64
    assert all(2 <= r <= 4 for r in ranks)
    assert -(-n // int(np.prod(ranks))) == leaf


def test_child_sizes_balanced():
    assert child_sizes(10, 4) == [3, 3, 2, 2]
    assert sum(child_sizes(10_007, 16)) == 10_007


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n": 0}, "n"),
        ({"n": 2.0}, "n"),
        ({"max_rank": 1}, "max_rank"),
        ({"leaf_size": 0}, "leaf_size"),
    ],
)
def test_rank_schedule_bad_input(kwargs, name):
    args = {"n": 100, **kwargs}
    n = args.pop("n")
    with pytest.raises(ValueError, match=name):
        rank_schedule(n, **args)


def _run_solver(A, B, mix, iters, seed=0):
    """lowrank._solve on (m, k) factors, one block, a fixed number of iterations."""
    m = A.shape[0]
    a = torch.full((1, m), 1.0 / m, dtype=A.dtype)
    g = torch.full((1, 4), 0.25, dtype=A.dtype)
    Q, R, *_ = _solve(
        A.T.unsqueeze(0).contiguous(),
        B.T.unsqueeze(0).contiguous(),
        a,
        a.clone(),
        g,
        random_start(1, m, 4, torch.Generator().manual_seed(seed), A.dtype),
        gamma=1.0,
        max_iter=iters,
        min_iter=iters,
        inner_iter=5,
        tol=1e-300,
        mix=mix,
    )
    return Q, R


@pytest.mark.parametrize("cost", ["sqeuclidean", "euclidean"])
def test_mixed_form_keeps_identical_clouds_bit_identical(cost):
    # C = F M G^T with F == G (one cloud): Q's update is R's, operation for operation, so the
    # two stay equal bit for bit in float32. The plain form C = A B^T (A != B) adds the same
    # terms in another order, and its Q and R drift apart by rounding (1e-8 after 200
    # iterations), which flipped near-ties in HiRef's split.
    X = torch.from_numpy(np.random.default_rng(3).normal(size=(400, 2)))
    F, G, M = symmetric_factors(X, X.clone(), cost, 8)
    assert torch.equal(F, G)
    F, M = F.float(), M.float()
    Q, R = _run_solver(F, F.clone(), M, 200)
    assert torch.equal(Q, R)


def test_mixed_form_solves_the_plain_problem():
    # float64: the iterates of C = F M G^T equal those of the plain factors (F M, G)
    X, Y, _, _ = factors(200, seed=4)
    X, Y = (torch.from_numpy(P.astype(np.float64)) for P in (X, Y))
    F, G, M = symmetric_factors(X, Y, "sqeuclidean")
    Q, R = _run_solver(F, G, M, 25)
    Q_plain, R_plain = _run_solver(F @ M, G, None, 25)
    np.testing.assert_allclose(Q.numpy(), Q_plain.numpy(), rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(R.numpy(), R_plain.numpy(), rtol=1e-9, atol=1e-14)
