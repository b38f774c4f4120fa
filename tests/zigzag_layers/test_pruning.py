import numpy as np
import pytest

from icml25.zigzag_layers import angular_distances, angular_prune, layer_scores, prune_layers

# H1 bars over 4 layers: one cycle on layers 0-3, one on 1-2, one on layer 3 only
BARS = np.array([[1, 0, 4], [1, 1, 3], [1, 3, 4], [0, 0, 4]])


def test_layer_scores_follow_the_paper_formula():
    # betti_1 = [1, 2, 2, 2]; PHSim rows: [1,1,1,1], [1,2,2,1], [1,2,2,1], [1,1,1,2]
    expected = np.array([1 / 1 + 1 / 2 + 1 / 2 + 1 / 2, 1 + 1 + 1 + 1 / 2,
                         1 + 1 + 1 + 1 / 2, 1 + 1 / 2 + 1 / 2 + 1]) / 4  # fmt: skip
    np.testing.assert_allclose(layer_scores(BARS, 4), expected, rtol=1e-14)


def test_prune_by_fraction_and_by_threshold():
    # r = [0.625, 0.875, 0.875, 0.75]; candidates default to all but the last layer
    assert prune_layers(BARS, 4, fraction=1 / 3).tolist() == [1]  # tie 1-2 -> lower index
    assert prune_layers(BARS, 4, fraction=2 / 3).tolist() == [1, 2]
    assert prune_layers(BARS, 4, p=0.8, candidates=[0, 1, 2, 3]).tolist() == [1, 2, 3]
    assert prune_layers(BARS, 4, p=1.0).tolist() == [1, 2]
    assert prune_layers(BARS, 4, fraction=0.0).tolist() == []


def test_layers_without_cycles_score_zero():
    assert layer_scores(np.array([[0, 0, 3]]), 3).tolist() == [0, 0, 0]


def test_angular_distance_closed_form():
    e = np.eye(3)
    reps = np.stack([e, e, np.roll(e, 1, axis=0), -np.roll(e, 1, axis=0)])  # (4, 3, 3)
    np.testing.assert_allclose(angular_distances(reps, 1), [0.0, 0.5, 1.0], atol=1e-7)
    assert angular_prune(reps, 1).tolist() == [1]  # x_0 -> x_1 unchanged: remove layer 1
    np.testing.assert_allclose(angular_distances(reps, 2), [0.5, 0.5], atol=1e-7)


def test_bad_arguments():
    with pytest.raises(ValueError, match="exactly one"):
        prune_layers(BARS, 4)
    with pytest.raises(ValueError, match="exactly one"):
        prune_layers(BARS, 4, fraction=0.5, p=0.5)
    with pytest.raises(ValueError, match="fraction"):
        prune_layers(BARS, 4, fraction=1.5)
    with pytest.raises(ValueError, match="p must"):
        prune_layers(BARS, 4, p=-0.1)
    with pytest.raises(ValueError, match="candidates"):
        prune_layers(BARS, 4, fraction=0.5, candidates=[0, 4])
    with pytest.raises(ValueError, match="candidates"):
        prune_layers(BARS, 4, fraction=0.5, candidates=[1, 1])
    with pytest.raises(ValueError, match="dim"):
        layer_scores(BARS, 4, dim=-1)
    with pytest.raises(ValueError, match="n_remove"):
        angular_distances(np.ones((3, 2, 2)), 3)
    with pytest.raises(ValueError, match="reps"):
        angular_distances(np.ones((3, 2)), 1)
