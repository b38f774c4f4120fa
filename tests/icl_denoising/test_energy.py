import numpy as np
import pytest

from icml25.icl_denoising import (
    attention_denoise,
    dam_descent,
    dam_energy,
    dam_gradient,
    gmm_prompts,
    sphere_prompts,
)


def test_gradient_matches_central_differences():
    p = sphere_prompts(3, 20, 5, 2, 1.0, 0.1, seed=0)
    alpha, beta, h = 1.3, 4.0, 1e-6
    grad = dam_gradient(p.query, p.context, alpha, beta)
    for i in range(5):
        e = np.zeros(5)
        e[i] = h
        fd = (
            dam_energy(p.query + e, p.context, alpha, beta)
            - dam_energy(p.query - e, p.context, alpha, beta)
        ) / (2 * h)
        np.testing.assert_allclose(grad[:, i], fd, atol=1e-7)


def test_one_step_with_step_alpha_is_softmax_attention():
    p = gmm_prompts(5, 60, 6, 3, 0.02, 0.1, seed=1)
    alpha, beta = 0.9, 5.0
    states = dam_descent(p.query, p.context, alpha, beta, steps=1)  # (2, B, n)
    eye = np.eye(6)
    attention = attention_denoise(p.context, p.query, beta * eye, alpha * eye, "softmax")
    np.testing.assert_array_equal(states[0], p.query)
    np.testing.assert_allclose(states[1], attention, atol=1e-12)


def test_small_steps_decrease_the_energy_and_large_beta_retrieves_a_pattern():
    p = sphere_prompts(4, 30, 5, 2, 1.0, 0.1, seed=2)
    states = dam_descent(p.query, p.context, 1.0, 3.0, steps=50, step_size=0.1)
    energies = np.stack([dam_energy(s, p.context, 1.0, 3.0) for s in states])  # (51, B)
    assert np.all(np.diff(energies, axis=0) <= 1e-12)
    # beta -> infinity, alpha = 1: one step returns the context token most aligned with x~
    step = dam_descent(p.query, p.context, 1.0, 1e4, steps=1)[1]
    nearest = p.context[np.arange(4), np.argmax(np.einsum("bln,bn->bl", p.context, p.query), 1)]
    np.testing.assert_allclose(step, nearest, atol=1e-9)


def test_energy_is_finite_for_large_beta():
    p = gmm_prompts(2, 10, 4, 2, 0.02, 0.1, seed=3)
    assert np.all(np.isfinite(dam_energy(100 * p.query, p.context, 1.0, 1e3)))


def test_bad_arguments():
    p = gmm_prompts(2, 10, 4, 2, 0.02, 0.1, seed=3)
    with pytest.raises(ValueError, match="alpha"):
        dam_energy(p.query, p.context, 0.0, 1.0)
    with pytest.raises(ValueError, match="beta"):
        dam_gradient(p.query, p.context, 1.0, -1.0)
    with pytest.raises(ValueError, match="state"):
        dam_energy(p.query[:, :3], p.context, 1.0, 1.0)
    with pytest.raises(ValueError, match="steps"):
        dam_descent(p.query, p.context, 1.0, 1.0, steps=-1)
    with pytest.raises(ValueError, match="step_size"):
        dam_descent(p.query, p.context, 1.0, 1.0, steps=1, step_size=0.0)


def test_negative_scalars_are_the_same_memory_with_reflected_patterns():
    # alpha X softmax(beta X^T s) with alpha, beta < 0 = one step on the patterns -x_t
    p = sphere_prompts(3, 40, 5, 2, 1.0, 0.1, seed=4)
    eye = np.eye(5)
    attention = attention_denoise(p.context, p.query, -3.0 * eye, -1.5 * eye, "softmax")
    step = dam_descent(p.query, -p.context, 1.5, 3.0, steps=1)[1]
    np.testing.assert_allclose(step, attention, atol=1e-12)
