"""Bad input to the filtration, the descriptors, the pruning rules and the encoders is refused by
name."""

import numpy as np
import pytest

from icml25.zigzag_layers import (
    ToyEncoder,
    ZigzagFiltration,
    angular_distances,
    angular_prune,
    betti_curves,
    build_prompts,
    final_embeddings,
    flag_complex,
    knn_edges,
    layer_representations,
    static_betti,
    zigzag_filtration,
)

REPS = np.random.default_rng(0).normal(size=(3, 6, 2))
POINTS = REPS[0]
EDGES = np.array([[0, 1], [1, 2]])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: zigzag_filtration(REPS.astype(str), k=2), "reps must be a numeric array"),
        (lambda: zigzag_filtration(REPS + 1j, k=2), "reps must be a numeric array"),
        (lambda: knn_edges(POINTS * np.nan, 2), "points must be finite"),
        (lambda: knn_edges(POINTS[:, 0], 2), "points must have 2 dimensions"),
        (lambda: knn_edges(POINTS, 0), "k must be an integer >= 1"),
        (lambda: knn_edges(POINTS, 6), "k must be < the number of points"),
        (lambda: flag_complex(0, EDGES, 2), "n_points must be"),
        (lambda: flag_complex(2, EDGES, 2), "edges must be <= 1"),
        (lambda: flag_complex(3, -EDGES, 2), "edges must be >= 0"),
        (lambda: flag_complex(3, [[0, 1, 2]], 2), r"edges must be an int array \(E, 2\)"),
        (lambda: flag_complex(3, [[0.5, 1]], 2), "edges must hold integers"),
        (lambda: flag_complex(3, [[1, 1]], 2), "edges must join two distinct vertices"),
        (lambda: flag_complex(3, EDGES, 0), "max_dim must be"),
        (
            lambda: ZigzagFiltration(np.array([[0], [1]]), np.ones((2, 1), dtype=bool)),
            "membership must have one column per simplex",
        ),
        (
            lambda: ZigzagFiltration(np.array([[0.0]]), np.ones((2, 1), dtype=bool)),
            "simplices must be an int array",
        ),
        (lambda: betti_curves([[0, 0, 1], [0, 1]], 2), "bars must be an int array"),
        (lambda: static_betti(np.array([[-3, -1]])), "simplices must hold vertex ids"),
        (lambda: static_betti(np.array([[-1, 0]])), "simplices must hold vertex ids"),
        (lambda: angular_distances(REPS * np.inf, 1), "reps must be finite"),
        (lambda: angular_distances(np.zeros((3, 2, 2)), 1), "reps must hold no zero vector"),
        (lambda: angular_distances(REPS[:, :0], 1), "reps must not be empty"),
        (lambda: angular_prune(REPS * np.nan, 1), "reps must be finite"),
        (lambda: build_prompts(["cooking", "cooking"], per_family=2), "families must be distinct"),
        (lambda: layer_representations(ToyEncoder(3, 4)), "texts must be a non-empty sequence"),
        (
            lambda: layer_representations(ToyEncoder(3, 4), ["a"], drop_blocks=(1.5,)),
            "drop_blocks must be a sequence of block indices",
        ),
        (
            lambda: layer_representations(ToyEncoder(3, 4), ["a"], drop_blocks="12"),
            "drop_blocks must be a sequence of block indices",
        ),
        (lambda: final_embeddings(np.zeros((2, 3, 2)), None), "zero vector"),
        (lambda: ToyEncoder(3, 4).tokenize(["a b"], max_length=0), "max_length must be"),
        (lambda: ToyEncoder(3, 4).tokenize([]), "texts must be a non-empty list"),
        (lambda: ToyEncoder(3, 4).token_states(["a"], (7,)), "drop_blocks must be blocks"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
