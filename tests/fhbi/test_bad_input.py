"""Bad input to the predictive metrics is refused, naming the argument."""

import numpy as np
import pytest

from icml25.fhbi.metrics import accuracy, ece, nll

PROBA = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]])
Y = np.array([0, 1, 1])


@pytest.mark.parametrize("metric", [nll, accuracy, ece])
@pytest.mark.parametrize(
    ("proba", "y", "message"),
    [
        (PROBA * np.nan, Y, "proba must be finite"),
        (PROBA * 2, Y, "proba must hold probabilities"),
        (PROBA * 0.5, Y, "proba rows must sum to 1"),
        (PROBA[0], Y, "proba must have 2 dimensions"),
        (PROBA, Y[:2], "y must hold 3 labels"),
        (PROBA, Y + 1, "y must be <= 1"),
        (PROBA, Y - 1, "y must be >= 0"),
        (PROBA, Y + 0.5, "y must hold integers"),
    ],
)
def test_bad_input_is_refused_by_name(metric, proba, y, message):
    with pytest.raises(ValueError, match=message):
        metric(proba, y)


def test_a_bin_count_below_one_is_refused():
    with pytest.raises(ValueError, match="bins must be an integer >= 1"):
        ece(PROBA, Y, bins=0)
