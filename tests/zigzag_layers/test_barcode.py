import numpy as np
import pytest

from icml25.zigzag_layers import (
    ZigzagFiltration,
    betti_curves,
    static_betti,
    zigzag_barcode,
    zigzag_filtration,
)
from icml25.zigzag_layers.reproduce import random_zigzag_points

# a square 0-1-2-3 with the diagonal 0-2 and its two triangles
SQUARE = np.array(
    [[0, -1, -1], [1, -1, -1], [2, -1, -1], [3, -1, -1],
     [0, 1, -1], [0, 2, -1], [0, 3, -1], [1, 2, -1], [2, 3, -1],
     [0, 1, 2], [0, 2, 3]]
)  # fmt: skip
FILL = np.array([0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1], dtype=bool)


def square_zigzag() -> ZigzagFiltration:
    """Layers: hollow square, filled square, hollow square."""
    membership = np.stack([~FILL, np.ones(11, dtype=bool), ~FILL])
    return ZigzagFiltration(SQUARE, membership)


@pytest.mark.parametrize("method", ["fast", "plain"])
def test_a_loop_filled_in_the_middle_layer_gives_two_bars(method):
    zz = square_zigzag()
    h1 = lambda bars: bars[bars[:, 0] == 1].tolist()  # noqa: E731
    # stages: 0 layer0, 1 = layer0 ∩ layer1 (hollow), 2 layer1 (filled), 3 hollow, 4 layer2
    assert h1(zigzag_barcode(zz, method, units="stages")) == [[1, 0, 2], [1, 3, 5]]
    assert h1(zigzag_barcode(zz, method)) == [[1, 0, 1], [1, 2, 3]]
    assert zigzag_barcode(zz, method)[0].tolist() == [0, 0, 3]  # one component throughout


def test_a_constant_zigzag_has_full_length_bars():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 3))
    zz = zigzag_filtration(np.stack([X, X, X]), k=3, max_dim=2)
    bars = zigzag_barcode(zz)
    assert np.all(bars[:, 1] == 0) and np.all(bars[:, 2] == 3)
    static = static_betti(zz.layer_simplices(0), 1)
    assert np.bincount(bars[:, 0], minlength=2).tolist() == static.tolist()


def test_fast_equals_plain_and_betti_equal_gudhi_on_random_zigzags():
    rng = np.random.default_rng(4)
    for _ in range(8):
        points, k, max_dim = random_zigzag_points(rng)
        zz = zigzag_filtration(points, k=k, max_dim=max_dim)
        fast = zigzag_barcode(zz, "fast", units="stages")
        np.testing.assert_array_equal(fast, zigzag_barcode(zz, "plain", units="stages"))
        curves = betti_curves(zigzag_barcode(zz), zz.n_layers, max_dim=max_dim - 1)
        for layer in range(zz.n_layers):
            assert (
                curves[:, layer].tolist()
                == static_betti(zz.layer_simplices(layer), max_dim - 1).tolist()
            )


def test_bad_arguments():
    zz = square_zigzag()
    with pytest.raises(ValueError, match="method"):
        zigzag_barcode(zz, method="pyfzz")
    with pytest.raises(ValueError, match="units"):
        zigzag_barcode(zz, units="seconds")
    with pytest.raises(ValueError, match="filtration"):
        zigzag_barcode(np.zeros((3, 3)))
