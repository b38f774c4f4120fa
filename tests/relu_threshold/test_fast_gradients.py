"""The training loop's inner step (``network._Gradients``: one (n, m) buffer, in-place mask)
against the plain per-run formula it replaced and against torch.autograd."""

import numpy as np
import pytest
import torch

from icml25.relu_threshold import (
    BETA_STAR,
    balanced_init,
    forward,
    linear_data,
    loss_and_gradients,
    train,
)
from icml25.relu_threshold.network import _concentration, _Gradients, record_schedule


def generator(seed=0):
    return torch.Generator().manual_seed(seed)


def reference_loss_and_gradients(W, a, X, y):
    """The per-run formula of ``loss_and_gradients`` as written before the buffers: ``P = X W^T``,
    ``H = relu(P)``, ``r = H a - y``, ``dL/da = H^T r / n``,
    ``dL/dW = a * (1[P > 0]^T (r * X)) / n``."""
    n = X.shape[1]
    losses, grads_W, grads_a = [], [], []
    for Xr, yr, Wr, ar in zip(X, y, W, a, strict=True):
        P = Xr @ Wr.T
        H = torch.relu(P)
        r = H @ ar - yr
        grads_a.append(H.T @ r / n)
        grads_W.append(ar.unsqueeze(-1) * ((P > 0).to(Xr.dtype).T @ (r.unsqueeze(-1) * Xr)) / n)
        losses.append(0.5 * (r**2).mean())
    return torch.stack(losses), torch.stack(grads_W), torch.stack(grads_a)


def reference_train(W, a, X, y, *, lr, steps):
    """``train``'s loop on the reference formula: the loss computed at every step."""
    W, a = W.clone(), a.clone()
    record_at = set(record_schedule(steps).tolist())
    losses, concentrations = [], []
    for t in range(steps + 1):
        loss, grad_W, grad_a = reference_loss_and_gradients(W, a, X, y)
        if t in record_at or t == steps:
            losses.append(loss.numpy().copy())
            concentrations.append(_concentration(W, a, 0.95, 2))
        if t < steps:
            W -= lr * grad_W
            a -= lr * grad_a
    return W, a, np.array(losses), np.array(concentrations)


def problem(n, runs=3, m=40, scale=1.0, seed=0, d=4):
    X, y = linear_data(n, runs, beta=BETA_STAR[-d:], generator=generator(seed))
    W, a = balanced_init(runs, m, d, scale, generator=generator(seed + 1))
    return W, a, X, y


@pytest.mark.parametrize(
    "n, m, d", [(1, 40, 4), (8, 40, 4), (64, 200, 4), (256, 200, 4), (64, 7, 3)]
)
def test_gradients_equal_the_per_run_formula(n, m, d):
    # loss and dL/da are the same operations, so equal to the bit; dL/dW's G^T is the product
    # (r X)^T mask where the formula had mask^T (r X): the same sum, in an order that MKL on the
    # AMD EPYC of the README's "Speed" rounds to the same bits at d = 4, m = 40 or 200, not at
    # d = 3 (the last case); 1e-14 relative holds for both.
    W, a, X, y = problem(n, m=m, d=d)
    loss, grad_W, grad_a = loss_and_gradients(W, a, X, y)
    ref_loss, ref_W, ref_a = reference_loss_and_gradients(W, a, X, y)
    assert torch.equal(loss, ref_loss)
    assert torch.equal(grad_a, ref_a)
    torch.testing.assert_close(grad_W, ref_W, rtol=1e-14, atol=0)


@pytest.mark.parametrize("n, scale", [(8, 1e-3), (24, 1.0), (256, 1e-3)])
def test_gradients_equal_autograd(n, scale):
    W, a, X, y = problem(n, scale=scale, seed=2)
    W, a = W * 50, a * 50  # away from the start, where many units are active
    Wg, ag = W.clone().requires_grad_(True), a.clone().requires_grad_(True)
    loss = 0.5 * (forward(Wg, ag, X) - y).pow(2).mean(-1)
    loss.sum().backward()
    ours, grad_W, grad_a = loss_and_gradients(W, a, X, y)
    torch.testing.assert_close(ours, loss.detach(), rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(grad_W, Wg.grad, rtol=1e-10, atol=1e-13)
    torch.testing.assert_close(grad_a, ag.grad, rtol=1e-10, atol=1e-13)


def test_buffers_follow_in_place_updates_and_the_loss_is_of_the_last_call():
    W, a, X, y = problem(32)
    W, a = W.clone(), a.clone()
    gradients = _Gradients(W, a, X, y)
    for _ in range(3):
        grad_W, grad_a = gradients()
        ref_loss, ref_W, ref_a = reference_loss_and_gradients(W, a, X, y)
        assert torch.equal(gradients.loss(), ref_loss)
        assert torch.equal(grad_a, ref_a)
        torch.testing.assert_close(grad_W, ref_W, rtol=1e-14, atol=0)
        W -= 0.1 * grad_W
        a -= 0.1 * grad_a
    # the returned gradients are new tensors, not views of the buffers
    kept = grad_a.clone()
    gradients()
    assert torch.equal(grad_a, kept)


@pytest.mark.parametrize("n", [8, 256])
def test_train_equals_the_reference_loop(n):
    W, a, X, y = problem(n, runs=2, m=30, scale=1e-3, seed=4)
    W0, a0 = W.clone(), a.clone()
    run = train(W, a, X, y, lr=0.05, steps=300)
    ref_W, ref_a, ref_loss, ref_concentration = reference_train(W, a, X, y, lr=0.05, steps=300)
    assert torch.equal(W, W0) and torch.equal(a, a0)  # the caller's weights are not changed
    torch.testing.assert_close(run.W, ref_W, rtol=1e-12, atol=1e-15)
    torch.testing.assert_close(run.a, ref_a, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(run.loss, ref_loss, rtol=1e-12)
    np.testing.assert_array_equal(run.concentration, ref_concentration)


def test_strided_inputs_give_the_same_training():
    W, a, X, y = problem(16, runs=2, m=10)
    Xt = X.transpose(1, 2).contiguous().transpose(1, 2)  # same values, other strides
    yt = torch.zeros(2, 2 * y.shape[1], dtype=torch.float64)[:, ::2]
    yt.copy_(y)
    assert not Xt.is_contiguous() and not yt.is_contiguous()
    run = train(W, a, X, y, lr=0.05, steps=50, record_at=[10])
    strided = train(W, a, Xt, yt, lr=0.05, steps=50, record_at=[10])
    torch.testing.assert_close(strided.W, run.W, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(strided.loss, run.loss, rtol=1e-12)
