"""Hierarchical Refinement: bijective optimal transport in linear space (Halmos et al., ICML 2025).

>>> import numpy as np
>>> from icml25.hiref import hiref, transport_cost
>>> rng = np.random.default_rng(0)
>>> X, Y = rng.normal(size=(4096, 2)), rng.normal(size=(4096, 2)) + 2.0
>>> perm = hiref(X, Y, seed=0)  # (4096,) a permutation: X[i] <-> Y[perm[i]]
>>> round(transport_cost(X, Y, perm), 1)  # doctest: +SKIP
8.0
"""

from icml25.hiref.costs import euclidean_factors, sqeuclidean_factors
from icml25.hiref.datasets import DATASETS, GAUSSIAN_W2_SQUARED, HIGHDIM, sample
from icml25.hiref.hiref import (
    check_point_clouds,
    hiref,
    hiref_factored,
    is_permutation,
    transport_cost,
)
from icml25.hiref.lowrank import lowrank_cost, lowrank_ot
from icml25.hiref.rank_schedule import child_sizes, min_partial_product_factorisation, rank_schedule

__all__ = [
    "DATASETS",
    "GAUSSIAN_W2_SQUARED",
    "HIGHDIM",
    "check_point_clouds",
    "child_sizes",
    "euclidean_factors",
    "hiref",
    "hiref_factored",
    "is_permutation",
    "lowrank_cost",
    "lowrank_ot",
    "min_partial_product_factorisation",
    "rank_schedule",
    "sample",
    "sqeuclidean_factors",
    "transport_cost",
]
