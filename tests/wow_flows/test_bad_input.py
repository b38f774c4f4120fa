"""Bad input to the WoW yardsticks is refused, naming the argument."""

import numpy as np
import pytest

from icml25.wow_flows import match_classes, w2_squared_matrix, wow_distance

P = np.random.default_rng(0).normal(size=(2, 5, 3))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: wow_distance(np.full((2, 5, 3), np.nan), P), "P must be finite"),
        (lambda: wow_distance(P, np.inf * P), "Q must be finite"),
        (lambda: wow_distance(P[0], P), "P must have 3 dimensions"),
        (lambda: wow_distance(P, P[:, :, :2]), "points of one dimension"),
        (lambda: w2_squared_matrix(np.zeros((0, 5, 3)), P), "P must not be empty"),
        (lambda: w2_squared_matrix(P.astype(object), P), "P must be a numeric array"),
        (lambda: match_classes(P, P, cost=np.zeros((3, 2))), "cost must have shape"),
        (lambda: match_classes(P, P, cost=np.full((2, 2), np.nan)), "cost must be finite"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
