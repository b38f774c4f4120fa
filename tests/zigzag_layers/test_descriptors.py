import numpy as np
import pytest

from icml25.zigzag_layers import (
    betti_curves,
    birth_relative_frequency,
    persistence_image,
    persistence_matrix,
    static_betti,
)

BARS = np.array([[0, 0, 4], [1, 0, 2], [1, 1, 4], [1, 1, 2], [1, 3, 4]])  # (dim, birth, death)


def random_bars(rng, n_layers, n=60):
    b = rng.integers(0, n_layers, size=n)
    d = b + 1 + rng.integers(0, n_layers - b)
    return np.stack([rng.integers(0, 2, size=n), b, d], axis=1)


def test_betti_curves_count_bars_alive_at_each_layer():
    assert betti_curves(BARS, 4).tolist() == [[1, 1, 1, 1], [1, 3, 1, 2]]


def test_persistence_matrix_matches_its_definition():
    rng = np.random.default_rng(0)
    bars = random_bars(rng, 6)
    ph = persistence_matrix(bars, 6, dim=1)
    h1 = bars[bars[:, 0] == 1]
    for i in range(6):
        for j in range(6):
            lo, hi = min(i, j), max(i, j)
            assert ph[i, j] == np.sum((h1[:, 1] <= lo) & (h1[:, 2] > hi))
    np.testing.assert_array_equal(np.diag(ph), betti_curves(bars, 6)[1])
    np.testing.assert_array_equal(ph, ph.T)


def test_birth_frequency_and_image():
    freq = birth_relative_frequency(BARS, 4, dim=1)
    np.testing.assert_allclose(freq, [0.25, 0.5, 0.0, 0.25], atol=1e-15)
    image = persistence_image(BARS, 4, dim=1)
    assert image[0, 1] == 1 and image[1, 2] == 1 and image[1, 0] == 1 and image[3, 0] == 1
    assert image.sum() == 4
    assert birth_relative_frequency(BARS, 4, dim=3).tolist() == [0, 0, 0, 0]


def test_static_betti_of_small_complexes():
    circle = np.array([[0, -1], [1, -1], [2, -1], [3, -1], [0, 1], [1, 2], [2, 3], [0, 3]])
    assert static_betti(circle, 1).tolist() == [1, 1]
    triangle = np.array([[0, -1, -1], [1, -1, -1], [2, -1, -1], [0, 1, -1], [0, 2, -1],
                         [1, 2, -1], [0, 1, 2]])  # fmt: skip
    assert static_betti(triangle, 2).tolist() == [1, 0, 0]
    sphere = np.array([[0, -1, -1], [1, -1, -1], [2, -1, -1], [3, -1, -1]]
                      + [[a, b, -1] for a in range(4) for b in range(a + 1, 4)]
                      + [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]])  # fmt: skip
    assert static_betti(sphere, 2).tolist() == [1, 0, 1]


def test_bad_arguments():
    with pytest.raises(ValueError, match="bars"):
        betti_curves(np.array([[0, 2, 1]]), 4)
    with pytest.raises(ValueError, match="bars"):
        betti_curves(np.array([[0, 0, 5]]), 4)
    with pytest.raises(ValueError, match="bars"):
        betti_curves(np.array([[0.0, 0.0, 1.0]]), 4)
    with pytest.raises(ValueError, match="n_layers"):
        betti_curves(BARS, 0)
    with pytest.raises(ValueError, match="dim"):
        persistence_matrix(BARS, 4, dim=-1)
    with pytest.raises(ValueError, match="max_dim"):
        betti_curves(BARS, 4, max_dim=-1)
    with pytest.raises(ValueError, match="simplices"):
        static_betti(np.zeros(3, dtype=int))
    assert betti_curves(np.zeros((0, 3), dtype=int), 3).tolist() == [[0, 0, 0], [0, 0, 0]]
