"""Graphs as dense one-hot tensors, and the synthetic families of DeFoG's benchmarks.

Qin, Madeira et al., *DeFoG: Discrete Flow Matching for Graph Generation*, ICML 2025. A graph
``G = (X, E)`` with ``n`` nodes is a node-category matrix ``X`` (one-hot, ``(n, dx)``) and an
edge-category tensor ``E`` (one-hot, ``(n, n, de)``, symmetric, class 0 = "no edge"); graphs of
different sizes are padded to ``n_max`` nodes and carry a node mask.

The generators reproduce the paper's synthetic families at CPU size: planar graphs as the
Delaunay triangulation of uniform points in the unit square, uniform random labelled trees (a
uniform Pruefer sequence), and stochastic block models (``p_in = 0.3``, ``p_out = 0.05`` as in
the SPECTRE data the official code uses; block counts and sizes are arguments).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import torch

from icml25.common.validate import check_int, check_real
from icml25.defog._checks import check_entries, check_nodes, check_range

__all__ = ["GraphDataset", "planar_graphs", "sbm_graphs", "tree_graphs"]


@dataclass
class GraphDataset:
    """A list of networkx graphs as dense one-hot tensors with masks.

    Parameters
    ----------
    graphs : list of networkx.Graph
        Non-empty list of undirected graphs, each with at least one node and no self-loops.
    node_attr : str or None, default None
        Name of a categorical node attribute that every node carries; ``None``: one node type.
    edge_attr : str or None, default None
        Name of a categorical edge attribute that every edge carries; ``None``: plain graphs
        (edge / no edge).
    max_nodes : int or None, default None
        The most nodes a graph may have, ``>= 1`` (None: the largest graph), the padded size
        ``n_max``. A dense edge tensor of more than 2**31 entries is refused.

    Attributes
    ----------
    X : torch.Tensor, shape (N, n_max, dx)
        Float one-hot node categories (zero rows at padding).
    E : torch.Tensor, shape (N, n_max, n_max, de)
        Float one-hot edge categories, symmetric; class 0 = no edge; the diagonal and padding
        are class 0.
    node_mask : torch.Tensor of bool, shape (N, n_max)
        True at the real nodes of each graph.
    node_classes : list
        The node category values, sorted by ``repr`` (``[None]`` without ``node_attr``).
    edge_classes : list
        The edge category values; ``edge_classes[0]`` is ``None`` (no edge), then the values
        sorted by ``repr`` (``[None, 1]`` without ``edge_attr``).
    """

    graphs: list
    node_attr: str | None = None
    edge_attr: str | None = None
    max_nodes: int | None = None

    def __post_init__(self) -> None:
        graphs = list(self.graphs) if self.graphs is not None else []
        if not graphs:
            raise ValueError("graphs must be a non-empty list of networkx graphs, got none")
        for k, g in enumerate(graphs):
            if not isinstance(g, nx.Graph) or g.is_directed():
                raise ValueError(f"graphs[{k}] must be an undirected networkx Graph, got {g!r}")
            if nx.number_of_selfloops(g) > 0:
                raise ValueError(f"graphs[{k}] has self-loops; graphs must have none")
            if g.number_of_nodes() == 0:
                raise ValueError(f"graphs[{k}] has no nodes")
        sizes = [g.number_of_nodes() for g in graphs]
        if self.max_nodes is None:
            self.max_nodes = max(sizes)
        self.max_nodes = check_int("max_nodes", self.max_nodes, minimum=1)
        if max(sizes) > self.max_nodes:
            raise ValueError(
                f"graphs has a graph with {max(sizes)} nodes, more than max_nodes = "
                f"{self.max_nodes}"
            )
        self.graphs = graphs
        if self.node_attr is None:
            self.node_classes = [None]
        else:
            values = _attribute_values(graphs, "node_attr", self.node_attr, edges=False)
            self.node_classes = sorted(values, key=repr)
        if self.edge_attr is None:
            self.edge_classes = [None, 1]
        else:
            values = _attribute_values(graphs, "edge_attr", self.edge_attr, edges=True)
            self.edge_classes = [None, *sorted(values, key=repr)]
        n, N = self.max_nodes, len(graphs)
        dx, de = len(self.node_classes), len(self.edge_classes)
        check_entries("graphs x max_nodes^2 x edge classes of E", N * n * n * de)
        X = torch.zeros(N, n, dx)
        E = torch.zeros(N, n, n, de)
        E[..., 0] = 1.0
        mask = torch.zeros(N, n, dtype=torch.bool)
        x_index = {v: i for i, v in enumerate(self.node_classes)}
        e_index = {v: i for i, v in enumerate(self.edge_classes)}
        for k, g in enumerate(graphs):
            order = {v: i for i, v in enumerate(g.nodes)}
            mask[k, : len(order)] = True
            for v, d in g.nodes(data=True):
                c = 0 if self.node_attr is None else x_index[d.get(self.node_attr)]
                X[k, order[v], c] = 1.0
            for u, v, d in g.edges(data=True):
                c = 1 if self.edge_attr is None else e_index[d.get(self.edge_attr)]
                i, j = order[u], order[v]
                E[k, i, j] = E[k, j, i] = 0.0
                E[k, i, j, c] = E[k, j, i, c] = 1.0
        self.X, self.E, self.node_mask = X, E, mask

    def __len__(self) -> int:
        return len(self.graphs)

    @property
    def node_counts(self) -> np.ndarray:
        """``(n_max + 1,)`` the empirical distribution of the number of nodes."""
        counts = np.bincount(self.node_mask.sum(1).numpy(), minlength=self.max_nodes + 1)
        return counts / counts.sum()

    def marginals(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The marginal distributions of node categories ``(dx,)`` and of edge categories over
        the pairs ``i != j`` of real nodes ``(de,)``: the ``marginal`` prior ``p_0``."""
        m = self.node_mask
        px = self.X[m].sum(0)
        pair = m[:, :, None] & m[:, None, :] & ~torch.eye(self.max_nodes, dtype=torch.bool)
        pe = self.E[pair].sum(0)
        return px / px.sum(), pe / pe.sum()

    def density(self) -> float:
        """The fraction of node pairs that are edges (for the Erdős–Rényi baseline)."""
        return float(self.marginals()[1][1:].sum())


