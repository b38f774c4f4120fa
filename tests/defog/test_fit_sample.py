"""End to end: a tiny DeFoG trains, samples valid adjacency, saves and loads; bad inputs."""

import networkx as nx
import pytest
import torch

from icml25.defog import DeFoG, DeFoGConfig, fit, sample, tree_graphs
from icml25.defog.model import ModelConfig

TINY = DeFoGConfig(
    model=ModelConfig(n_layers=1, dx=16, de=4, dy=8, n_heads=2, dim_ff_x=16, dim_ff_e=8,
                      rrwp_steps=3),
    train_steps=20, batch_size=8, lr=1e-3,
)  # fmt: skip


@pytest.fixture(scope="module")
def model():
    return fit(tree_graphs(16, 7, seed=0), TINY)


def test_fit_learns_something(model):
    assert len(model.loss) == TINY.train_steps
    assert sum(model.loss[-5:]) < sum(model.loss[:5])


@pytest.mark.parametrize(
    "kw",
    [
        {"distortion": "identity"},
        {"distortion": "polydec", "eta": 50.0, "omega": 0.05},
        {"distortion": "cos", "eta": 10.0},
    ],
)
def test_sampled_graphs_are_simple_and_sized_from_training(model, kw):
    graphs = sample(model, 6, steps=4, seed=3, **kw)
    assert len(graphs) == 6
    for g in graphs:
        assert g.number_of_nodes() == 7  # every training tree has 7 nodes
        assert nx.number_of_selfloops(g) == 0
        A = nx.to_numpy_array(g)
        assert (A == A.T).all() and (A.diagonal() == 0).all()


def test_sampling_is_seeded(model):
    a = sample(model, 4, steps=3, seed=7, eta=10.0)
    b = sample(model, 4, steps=3, seed=7, eta=10.0)
    assert [sorted(g.edges) for g in a] == [sorted(g.edges) for g in b]


def test_fit_is_seeded():
    graphs = tree_graphs(8, 6, seed=1)
    cfg = DeFoGConfig(**{**TINY.__dict__, "train_steps": 3})
    assert fit(graphs, cfg).weights_hash() == fit(graphs, cfg).weights_hash()


def test_class_save_load_same_samples(model, tmp_path):
    gen = DeFoG(TINY)
    gen.model = model
    gen.save(tmp_path / "defog.pt")
    loaded = DeFoG.load(tmp_path / "defog.pt")
    assert loaded.model.weights_hash() == model.weights_hash()
    a = gen.sample(3, steps=3, seed=1)
    b = loaded.sample(3, steps=3, seed=1)
    assert [sorted(g.edges) for g in a] == [sorted(g.edges) for g in b]


def test_absorbing_noise_end_to_end():
    cfg = DeFoGConfig(**{**TINY.__dict__, "train_steps": 3, "noise": "absorbing"})
    m = fit(tree_graphs(6, 5, seed=0), cfg)
    assert len(m.p0_e) == 3 and float(m.p0_e[-1]) == 1.0
    graphs = sample(m, 3, steps=3, seed=0)
    assert all(g.number_of_nodes() == 5 for g in graphs)


def test_bad_inputs(model):
    with pytest.raises(ValueError, match="graphs"):
        fit([], TINY)
    loop = nx.path_graph(4)
    loop.add_edge(0, 0)
    with pytest.raises(ValueError, match="self-loops"):
        fit([loop], TINY)
    with pytest.raises(ValueError, match="max_nodes"):
        fit([nx.path_graph(9)], DeFoGConfig(**{**TINY.__dict__, "max_nodes": 5}))
    with pytest.raises(ValueError, match="eta"):
        sample(model, 2, steps=3, eta=-1.0)
    with pytest.raises(ValueError, match="omega"):
        sample(model, 2, steps=3, omega=-0.1)
    with pytest.raises(ValueError, match="steps"):
        sample(model, 2, steps=0)
    with pytest.raises(ValueError, match="distortion"):
        sample(model, 2, steps=2, distortion="linear")
    with pytest.raises(ValueError, match="n_graphs"):
        sample(model, 0, steps=2)
    with pytest.raises(ValueError, match="train_distortion"):
        DeFoGConfig(train_distortion="square")
    with pytest.raises(ValueError, match="dx must be a multiple of n_heads"):
        ModelConfig(dx=10, n_heads=4)
    with pytest.raises(ValueError, match="not trained"):
        DeFoG(TINY).sample(2, steps=2)
    assert torch.is_tensor(model.p0_x)


def _typed_paths(n_graphs):
    """Paths whose nodes carry ``atom`` (C or N) and edges ``bond`` (1 or 2)."""
    graphs = []
    for k in range(n_graphs):
        g = nx.path_graph(5)
        nx.set_node_attributes(g, {i: "CN"[(i + k) % 2] for i in g}, "atom")
        nx.set_edge_attributes(g, {e: 1 + (e[0] + k) % 2 for e in g.edges}, "bond")
        graphs.append(g)
    return graphs


def test_generated_graphs_keep_the_attribute_names():
    cfg = DeFoGConfig(**{**TINY.__dict__, "train_steps": 3, "node_attr": "atom",
                         "edge_attr": "bond"})  # fmt: skip
    m = fit(_typed_paths(6), cfg)
    graphs = sample(m, 3, steps=3, seed=0)
    for g in graphs:
        assert all(set(d) == {"atom"} and d["atom"] in "CN" for _, d in g.nodes(data=True))
        assert all(set(d) == {"bond"} and d["bond"] in (1, 2) for *_, d in g.edges(data=True))


def test_a_missing_attribute_is_refused():
    graphs = _typed_paths(3)
    with pytest.raises(ValueError, match="edge_attr = 'order'.*no attribute 'order'"):
        fit(graphs, DeFoGConfig(**{**TINY.__dict__, "edge_attr": "order"}))
    del graphs[1].nodes[2]["atom"]
    with pytest.raises(ValueError, match=r"node_attr = 'atom': node 2 of graphs\[1\]"):
        fit(graphs, DeFoGConfig(**{**TINY.__dict__, "node_attr": "atom"}))
    with pytest.raises(ValueError, match="edge_attr = 'bond': graphs have no edge"):
        fit([nx.empty_graph(3)], DeFoGConfig(**{**TINY.__dict__, "edge_attr": "bond"}))


def test_sampling_past_the_training_maximum_warns(model):
    with pytest.warns(UserWarning, match="n_nodes = 9 is more than the largest training graph"):
        graphs = sample(model, 2, steps=2, n_nodes=9)
    assert all(g.number_of_nodes() == 9 for g in graphs)
