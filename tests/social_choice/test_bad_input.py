"""Bad input to the synthetic utilities is refused, naming the argument."""

import numpy as np
import pytest

from icml25.social_choice.synthetic import utility_matrix

STATEMENTS = np.array([[1, 0], [2, 3]])
PROFILE = np.array([[1, 2], [3, 3], [2, 1]])


def test_whole_floats_are_integers_and_the_answer_is_unchanged():
    assert (
        utility_matrix(STATEMENTS * 1.0, PROFILE, 3) == utility_matrix(STATEMENTS, PROFILE, 3)
    ).all()


@pytest.mark.parametrize(
    ("statements", "profile", "message"),
    [
        (np.array([[np.nan, 0.0]]), PROFILE, "statements must hold integers: it holds NaN"),
        (STATEMENTS, PROFILE + 0.5, "profile must hold integers"),
        (STATEMENTS, PROFILE * 0, "profile must be >= 1"),
        (STATEMENTS + 5, PROFILE, "statements must be <= 3"),
        (STATEMENTS[:, :1], PROFILE, "share the number of issues"),
        (STATEMENTS[0], PROFILE, "statements must have 2 dimensions"),
        (np.zeros((0, 2)), PROFILE, "statements must not be empty"),
    ],
)
def test_bad_input_is_refused_by_name(statements, profile, message):
    with pytest.raises(ValueError, match=message):
        utility_matrix(statements, profile, 3)
