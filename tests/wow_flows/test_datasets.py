"""The (X, y) <-> (C, n, d) helpers, the data, and the POT yardsticks."""

import numpy as np
import ot
import pytest

from icml25.wow_flows import (
    from_classes,
    match_classes,
    rings,
    thicken,
    to_classes,
    w2_squared_matrix,
    wow_distance,
)


def test_round_trip_with_equal_class_sizes():
    rng = np.random.default_rng(0)
    y = np.repeat([3, 1, 7], 5)
    rng.shuffle(y)
    X = rng.normal(size=(15, 2))
    P, classes = to_classes(X, y)
    assert P.shape == (3, 5, 2)
    np.testing.assert_array_equal(classes, [1, 3, 7])
    X2, y2 = from_classes(P, classes)
    # the same labelled points, in another order
    key = lambda X, y: np.lexsort(np.c_[X, y].T)  # noqa: E731
    np.testing.assert_array_equal(np.c_[X, y][key(X, y)], np.c_[X2, y2][key(X2, y2)])


def test_unequal_classes_are_subsampled_from_their_own_points():
    rng = np.random.default_rng(1)
    y = np.array([0] * 9 + [1] * 4 + [2] * 6)
    X = rng.normal(size=(19, 3)) + y[:, None] * 10
    P, classes = to_classes(X, y, seed=2)
    assert P.shape == (3, 4, 3)
    for c, block in zip(classes, P, strict=True):
        rows = X[y == c]
        assert all(any(np.array_equal(p, r) for r in rows) for p in block)
        assert len({tuple(p) for p in block}) == 4  # without replacement
    with pytest.raises(ValueError, match="n_per_class"):
        to_classes(X, y, n_per_class=5)
    with pytest.raises(ValueError, match="y"):
        to_classes(X, y[:-1])
    with pytest.raises(ValueError, match="X"):
        to_classes(np.full((19, 3), np.nan), y)
    with pytest.raises(ValueError, match="classes"):
        from_classes(P, [0, 1])


def test_rings_geometry():
    source, target, centres = rings(80)
    assert source.shape == target.shape == (3, 80, 2)
    radii = np.linalg.norm(target - centres[:, None], axis=-1)
    np.testing.assert_allclose(radii, 0.3)
    np.testing.assert_allclose(np.linalg.norm(np.diff(centres, axis=0), axis=1), 0.75)


def test_thicken_dilates_strokes():
    img = np.zeros((1, 64))
    img[0, 27] = 1.0
    out = thicken(img, 2)
    assert out.sum() == 4 and out.max() == 1.0
    with pytest.raises(ValueError, match="images"):
        thicken(np.zeros((2, 10)))


def test_wow_yardsticks():
    rng = np.random.default_rng(4)
    P = rng.normal(size=(3, 10, 2)) + np.arange(3)[:, None, None] * 5
    perm = np.array([2, 0, 1])
    # ot.dist expands |x - y|^2, so W2^2 of a class to itself is ~1e-15, its root ~1e-7
    assert wow_distance(P, P[perm]) == pytest.approx(0.0, abs=1e-6)
    np.testing.assert_array_equal(match_classes(P, P[perm]), np.argsort(perm))
    W = w2_squared_matrix(P, P + 1.0)  # a translation by (1, 1): W2^2 = 2 on the diagonal
    np.testing.assert_allclose(np.diag(W), 2.0)
    assert W[0, 1] == pytest.approx(ot.emd2([], [], ot.dist(P[0], P[1] + 1.0)))