def _attribute_values(graphs: list, argument: str, name: str, *, edges: bool) -> set:
    """The values of attribute ``name`` over every node (or edge) of ``graphs``; a
    ``ValueError`` naming ``argument`` when some node (edge) lacks it."""
    values = set()
    for k, g in enumerate(graphs):
        items = g.edges(data=True) if edges else g.nodes(data=True)
        for *where, d in items:
            if name not in d:
                kind = "edge" if edges else "node"
                raise ValueError(
                    f"{argument} = {name!r}: {kind} {tuple(where) if edges else where[0]!r} of "
                    f"graphs[{k}] has no attribute {name!r} (every {kind} needs one)"
                )
            values.add(d[name])
    if not values:
        raise ValueError(f"{argument} = {name!r}: graphs have no {'edge' if edges else 'node'}")
    return values


def _check_family(n_graphs, n_nodes, seed, minimum_nodes):
    n_graphs = check_int("n_graphs", n_graphs, minimum=1)
    n_nodes = check_int("n_nodes", n_nodes, minimum=minimum_nodes)
    check_nodes("n_graphs x n_nodes", n_graphs * n_nodes)
    return n_graphs, n_nodes, np.random.default_rng(check_int("seed", seed, minimum=0))


def planar_graphs(n_graphs: int, n_nodes: int, seed: int) -> list[nx.Graph]:
    """Planar graphs: the Delaunay triangulation of uniform points in the unit square.

    The SPECTRE planar family the paper uses, at 64 nodes there.

    Parameters
    ----------
    n_graphs : int
        Number of graphs, ``>= 1``.
    n_nodes : int
        Nodes per graph, ``>= 3``.
    seed : int
        Seed of a ``numpy.random.Generator``, ``>= 0``.

    Returns
    -------
    list of networkx.Graph
        ``n_graphs`` planar graphs on nodes ``0..n_nodes-1``, without attributes.
    """
    from scipy.spatial import Delaunay

    n_graphs, n_nodes, rng = _check_family(n_graphs, n_nodes, seed, 3)
    graphs = []
    for _ in range(n_graphs):
        tri = Delaunay(rng.random((n_nodes, 2)))
        g = nx.Graph()
        g.add_nodes_from(range(n_nodes))
        for simplex in tri.simplices:
            a, b, c = (int(v) for v in simplex)
            g.add_edges_from([(a, b), (b, c), (a, c)])
        graphs.append(g)
    return graphs


