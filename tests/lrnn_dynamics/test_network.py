"""The linear RNN: exact loss against sampled sequences, gradients against torch.autograd."""

import numpy as np
import pytest
import torch

from icml25.lrnn_dynamics import (
    LinearRNN,
    exact_gradients,
    exact_loss,
    init_random,
    lag_maps,
    make_task,
    ntk,
    random_orthogonal,
    sequence_maps,
    train,
)


def _task(T=5, d_in=3, d_out=2, seed=0):
    return np.random.default_rng(seed).normal(size=(T, d_out, d_in))


def test_sequence_maps_are_the_recurrence():
    net = init_random(3, 2, 7, 0.8, seed=1)
    x = np.random.default_rng(2).normal(size=(11, 5, 3))  # (B, T, d_in)
    y = net.forward(x)  # (B, d_out)
    M = sequence_maps(net, 5)  # (T, d_out, d_in)
    np.testing.assert_allclose(y, np.einsum("toi,bti->bo", M, x), atol=1e-12)
    np.testing.assert_allclose(lag_maps(net, 5)[0], net.W_y @ net.W_x)


def test_exact_loss_is_the_expected_loss_on_white_sequences():
    """1/2 E|y - y_hat|^2 over white inputs, estimated from 50,000 sampled sequences, equals the
    exact loss (the 0.5 |S|^2-free form: targets y = sum_i S(i) x_i without noise)."""
    net, S = init_random(3, 2, 7, 0.8, seed=1), _task()
    x = np.random.default_rng(3).normal(size=(50_000, 5, 3))
    y = np.einsum("toi,bti->bo", S, x)
    mc = 0.5 * np.mean(np.sum((y - net.forward(x)) ** 2, axis=1))
    direct = 0.5 * sum(
        np.sum((S[i] - net.W_y @ np.linalg.matrix_power(net.W_h, 4 - i) @ net.W_x) ** 2)
        for i in range(5)
    )
    assert exact_loss(net, S) == pytest.approx(direct, rel=1e-12)
    assert mc == pytest.approx(direct, rel=0.02)


@pytest.mark.parametrize("T", [1, 2, 6])
def test_gradients_match_autograd(T):
    net, S = init_random(3, 2, 7, 0.9, seed=T), _task(T=T)
    loss, grad = exact_gradients(net, S)
    W = [torch.tensor(w, requires_grad=True) for w in (net.W_x, net.W_h, net.W_y)]
    total, P = 0.0, torch.eye(7, dtype=torch.float64)  # the loss written term by term
    for k in range(T):
        total = total + 0.5 * ((W[2] @ P @ W[0] - torch.tensor(S[T - 1 - k])) ** 2).sum()
        P = P @ W[1]
    total.backward()
    assert loss == pytest.approx(total.item(), rel=1e-12)
    for w, g in zip(W, (grad.W_x, grad.W_h, grad.W_y), strict=True):
        expected = np.zeros_like(g) if w.grad is None else w.grad.numpy()  # W_h unused at T=1
        np.testing.assert_allclose(g, expected, atol=1e-12)


def test_ntk_is_the_jacobian_gram_matrix():
    net, T = init_random(2, 2, 4, 0.9, seed=0), 3
    params = [torch.tensor(w) for w in (net.W_x, net.W_h, net.W_y)]

    def maps(W_x, W_h, W_y):
        out, P = [], torch.eye(4, dtype=torch.float64)
        for _ in range(T):
            out.append(W_y @ P @ W_x)
            P = P @ W_h
        return torch.stack(out).reshape(-1)

    J = torch.autograd.functional.jacobian(maps, tuple(params))
    J = torch.cat([j.reshape(J[0].shape[0], -1) for j in J], dim=1).numpy()
    np.testing.assert_allclose(ntk(net, T), J @ J.T, atol=1e-12)


def test_training_lowers_the_loss_to_zero_on_a_realisable_task():
    U, V = random_orthogonal(3, 0), random_orthogonal(3, 1)
    S = make_task(U, V, np.array([[0.5, 1.0], [0.0, 0.5], [0.2, 0.2]]))  # (T=2, 3, 3)
    run = train(init_random(3, 3, 8, 0.1, seed=0), S, lr=0.05, steps=3000, record_every=1000)
    assert run.loss[-1] < 1e-8 * run.loss[0]
    assert run.maps.shape == (4, 2, 3, 3) and list(run.steps) == [0, 1000, 2000, 3000]
    np.testing.assert_allclose(run.maps[-1], sequence_maps(run.net, 2))


def test_bad_arguments_raise_value_error_naming_them():
    net, S = init_random(3, 2, 7, 0.8, seed=1), _task()
    with pytest.raises(ValueError, match="hidden"):
        init_random(3, 2, 0, 0.8, seed=1)
    with pytest.raises(ValueError, match="scale"):
        init_random(3, 2, 4, -1.0, seed=1)
    with pytest.raises(ValueError, match="S must"):
        exact_loss(net, S[:, :, :2])
    with pytest.raises(ValueError, match="lr"):
        train(net, S, lr=0.0, steps=10)
    with pytest.raises(ValueError, match="steps"):
        train(net, S, lr=0.1, steps=-1)
    with pytest.raises(ValueError, match="W_h"):
        LinearRNN(np.ones((3, 2)), np.ones((3, 4)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="T"):
        lag_maps(net, 0)
    with pytest.raises(FloatingPointError, match="lr"):
        train(init_random(3, 2, 7, 3.0, seed=0), S * 10, lr=10.0, steps=200)
