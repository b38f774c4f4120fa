"""Learning dynamics in linear recurrent neural networks (Proca et al., ICML 2025).

Proca, Dominé, Shanahan & Mediano, *Learning dynamics in linear recurrent neural networks*,
PMLR 267:49860-49902. Official code: aproca/LRNN_dynamics.

>>> import numpy as np
>>> from icml25.lrnn_dynamics import (exponential_profile, init_random, make_task,
...     random_orthogonal, train)
>>> U, V = random_orthogonal(4, 0), random_orthogonal(4, 1)
>>> s = np.stack([exponential_profile(v, 0.8, T=6) for v in (2.0, 1.5, 1.0, 0.5)])  # (4, 6)
>>> S = make_task(U, V, s)  # (T, d_out, d_in)
>>> net = init_random(4, 4, hidden=16, scale=0.1, seed=0)
>>> run = train(net, S, lr=0.01, steps=8000, record_every=100)  # lr < 2 / curvature
>>> bool(run.loss[-1] < 1e-6 * run.loss[0])
True
"""

from icml25.lrnn_dynamics.data import TaskMaps, TaskModes, cross_covariance_maps, task_modes
from icml25.lrnn_dynamics.network import (
    LinearRNN,
    Training,
    check_task,
    exact_gradients,
    exact_loss,
    init_aligned,
    init_random,
    lag_maps,
    ntk,
    sequence_maps,
    train,
)
from icml25.lrnn_dynamics.reduced import (
    ReducedTrajectory,
    exponential_profile,
    make_task,
    matched_initial_condition,
    mode_projections,
    random_orthogonal,
    reduced_flow,
    reduced_gd,
    reduced_gradient,
    reduced_loss,
)

__all__ = [
    "LinearRNN",
    "ReducedTrajectory",
    "TaskMaps",
    "TaskModes",
    "Training",
    "check_task",
    "cross_covariance_maps",
    "exact_gradients",
    "exact_loss",
    "exponential_profile",
    "init_aligned",
    "init_random",
    "lag_maps",
    "make_task",
    "matched_initial_condition",
    "mode_projections",
    "ntk",
    "random_orthogonal",
    "reduced_flow",
    "reduced_gd",
    "reduced_gradient",
    "reduced_loss",
    "sequence_maps",
    "task_modes",
    "train",
]
