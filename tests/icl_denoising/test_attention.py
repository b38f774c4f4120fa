import numpy as np
import pytest
import torch

from icml25.icl_denoising import (
    attend,
    attention_denoise,
    init_weights,
    linear_prompts,
    scalar_weights,
    sphere_prompts,
    train_attention,
)


def test_linear_attention_with_scaled_identities_is_alpha_beta_times_the_projection_estimate():
    p = linear_prompts(3, 50, 5, 2, 2.0, 1.0, seed=0)
    alpha, beta = 0.7, 0.4
    out = attention_denoise(p.context, p.query, beta * np.eye(5), alpha * np.eye(5), "linear")
    P_hat = np.einsum("bln,blm->bnm", p.context, p.context) / 50  # (B, n, n)
    np.testing.assert_allclose(
        out, alpha * beta * np.einsum("bnm,bm->bn", P_hat, p.query), rtol=1e-12
    )
    assert out.shape == (3, 5)


def test_softmax_attention_matches_a_loop_over_prompts():
    p = sphere_prompts(4, 30, 6, 2, 1.0, 0.1, seed=1)
    W_KQ, W_PV = init_weights(6, seed=2)
    out = attention_denoise(p.context, p.query, W_KQ, W_PV, "softmax")
    for b in range(4):
        X = p.context[b].T  # (n, L), the paper's layout
        s = X.T @ W_KQ @ p.query[b]
        a = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        np.testing.assert_allclose(out[b], W_PV @ X @ a, rtol=1e-12)


def test_softmax_at_zero_temperature_averages_the_context():
    p = sphere_prompts(2, 40, 5, 2, 1.0, 0.1, seed=3)
    out = attention_denoise(p.context, p.query, np.zeros((5, 5)), 2 * np.eye(5), "softmax")
    np.testing.assert_allclose(out, 2 * p.context.mean(axis=1), rtol=1e-12)


def test_attend_is_differentiable():
    W = [torch.eye(3, dtype=torch.float64, requires_grad=True) for _ in range(2)]
    X, q = torch.ones(2, 4, 3, dtype=torch.float64), torch.ones(2, 3, dtype=torch.float64)
    attend(X, q, W[0], W[1], "softmax").sum().backward()
    assert W[0].grad is not None and W[1].grad.shape == (3, 3)


def test_init_weights_are_uniform_in_the_official_bounds():
    W_KQ, W_PV = init_weights(16, seed=0)
    for W in (W_KQ, W_PV):
        assert W.shape == (16, 16) and np.abs(W).max() <= 0.25
        assert np.var(W) == pytest.approx(0.25**2 / 3, rel=0.2)  # U[-b, b]: variance b^2 / 3


def test_training_learns_alpha_beta_near_the_optimum_on_a_small_linear_task():
    torch.set_num_threads(1)
    train = linear_prompts(200, 100, 4, 2, 2.0, 1.0, seed=0)
    test = linear_prompts(100, 100, 4, 2, 2.0, 1.0, seed=1)
    run = train_attention(train, test, "linear", epochs=30, batch_size=20, lr=0.02, seed=0)
    assert run.train_loss.shape == run.test_loss.shape == (31,)
    assert run.test_loss[-1] < 0.5 * run.test_loss[0]
    alpha, off_pv = scalar_weights(run.W_PV)
    beta, off_kq = scalar_weights(run.W_KQ)
    # optimum alpha beta = 1 / (sigma_0^2 + sigma_Z^2) = 1/3, up to the finite-L shrinkage
    assert alpha * beta == pytest.approx(1 / 3, rel=0.15)
    assert max(off_pv, off_kq) < 0.15


def test_training_without_a_test_set():
    torch.set_num_threads(1)
    train = linear_prompts(60, 40, 4, 2, 2.0, 1.0, seed=0)
    run = train_attention(train, kind="linear", epochs=3, batch_size=20, lr=0.02, seed=0)
    with_test = train_attention(train, train, "linear", epochs=3, batch_size=20, lr=0.02, seed=0)
    assert run.test_loss is None and run.train_loss.shape == (4,)
    np.testing.assert_array_equal(run.W_KQ, with_test.W_KQ)  # monitoring changes nothing
    np.testing.assert_array_equal(with_test.test_loss, with_test.train_loss)
    with pytest.raises(TypeError, match="train must be Prompts"):
        train_attention(train.context, kind="linear", epochs=1, batch_size=2)


def test_scalar_weights():
    W = 2.0 * np.eye(3)
    W[0, 1] = 0.6
    c, ratio = scalar_weights(W)
    assert c == 2.0 and ratio == pytest.approx(0.1 / 2.0, rel=1e-12)
    with pytest.raises(ValueError, match="W"):
        scalar_weights(np.ones((2, 3)))


def test_bad_arguments():
    p = linear_prompts(2, 5, 4, 2, 1.0, 1.0, seed=0)
    W = np.eye(4)
    with pytest.raises(ValueError, match="kind"):
        attention_denoise(p.context, p.query, W, W, "relu")
    with pytest.raises(ValueError, match="W_KQ"):
        attention_denoise(p.context, p.query, np.eye(3), W, "linear")
    with pytest.raises(ValueError, match="query"):
        attention_denoise(p.context, p.query[:1], W, W, "linear")
    with pytest.raises(ValueError, match="epochs"):
        train_attention(p, p, "linear", epochs=0, batch_size=2)
    with pytest.raises(ValueError, match="batch_size"):
        train_attention(p, p, "linear", epochs=1, batch_size=0)
    with pytest.raises(ValueError, match="lr"):
        train_attention(p, p, "linear", epochs=1, batch_size=2, lr=-1.0)
    with pytest.raises(ValueError, match="test"):
        train_attention(
            p, linear_prompts(2, 5, 3, 2, 1.0, 1.0, seed=0), "linear", epochs=1, batch_size=2
        )
    with pytest.raises(ValueError, match="n"):
        init_weights(0, seed=0)
