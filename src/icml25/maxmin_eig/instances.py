"""Instance builders: Bayesian E-optimal design and algebraic connectivity augmentation."""

from __future__ import annotations

import numpy as np
from scipy.linalg import null_space

from icml25.common.validate import check_int, check_real


def e_optimal_design(
    n: int,
    m: int,
    weak_dim: int,
    *,
    rank: int = 1,
    weak: float = 0.1,
    strong: float = 60.0,
    leak: float = 0.05,
    seed=0,
) -> tuple[np.ndarray, np.ndarray]:
    """Bayesian E-optimal design with a poorly known subspace.

    The prior precision is ``M = diag(weak * 1_r, strong * 1_{n-r})`` with ``r = weak_dim``:
    ``r`` directions are poorly known. Candidate experiment ``i`` adds the information
    ``A_i = V_i V_i^T`` with ``V_i`` of shape (n, rank), Gaussian, normalised to
    ``trace(A_i) = ||V_i||_F^2 = 1`` (so ``R = 1``); its components outside the weak subspace
    are scaled so that, in expectation, a fraction ``leak`` of that trace lies outside, whatever
    ``n``. The optimal increase is about ``(1 - leak) k / r``: ``weak_dim`` sets the margin
    ``gap / (R ln k)``, and ``n`` can grow with the margin held.

    Parameters
    ----------
    n : int
        Dimension, ``>= 1``.
    m : int
        Candidate experiments, ``>= 1``.
    weak_dim : int
        Poorly known directions ``r``, ``1 <= r <= n``.
    rank : int, default 1
        Rank of each ``A_i``, ``>= 1``.
    weak : float, default 0.1
        Prior precision in the weak directions.
    strong : float, default 60.0
        Prior precision in the other directions.
    leak : float, default 0.05
        Expected fraction of each ``trace(A_i)`` outside the weak subspace, in ``[0, 1)``.
    seed : int or numpy.random.Generator, default 0
        Seed of the Gaussian ``V_i``.

    Returns
    -------
    M : ndarray, shape (n, n)
        The prior precision.
    As : ndarray, shape (m, n, n)
        The candidates' information matrices, each of trace 1.
    """
    n = check_int("n", n, minimum=1)
    m = check_int("m", m, minimum=1)
    weak_dim = check_int("weak_dim", weak_dim, minimum=1)
    if weak_dim > n:
        raise ValueError(f"weak_dim must be at most n = {n}, got {weak_dim}")
    rank = check_int("rank", rank, minimum=1)
    leak = check_real("leak", leak, low=0.0, high=1.0, high_open=True)
    rng = np.random.default_rng(seed)
    M = np.diag(np.r_[np.full(weak_dim, float(weak)), np.full(n - weak_dim, float(strong))])
    V = rng.normal(size=(m, n, rank))  # (m, n, rank)
    if n > weak_dim:  # expected squared mass outside / inside = leak / (1 - leak)
        V[:, weak_dim:] *= np.sqrt(leak / (1.0 - leak) * weak_dim / (n - weak_dim))
    V /= np.linalg.norm(V, axis=(1, 2), keepdims=True)
    return M, V @ V.transpose(0, 2, 1)


def connectivity_augmentation(graph, candidate_edges) -> tuple[np.ndarray, np.ndarray, list]:
    """Maximum algebraic connectivity augmentation as max-min eigenvalue augmentation.

    With ``L`` the Laplacian of ``graph`` and ``Q`` (n, n-1) an orthonormal basis of the
    complement of the all-ones vector, ``M = Q^T L Q`` and ``A_e = Q^T b_e b_e^T Q`` for each
    candidate edge ``e = (u, v)``, ``b_e = e_u - e_v``. Then ``lambda_min(M + sum A_e)`` is the
    algebraic connectivity ``lambda_2`` of the graph with the chosen edges added (``R = 2``).

    Parameters
    ----------
    graph : networkx.Graph
        The graph to augment, at least 2 nodes.
    candidate_edges : iterable of tuple
        Candidate edges ``(u, v)``, pairs of distinct nodes of ``graph``; not empty.

    Returns
    -------
    M : ndarray, shape (n-1, n-1)
        ``Q^T L Q``.
    As : ndarray, shape (len(candidate_edges), n-1, n-1)
        ``Q^T b_e b_e^T Q`` for each candidate edge.
    nodes : list
        The node order used (that of ``graph.nodes``).
    """
    import networkx as nx

    nodes = list(graph.nodes)
    if len(nodes) < 2:
        raise ValueError(f"graph must have at least 2 nodes, got {len(nodes)}")
    position = {node: i for i, node in enumerate(nodes)}
    edges = list(candidate_edges)
    if not edges:
        raise ValueError("candidate_edges must not be empty")
    for u, v in edges:
        if u not in position or v not in position or u == v:
            raise ValueError(f"candidate_edges: ({u!r}, {v!r}) is not a pair of distinct nodes")
    n = len(nodes)
    L = nx.laplacian_matrix(graph, nodelist=nodes).toarray().astype(float)  # (n, n)
    Q = null_space(np.ones((1, n)))  # (n, n-1)
    B = np.zeros((len(edges), n))  # (E, n): incidence rows b_e
    rows = np.arange(len(edges))
    B[rows, [position[u] for u, _ in edges]] = 1.0
    B[rows, [position[v] for _, v in edges]] = -1.0
    BQ = B @ Q  # (E, n-1)
    return Q.T @ L @ Q, BQ[:, :, None] * BQ[:, None, :], nodes
