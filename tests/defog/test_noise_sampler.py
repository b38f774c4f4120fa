"""The mathematics of DeFoG: the noising path, R*, the Euler step, symmetric sampling."""

import networkx as nx
import numpy as np
import pytest
import torch

from icml25.defog import (
    DISTORTIONS,
    GraphDataset,
    distort,
    euler_step_probs,
    limit_distribution,
    p_t,
    planar_graphs,
    rate_matrices,
    sbm_graphs,
    tree_graphs,
)

P0 = torch.tensor([0.5, 0.3, 0.2])


def test_noising_marginals_at_t0_and_t1():
    x1 = torch.tensor([0, 1, 2, 2])
    assert torch.allclose(p_t(x1, 0.0, P0), P0.expand(4, 3))
    assert torch.equal(p_t(x1, 1.0, P0), torch.nn.functional.one_hot(x1, 3).float())
    mid = p_t(x1, torch.full((4,), 0.25), P0)
    assert torch.allclose(mid.sum(-1), torch.ones(4))
    assert torch.allclose(mid[0], torch.tensor([0.25 + 0.75 * 0.5, 0.75 * 0.3, 0.75 * 0.2]))


def test_empirical_noising_matches_p_t():
    g = torch.Generator().manual_seed(0)
    probs = p_t(torch.tensor(2), 0.4, P0)
    draws = torch.multinomial(probs.expand(20000, 3), 1, generator=g).flatten()
    freq = torch.bincount(draws, minlength=3) / 20000
    assert torch.allclose(freq, probs, atol=0.015)


def test_priors():
    marginal = torch.tensor([0.9, 0.1])
    assert torch.allclose(limit_distribution("marginal", marginal), marginal)
    assert torch.allclose(limit_distribution("uniform", marginal), torch.tensor([0.5, 0.5]))
    assert torch.equal(limit_distribution("absorbing", marginal), torch.tensor([0.0, 0.0, 1.0]))
    with pytest.raises(ValueError, match="noise"):
        limit_distribution("gaussian", marginal)


@pytest.mark.parametrize("name", DISTORTIONS)
def test_distortions_are_monotone_maps_of_the_unit_interval(name):
    t = torch.linspace(0, 1, 101)
    f = distort(t, name)
    assert abs(float(f[0])) < 1e-6 and abs(float(f[-1]) - 1) < 1e-6
    assert (f[1:] >= f[:-1] - 1e-7).all()
    assert torch.allclose(distort(torch.tensor(0.5), "polydec"), torch.tensor(0.75))
    with pytest.raises(ValueError, match="distortion"):
        distort(t, "linear")


def test_r_star_by_hand_on_three_states():
    # x_1 = 0, x_t = 1, t = 0.5: p_t = (0.75, 0.15, 0.10), d_t p = (0.5, -0.3, -0.2), Z = 3.
    r_star, r_db, r_tg = rate_matrices(
        torch.tensor(1), torch.tensor(0), 0.5, P0, eta=2.0, omega=0.3
    )
    denom = 3 * 0.15
    assert torch.allclose(r_star, torch.tensor([0.8 / denom, 0.0, 0.1 / denom]))
    assert torch.allclose(r_db, 2.0 * torch.tensor([0.75, 0.15, 0.10]))
    assert torch.allclose(r_tg, torch.tensor([0.3 / denom, 0.0, 0.0]))
    # at x_t = x_1, R* and R^TG vanish: the flow does not leave the target
    r_star, _, r_tg = rate_matrices(torch.tensor(0), torch.tensor(0), 0.5, P0, omega=0.3)
    assert torch.equal(r_star, torch.zeros(3)) and torch.equal(r_tg, torch.zeros(3))


def test_euler_step_with_exact_x1_moves_probability_toward_x1_only():
    """With eta = omega = 0 and x_1 known, one Euler step carries p_t exactly to p_{t+dt}:
    the mass on x_1 grows, every other state loses mass."""
    x1, t, dt = 0, 0.3, 0.1
    S = 3
    P = torch.stack(
        [
            euler_step_probs(
                sum(rate_matrices(torch.tensor(i), torch.tensor(x1), t, P0)), torch.tensor(i), dt
            )
            for i in range(S)
        ]
    )  # (S, S) transition matrix, rows sum to one
    assert torch.allclose(P.sum(1), torch.ones(S))
    before = p_t(torch.tensor(x1), t, P0)
    after = before @ P
    assert torch.allclose(after, p_t(torch.tensor(x1), t + dt, P0), atol=1e-6)
    change = after - before
    assert change[x1] > 0 and (change[1:] < 0).all()


def test_euler_step_clamps_and_normalises():
    R = torch.tensor([0.0, 30.0, 30.0])
    probs = euler_step_probs(R, torch.tensor(0), 0.1)
    assert torch.allclose(probs, torch.tensor([0.0, 0.5, 0.5]))


def test_dataset_tensors_and_bad_input():
    graphs = [nx.path_graph(3), nx.cycle_graph(4)]
    data = GraphDataset(graphs)
    assert data.X.shape == (2, 4, 1) and data.E.shape == (2, 4, 4, 2)
    assert data.node_mask.tolist() == [[True, True, True, False], [True] * 4]
    assert torch.equal(data.E, data.E.transpose(1, 2))
    assert (data.E[:, range(4), range(4), 0] == 1).all()
    assert abs(data.density() - (2 + 4) / (3 + 6)) < 1e-6
    with pytest.raises(ValueError, match="graphs"):
        GraphDataset([])
    loop = nx.path_graph(3)
    loop.add_edge(1, 1)
    with pytest.raises(ValueError, match="self-loops"):
        GraphDataset([loop])
    with pytest.raises(ValueError, match="max_nodes"):
        GraphDataset(graphs, max_nodes=3)


def test_generators():
    trees = tree_graphs(5, 10, seed=0)
    assert all(nx.is_tree(g) and g.number_of_nodes() == 10 for g in trees)
    planar = planar_graphs(5, 12, seed=0)
    assert all(nx.check_planarity(g)[0] and nx.is_connected(g) for g in planar)
    sbm = sbm_graphs(5, seed=0, blocks=(2, 3), block_sizes=(6, 10))
    assert all(12 <= g.number_of_nodes() <= 30 and nx.is_connected(g) for g in sbm)
    assert [sorted(g.edges) for g in tree_graphs(3, 8, 1)] == [
        sorted(g.edges) for g in tree_graphs(3, 8, 1)
    ]
    with pytest.raises(ValueError, match="n_nodes"):
        tree_graphs(3, 1, 0)
    with pytest.raises(ValueError, match="n_graphs"):
        planar_graphs(0, 8, 0)
    assert np.isclose(GraphDataset(trees).density(), 9 / 45)
