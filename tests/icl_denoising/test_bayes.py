import numpy as np
import pytest
from scipy.special import ive

from icml25.icl_denoising import (
    bayes_gmm,
    bayes_linear,
    bayes_linear_risk,
    bayes_sphere,
    gmm_prompts,
    linear_prompts,
    random_bases,
    sphere_prompts,
    vmf_mean_ratio,
)


def _posterior_mean(query, samples, sigma_z_sq):
    """Self-normalised importance sampling of E[x | x~] with prior samples (Q, M, n)."""
    logw = -np.sum((samples - query[:, None]) ** 2, axis=2) / (2 * sigma_z_sq)  # (Q, M)
    w = np.exp(logw - logw.max(axis=1, keepdims=True))
    return np.einsum("qm,qmn->qn", w / w.sum(axis=1, keepdims=True), samples)


def test_linear_bayes_risk_matches_the_closed_form_by_monte_carlo():
    p = linear_prompts(20000, 1, 6, 2, sigma_0_sq=2.0, sigma_z_sq=1.0, seed=0)
    err = bayes_linear(p.query, p.basis, 2.0, 1.0) - p.target
    # closed form d s0 sZ / ((s0 + sZ) n) = 2/9; 20,000 draws: relative sd ~ 0.7%, tolerance 3%
    assert np.mean(err**2) == pytest.approx(bayes_linear_risk(6, 2, 2.0, 1.0), rel=0.03)
    assert bayes_linear_risk(6, 2, 2.0, 1.0) == pytest.approx(2 * 2 / (3 * 6), rel=1e-12)
    # orthogonality principle of the posterior mean: E[(x - f) f^T] = 0
    f = bayes_linear(p.query, p.basis, 2.0, 1.0)
    assert np.abs(np.einsum("bn,bm->nm", err, f) / len(f)).max() < 0.02


def test_sphere_bayes_is_the_posterior_mean_and_the_official_orders_are_not():
    rng = np.random.default_rng(1)
    n, d, R, sz = 6, 4, 1.0, 0.2
    U = random_bases(1, n, d + 1, rng)  # one sphere
    g = rng.standard_normal((200000, d + 1))
    prior = R * (g / np.linalg.norm(g, axis=1, keepdims=True)) @ U[0].T  # (M, n)
    x = prior[:4] + np.sqrt(sz) * rng.standard_normal((4, n))  # 4 noisy queries
    mc = _posterior_mean(x, np.broadcast_to(prior, (4, *prior.shape)), sz)
    ours = bayes_sphere(x, np.repeat(U, 4, axis=0), R, sz)
    np.testing.assert_allclose(ours, mc, atol=0.01)
    # the official baseline's Bessel orders d - 1/2, d - 3/2: a different, wrong shrinkage
    coords = x @ U[0]
    kappa = R * np.linalg.norm(coords, axis=1) / sz
    wrong = ive(d - 0.5, kappa) / ive(d - 1.5, kappa)
    right = vmf_mean_ratio(d + 1, kappa)
    assert np.min(np.abs(wrong - right)) > 0.05
    np.testing.assert_allclose(np.linalg.norm(mc, axis=1), R * right, atol=0.01)


def test_vmf_ratio_limits():
    # small kappa: A_m ~ kappa / m; large kappa: A_m ~ 1 - (m - 1) / (2 kappa)
    for m in (3, 9):
        assert vmf_mean_ratio(m, 1e-4) == pytest.approx(1e-4 / m, rel=1e-6)
        assert vmf_mean_ratio(m, 1e4) == pytest.approx(1 - (m - 1) / 2e4, rel=1e-7)
    # m = 3: A_3(k) = coth(k) - 1/k (closed form)
    k = np.array([0.5, 2.0, 7.0])
    np.testing.assert_allclose(vmf_mean_ratio(3, k), 1 / np.tanh(k) - 1 / k, rtol=1e-12)


