"""Max-min eigenvalue augmentation by simple randomized rounding (Lamperski et al., ICML 2025).

>>> from icml25.maxmin_eig import augment, e_optimal_design
>>> M, As = e_optimal_design(n=30, m=150, weak_dim=2, seed=0)
>>> result = augment(M, As, k=20, method="rounding", seed=0)
>>> result.value - result.base, result.bound - result.base  # doctest: +SKIP
"""

from icml25.maxmin_eig.instances import connectivity_augmentation, e_optimal_design
from icml25.maxmin_eig.problem import check_problem, max_trace, selection_values, value
from icml25.maxmin_eig.solvers import (
    Augmentation,
    augment,
    exact,
    greedy,
    randomized_rounding,
    relax,
    rounding_draws,
)

__all__ = [
    "Augmentation",
    "augment",
    "check_problem",
    "connectivity_augmentation",
    "e_optimal_design",
    "exact",
    "greedy",
    "max_trace",
    "randomized_rounding",
    "relax",
    "rounding_draws",
    "selection_values",
    "value",
]
