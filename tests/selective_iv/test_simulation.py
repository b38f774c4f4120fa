"""The simulated population of the paper's numerical study."""

import numpy as np
import pytest

from icml25.selective_iv import simulate
from icml25.selective_iv.simulation import decision_probability_at_levels


def test_shapes_ranges_and_determinism():
    a = simulate(500, "nucem", 0.5, 0.5, seed=3)
    b = simulate(500, "nucem", 0.5, 0.5, seed=3)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert a.X.shape == (500, 6) and a.U.shape == (500, 4) and a.eta.shape == (500, 3)
    assert set(np.unique(a.Z)) <= {1, 2, 3, 4, 5} and set(np.unique(a.D)) <= {0, 1}
    assert set(np.unique(a.Y)) <= {0, 1, 2}
    np.testing.assert_allclose(a.eta.sum(axis=1), 1.0, atol=1e-12)


def test_labels_follow_eta():
    data = simulate(40000, "uc", 0.5, 0.5, seed=0)
    freq = np.bincount(data.Y, minlength=3) / len(data.Y)
    # 4 standard errors of a proportion at n = 40000 is below 0.01
    np.testing.assert_allclose(freq, data.eta.mean(axis=0), atol=0.01)


def test_instrument_moves_decisions_less_when_confounding_is_strong():
    def spread(strength_d):  # P(D=1 | Z=5) - P(D=1 | Z=1) at 0 < X beta < 1
        data = simulate(200000, "nucem", 0.5, strength_d, seed=1)
        xb = data.X @ (2.0 - np.arange(6))
        near = (xb > 0) & (xb < 1)  # where sigmoid(2 Z X beta) still depends on Z
        rates = [data.D[near & (data.Z == z)].mean() for z in (1, 5)]
        return abs(rates[1] - rates[0])

    # (1 - s_D) x mean of sigmoid(10 t) - sigmoid(2 t) over t in (0, 1) (about 0.25): 0.17 and
    # 0.025, each ~ 4 standard errors (0.017) from 0.1
    assert spread(0.3) > 0.1 > spread(0.9)


@pytest.mark.parametrize("setting", ["nucem", "uc"])
def test_true_decision_probability_matches_the_draws(setting):
    data = simulate(200000, setting, 0.5, 0.7, seed=2)
    p = decision_probability_at_levels(data.X, setting, 0.7)  # (n, 5)
    p_z = p[np.arange(len(data.Z)), data.Z - 1]
    edges = np.quantile(p_z, [0.0, 1 / 3, 2 / 3, 1.0])
    for low, high in zip(edges[:-1], edges[1:], strict=True):  # calibrated within tertiles
        sel = (p_z >= low) & (p_z <= high)
        assert abs(data.D[sel].mean() - p_z[sel].mean()) < 0.01  # 5 s.e. at n = 66,000
    with pytest.raises(ValueError, match="setting"):
        decision_probability_at_levels(data.X, "iv", 0.7)
    with pytest.raises(ValueError, match="X must"):
        decision_probability_at_levels(data.X[:, 0], "uc", 0.7)


def test_bad_arguments():
    with pytest.raises(ValueError, match="n must"):
        simulate(0, "nucem", 0.5, 0.5, seed=0)
    with pytest.raises(ValueError, match="setting"):
        simulate(10, "iv", 0.5, 0.5, seed=0)
    with pytest.raises(ValueError, match="strength_y"):
        simulate(10, "uc", 1.5, 0.5, seed=0)
    with pytest.raises(ValueError, match="strength_d"):
        simulate(10, "uc", 0.5, -0.1, seed=0)
    with pytest.raises(ValueError, match="levels"):
        simulate(10, "uc", 0.5, 0.5, seed=0, levels=1)
    with pytest.raises(ValueError, match="n_classes"):
        simulate(10, "uc", 0.5, 0.5, seed=0, n_classes=1)
