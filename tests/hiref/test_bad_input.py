"""Bad input to the public factor, subsolver, schedule and sampler functions is refused by name."""

import numpy as np
import pytest

from icml25.hiref import (
    child_sizes,
    euclidean_factors,
    lowrank_cost,
    lowrank_ot,
    min_partial_product_factorisation,
    sample,
    sqeuclidean_factors,
)

X = np.random.default_rng(0).normal(size=(6, 2))
NAN = np.where(np.arange(12).reshape(6, 2) == 0, np.nan, X)
A, B = (t.numpy() for t in sqeuclidean_factors(X, X[::-1].copy()))  # (6, 4) each
Q = np.full((6, 2), 1 / 12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sqeuclidean_factors(NAN, X), "X must be finite"),
        (lambda: sqeuclidean_factors(X, np.zeros((6, 3))), "Y must have points of X's dimension"),
        (lambda: sqeuclidean_factors(X[:, 0], X[:, 0]), "X must have shape"),
        (lambda: sqeuclidean_factors(X.astype(str), X), "X must be a numeric array"),
        (lambda: euclidean_factors(X, NAN, 2), "Y must be finite"),
        (lambda: euclidean_factors(np.zeros((0, 2)), np.zeros((0, 2)), 2), "X must hold at least"),
        (lambda: lowrank_ot(A, B, 2, g=np.array([0.0, 1.0])), "g must be positive"),
        (lambda: lowrank_ot(A, B, 2, a=np.zeros(6), b=np.zeros(6), g=np.zeros(2)), "a must have a"),
        (lambda: lowrank_ot(A[:, :0], B[:, :0], 2), "A must have at least one row and one column"),
        (lambda: lowrank_ot(A.astype(str), B, 2), "A must be a numeric array"),
        (lambda: lowrank_cost(A * np.nan, B, Q, Q), "A must be finite"),
        (lambda: lowrank_cost(A, B, Q * np.nan, Q), "Q must be finite"),
        (lambda: lowrank_cost(A, B, -Q, Q), "Q must be non-negative"),
        (lambda: lowrank_cost(A, B[:3], Q, Q), "B must have the shape of A"),
        (lambda: lowrank_cost(A, B, Q[:3], Q), "Q and R must have shape"),
        (lambda: lowrank_cost(A, B, Q, Q, g=np.ones(3)), "g must have length r = 2"),
        (lambda: lowrank_cost(A, B, Q, Q, g=np.zeros(2)), "g must be finite and positive"),
        (lambda: lowrank_cost(A[:0], B[:0], Q[:0], Q[:0]), "A must not be empty"),
        (lambda: min_partial_product_factorisation(0, 3, 4), "m must be an integer >= 1"),
        (lambda: min_partial_product_factorisation(16, -1, 4), "max_depth must be an integer >= 1"),
        (lambda: min_partial_product_factorisation(16, 3, 1), "max_rank must be an integer >= 2"),
        (lambda: min_partial_product_factorisation(16.0, 3, 4), "m must be an integer"),
        (lambda: child_sizes(10, 0), "rank must be an integer >= 1"),
        (lambda: child_sizes(-3, 2), "size must be an integer >= 1"),
        (lambda: child_sizes(10, 10**12), "rank must be at most size"),
        (lambda: sample("gaussians", 4, -1), "seed must be an integer >= 0"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
