"""The particles' gradient diversity (Yin et al., 2018): sum_i ||g_i||^2 / ||sum_i g_i||^2."""

import math

import numpy as np
import pytest
import torch

from icml25.fhbi import ParticleEnsemble, gradient_diversity
from icml25.fhbi.reference import module_gradient, set_flat_params

# every case below is a handful of float64 products: agreement to 1e-12 leaves room for any
# summation order BLAS or numpy may pick
RTOL = 1e-12


def test_hand_computed_three_particles():
    g = np.array([[1.0, 2.0, 2.0], [2.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
    # sum_i ||g_i||^2 = 9 + 5 + 1 = 15; sum_i g_i = (3, 3, 1), squared norm 19
    assert gradient_diversity(g) == pytest.approx(15 / 19, rel=RTOL)


def test_equal_orthogonal_and_opposed_gradients():
    same = np.array([[3.0, 4.0]] * 4)  # 4 * 25 / ||(12, 16)||^2 = 100 / 400
    assert gradient_diversity(same) == pytest.approx(1 / 4, rel=RTOL)
    orthogonal = np.array([[1.0, 0.0], [0.0, 2.0]])  # (1 + 4) / ||(1, 2)||^2
    assert gradient_diversity(orthogonal) == pytest.approx(1.0, rel=RTOL)
    opposed = np.array([[2.0, 0.0], [-1.0, 0.0]])  # (4 + 1) / ||(1, 0)||^2
    assert gradient_diversity(opposed) == pytest.approx(5.0, rel=RTOL)
    assert gradient_diversity(np.array([[1.0, -2.0], [-1.0, 2.0]])) == math.inf
    assert gradient_diversity(np.array([[0.5, -7.0]])) == pytest.approx(1.0, rel=RTOL)


def test_against_pairwise_inner_products_and_invariances():
    rng = np.random.default_rng(0)
    g = rng.normal(size=(6, 40))
    own = sum(float(gi @ gi) for gi in g)
    cross = sum(float(g[i] @ g[j]) for i in range(6) for j in range(6) if i != j)
    # ||sum_i g_i||^2 = sum_i ||g_i||^2 + sum_{i != j} <g_i, g_j>
    assert gradient_diversity(g) == pytest.approx(own / (own + cross), rel=RTOL)
    assert gradient_diversity(3.7 * g) == pytest.approx(gradient_diversity(g), rel=RTOL)
    assert gradient_diversity(g[::-1]) == pytest.approx(gradient_diversity(g), rel=RTOL)
    assert gradient_diversity(torch.tensor(g)) == pytest.approx(gradient_diversity(g), rel=RTOL)
    assert gradient_diversity(g) >= 1 / 6 * (1 - RTOL)  # Cauchy-Schwarz: at least 1/m


def test_bad_gradients_raise():
    with pytest.raises(ValueError, match="all zero"):
        gradient_diversity(np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"\(m, d\)"):
        gradient_diversity(np.ones(4))
    with pytest.raises(ValueError, match="finite"):
        gradient_diversity(np.array([[1.0, np.nan], [0.0, 1.0]]))


def test_ensemble_gradients_match_autograd_on_each_module():
    mlp = lambda: torch.nn.Sequential(  # noqa: E731
        torch.nn.Linear(2, 4), torch.nn.Tanh(), torch.nn.Linear(4, 3)
    ).double()
    ens = ParticleEnsemble(mlp, particles=3, seed=0)
    gen = torch.Generator().manual_seed(1)
    X = torch.randn(25, 2, generator=gen, dtype=torch.float64)
    y = torch.randint(0, 3, (25,), generator=gen)
    got = ens.gradients(X, y)  # (m, d)
    assert got.shape == ens.theta.shape
    module = mlp()
    for i in range(3):
        set_flat_params(module, ens.theta[i])
        assert torch.allclose(got[i], module_gradient(module, X, y), rtol=1e-10, atol=1e-12)
