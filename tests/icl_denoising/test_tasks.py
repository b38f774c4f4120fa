import numpy as np
import pytest

from icml25.icl_denoising import (
    Prompts,
    gmm_prompts,
    linear_prompts,
    random_bases,
    sphere_prompts,
)


def test_bases_are_orthonormal():
    U = random_bases(5, 7, 3, np.random.default_rng(0))  # (B, n, k)
    np.testing.assert_allclose(
        U.transpose(0, 2, 1) @ U, np.broadcast_to(np.eye(3), (5, 3, 3)), atol=1e-12
    )


def test_linear_tokens_live_in_the_subspace_with_variance_sigma0():
    p = linear_prompts(40, 300, 6, 2, sigma_0_sq=2.0, sigma_z_sq=0.5, seed=0)
    assert p.context.shape == (40, 300, 6) and p.query.shape == p.target.shape == (40, 6)
    P = p.basis @ p.basis.transpose(0, 2, 1)  # (B, n, n)
    np.testing.assert_allclose(np.einsum("bnm,blm->bln", P, p.context), p.context, atol=1e-12)
    np.testing.assert_allclose(np.einsum("bnm,bm->bn", P, p.target), p.target, atol=1e-12)
    # E[x x^T] = sigma_0^2 P: per-coordinate second moment = sigma_0^2 d / n (Monte Carlo, 3%)
    assert np.mean(p.context**2) == pytest.approx(2.0 * 2 / 6, rel=0.03)
    # only the query is noisy, with variance sigma_Z^2 per coordinate (4 sd of 240 draws: 25%)
    assert np.mean((p.query - p.target) ** 2) == pytest.approx(0.5, rel=0.25)


def test_sphere_tokens_have_radius_R_in_a_d_plus_1_subspace():
    p = sphere_prompts(10, 200, 7, 3, radius=1.5, sigma_z_sq=0.1, seed=1)
    assert p.basis.shape == (10, 7, 4)
    np.testing.assert_allclose(np.linalg.norm(p.context, axis=2), 1.5, rtol=1e-12)
    coords = np.einsum("bnm,bln->blm", p.basis, p.context)
    np.testing.assert_allclose(np.linalg.norm(coords, axis=2), 1.5, rtol=1e-12)
    # uniform on the sphere: mean ~ 0 (|mean| of 2000 tokens of norm 1.5 ~ 1.5 / sqrt(2000))
    assert np.linalg.norm(p.context.reshape(-1, 7).mean(axis=0)) < 0.15


def test_gmm_tokens_sit_around_unit_centres():
    p = gmm_prompts(8, 400, 10, 3, sigma_0_sq=0.01, sigma_z_sq=0.1, seed=2)
    assert p.centers.shape == (8, 3, 10)
    np.testing.assert_allclose(np.linalg.norm(p.centers, axis=2), 1.0, rtol=1e-12)
    d2 = np.sum((p.context[:, :, None] - p.centers[:, None]) ** 2, axis=3)  # (B, L, K)
    # distance to the nearest centre: chi-square with n dof times sigma_0^2, mean 0.1
    assert np.mean(d2.min(axis=2)) == pytest.approx(0.01 * 10, rel=0.05)


def test_same_seed_same_prompts():
    a = linear_prompts(3, 5, 4, 2, 1.0, 1.0, seed=7)
    b = linear_prompts(3, 5, 4, 2, 1.0, 1.0, seed=7)
    np.testing.assert_array_equal(a.context, b.context)
    np.testing.assert_array_equal(a.query, b.query)


@pytest.mark.parametrize(
    ("fn", "kwargs", "name"),
    [
        (linear_prompts, {"prompts": 0}, "prompts"),
        (linear_prompts, {"context_len": 1.5}, "context_len"),
        (linear_prompts, {"d": 9}, "d"),
        (linear_prompts, {"sigma_0_sq": -1.0}, "sigma_0_sq"),
        (linear_prompts, {"sigma_z_sq": 0.0}, "sigma_z_sq"),
        (sphere_prompts, {"d": 8}, "d"),
        (sphere_prompts, {"radius": 0.0}, "radius"),
        (gmm_prompts, {"components": 0}, "components"),
        (gmm_prompts, {"n": True}, "n"),
    ],
)
def test_bad_arguments(fn, kwargs, name):
    base = {"prompts": 2, "context_len": 3, "n": 8, "sigma_z_sq": 1.0, "seed": 0}
    extra = {
        linear_prompts: {"d": 2, "sigma_0_sq": 1.0},
        sphere_prompts: {"d": 2, "radius": 1.0},
        gmm_prompts: {"components": 2, "sigma_0_sq": 1.0},
    }[fn]
    with pytest.raises(ValueError, match=name):
        fn(**{**base, **extra, **kwargs})


def _arrays(B=3, L=5, n=4):
    rng = np.random.default_rng(0)
    return rng.normal(size=(B, L, n)), rng.normal(size=(B, n)), rng.normal(size=(B, n))


@pytest.mark.parametrize(
    ("change", "error", "name"),
    [
        ({"context": np.zeros((3, 4))}, ValueError, "context must have shape"),
        ({"query": np.zeros((2, 4))}, ValueError, "query must have shape"),
        ({"target": np.zeros((3, 5))}, ValueError, "target must have shape"),
        ({"query": np.full((3, 4), np.nan)}, ValueError, "query must be finite"),
        ({"context": [[[0.0]]]}, TypeError, "context must be a real numpy array"),
        ({"basis": np.zeros((3, 4, 5))}, ValueError, "basis must have shape"),
        ({"centers": np.zeros((3, 2, 5))}, ValueError, "centers must have shape"),
    ],
)
def test_prompts_validate_their_arrays(change, error, name):
    context, query, target = _arrays()
    fields = {"context": context, "query": query, "target": target, **change}
    with pytest.raises(error, match=name):
        Prompts(**fields)


def test_prompts_built_by_hand_are_accepted():
    context, query, target = _arrays()
    p = Prompts(context, query, target, basis=np.zeros((3, 4, 2)), centers=np.zeros((3, 6, 4)))
    assert p.context.shape == (3, 5, 4)
