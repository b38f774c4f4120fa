"""Sliced Wasserstein: against POT with the same directions, invariants, bad input."""

import numpy as np
import ot
import pytest
import torch

from icml25.wow_flows import quantile_grid, random_projections, sliced_wasserstein
from icml25.wow_flows.sliced import sorted_projections, sw_pp_pairwise

RTOL = 1e-10  # both are exact given the directions: only rounding differs


def _theta(d, L, seed=0):
    return random_projections(d, L, torch.Generator().manual_seed(seed))  # (d, L)


@pytest.mark.parametrize(("n", "m", "p"), [(30, 30, 2), (30, 17, 2), (12, 41, 1), (7, 7, 1)])
def test_matches_pot_with_the_same_projections(n, m, p):
    rng = np.random.default_rng(n + m)
    X, Y = rng.normal(size=(n, 5)), rng.normal(1.0, 2.0, size=(m, 5))
    theta = _theta(5, 64)
    ours = float(sliced_wasserstein(X, Y, p=p, projections=theta))
    pot = ot.sliced_wasserstein_distance(X, Y, p=p, projections=theta.numpy())
    assert ours == pytest.approx(pot, rel=RTOL)


def test_batched_over_classes_equals_a_loop_of_pot_calls():
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(4, 20, 3)), rng.normal(size=(4, 13, 3))
    theta = _theta(3, 50, seed=3)
    ours = sliced_wasserstein(X, Y, projections=theta).numpy()  # (4,)
    pot = [
        ot.sliced_wasserstein_distance(x, y, projections=theta.numpy())
        for x, y in zip(X, Y, strict=True)
    ]
    np.testing.assert_allclose(ours, pot, rtol=RTOL)


@pytest.mark.parametrize("p", [1, 2])
def test_pairwise_matrix_equals_elementwise_distances(p):
    rng = np.random.default_rng(2)
    P, Q = torch.as_tensor(rng.normal(size=(3, 15, 4))), torch.as_tensor(rng.normal(size=(5, 9, 4)))
    theta = _theta(4, 40)
    matrix = sw_pp_pairwise(sorted_projections(P, theta), sorted_projections(Q, theta), p)
    direct = sliced_wasserstein(P[:, None], Q[None], p=p, projections=theta) ** p  # (3, 5)
    np.testing.assert_allclose(matrix.numpy(), direct.numpy(), rtol=1e-9, atol=1e-12)


def test_symmetric_and_zero_on_identical_inputs():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(25, 6)), rng.normal(size=(11, 6))
    assert float(sliced_wasserstein(X, Y, 100, 7)) == pytest.approx(
        float(sliced_wasserstein(Y, X, 100, 7)), rel=1e-12
    )
    assert float(sliced_wasserstein(X, X, 100, 7)) == pytest.approx(0.0, abs=1e-12)
    # a permutation of the points is the same measure
    # the projections of reordered rows may round differently (BLAS blocking): not bit-exact
    assert float(sliced_wasserstein(X, X[::-1].copy(), 100, 7)) == pytest.approx(0.0, abs=1e-12)


def test_quantile_grid_is_exact():
    ia, ib, w = quantile_grid(4, 6)
    assert w.sum() == pytest.approx(1.0)
    assert len(w) == 4 + 6 - 2  # breakpoints 1/2 shared
    assert ia.max() == 3 and ib.max() == 5
    ia, ib, w = quantile_grid(5, 5)
    np.testing.assert_array_equal(ia, np.arange(5))
    np.testing.assert_array_equal(ib, np.arange(5))


def test_differentiable():
    X = torch.randn(10, 3, dtype=torch.float64, requires_grad=True)
    Y = torch.randn(8, 3, dtype=torch.float64)
    sliced_wasserstein(X, Y, 30, 0).backward()
    assert X.grad is not None and torch.isfinite(X.grad).all()


def test_bad_input_names_the_argument():
    X = np.zeros((5, 3))
    with pytest.raises(ValueError, match="Y"):
        sliced_wasserstein(X, np.zeros((5, 4)))
    with pytest.raises(ValueError, match="X"):
        sliced_wasserstein(np.full((5, 3), np.nan), X)
    with pytest.raises(ValueError, match="X"):
        sliced_wasserstein(np.zeros(5), X)
    with pytest.raises(ValueError, match="p"):
        sliced_wasserstein(X, X, p=0)
    with pytest.raises(ValueError, match="n_projections"):
        sliced_wasserstein(X, X, n_projections=0)
    with pytest.raises(ValueError, match="projections"):
        sliced_wasserstein(X, X, projections=torch.ones(4, 2))
