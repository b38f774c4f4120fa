"""Per-node graphlet orbit counts (graphlets with 2 to 4 nodes), in ORCA's orbit order.

The official DeFoG evaluation (GRAN / SPECTRE lineage) calls the ORCA binary of Hocevar and
Demsar (2014) with ``node 4`` and reads 15 orbit counts per node. We count the same orbits with
dense matrix algebra instead, in two stages:

1. *non-induced* counts :math:`N_o(v)` (how many copies of the orbit's pattern, as a subgraph
   that need not be induced, have node :math:`v` at position :math:`o`) come from closed forms in
   the adjacency matrix :math:`A`, the degrees :math:`d = A\\mathbf 1`, the common-neighbour
   counts :math:`C = A^2` and the triangles per edge :math:`T_e = A \\odot C`;
2. the *induced* counts :math:`O_o(v)` (what ORCA reports) solve the unit upper-triangular system
   :math:`N = M O`, where :math:`M_{o,o'}` is the number of copies of pattern :math:`o` inside
   the graphlet of orbit :math:`o'` with the node at :math:`o'` in position :math:`o`
   (:data:`_CONTAINMENT`, counted by hand and checked against brute force in the tests).

Orbit order (Przulj's numbering, as ORCA prints it):

====  ==========================================  ====  ==============================
 0    edge (the degree)                            8    4-cycle
 1    path P3, end                                 9    paw (tailed triangle), tail end
 2    path P3, middle                             10    paw, triangle node of degree 2
 3    triangle                                    11    paw, node of degree 3
 4    path P4, end                                12    diamond, node of degree 2
 5    path P4, middle                             13    diamond, node of degree 3
 6    star K1,3, leaf                             14    clique K4
 7    star K1,3, centre
====  ==========================================  ====  ==============================
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np

from icml25.defog._checks import check_entries

__all__ = ["orbit_counts", "orbit_counts_bruteforce"]

# _CONTAINMENT[o][o'] = copies of the (non-induced) pattern at orbit o inside the graphlet of
# orbit o', the node sitting at o' in the graphlet and at o in the copy. Orbits 4..14 only;
# the 3-node block is handled in closed form (O1 = N1 - 2 O3, O2 = N2 - O3).
_CONTAINMENT = {
    4: {4: 1, 8: 2, 9: 2, 10: 1, 12: 4, 13: 2, 14: 6},
    5: {5: 1, 8: 2, 10: 1, 11: 2, 12: 2, 13: 4, 14: 6},
    6: {6: 1, 9: 1, 10: 1, 12: 2, 13: 1, 14: 3},
    7: {7: 1, 11: 1, 13: 1, 14: 1},
    8: {8: 1, 12: 1, 13: 1, 14: 3},
    9: {9: 1, 12: 2, 14: 3},
    10: {10: 1, 12: 2, 13: 2, 14: 6},
    11: {11: 1, 13: 2, 14: 3},
    12: {12: 1, 14: 3},
    13: {13: 1, 14: 3},
    14: {14: 1},
}
_M = np.zeros((11, 11))
for _o, _row in _CONTAINMENT.items():
    for _p, _c in _row.items():
        _M[_o - 4, _p - 4] = _c


def _adjacency(graph: nx.Graph) -> np.ndarray:
    """Dense symmetric 0/1 adjacency of a simple graph (self-loops dropped), in node order."""
    a = nx.to_numpy_array(graph, dtype=float, weight=None)
    a = ((a + a.T) > 0).astype(float)
    np.fill_diagonal(a, 0.0)
    return a


def orbit_counts(graph: nx.Graph) -> np.ndarray:
    """Per-node counts of the 15 orbits of graphlets with 2 to 4 nodes, in ORCA's order.

    Parameters
    ----------
    graph : networkx.Graph
        An undirected graph; node ``i`` of the result is the ``i``-th node of ``graph.nodes``.
        Self-loops and edge weights are ignored. Directed graphs, and graphs so large that the
        ``n^3`` K4 term would exceed 2**31 entries (about 1290 nodes), are refused.

    Returns
    -------
    numpy.ndarray of int64, shape (n, 15)
        ``out[v, o]`` is the number of *induced* connected subgraphs on 2 to 4 nodes in which
        ``v`` sits at orbit ``o`` (module docstring for the order), exactly what ``orca node 4``
        prints.

    Notes
    -----
    With :math:`d_v` the degree, :math:`c_{uw} = (A^2)_{uw}`, :math:`t_{uw} = A_{uw} c_{uw}`
    (triangles on an edge) and :math:`t_v = (A^3)_{vv} / 2` (triangles at a node), the
    non-induced counts are

    .. math::

        N_4 &= (A^2 (d - 1))_v - d_v (d_v - 1) - 2 t_v, \\qquad
        N_5 = (d_v - 1) \\textstyle\\sum_{u \\sim v} (d_u - 1) - 2 t_v, \\\\
        N_6 &= \\textstyle\\sum_{u \\sim v} \\binom{d_u - 1}{2}, \\qquad
        N_7 = \\binom{d_v}{3}, \\qquad
        N_8 = \\textstyle\\sum_{w \\ne v} \\binom{c_{vw}}{2}, \\\\
        N_9 &= \\textstyle\\sum_{u \\sim v} (t_u - t_{vu}), \\qquad
        N_{10} = \\textstyle\\sum_{u \\sim v} t_{vu} (d_u - 2), \\qquad
        N_{11} = t_v (d_v - 2), \\\\
        N_{12} &= \\tfrac12 \\big(A (T_e - A) A\\big)_{vv}, \\qquad
        N_{13} = \\textstyle\\sum_{u \\sim v} \\binom{c_{vu}}{2}, \\qquad
        N_{14} = \\tfrac16 \\textstyle\\sum_{u, w, x} A_{vu} A_{vw} A_{vx} A_{uw} A_{wx} A_{xu},

    and :math:`O = M^{-1} N` (module docstring). Cost :math:`O(n^4)` for the K4 term (a
    batched matrix product), :math:`O(n^3)` otherwise: milliseconds
    for the graphs of the paper (n <= 200).
    """
    if not isinstance(graph, nx.Graph):
        raise ValueError(f"graph must be a networkx.Graph, got {type(graph).__name__}")
    if graph.is_directed():
        raise ValueError("graph must be undirected, got a directed graph")
    check_entries("n^3 of the graph's K4 count", graph.number_of_nodes() ** 3)
    a = _adjacency(graph)
    n = a.shape[0]
    out = np.zeros((n, 15), dtype=np.int64)
    if n == 0:
        return out
    d = a.sum(1)
    c = a @ a
    te = a * c  # triangles on each edge
    tv = te.sum(1) / 2.0  # triangles at each node
    nb_deg1 = a @ (d - 1.0)  # sum over neighbours of (d_u - 1)

    n_ = np.zeros((n, 15))
    n_[:, 4] = a @ nb_deg1 - d * (d - 1) - 2 * tv
    n_[:, 5] = (d - 1) * nb_deg1 - 2 * tv
    n_[:, 6] = a @ ((d - 1) * (d - 2) / 2)
    n_[:, 7] = d * (d - 1) * (d - 2) / 6
    cc = c * (c - 1) / 2
    n_[:, 8] = cc.sum(1) - np.diag(cc)
    n_[:, 9] = a @ tv - te.sum(1)
    n_[:, 10] = te @ (d - 2)
    n_[:, 11] = tv * (d - 2)
    n_[:, 12] = np.einsum("vu,uw,wv->v", a, te - a, a) / 2  # A (A o (C - 1)) A
    n_[:, 13] = (a * cc).sum(1)
    # K4 at v: (1/6) sum_u A_vu sum_{w,x} B_uw A_wx B_ux with B = A restricted to columns N(v),
    # one batched matrix product over v.
    b = a[None, :, :] * a[:, None, :]  # b[v, u, w] = A_uw A_vw
    n_[:, 14] = np.einsum("vu,vuw,vuw->v", a, np.matmul(b, a), b) / 6

    induced = np.linalg.solve(_M, n_[:, 4:].T).T
    out[:, 0] = d
    out[:, 3] = np.rint(tv)
    out[:, 1] = np.rint(nb_deg1 - 2 * tv)
    out[:, 2] = np.rint(d * (d - 1) / 2 - tv)
    out[:, 4:] = np.rint(induced)
    return out


# The 11 connected graphlets on 3 or 4 nodes, each as (edge list on 0..k-1, orbit per node).
_GRAPHLETS = [
    ([(0, 1), (1, 2)], [1, 2, 1]),
    ([(0, 1), (1, 2), (0, 2)], [3, 3, 3]),
    ([(0, 1), (1, 2), (2, 3)], [4, 5, 5, 4]),
    ([(0, 1), (0, 2), (0, 3)], [7, 6, 6, 6]),
    ([(0, 1), (1, 2), (2, 3), (3, 0)], [8, 8, 8, 8]),
    ([(0, 1), (1, 2), (0, 2), (2, 3)], [10, 10, 11, 9]),
    ([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)], [13, 13, 12, 12]),
    ([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)], [14, 14, 14, 14]),
]


def orbit_counts_bruteforce(graph: nx.Graph) -> np.ndarray:
    """Reference orbit counts by enumerating every 3- and 4-node subset (slow; for tests).

    Each subset's induced subgraph is matched to one of the graphlets above with
    ``networkx``'s isomorphism matcher, and each node gets the orbit of its image.
    """
    nodes = list(graph.nodes)
    index = {u: i for i, u in enumerate(nodes)}
    out = np.zeros((len(nodes), 15), dtype=np.int64)
    for u in nodes:
        out[index[u], 0] = sum(1 for w in graph.neighbors(u) if w != u)
    templates = []
    for edges, orbits in _GRAPHLETS:
        h = nx.Graph(edges)
        templates.append((h, orbits))
    for k in (3, 4):
        for subset in itertools.combinations(nodes, k):
            sub = nx.Graph(graph.subgraph(subset))
            sub.remove_edges_from(nx.selfloop_edges(sub))
            if not nx.is_connected(sub):
                continue
            for h, orbits in templates:
                if h.number_of_nodes() != k or h.number_of_edges() != sub.number_of_edges():
                    continue
                gm = nx.algorithms.isomorphism.GraphMatcher(sub, h)
                if gm.is_isomorphic():
                    for u, i in gm.mapping.items():
                        out[index[u], orbits[i]] += 1
                    break
    return out
