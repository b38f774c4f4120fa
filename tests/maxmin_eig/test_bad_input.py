"""Bad input to the objective is refused, naming the argument."""

import numpy as np
import pytest

from icml25.maxmin_eig.problem import value

M = np.eye(3)
AS = np.stack([np.eye(3)] * 4)


def test_a_valid_selection_is_scored():
    assert value(M, AS, [0, 2]) == pytest.approx(3.0)
    assert value(M, AS, []) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("m", "a", "selection", "message"),
    [
        (M, AS, [0, 0], "selection must be distinct indices"),
        (M, AS, [4], "selection must be <= 3"),
        (M, AS, [-1], "selection must be >= 0"),
        (M, AS, [0.5], "selection must hold integers"),
        (M * np.nan, AS, [0], "M must be finite"),
        (M, AS[:, :2], [0], "As must have shape"),
        (M[:2], AS, [0], "M must be a square"),
    ],
)
def test_bad_input_is_refused_by_name(m, a, selection, message):
    with pytest.raises(ValueError, match=message):
        value(m, a, selection)
