import numpy as np
import pytest
import torch

from icml25.relu_threshold import (
    BETA_STAR,
    balanced_init,
    direction_concentration,
    forward,
    linear_data,
    loss_and_gradients,
    ols,
    record_schedule,
    train,
)


def generator(seed=0):
    return torch.Generator().manual_seed(seed)


def test_gradients_equal_autograd():
    X, y = linear_data(30, 3, generator=generator())
    W, a = balanced_init(3, 7, 4, 1.0, generator=generator(1))
    W.requires_grad_(True)
    a.requires_grad_(True)
    loss = 0.5 * (forward(W, a, X) - y).pow(2).mean(-1)
    loss.sum().backward()
    ours, grad_W, grad_a = loss_and_gradients(W.detach(), a.detach(), X, y)
    torch.testing.assert_close(ours, loss.detach(), rtol=0, atol=1e-12)
    torch.testing.assert_close(grad_W, W.grad, rtol=0, atol=1e-12)
    torch.testing.assert_close(grad_a, a.grad, rtol=0, atol=1e-12)


def test_balanced_init_and_its_conservation_under_small_steps():
    X, y = linear_data(50, 2, generator=generator())
    W, a = balanced_init(2, 20, 4, 0.5, generator=generator(2))
    torch.testing.assert_close(a.abs(), W.norm(dim=-1))
    assert W.pow(2).sum((1, 2)).mean().item() == pytest.approx(4 * 0.25, rel=0.3)  # d scale^2
    # gradient flow keeps a_j^2 - |w_j|^2 constant; gradient descent up to O(lr^2) per step
    run = train(W, a, X, y, lr=1e-3, steps=200, record_at=[200])
    drift = (run.a.pow(2) - run.W.pow(2).sum(-1)).abs().max().item()
    assert drift < 1e-4


def test_ols_matches_numpy_and_data_has_the_declared_form():
    X, y = linear_data(40, 3, noise=0.0, generator=generator())
    np.testing.assert_array_equal(X[..., -1].numpy(), 1.0)
    assert X[..., :-1].abs().max() <= 1
    torch.testing.assert_close(y, X @ torch.tensor(BETA_STAR, dtype=torch.float64))
    X, y = linear_data(40, 3, generator=generator(3))
    for run in range(3):
        expected = np.linalg.lstsq(X[run].numpy(), y[run].numpy(), rcond=None)[0]
        np.testing.assert_allclose(ols(X, y)[run].numpy(), expected, atol=1e-10)


def test_record_schedule_is_dense_early_and_ends_at_the_last_step():
    at = record_schedule(40_000)
    assert at[0] == 0 and at[-1] == 40_000 and np.all(np.diff(at) > 0)
    assert np.sum(at <= 100) >= 40


def test_direction_concentration_counts_mass_on_directions():
    e = torch.eye(4, dtype=torch.float64)
    two = torch.stack([e[0], 2 * e[0], e[1], 3 * e[1]]).unsqueeze(0)  # (1, 4, 4): two directions
    a = two.norm(dim=-1)
    assert direction_concentration(two, a)[0] == pytest.approx(1.0)
    four = e.unsqueeze(0)  # four orthogonal unit neurons of equal mass
    assert direction_concentration(four, torch.ones(1, 4, dtype=torch.float64))[0] == 0.5


def test_small_init_fits_a_linear_target_like_ols_when_n_is_large():
    X, y = linear_data(256, 2, generator=generator(4))
    W, a = balanced_init(2, 50, 4, 1e-3, generator=generator(5))
    run = train(W, a, X, y, lr=0.05, steps=3000)
    ols_train = 0.5 * ((X @ ols(X, y).unsqueeze(-1)).squeeze(-1) - y).pow(2).mean(-1).numpy()
    np.testing.assert_allclose(run.loss[-1] / ols_train, 1.0, atol=0.02)
    assert np.all(run.concentration[-1] > 0.95)  # aligned on at most two directions


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda: linear_data(0, 2), "n"),
        (lambda: linear_data(5, 0), "runs"),
        (lambda: linear_data(5, 2, noise=-1.0), "noise"),
        (lambda: balanced_init(2, 0, 4, 1.0), "m"),
        (lambda: balanced_init(2, 3, 4, 0.0), "scale"),
        (lambda: train(*balanced_init(1, 3, 4, 1.0), *linear_data(5, 1), lr=0.0, steps=5), "lr"),
        (lambda: train(*balanced_init(1, 3, 4, 1.0), *linear_data(5, 1), lr=0.1, steps=0), "steps"),
    ],
)
def test_bad_arguments_name_themselves(call, word):
    with pytest.raises(ValueError, match=f"^{word} must"):
        call()
