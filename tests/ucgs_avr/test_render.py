import numpy as np
import pytest

from icml25.ucgs_avr import PatchCodebook, generate_matrices, image_cells, render


def test_rendering_is_deterministic_for_a_seed():
    a = render(generate_matrices(30, seed=11).panels)
    b = render(generate_matrices(30, seed=11).panels)
    assert a.dtype == np.uint8 and a.shape == (30, 9, 24, 24)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, render(generate_matrices(30, seed=12).panels))


def test_empty_cells_are_white_and_shapes_differ():
    one = render(np.array([[2, 3, 3, 1]]))[0]  # large black circle in the top-left cell
    assert (one[:, 12:] == 255).all() and (one[12:, :] == 255).all()
    assert one[:12, :12].min() < 50
    library = render(
        np.array([[t, s, c, 1] for t in range(3) for s in (1, 2, 3) for c in (1, 2, 3)])
    )
    flat = library[:, :12, :12].reshape(27, -1)
    assert len(np.unique(flat, axis=0)) == 27  # every (type, size, colour) is its own image


def test_codebook_recovers_every_distinct_patch():
    images = render(generate_matrices(300, seed=13).panels)
    codebook = PatchCodebook(128, seed=0).fit(images)
    tokens = codebook.encode(images)  # (300, 9, 4)
    assert tokens.shape == (300, 9, 4)
    assert codebook.n_codes == len(np.unique(image_cells(images).reshape(-1, 144), axis=0))
    assert np.array_equal(codebook.decode(tokens), images)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: render(np.array([[3, 1, 1, 1]])), "type"),
        (lambda: render(np.array([[0, 1, 1, 0]])), "position"),
        (lambda: render(np.array([[0.0, 1, 1, 1]])), "integer"),
        (lambda: render(np.array([[0, 1, 1, 1]]), cell=2), "cell"),
        (lambda: image_cells(np.zeros((3, 5, 5))), "even"),
        (lambda: PatchCodebook(1), "codebook_size"),
        (lambda: PatchCodebook().encode(np.zeros((1, 24, 24))), "not fitted"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
