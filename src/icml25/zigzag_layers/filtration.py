"""Per-layer k-NN flag complexes and the zigzag that joins them (Gardinazzi et al., ICML 2025).

Section 3 of the paper: at every layer ``l`` the prompts' representations ``X_l`` (n points) give
a k-nearest-neighbour graph, and its flag (clique) complex ``K_l``. Consecutive complexes share
vertices (the prompts), so they are joined by their intersections into the zigzag

    K_0 ⊇ K_0 ∩ K_1 ⊆ K_1 ⊇ K_1 ∩ K_2 ⊆ ... ⊆ K_{L-1},

whose ``2L - 1`` *stages* are numbered ``s = 0 .. 2L-2``: stage ``2l`` is layer ``l``, stage
``2l + 1`` the intersection of layers ``l`` and ``l + 1``. A simplex present on the stages
``a..e`` enters at time ``a`` and leaves at time ``e + 1`` (never, if ``e`` is the last stage):
the ``times`` that dionysus' zigzag takes. Going into an odd stage only removes simplices, going
into an even one only adds them, so the complex at stage ``s`` is exactly the set of simplices
``σ`` with ``s`` in one of ``σ``'s ``[enter, leave)`` intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.neighbors import kneighbors_graph

from icml25.common.arrays import int_array, real_array
from icml25.common.optional import require
from icml25.common.validate import check_int


@dataclass(frozen=True)
class ZigzagFiltration:
    """A zigzag of per-layer flag complexes with global simplex ids.

    Parameters
    ----------
    simplices : numpy.ndarray of int, shape (S, max_dim + 1)
        Vertex ids sorted ascending, padded with -1; rows sorted by dimension then
        lexicographically, so faces come before cofaces. Row index = global id.
    membership : numpy.ndarray of bool, shape (L, S)
        ``membership[l, i]`` iff simplex ``i`` is in ``K_l``.

    Raises
    ------
    ValueError
        If ``simplices`` is not a 2-D int array, ``membership`` not a 2-D bool array with at
        least one layer, or their numbers of simplices differ.
    """

    simplices: np.ndarray
    membership: np.ndarray

    def __post_init__(self) -> None:
        simplices, membership = np.asarray(self.simplices), np.asarray(self.membership)
        if simplices.ndim != 2 or not np.issubdtype(simplices.dtype, np.integer):
            raise ValueError(
                f"simplices must be an int array (S, D), got {simplices.dtype} "
                f"of shape {simplices.shape}"
            )
        if membership.ndim != 2 or membership.dtype != bool or len(membership) < 1:
            raise ValueError(
                f"membership must be a bool array (L >= 1, S), got {membership.dtype} "
                f"of shape {membership.shape}"
            )
        if membership.shape[1] != simplices.shape[0]:
            raise ValueError(
                f"membership must have one column per simplex ({simplices.shape[0]}), "
                f"got shape {membership.shape}"
            )

    @property
    def n_layers(self) -> int:
        return self.membership.shape[0]

    @property
    def dims(self) -> np.ndarray:
        """(S,) dimension of every simplex."""
        return (self.simplices >= 0).sum(axis=1) - 1

    @property
    def stages(self) -> np.ndarray:
        """(2L - 1, S) bool presence at each stage: layers at even, intersections at odd stages."""
        M = self.membership
        P = np.zeros((2 * M.shape[0] - 1, M.shape[1]), dtype=bool)
        P[0::2] = M
        P[1::2] = M[:-1] & M[1:]
        return P

    def times(self) -> list[list[int]]:
        """Per simplex the alternating enter / leave times (dionysus' zigzag ``times``)."""
        P = self.stages
        edges = np.diff(P.astype(np.int8), axis=0, prepend=0, append=0)  # (2L, S): +1 in, -1 out
        simplex, stage = np.nonzero(edges.T)  # simplex-major, stages ascending
        keep = stage < P.shape[0]  # a leave at time 2L - 1 is "never removed"
        simplex, stage = simplex[keep], stage[keep]
        bounds = np.searchsorted(simplex, np.arange(1, P.shape[1]))
        return [t.tolist() for t in np.split(stage, bounds)]

    def layer_simplices(self, layer: int) -> np.ndarray:
        """(S_l, max_dim + 1) the simplices of ``K_layer``."""
        check_int("layer", layer, minimum=0)
        if layer >= self.n_layers:
            raise ValueError(f"layer must be < n_layers = {self.n_layers}, got {layer}")
        return self.simplices[self.membership[layer]]


def knn_edges(points: np.ndarray, k: int) -> np.ndarray:
    """(E, 2) undirected edges ``i < j`` of the k-NN graph.

    ``j`` among the ``k`` nearest neighbours of ``i`` or ``i`` among those of ``j``
    (scikit-learn ``kneighbors_graph``, as in the official code; a point is not its own
    neighbour).

    Parameters
    ----------
    points : numpy.ndarray, shape (n, d)
        Finite point coordinates.
    k : int
        Number of neighbours per point, ``1 <= k < n``.

    Returns
    -------
    numpy.ndarray of int64, shape (E, 2)
        The edges ``(i, j)`` with ``i < j``, each undirected edge once.

    Raises
    ------
    ValueError
        If ``points`` is not a finite 2-D array or ``k`` is out of range.
    """
    n = real_array("points", points, ndim=2).shape[0]
    k = check_int("k", k, minimum=1)
    if k >= n:
        raise ValueError(f"k must be < the number of points {n}, got {k}")
    return _knn_edges(points, k)


def _knn_edges(points: np.ndarray, k: int) -> np.ndarray:
    G = kneighbors_graph(points, n_neighbors=k, mode="connectivity")  # (n, n) sparse, directed
    G = (G + G.T).tocoo()
    upper = G.row < G.col
    return np.stack([G.row[upper], G.col[upper]], axis=1).astype(np.int64)


def flag_complex(n_points: int, edges: np.ndarray, max_dim: int) -> np.ndarray:
    """(S, max_dim + 1) the flag complex of a graph up to dimension ``max_dim``, padded with -1.

    GUDHI's ``SimplexTree.expansion`` (the official code's construction). ``edges`` (E, 2) join
    two distinct vertices in ``[0, n_points)``; ``max_dim >= 1``.

    Parameters
    ----------
    n_points : int
        Number of vertices (at least 1); every vertex is a 0-simplex.
    edges : numpy.ndarray of int, shape (E, 2)
        Graph edges between distinct vertices in ``[0, n_points)``; may be empty.
    max_dim : int
        Largest simplex dimension (at least 1).

    Returns
    -------
    numpy.ndarray of int64, shape (S, max_dim + 1)
        One simplex per row, vertex ids ascending, padded with -1, in GUDHI's order.

    Raises
    ------
    ValueError
        If an argument is out of range, ``edges`` is not (E, 2) or an edge is a loop.
    """
    n_points = check_int("n_points", n_points, minimum=1)
    max_dim = check_int("max_dim", max_dim, minimum=1)
    pairs = int_array("edges", edges, low=0, high=n_points - 1, nonempty=False)
    if pairs.size and (pairs.ndim != 2 or pairs.shape[1] != 2):
        raise ValueError(f"edges must be an int array (E, 2), got shape {pairs.shape}")
    if pairs.size and np.any(pairs[:, 0] == pairs[:, 1]):
        raise ValueError("edges must join two distinct vertices, got a loop")
    return _flag_complex(n_points, edges, max_dim)


def _flag_complex(n_points: int, edges: np.ndarray, max_dim: int) -> np.ndarray:
    gudhi = require("gudhi", "topology")
    tree = gudhi.SimplexTree()
    tree.insert_batch(np.arange(n_points)[None, :], np.zeros(n_points))
    if len(edges):
        tree.insert_batch(np.asarray(edges).T, np.zeros(len(edges)))
    tree.expansion(max_dim)
    out = np.full((tree.num_simplices(), max_dim + 1), -1, dtype=np.int64)
    for row, (simplex, _) in enumerate(tree.get_simplices()):
        out[row, : len(simplex)] = simplex
    return out


def check_representations(reps) -> np.ndarray:
    """``reps`` as a finite float array (L, n, d) with L >= 2 layers, or ValueError."""
    reps = real_array("reps", reps, nonempty=False)
    if reps.ndim != 3 or reps.shape[0] < 2 or reps.shape[1] < 2 or reps.shape[2] < 1:
        raise ValueError(
            f"reps must be an array (layers >= 2, prompts >= 2, dim >= 1), got shape {reps.shape}"
        )
    return reps


def zigzag_filtration(reps, k: int = 5, max_dim: int = 2) -> ZigzagFiltration:
    """The zigzag of k-NN flag complexes of per-layer representations (paper, Sec. 3).

    Parameters
    ----------
    reps : array_like, shape (L, n, d)
        Representations of the same ``n`` prompts at ``L`` layers (``L >= 2``, ``n >= 2``).
    k : int, default 5
        Neighbours per point in the k-NN graph (paper: 5), ``1 <= k < n``.
    max_dim : int, default 2
        Largest simplex dimension of the flag complexes; homology is exact up to
        ``H_{max_dim - 1}`` (the paper expands to 4; ``2`` gives exact H0 and H1).

    Returns
    -------
    ZigzagFiltration
        The union of the ``L`` complexes' simplices and their per-layer membership.

    Raises
    ------
    ValueError
        If ``reps`` is not a finite (L >= 2, n >= 2, d >= 1) array, or ``k`` or ``max_dim``
        is out of range.
    """
    reps = check_representations(reps)
    L, n, _ = reps.shape
    k = check_int("k", k, minimum=1)
    if k >= n:
        raise ValueError(f"k must be < the number of prompts {n}, got {k}")
    max_dim = check_int("max_dim", max_dim, minimum=1)
    per_layer = [_flag_complex(n, _knn_edges(X, k), max_dim) for X in reps]  # L x (S_l, D)
    stacked = np.concatenate(per_layer)  # (sum S_l, D)
    # one integer per simplex, ordered by dimension then vertices: base-(n+1) digits v + 1
    width = stacked.shape[1]
    if (n + 1) ** (width + 1) >= 2**62:
        raise ValueError(f"n_prompts ** (max_dim + 2) must stay below 2**62, got n = {n}")
    digits = (n + 1) ** np.arange(width - 1, -1, -1, dtype=np.int64)  # (D,)
    dims = (stacked >= 0).sum(axis=1)  # (sum S_l,) dimension + 1
    keys = dims * (n + 1) ** width + (stacked + 1) @ digits
    unique, first, ids = np.unique(keys, return_index=True, return_inverse=True)
    layer_of = np.repeat(np.arange(L), [len(s) for s in per_layer])
    membership = np.zeros((L, len(unique)), dtype=bool)
    membership[layer_of, ids.ravel()] = True
    return ZigzagFiltration(simplices=stacked[first], membership=membership)
