"""Flat Hilbert Bayesian Inference (Truong, Tran, Pham et al., *Improving Generalization with
Flat Hilbert Bayesian Inference*, ICML 2025): SVGD whose particles take their gradients at
sharpness-aware (SAM) perturbed points.

>>> import torch
>>> from sklearn.datasets import make_moons
>>> from icml25.fhbi import fit
>>> X, y = make_moons(200, noise=0.1, random_state=0)
>>> from torch import nn
>>> mlp = lambda: nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
>>> ens = fit(mlp, X, y, particles=10, rho=0.03, lr=1.0, steps=300, seed=0)
>>> ens.predict_proba(X[:3]).sum(1)  # doctest: +SKIP
array([1., 1., 1.])
"""

from icml25.fhbi.baselines import fit_deep_ensemble, fit_mc_dropout, mc_dropout_member_proba
from icml25.fhbi.ensemble import ParticleEnsemble, fit
from icml25.fhbi.kernels import median_bandwidth, rbf_function_kernel, rbf_parameter_kernel
from icml25.fhbi.metrics import accuracy, diversity, ece, gradient_diversity, nll
from icml25.fhbi.sharpness import TopEigen, top_hessian_eigenvalue
from icml25.fhbi.steps import (
    KERNELS,
    fhbi_step,
    kernel_terms,
    sam_perturbation,
    svgd_direction,
    svgd_step,
)

__all__ = [
    "KERNELS",
    "ParticleEnsemble",
    "TopEigen",
    "accuracy",
    "diversity",
    "ece",
    "fhbi_step",
    "fit",
    "fit_deep_ensemble",
    "fit_mc_dropout",
    "gradient_diversity",
    "kernel_terms",
    "mc_dropout_member_proba",
    "median_bandwidth",
    "nll",
    "rbf_function_kernel",
    "rbf_parameter_kernel",
    "sam_perturbation",
    "svgd_direction",
    "svgd_step",
    "top_hessian_eigenvalue",
]
