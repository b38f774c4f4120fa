"""Bad input to the partial-identification bounds is refused, naming the argument."""

import numpy as np
import pytest

from icml25.selective_iv.identification import partial_identification_bounds

M = np.full((4, 3, 2), 0.2)  # (n, L, K)
P0 = np.full((4, 3), 0.5)  # (n, L)


def test_valid_input_gives_bounds_of_the_shape_asked():
    low, high = partial_identification_bounds(M, P0)
    assert low.shape == high.shape == (4, 2) and (low <= high).all()


@pytest.mark.parametrize(
    ("m", "p", "message"),
    [
        (M * np.nan, P0, "m_dy_z must be finite"),
        (M, P0 * np.inf, "p_d0_z must be finite"),
        (M + 1, P0, "m_dy_z must hold probabilities"),
        (M, -P0, "p_d0_z must hold probabilities"),
        (M[0], P0, "m_dy_z must have shape"),
        (M.astype(str), P0, "m_dy_z must be a numeric array"),
    ],
)
def test_bad_input_is_refused_by_name(m, p, message):
    with pytest.raises(ValueError, match=message):
        partial_identification_bounds(m, p)
