"""Bad input to Fisher's z test is refused, naming the argument."""

import numpy as np
import pytest

from icml25.gpt_causal.causal_discovery import fisher_z_log_pvalues


def test_valid_correlations_give_log_pvalues():
    logp = fisher_z_log_pvalues(np.array([0.0, 0.5, -1.0]), 50, 1)
    assert logp[0] == pytest.approx(0.0) and logp[1] < 0 and np.isfinite(logp).all()


@pytest.mark.parametrize(
    ("rho", "n", "r", "message"),
    [
        (np.array([np.nan]), 50, 1, "rho must be finite"),
        (np.array([1.5]), 50, 1, r"rho must hold correlations in \[-1, 1\]"),
        (np.array([0.1]), 50.5, 1, "n must be an integer >= 1"),
        (np.array([0.1]), 50, -1, "r must be >= 0"),
        (np.array([0.1]), 4, 1, "n must exceed r \\+ 3"),
    ],
)
def test_bad_input_is_refused_by_name(rho, n, r, message):
    with pytest.raises(ValueError, match=message):
        fisher_z_log_pvalues(rho, n, r)