def tree_graphs(n_graphs: int, n_nodes: int, seed: int) -> list[nx.Graph]:
    """Uniform random labelled trees, from uniform Pruefer sequences.

    Parameters
    ----------
    n_graphs : int
        Number of trees, ``>= 1``.
    n_nodes : int
        Nodes per tree, ``>= 3``.
    seed : int
        Seed of a ``numpy.random.Generator``, ``>= 0``.

    Returns
    -------
    list of networkx.Graph
        ``n_graphs`` trees on nodes ``0..n_nodes-1``, without attributes.
    """
    n_graphs, n_nodes, rng = _check_family(n_graphs, n_nodes, seed, 3)
    return [
        nx.from_prufer_sequence(rng.integers(0, n_nodes, n_nodes - 2).tolist())
        for _ in range(n_graphs)
    ]


def sbm_graphs(
    n_graphs: int,
    seed: int,
    blocks: Sequence[int] = (2, 3),
    block_sizes: Sequence[int] = (6, 10),
    *,
    p_in: float = 0.3,
    p_out: float = 0.05,
) -> list[nx.Graph]:
    """Connected stochastic block models, redrawn until connected (as in the SPECTRE data).

    Parameters
    ----------
    n_graphs : int
        Number of graphs, ``>= 1``.
    seed : int
        Seed of a ``numpy.random.Generator``, ``>= 0``.
    blocks : pair of int, default (2, 3)
        Inclusive range ``(low, high)``, ``1 <= low <= high``, of the number of blocks, drawn
        uniformly per graph.
    block_sizes : pair of int, default (6, 10)
        Inclusive range ``(low, high)``, ``1 <= low <= high``, of each block's size, drawn
        uniformly per block.
    p_in : float, default 0.3
        Edge probability within a block, in ``[0, 1]``.
    p_out : float, default 0.05
        Edge probability across blocks, in ``[0, 1]``.

    Returns
    -------
    list of networkx.Graph
        ``n_graphs`` connected graphs; node attribute ``block`` holds the planted block.
    """
    n_graphs = check_int("n_graphs", n_graphs, minimum=1)
    rng = np.random.default_rng(check_int("seed", seed, minimum=0))
    most = check_range("blocks", blocks)[1] * check_range("block_sizes", block_sizes)[1]
    check_nodes("n_graphs x the largest graph", n_graphs * most)
    check_entries("the largest graph's node pairs", most * most)
    p_in = check_real("p_in", p_in, low=0.0, high=1.0)
    p_out = check_real("p_out", p_out, low=0.0, high=1.0)
    graphs = []
    while len(graphs) < n_graphs:
        k = int(rng.integers(blocks[0], blocks[1] + 1))
        sizes = rng.integers(block_sizes[0], block_sizes[1] + 1, k)
        label = np.repeat(np.arange(k), sizes)
        n = len(label)
        prob = np.where(label[:, None] == label[None, :], p_in, p_out)
        upper = np.triu(rng.random((n, n)) < prob, 1)
        g = nx.Graph()
        g.add_nodes_from((i, {"block": int(label[i])}) for i in range(n))
        g.add_edges_from((int(i), int(j)) for i, j in zip(*np.nonzero(upper), strict=True))
        if nx.is_connected(g):
            graphs.append(g)
    return graphs
