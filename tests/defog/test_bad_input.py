"""Bad input to DeFoG's public functions is refused early, naming the argument."""

import networkx as nx
import pytest
import torch

from icml25.defog import (
    DeFoGConfig,
    GraphDataset,
    GraphTransformer,
    ModelConfig,
    degree_mmd,
    distort,
    dt_p_t,
    euler_step_probs,
    fit,
    is_valid,
    limit_distribution,
    orbit_counts,
    p_t,
    rate_matrices,
    rrwp,
    sbm_graphs,
    spectral_mmd,
    tree_graphs,
    vun,
)

NAN = float("nan")
P0 = torch.tensor([0.5, 0.3, 0.2])
X1 = torch.tensor([0, 1, 2])
R = torch.rand(3, 3)
A = torch.ones(1, 3, 3)
TREES = [nx.path_graph(4), nx.star_graph(3)]
DIRECTED = nx.DiGraph([(0, 1), (1, 2)])

CASES = [
    (lambda: limit_distribution("marginal", torch.tensor([NAN, 1.0])), "marginal must be finite"),
    (lambda: limit_distribution("marginal", torch.zeros(3)), "marginal must be finite"),
    (lambda: limit_distribution("marginal", ["a", "b"]), "marginal must be a vector of numbers"),
    (lambda: p_t(torch.tensor([0, 5]), 0.5, P0), r"x1 must hold states in \[0, 2\]"),
    (lambda: p_t(X1, NAN, P0), r"t must lie in \[0, 1\]"),
    (lambda: p_t(X1, 2.0, P0), r"t must lie in \[0, 1\]"),
    (lambda: p_t(X1, torch.full((2,), 0.5), P0), "t of shape"),
    (lambda: p_t(X1, 0.5, torch.tensor([NAN, 0.5, 0.5])), "p0 must be finite"),
    (lambda: p_t(X1, 0.5, torch.tensor([0.9, 0.9, 0.9])), "p0 must sum to 1"),
    (lambda: p_t(X1, 0.5, torch.tensor([-0.5, 1.0, 0.5])), "p0 must hold probabilities"),
    (lambda: dt_p_t(X1, torch.tensor([1.0, 1.0, 1.0])), "p0 must sum to 1"),
    (lambda: distort(NAN, "cos"), r"t must lie in \[0, 1\]"),
    (lambda: distort(3.0, "polydec"), r"t must lie in \[0, 1\]"),
    (lambda: rate_matrices(torch.tensor([0, 7, 0]), X1, 0.5, P0), "x_t must hold states"),
    (lambda: rate_matrices(torch.tensor([0, 1]), X1, 0.5, P0), "x_t must have the shape of x1"),
    (lambda: rate_matrices(X1, X1, 2.0, P0), r"t must lie in \[0, 1\]"),
    (lambda: rate_matrices(X1, X1, 0.5, P0, eta=-1.0), "eta must be"),
    (lambda: rate_matrices(X1, X1, 0.5, P0, omega=NAN), "omega must be"),
    (lambda: euler_step_probs(torch.full((3, 3), NAN), X1, 0.1), "R must hold finite"),
    (lambda: euler_step_probs(-R, X1, 0.1), "R must hold finite non-negative"),
    (lambda: euler_step_probs(R, X1, NAN), "dt must be"),
    (lambda: euler_step_probs(R, X1[:2], 0.1), "x_t must have shape"),
    (lambda: rrwp(A, 0), "k must be an integer >= 1"),
    (lambda: rrwp(A * NAN, 2), "adjacency must hold finite"),
    (lambda: rrwp(torch.ones(3, 3), 2), "adjacency must have shape"),
    (lambda: rrwp(A, 10**9), "B x n x n x k of rrwp"),
    (lambda: orbit_counts(DIRECTED), "graph must be undirected"),
    (lambda: is_valid(DIRECTED, "tree"), "graph must be undirected"),
    (lambda: is_valid(nx.path_graph(30), "sbm", p_intra=NAN), "p_intra must be"),
    (lambda: is_valid(nx.path_graph(30), "sbm", block_sizes=(40, 20)), "block_sizes must be"),
    (lambda: is_valid(nx.path_graph(30), "sbm", n_blocks=(0, 0)), "n_blocks must be"),
    (lambda: vun(TREES, TREES, "sbm", p_inter=2.0), "p_inter must be"),
    (lambda: degree_mmd(TREES, [nx.Graph()]), r"reference\[0\] has no nodes"),
    (lambda: spectral_mmd(TREES, [nx.Graph()]), r"reference\[0\] has no nodes"),
    (lambda: sbm_graphs(2, 0, block_sizes=(1.5, 2.5)), "block_sizes must be a range"),
    (lambda: sbm_graphs(1, 0, block_sizes=(10**9, 10**9)), "nodes in all"),
    (lambda: tree_graphs(10**12, 5, 0), "nodes in all"),
    (lambda: GraphDataset(TREES, max_nodes=10**6), "entries"),
    (lambda: GraphTransformer(ModelConfig(), 0, 2, 1, 2, 5), "states_x must be"),
    (lambda: GraphTransformer(ModelConfig(), 1, 2, 1, 2, 0), "max_nodes must be"),
    (lambda: DeFoGConfig(grad_clip=NAN), "grad_clip must be"),
    (lambda: fit([nx.empty_graph(1)] * 3, DeFoGConfig(train_steps=1)), "at least 2 nodes"),
]


@pytest.mark.parametrize(("call", "message"), CASES)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: p_t(torch.tensor([0.0, 1.0]), 0.5, P0), "x1 must be a torch int64"),
        (lambda: p_t(X1, 0.5, [0.5, 0.5]), "p0 must be a floating-point torch tensor"),
        (lambda: rrwp(A.numpy(), 2), "adjacency must be a torch tensor"),
    ],
)
def test_a_wrong_type_is_refused_by_name(call, message):
    with pytest.raises(TypeError, match=message):
        call()
