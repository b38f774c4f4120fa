"""Multiclass linear classification with random classification noise (ICML 2025).

Diakonikolas, Ma, Ren & Tzamos, *Statistical Query Hardness of Multiclass Linear Classification
with Random Classification Noise*, ICML 2025 (arXiv 2502.11413). The paper is a lower bound;
this package implements the problem it is about and the learners it refers to.

>>> import numpy as np
>>> from icml25.mlc_rcn import (excess_error, linear_classifier, make_rcn_data,
...     random_classifier, rcn_perceptron, symmetric_noise_matrix)
>>> H = symmetric_noise_matrix(2, 0.2)  # (2, 2), separation 0.6
>>> W = random_classifier(2, 6, seed=0)  # (2, 6)
>>> X, y, y_noisy = make_rcn_data(5000, W, H, seed=1)
>>> fit = rcn_perceptron(X, y_noisy, H)
>>> X_t, y_t, _ = make_rcn_data(20000, W, H, seed=2)
>>> bool(excess_error(H, y_t, linear_classifier(fit.W, X_t)) < 0.03)
True
"""

from icml25.mlc_rcn.binary import BinaryFit, clean_correlation, rcn_perceptron
from icml25.mlc_rcn.correction import (
    CORRECTIONS,
    CorrectionFit,
    corrected_loss,
    fit_loss_correction,
)
from icml25.mlc_rcn.data import (
    MARGINALS,
    linear_classifier,
    make_rcn_data,
    random_classifier,
    sample_marginal,
)
from icml25.mlc_rcn.noise import (
    apply_rcn,
    excess_error,
    noisy_bayes_classifier,
    noisy_error,
    noisy_posterior,
    optimal_error,
    random_noise_matrix,
    separation,
    symmetric_noise_matrix,
)

__all__ = [
    "CORRECTIONS",
    "MARGINALS",
    "BinaryFit",
    "CorrectionFit",
    "apply_rcn",
    "clean_correlation",
    "corrected_loss",
    "excess_error",
    "fit_loss_correction",
    "linear_classifier",
    "make_rcn_data",
    "noisy_bayes_classifier",
    "noisy_error",
    "noisy_posterior",
    "optimal_error",
    "random_classifier",
    "random_noise_matrix",
    "rcn_perceptron",
    "sample_marginal",
    "separation",
    "symmetric_noise_matrix",
]
