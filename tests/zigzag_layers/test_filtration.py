import itertools

import numpy as np
import pytest

from icml25.zigzag_layers import ZigzagFiltration, flag_complex, knn_edges, zigzag_filtration


def test_flag_complex_of_a_complete_graph_is_the_full_simplex():
    edges = np.array(list(itertools.combinations(range(4), 2)))
    sx = flag_complex(4, edges, max_dim=3)
    dims = (sx >= 0).sum(axis=1) - 1
    assert np.bincount(dims).tolist() == [4, 6, 4, 1]  # binomials of 4


def test_flag_complex_adds_exactly_the_cliques():
    rng = np.random.default_rng(0)
    A = np.triu(rng.random((9, 9)) < 0.5, 1)
    edges = np.argwhere(A)
    sx = {tuple(r[r >= 0]) for r in flag_complex(9, edges, max_dim=2)}
    es = {tuple(e) for e in edges}
    brute = {(i,) for i in range(9)} | es
    brute |= {
        t for t in itertools.combinations(range(9), 3) if set(itertools.combinations(t, 2)) <= es
    }
    assert sx == brute


def test_knn_edges_are_the_symmetrised_neighbour_relation():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 3))
    D = np.linalg.norm(X[:, None] - X[None], axis=2) + np.diag(np.full(20, np.inf))
    nn = np.argsort(D, axis=1)[:, :3]  # (20, 3)
    brute = {tuple(sorted((i, int(j)))) for i in range(20) for j in nn[i]}
    assert {tuple(e) for e in knn_edges(X, 3)} == brute


def test_membership_and_times_encode_the_zigzag():
    rng = np.random.default_rng(2)
    reps = np.cumsum(rng.normal(size=(4, 15, 2)), axis=0)  # (L, n, d)
    zz = zigzag_filtration(reps, k=3, max_dim=2)
    for layer in range(4):  # a layer's complex is the flag complex of its own k-NN graph
        own = {tuple(r[r >= 0]) for r in flag_complex(15, knn_edges(reps[layer], 3), 2)}
        assert {tuple(r[r >= 0]) for r in zz.layer_simplices(layer)} == own
    stages = zz.stages  # (2L - 1, S)
    assert np.array_equal(stages[1], zz.membership[0] & zz.membership[1])
    for i, t in enumerate(zz.times()):  # presence rebuilt from enter/leave times
        present = np.zeros(7, dtype=bool)
        for enter, leave in zip(t[0::2], t[1::2] + [7], strict=False):
            present[enter:leave] = True
        assert np.array_equal(present, stages[:, i])
    dims = zz.dims
    assert np.all(np.diff(dims) >= 0)  # faces before cofaces


def test_bad_arguments():
    reps = np.zeros((3, 10, 2))
    with pytest.raises(ValueError, match="reps"):
        zigzag_filtration(np.zeros((1, 10, 2)))
    with pytest.raises(ValueError, match="reps"):
        zigzag_filtration(np.zeros((10, 2)))
    with pytest.raises(ValueError, match="finite"):
        zigzag_filtration(np.full((3, 10, 2), np.nan))
    with pytest.raises(ValueError, match="k must be"):
        zigzag_filtration(reps, k=10)
    with pytest.raises(ValueError, match="k must be"):
        zigzag_filtration(reps, k=0)
    with pytest.raises(ValueError, match="max_dim"):
        zigzag_filtration(reps, k=2, max_dim=0)
    zz = ZigzagFiltration(np.array([[0]]), np.ones((2, 1), dtype=bool))
    with pytest.raises(ValueError, match="layer"):
        zz.layer_simplices(2)
