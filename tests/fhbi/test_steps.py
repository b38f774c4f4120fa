import math

import numpy as np
import pytest
import torch

from icml25.fhbi import (
    fhbi_step,
    median_bandwidth,
    rbf_function_kernel,
    rbf_parameter_kernel,
    sam_perturbation,
    svgd_step,
)
from icml25.fhbi.ensemble import ParticleEnsemble
from icml25.fhbi.reference import plain_sam_step, plain_svgd_step, set_flat_params


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(2, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))


def data(n=20, seed=0):
    gen = torch.Generator().manual_seed(seed)
    X = torch.randn(n, 2, generator=gen, dtype=torch.float64)
    y = torch.randint(0, 3, (n,), generator=gen)
    return X, y


def modules_at(theta):
    mods = [mlp().double() for _ in range(theta.shape[0])]
    for mod, t in zip(mods, theta, strict=True):
        set_flat_params(mod, t)
    return mods


def ensemble(m, seed=0):
    ens = ParticleEnsemble(lambda: mlp().double(), particles=m, seed=seed)
    # spread the particles so that the kernel is far from 0 and 1
    gen = torch.Generator().manual_seed(seed + 7)
    ens.theta = ens.theta + 0.3 * torch.randn(ens.theta.shape, generator=gen, dtype=torch.float64)
    return ens


def hand_svgd_two(theta, grads, lr, sigma):
    """The SVGD step of two particles written out term by term."""
    a, b = theta
    ga, gb = grads
    k = math.exp(-float(((a - b) ** 2).sum()) / (2 * sigma**2))
    # grad_{theta_j} k(theta_j, theta_i) = -(theta_j - theta_i) k / sigma^2; k(x, x) = 1
    phi_a = (-ga - k * gb + (-(b - a) * k / sigma**2)) / 2
    phi_b = (-gb - k * ga + (-(a - b) * k / sigma**2)) / 2
    return torch.stack([a + lr * phi_a, b + lr * phi_b])


@pytest.mark.parametrize("bandwidth", ["median", 0.7])
def test_svgd_step_matches_a_hand_written_two_particle_step(bandwidth):
    ens = ensemble(2)
    X, y = data()
    loss = ens.loss_fn(X, y)
    grads = torch.stack([torch.func.grad(loss)(t) for t in ens.theta])
    sigma = (
        0.7
        if bandwidth == 0.7
        else math.sqrt(
            float(np.median([0, 0, *[((ens.theta[0] - ens.theta[1]) ** 2).sum()] * 2]))
            / (2 * math.log(3))
        )
    )
    expected = hand_svgd_two(ens.theta, grads, 0.3, sigma)
    got = svgd_step(ens.theta, loss, lr=0.3, bandwidth=bandwidth)
    assert (got - expected).abs().max() < 1e-10


def test_fhbi_with_rho_zero_is_plain_svgd():
    ens = ensemble(6)
    X, y = data()
    got = fhbi_step(ens.theta, ens.loss_fn(X, y), lr=0.5, rho=0.0)
    plain = torch.stack(plain_svgd_step(modules_at(ens.theta), X, y, lr=0.5))
    assert (got - plain).abs().max() < 1e-10
    assert (got - ens.theta).abs().max() > 1e-3  # the step is not trivial


def test_fhbi_with_one_particle_is_plain_sam():
    ens = ensemble(1)
    X, y = data()
    got = fhbi_step(ens.theta, ens.loss_fn(X, y), lr=0.2, rho=0.05)
    plain = plain_sam_step(modules_at(ens.theta)[0], X, y, lr=0.2, rho=0.05)
    assert (got[0] - plain).abs().max() < 1e-10
    # and it differs from plain gradient descent: the perturbation matters
    sgd = ens.theta[0] - 0.2 * torch.func.grad(ens.loss_fn(X, y))(ens.theta[0])
    assert (got[0] - sgd).abs().max() > 1e-5


def test_fhbi_takes_gradients_at_the_perturbed_points():
    ens = ensemble(4)
    X, y = data()
    loss = ens.loss_fn(X, y)
    grads = torch.func.vmap(torch.func.grad(loss))(ens.theta)
    eps = sam_perturbation(grads, 0.1)
    assert torch.allclose(eps.norm(dim=1), torch.full((4,), 0.1, dtype=torch.float64))
    shifted = torch.func.vmap(torch.func.grad(loss))(ens.theta + eps)
    K, R = rbf_parameter_kernel(ens.theta)
    expected = ens.theta + 0.4 * (-K @ shifted + R) / 4
    assert (fhbi_step(ens.theta, loss, lr=0.4, rho=0.1) - expected).abs().max() < 1e-12


