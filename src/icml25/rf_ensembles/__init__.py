"""Ensembles of overparameterized random-feature regressors (Dern, Cunningham & Pleiss,
*Theoretical Limitations of Ensembles in the Age of Overparameterization*, ICML 2025).

>>> import numpy as np
>>> from icml25.rf_ensembles import rf_ensemble, kernel_predictor, closed_form_variance
>>> X = np.linspace(-4, 4, 6)[:, None]; y = np.sin(X[:, 0]); X_test = np.array([[0.5], [2.5]])
>>> ens = rf_ensemble(X, y, X_test, width=200, members=2000, mode="gaussian", seed=0)
>>> ens.mean, kernel_predictor(X, y, X_test)  # doctest: +SKIP
>>> ens.variance, closed_form_variance(X, y, X_test, width=200)  # doctest: +SKIP
"""

from icml25.rf_ensembles.data import sinusoid_1d, smooth_target
from icml25.rf_ensembles.ensembles import (
    MODES,
    Ensemble,
    ensemble_and_single,
    fit_rf,
    rf_ensemble,
    rf_predict,
)
from icml25.rf_ensembles.features import (
    arccos_kernel,
    gaussian_features,
    kernel_root,
    relu_features,
    sample_relu_weights,
)
from icml25.rf_ensembles.theory import (
    budget_gap,
    closed_form_mean,
    closed_form_variance,
    ensemble_excess,
    kernel_predictor,
    r_perp_squared,
    rkhs_norm_squared,
)

__all__ = [
    "MODES",
    "Ensemble",
    "arccos_kernel",
    "budget_gap",
    "closed_form_mean",
    "closed_form_variance",
    "ensemble_and_single",
    "ensemble_excess",
    "fit_rf",
    "gaussian_features",
    "kernel_predictor",
    "kernel_root",
    "r_perp_squared",
    "relu_features",
    "rf_ensemble",
    "rf_predict",
    "rkhs_norm_squared",
    "sample_relu_weights",
    "sinusoid_1d",
    "smooth_target",
]
