"""Bad input to the denoisers, energies and prompt samplers is refused, naming the argument."""

import numpy as np
import pytest
import torch

from icml25.icl_denoising import (
    Prompts,
    attend,
    attention_denoise,
    bayes_gmm,
    bayes_linear,
    bayes_linear_risk,
    dam_descent,
    dam_energy,
    dam_gradient,
    init_weights,
    linear_prompts,
    random_bases,
    scalar_weights,
    vmf_mean_ratio,
)

P = linear_prompts(prompts=2, context_len=3, n=3, d=2, sigma_0_sq=1.0, sigma_z_sq=1.0, seed=0)
C, Q, E = P.context, P.query, np.eye(3)
NAN_C = np.where(np.arange(C.size).reshape(C.shape) == 0, np.nan, C)
T = {name: torch.from_numpy(a) for name, a in (("C", C), ("Q", Q), ("E", E))}
CENTERS = np.ones((2, 2, 3)) / np.sqrt(3)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: attend(T["C"], T["Q"], T["E"], T["E"], "bogus"), "kind must be one of"),
        (lambda: attend(T["C"] * np.nan, T["Q"], T["E"], T["E"], "linear"), "context must be fin"),
        (lambda: attend(T["C"], T["Q"][:1], T["E"], T["E"], "linear"), "query must have shape"),
        (lambda: attend(T["C"], T["Q"], T["E"][:2, :2], T["E"], "linear"), "W_KQ must be"),
        (lambda: attention_denoise(NAN_C, Q, E, E, "linear"), "context must be finite"),
        (lambda: attention_denoise(C, Q, E + np.inf, E, "softmax"), "W_KQ must be finite"),
        (lambda: attention_denoise(C[:, :0], Q, E, E, "linear"), "context must not be empty"),
        (lambda: attention_denoise(C.astype(str), Q, E, E, "linear"), "context must be a numeric"),
        (lambda: init_weights(3, -1), "seed must be an integer >= 0"),
        (lambda: init_weights(10**6, 0), "n is too large"),
        (lambda: scalar_weights(E * np.nan), "W must be finite"),
        (lambda: bayes_linear(Q * np.nan, P.basis, 1.0, 1.0), "query must be finite"),
        (lambda: bayes_linear(Q.tolist(), P.basis.astype(str), 1.0, 1.0), "basis must be a numer"),
        (lambda: bayes_linear(Q[:0], P.basis[:0], 1.0, 1.0), "query must not be empty"),
        (lambda: bayes_linear_risk(0, 2, 1.0, 1.0), "n must be an integer >= 1"),
        (lambda: bayes_linear_risk(4, 9, 1.0, 1.0), "d must be <= n"),
        (lambda: vmf_mean_ratio(0, 1.0), "m must be an integer >= 1"),
        (lambda: vmf_mean_ratio(3, np.array([-1.0])), "kappa must be non-negative"),
        (lambda: vmf_mean_ratio(3, np.array([np.nan])), "kappa must be finite"),
        (lambda: bayes_gmm(Q, CENTERS, 0.5, 1.0, weights=np.array([np.nan, 1.0])), "weights must"),
        (lambda: bayes_gmm(Q, CENTERS[:, :0], 0.5, 1.0), "centers must not be empty"),
        (lambda: dam_energy(Q * np.nan, C, 1.0, 1.0), "state must be finite"),
        (lambda: dam_energy(Q, C[:, :0], 1.0, 1.0), "context must not be empty"),
        (lambda: dam_gradient(Q, NAN_C, 1.0, 1.0), "context must be finite"),
        (lambda: dam_descent(Q, NAN_C, 1.0, 1.0, 2), "context must be finite"),
        (lambda: dam_descent(Q, C, 1.0, 1.0, 10**12), "steps is too large"),
        (lambda: linear_prompts(10**6, 10**6, 3, 2, 1.0, 1.0, 0), "prompts is too large"),
        (lambda: linear_prompts(2, 3, 3, 2, 1.0, 1.0, -1), "seed must be an integer >= 0"),
        (lambda: random_bases(2, 3, 5, np.random.default_rng(0)), "k must be <= n"),
        (lambda: random_bases(0, 3, 2, np.random.default_rng(0)), "prompts must be an integer"),
        (lambda: Prompts(C, Q, Q, basis=P.basis * np.nan), "basis must be finite"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_a_generator_that_is_not_one_is_refused():
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        random_bases(2, 3, 2, 0)