def test_vmf_ratio_where_ive_underflows_or_kappa_is_zero():
    # ive(m/2 - 1, kappa) underflows for kappa small against m (0/0 there before), and is
    # infinite at kappa = 0 for m = 1: against 40-digit Bessel functions, A_m(0) = 0
    mpmath = pytest.importorskip("mpmath")
    kappa = np.array([1e-300, 1e-5, 1.0, 50.0, 300.0, 1e3])
    with mpmath.workdps(40):
        for m in (1, 3, 10, 1000, 5000, 20000):
            ref = [float(mpmath.besseli(m / 2, k) / mpmath.besseli(m / 2 - 1, k)) for k in kappa]
            np.testing.assert_allclose(vmf_mean_ratio(m, kappa), ref, rtol=1e-11, atol=0)
            np.testing.assert_array_equal(vmf_mean_ratio(m, np.zeros(2)), np.zeros(2))


def test_sphere_bayes_of_a_query_orthogonal_to_the_sphere_is_zero():
    # x~_par = 0: the posterior is the uniform law on the sphere, whose mean is 0
    basis = np.eye(4)[None, :, :3]  # (1, 4, 3): the sphere spans the first 3 axes
    query = np.array([[0.0, 0.0, 0.0, 2.0]])
    np.testing.assert_array_equal(bayes_sphere(query, basis, 1.0, 0.5), np.zeros((1, 4)))


def test_gmm_bayes_is_the_posterior_mean():
    rng = np.random.default_rng(2)
    p = gmm_prompts(1, 4, 3, 3, sigma_0_sq=0.05, sigma_z_sq=0.2, seed=3)
    mu = p.centers[0]  # (K, n)
    labels = rng.integers(3, size=300000)
    prior = mu[labels] + np.sqrt(0.05) * rng.standard_normal((300000, 3))
    x = prior[:5] + np.sqrt(0.2) * rng.standard_normal((5, 3))
    mc = _posterior_mean(x, np.broadcast_to(prior, (5, *prior.shape)), 0.2)
    ours = bayes_gmm(x, np.repeat(p.centers, 5, axis=0), 0.05, 0.2)
    np.testing.assert_allclose(ours, mc, atol=0.01)


def test_gmm_bayes_with_unequal_norms_and_weights():
    rng = np.random.default_rng(4)
    mu = np.array([[[0.0, 2.0], [1.0, 0.0]]])  # norms 2 and 1
    w = np.array([0.3, 0.7])
    labels = rng.choice(2, size=300000, p=w)
    prior = mu[0][labels] + np.sqrt(0.1) * rng.standard_normal((300000, 2))
    x = np.array([[0.5, 1.0], [1.0, 1.0], [0.2, 0.1]])
    mc = _posterior_mean(x, np.broadcast_to(prior, (3, *prior.shape)), 0.3)
    np.testing.assert_allclose(bayes_gmm(x, np.repeat(mu, 3, axis=0), 0.1, 0.3, w), mc, atol=0.01)


def test_bayes_beats_the_naive_denoisers():
    p = sphere_prompts(2000, 1, 8, 3, 1.0, 0.1, seed=5)
    bayes = np.mean((bayes_sphere(p.query, p.basis, 1.0, 0.1) - p.target) ** 2)
    projected = np.einsum("bnm,bm->bn", p.basis, np.einsum("bnm,bn->bm", p.basis, p.query))
    on_sphere = projected / np.linalg.norm(projected, axis=1, keepdims=True)
    assert bayes < np.mean((on_sphere - p.target) ** 2) < np.mean((p.query - p.target) ** 2)


def test_bad_arguments():
    q, U = np.zeros((2, 4)), np.zeros((2, 4, 2))
    with pytest.raises(ValueError, match="query"):
        bayes_linear(np.zeros(4), U, 1.0, 1.0)
    with pytest.raises(ValueError, match="basis"):
        bayes_linear(q, np.zeros((2, 5, 2)), 1.0, 1.0)
    with pytest.raises(ValueError, match="sigma_0_sq"):
        bayes_linear(q, U, 0.0, 1.0)
    with pytest.raises(ValueError, match="radius"):
        bayes_sphere(q, U, -1.0, 1.0)
    with pytest.raises(ValueError, match="sigma_z_sq"):
        bayes_sphere(q, U, 1.0, float("nan"))
    with pytest.raises(ValueError, match="centers"):
        bayes_gmm(q, np.zeros((3, 2, 4)), 0.1, 0.1)
    with pytest.raises(ValueError, match="weights"):
        bayes_gmm(q, np.zeros((2, 2, 4)), 0.1, 0.1, weights=np.array([1.0, 0.0]))
