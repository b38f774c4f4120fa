"""In-context denoising with one attention layer (Smart, Bietti & Sengupta, ICML 2025).

Smart, Bietti & Sengupta, *In-context denoising with one-layer transformers: connections
between attention and associative memory retrieval*, ICML 2025. Official code:
mattsmart/in-context-denoising.

>>> import numpy as np
>>> from icml25.icl_denoising import attention_denoise, bayes_linear, linear_prompts
>>> p = linear_prompts(prompts=200, context_len=400, n=8, d=2, sigma_0_sq=2.0,
...     sigma_z_sq=1.0, seed=0)
>>> eye = np.eye(8)  # the optimum: alpha beta = 1 / (sigma_0^2 + sigma_Z^2)
>>> x_hat = attention_denoise(p.context, p.query, eye / 3, eye, kind="linear")
>>> bayes = bayes_linear(p.query, p.basis, 2.0, 1.0)
>>> bool(np.mean((x_hat - p.target) ** 2) < 1.1 * np.mean((bayes - p.target) ** 2))
True
"""

from icml25.icl_denoising.attention import (
    TrainingRun,
    attend,
    attention_denoise,
    init_weights,
    scalar_weights,
    train_attention,
)
from icml25.icl_denoising.bayes import (
    bayes_gmm,
    bayes_linear,
    bayes_linear_risk,
    bayes_sphere,
    vmf_mean_ratio,
)
from icml25.icl_denoising.energy import dam_descent, dam_energy, dam_gradient
from icml25.icl_denoising.tasks import (
    Prompts,
    gmm_prompts,
    linear_prompts,
    random_bases,
    sphere_prompts,
)

__all__ = [
    "Prompts",
    "TrainingRun",
    "attend",
    "attention_denoise",
    "bayes_gmm",
    "bayes_linear",
    "bayes_linear_risk",
    "bayes_sphere",
    "dam_descent",
    "dam_energy",
    "dam_gradient",
    "gmm_prompts",
    "init_weights",
    "linear_prompts",
    "random_bases",
    "scalar_weights",
    "sphere_prompts",
    "train_attention",
    "vmf_mean_ratio",
]
