"""Supercollapse of compute-optimal loss curves (Qiu et al., ICML 2025).

Qiu, Xiao, Agarwala, Pennington, Pehlevan et al., *Scaling Collapse Reveals Universal Dynamics in
Compute-Optimally Trained Neural Networks*, ICML 2025. Official code: shikaiqiu/supercollapse
(JAX); this package is a torch/numpy reimplementation.

>>> import numpy as np
>>> from icml25.supercollapse import (power_law_collapse, power_law_loss,
...     power_law_optimal_horizon, normalized_curves)
>>> p = np.array([[1e3], [1e5]])  # (P, 1) model sizes
>>> x = np.linspace(0.1, 1.0, 10)  # (X,) fractions of the compute-optimal horizon
>>> L = power_law_loss(x * power_law_optimal_horizon(p, 0.5, 0.3), p, 0.5, 0.3, L0=1.0)
>>> l = normalized_curves(L, 1.0)  # (P, X)
>>> bool(np.allclose(l, power_law_collapse(x, 0.5, 0.3), atol=1e-12))
True
"""

from icml25.supercollapse.collapse import (
    collapse_deviation,
    compute_frontier,
    fit_compute_optimal,
    fit_frontier_exponent,
    fit_irreducible_loss,
    noise_floor,
    normalized_curves,
    optimal_horizon,
    power_law_collapse,
    power_law_loss,
    power_law_optimal_horizon,
)
from icml25.supercollapse.fourier import FourierTask, fourier_targets, fourier_task, sample_inputs
from icml25.supercollapse.mlp import (
    Training,
    init_mlp,
    mlp_forward,
    mup_learning_rates,
    parameter_count,
    train_members,
)
from icml25.supercollapse.schedules import SCHEDULES, lr_schedule

__all__ = [
    "SCHEDULES",
    "FourierTask",
    "Training",
    "collapse_deviation",
    "compute_frontier",
    "fit_compute_optimal",
    "fit_frontier_exponent",
    "fit_irreducible_loss",
    "fourier_targets",
    "fourier_task",
    "init_mlp",
    "lr_schedule",
    "mlp_forward",
    "mup_learning_rates",
    "noise_floor",
    "normalized_curves",
    "optimal_horizon",
    "parameter_count",
    "power_law_collapse",
    "power_law_loss",
    "power_law_optimal_horizon",
    "sample_inputs",
    "train_members",
]
