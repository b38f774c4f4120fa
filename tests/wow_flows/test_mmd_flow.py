"""MMD with sliced-Wasserstein kernels on classes, and the WoW flow."""

import numpy as np
import ot
import pytest
import torch

from icml25.wow_flows import (
    flow,
    gaussian_kernel,
    get_kernel,
    imq_kernel,
    laplace_kernel,
    mmd_wow,
    random_projections,
    riesz_kernel,
    rings,
)

KERNELS = [
    riesz_kernel(1.0),
    riesz_kernel(0.5),
    gaussian_kernel(0.5),
    laplace_kernel(1.0),
    imq_kernel(1.0),
]


def _data(seed, C=4, n=12, m=9, d=3):
    rng = np.random.default_rng(seed)
    P = rng.normal(size=(C, n, d)) + rng.normal(size=(C, 1, d))
    Q = rng.normal(size=(C + 1, m, d)) * 1.5 + rng.normal(size=(C + 1, 1, d))
    return P, Q


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_mmd_against_a_loop_of_pot_sliced_distances(kernel):
    P, Q = _data(0)
    theta = random_projections(3, 50, torch.Generator().manual_seed(1))

    def k(a, b):
        sw = ot.sliced_wasserstein_distance(a, b, p=kernel.p, projections=theta.numpy())
        return float(kernel(torch.tensor(sw**kernel.p)))

    def mean_k(A, B):
        return np.mean([[k(a, b) for b in B] for a in A])

    expected = mean_k(P, P) + mean_k(Q, Q) - 2 * mean_k(P, Q)
    assert float(mmd_wow(P, Q, kernel, projections=theta)) == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_mmd_is_nonnegative_and_zero_at_the_target(kernel):
    for seed in range(5):
        P, Q = _data(seed)
        assert float(mmd_wow(P, Q, kernel, seed=seed)) > 0
        assert float(mmd_wow(P, P, kernel, seed=seed)) == pytest.approx(0.0, abs=1e-12)
        # the classes in another order are the same dataset
        assert float(mmd_wow(P, P[::-1].copy(), kernel, seed=seed)) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("kernel", ["riesz", "gaussian", "laplace", "imq"])
def test_gradient_matches_finite_differences(kernel):
    P, Q = _data(7, C=3, n=6, m=5, d=2)
    theta = random_projections(2, 20, torch.Generator().manual_seed(0))
    x = torch.tensor(P, requires_grad=True)
    mmd_wow(x, Q, kernel, projections=theta).backward()
    direction = np.random.default_rng(1).normal(size=P.shape)
    eps = 1e-6
    plus = float(mmd_wow(P + eps * direction, Q, kernel, projections=theta))
    minus = float(mmd_wow(P - eps * direction, Q, kernel, projections=theta))
    numeric = (plus - minus) / (2 * eps)
    assert float((x.grad.numpy() * direction).sum()) == pytest.approx(numeric, rel=1e-5, abs=1e-8)


def test_short_rings_flow_lowers_the_mmd():
    source, target, _ = rings(20)
    res = flow(
        source, target, kernel="riesz", steps=40, lr=0.1, seed=0, record_every=10, n_projections=100
    )
    assert res.trajectory.shape == (5, 3, 20, 2)
    np.testing.assert_array_equal(res.steps, [0, 10, 20, 30, 40])
    np.testing.assert_array_equal(res.trajectory[0], source)
    assert res.mmd2[-1] < 0.2 * res.mmd2[0]
    assert res.loss.shape == (40,)


def test_flow_is_deterministic_given_the_seed_and_uses_target_batches():
    source, target, _ = rings(10)
    kw = dict(kernel="gaussian", steps=5, lr=0.1, momentum=0.5, record_every=5, target_batch=4)
    a = flow(source, target, seed=3, **kw)
    b = flow(source, target, seed=3, **kw)
    c = flow(source, target, seed=4, **kw)
    np.testing.assert_array_equal(a.final, b.final)
    assert not np.array_equal(a.final, c.final)


def test_bad_input_names_the_argument():
    P, Q = _data(0)
    with pytest.raises(ValueError, match="target"):
        mmd_wow(P, Q[..., :2], "riesz")  # classes of another dimension
    with pytest.raises(ValueError, match="source"):
        mmd_wow(P[0], Q, "riesz")
    bad = P.copy()
    bad[0, 0, 0] = np.inf
    with pytest.raises(ValueError, match="source"):
        flow(bad, Q, steps=1)
    with pytest.raises(ValueError, match="kernel"):
        mmd_wow(P, Q, "cosine")
    with pytest.raises(ValueError, match="lr"):
        flow(P, Q, steps=1, lr=-1.0)
    with pytest.raises(ValueError, match="momentum"):
        flow(P, Q, steps=1, momentum=1.0)
    with pytest.raises(ValueError, match="r"):
        riesz_kernel(2.0)
    with pytest.raises(ValueError, match="h"):
        gaussian_kernel(0.0)
    assert get_kernel("imq").name == "imq(h=1)"