def repulsion_by_autograd(z_of_theta, theta, sigma):
    """sum_j grad_{theta_j} k(theta_j, theta_i) by autograd, one i at a time."""
    rows = []
    for i in range(theta.shape[0]):
        t = theta.clone().requires_grad_(True)
        z = z_of_theta(t)  # (m, P)
        zi = z_of_theta(theta)[i].detach()
        k = torch.exp(-((z - zi) ** 2).sum(1) / (2 * sigma**2))  # k(theta_j, theta_i), (m,)
        (g,) = torch.autograd.grad(k.sum(), t)
        rows.append(g.sum(0))
    return torch.stack(rows)


def test_parameter_kernel_gradient_against_autograd():
    theta = torch.randn(5, 7, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    K, R = rbf_parameter_kernel(theta, 1.3)
    assert torch.allclose(R, repulsion_by_autograd(lambda t: t, theta, 1.3), atol=1e-12)
    assert torch.allclose(torch.diag(K), torch.ones(5, dtype=torch.float64))
    sigma = float(median_bandwidth(torch.cdist(theta, theta) ** 2))
    _, R_med = rbf_parameter_kernel(theta, "median")
    assert torch.allclose(R_med, repulsion_by_autograd(lambda t: t, theta, sigma), atol=1e-10)


def test_function_kernel_gradient_against_autograd_and_finite_differences():
    ens = ensemble(4)
    X, _ = data(6)
    out = ens.outputs_fn(X)
    K, R = rbf_function_kernel(ens.theta, out, 2.0)
    f = lambda t: torch.stack([out(r) for r in t])  # noqa: E731
    assert torch.allclose(R, repulsion_by_autograd(f, ens.theta, 2.0), atol=1e-10)
    # one coordinate by central differences: R_i = sum_j d k(theta_j, theta_i) / d theta_j
    i, c, h = 1, 3, 1e-6
    fi = out(ens.theta[i])
    total = 0.0
    for j in range(4):
        for s in (1, -1):
            t = ens.theta[j].clone()
            t[c] += s * h
            total += s * math.exp(-float(((out(t) - fi) ** 2).sum()) / 8) / (2 * h)
    assert abs(total - float(R[i, c])) < 1e-6


def test_function_kernel_step_with_rho_zero_uses_the_same_update():
    ens = ensemble(3)
    X, y = data()
    got = fhbi_step(
        ens.theta, ens.loss_fn(X, y), lr=0.5, rho=0.0, kernel="function", outputs=ens.outputs_fn(X)
    )
    assert torch.isfinite(got).all() and got.shape == ens.theta.shape


def test_median_bandwidth_is_the_official_heuristic():
    theta = torch.randn(6, 4, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    sq = (torch.cdist(theta, theta) ** 2).numpy()
    expected = math.sqrt(np.median(sq) / (2 * math.log(7)))
    assert abs(float(median_bandwidth(torch.tensor(sq))) - expected) < 1e-12


def test_bad_input_names_the_argument():
    ens = ensemble(2)
    X, y = data()
    loss = ens.loss_fn(X, y)
    with pytest.raises(ValueError, match="rho"):
        fhbi_step(ens.theta, loss, lr=0.1, rho=-0.1)
    with pytest.raises(ValueError, match="lr"):
        fhbi_step(ens.theta, loss, lr=0.0, rho=0.1)
    with pytest.raises(ValueError, match="kernel"):
        fhbi_step(ens.theta, loss, lr=0.1, rho=0.1, kernel="laplace")
    with pytest.raises(ValueError, match="outputs"):
        fhbi_step(ens.theta, loss, lr=0.1, rho=0.1, kernel="function")
    with pytest.raises(ValueError, match="bandwidth"):
        fhbi_step(ens.theta, loss, lr=0.1, rho=0.1, bandwidth=-1.0)
    with pytest.raises(ValueError, match="theta"):
        fhbi_step(ens.theta[0], loss, lr=0.1, rho=0.1)
    with pytest.raises(ValueError, match="theta"):
        fhbi_step(ens.theta * float("nan"), loss, lr=0.1, rho=0.1)
