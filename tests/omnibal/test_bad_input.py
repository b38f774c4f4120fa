"""Bad input to the greedy fill is refused, naming the argument."""

import numpy as np
import pytest

from icml25.omnibal.balance import greedy_fill

V = np.array([3, 2, 4, 1])
T = np.array([10, 20, 5, 5])


def test_the_fill_of_samples_that_fit():
    assert greedy_fill(V, T, vit_max=5, llm_max=30).tolist() == [0, 2]


@pytest.mark.parametrize(
    ("v", "t", "vit_max", "llm_max", "message"),
    [
        (V, T, 3, 30, "every sample must fit the budgets alone"),
        (V, T, 5, 15, "every sample must fit the budgets alone"),
        (V, T, 0, 30, "vit_max must be an integer >= 1"),
        (V * 1.5, T, 5, 30, "vision must be a non-empty 1-D integer array"),
        (V, T[:3], 5, 30, "the same length"),
        (-V, T, 5, 30, "vision must be non-negative"),
    ],
)
def test_bad_input_is_refused_by_name(v, t, vit_max, llm_max, message):
    with pytest.raises(ValueError, match=message):
        greedy_fill(v, t, vit_max, llm_max)
