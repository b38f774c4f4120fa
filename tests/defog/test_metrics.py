"""DeFoG metrics: MMDs, orbit counts against brute force, validity, uniqueness, novelty, V.U.N."""

from __future__ import annotations

import itertools
import warnings

import networkx as nx
import numpy as np
import pytest

from icml25.defog.data import sbm_graphs
from icml25.defog.metrics import (
    clustering_mmd,
    degree_mmd,
    gaussian_tv_mmd,
    is_valid,
    novelty,
    orbit_mmd,
    sbm_fit,
    spectral_mmd,
    uniqueness,
    vun,
)
from icml25.defog.orbits import orbit_counts, orbit_counts_bruteforce

MMDS = [degree_mmd, clustering_mmd, orbit_mmd, spectral_mmd]

pytestmark = pytest.mark.filterwarnings("ignore:The hashes produced:UserWarning")


def trees(k: int, n: int = 12, seed: int = 0) -> list[nx.Graph]:
    return [nx.random_labeled_tree(n, seed=seed + i) for i in range(k)]


def distinct_trees(k: int, n: int = 10) -> list[nx.Graph]:
    """``k`` pairwise non-isomorphic trees on ``n`` nodes."""
    return list(itertools.islice(nx.nonisomorphic_trees(n), k))


def relabel(g: nx.Graph, seed: int) -> nx.Graph:
    """An isomorphic copy with shuffled labels and insertion order."""
    perm = np.random.default_rng(seed).permutation(g.number_of_nodes())
    nodes = list(g.nodes)
    h = nx.Graph()
    h.add_nodes_from(int(perm[i]) for i in range(len(nodes)))
    index = {u: i for i, u in enumerate(nodes)}
    h.add_edges_from((int(perm[index[u]]), int(perm[index[v]])) for u, v in g.edges)
    return h


def sbm(sizes, p_in, p_out, seed):
    probs = [[p_in if i == j else p_out for j in range(len(sizes))] for i in range(len(sizes))]
    return nx.stochastic_block_model(sizes, probs, seed=seed)


# --------------------------------------------------------------------------- MMDs


@pytest.mark.parametrize("mmd", MMDS)
def test_mmd_identical_sets_is_zero(mmd):
    graphs = trees(8) + [nx.cycle_graph(7), nx.complete_graph(5), nx.wheel_graph(6)]
    assert abs(mmd(graphs, graphs)) < 1e-12
    # order and labels do not matter
    shuffled = [relabel(g, i) for i, g in enumerate(reversed(graphs))]
    assert abs(mmd(shuffled, graphs)) < 1e-12


@pytest.mark.parametrize("mmd", MMDS)
def test_mmd_separates_trees_from_cliques(mmd):
    a, b = trees(10), [nx.complete_graph(12) for _ in range(5)]
    d = mmd(a, b)
    assert d > 0.05
    assert d == pytest.approx(mmd(b, a), abs=1e-12)  # symmetric
    assert d > mmd(a, trees(10, seed=100))  # same family closer than different families


def test_gaussian_tv_mmd_by_hand():
    # two one-point samples: MMD^2 = 2 - 2 exp(-TV^2 / 2 sigma^2), histograms normalised and
    # padded; TV between the pmfs (1/2, 1/2) and (0, 0, 1) is 1
    x, y = [np.array([1.0, 1.0])], [np.array([0.0, 0.0, 4.0])]
    tv = 0.5 * np.abs(np.array([0.5, 0.5, 0.0]) - np.array([0.0, 0.0, 1.0])).sum() / (1 + 2e-6)
    want = 2 - 2 * np.exp(-(tv**2) / 2)
    assert gaussian_tv_mmd(x, y) == pytest.approx(want, rel=1e-5)
    # raw vectors (orbit style): TV = 0.5 * |30 - 0| = 15 with sigma 30
    got = gaussian_tv_mmd([np.array([30.0])], [np.array([0.0])], sigma=30.0, is_hist=False)
    assert got == pytest.approx(2 - 2 * np.exp(-(15.0**2) / (2 * 30.0**2)))


def test_mmd_drops_empty_generated_graphs():
    ref = trees(5)
    assert degree_mmd(ref + [nx.Graph()], ref) == pytest.approx(0.0, abs=1e-12)


# --------------------------------------------------------------------------- orbit counts


def test_orbit_counts_match_bruteforce_on_random_graphs():
    rng = np.random.default_rng(0)
    for i in range(30):
        n = int(rng.integers(1, 9))
        g = nx.gnp_random_graph(n, float(rng.uniform(0.15, 0.9)), seed=i)
        np.testing.assert_array_equal(orbit_counts(g), orbit_counts_bruteforce(g))


@pytest.mark.parametrize(
    "graph",
    [nx.path_graph(5), nx.star_graph(4), nx.wheel_graph(6), nx.petersen_graph()],
    ids=["path", "star", "wheel", "petersen"],
)
def test_orbit_counts_match_bruteforce_on_named_graphs(graph):
    np.testing.assert_array_equal(orbit_counts(graph), orbit_counts_bruteforce(graph))


def test_orbit_counts_by_hand():
    def row(**orbits):
        r = np.zeros(15, dtype=np.int64)
        for k, v in orbits.items():
            r[int(k[1:])] = v
        return r

    # 4-cycle: degree 2; two P3 ends (v-u-w with w not adjacent to v) and one P3 middle;
    # no triangle; the whole graph is one induced C4 (orbit 8)
    c4 = orbit_counts(nx.cycle_graph(4))
    assert (c4 == row(o0=2, o1=2, o2=1, o8=1)).all()
    # star K1,3 (centre 0): centre is the middle of 3 P3s and the centre of 1 claw (orbit 7);
    # each leaf ends 2 P3s and is a claw leaf (orbit 6)
    star = orbit_counts(nx.star_graph(3))
    np.testing.assert_array_equal(star[0], row(o0=3, o2=3, o7=1))
    for leaf in (1, 2, 3):
        np.testing.assert_array_equal(star[leaf], row(o0=1, o1=2, o6=1))
    # K4: degree 3, 3 triangles per node, one K4 (orbit 14), no induced paths
    k4 = orbit_counts(nx.complete_graph(4))
    assert (k4 == row(o0=3, o3=3, o14=1)).all()
    # paw: triangle 0-1-2 with tail 2-3
    paw = orbit_counts(nx.Graph([(0, 1), (1, 2), (0, 2), (2, 3)]))
    np.testing.assert_array_equal(paw[3], row(o0=1, o1=2, o9=1))
    np.testing.assert_array_equal(paw[2], row(o0=3, o2=2, o3=1, o11=1))
    # diamond: K4 minus the edge 2-3
    diamond = orbit_counts(nx.Graph([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)]))
    np.testing.assert_array_equal(diamond[2], row(o0=2, o1=2, o3=1, o12=1))
    np.testing.assert_array_equal(diamond[0], row(o0=3, o2=1, o3=2, o13=1))


def test_orbit_counts_ignore_labels_and_handle_isolated_nodes():
    g = nx.gnp_random_graph(8, 0.5, seed=3)
    g.add_node("isolated")
    counts = orbit_counts(g)
    assert counts.shape == (9, 15)
    assert (counts[-1] == 0).all()
    h = nx.relabel_nodes(g, {u: f"n{u}" for u in g.nodes})
    np.testing.assert_array_equal(orbit_counts(h), counts)


# --------------------------------------------------------------------------- validity


def test_validity_planar():
    assert is_valid(nx.cycle_graph(6), "planar")
    assert is_valid(nx.complete_graph(4), "planar")
    assert not is_valid(nx.complete_graph(5), "planar")
    assert not is_valid(nx.complete_bipartite_graph(3, 3), "planar")
    assert not is_valid(nx.disjoint_union(nx.cycle_graph(3), nx.cycle_graph(3)), "planar")


def test_validity_tree():
    assert is_valid(nx.random_labeled_tree(10, seed=0), "tree")
    assert is_valid(nx.star_graph(5), "tree")
    assert not is_valid(nx.cycle_graph(5), "tree")
    assert not is_valid(nx.Graph([(0, 1), (2, 3)]), "tree")  # a forest


def test_validity_sbm_official_parameters():
    # SPECTRE's SBM: blocks of 20 to 40 nodes, p = 0.3 inside, 0.005 across
    samples = [sbm([25, 35], 0.3, 0.005, seed) for seed in range(6)]
    assert np.mean([is_valid(g, "sbm") for g in samples]) >= 0.8
    er = [nx.gnp_random_graph(60, 0.15, seed=seed) for seed in range(4)]
    assert not any(is_valid(g, "sbm") for g in er)
    labels, sizes = sbm_fit(samples[0])
    assert sorted(sizes) == [25, 35]
    assert len(set(labels[:25])) == 1 and len(set(labels[25:])) == 1


def test_validity_sbm_custom_parameters():
    g = sbm([12, 12], 0.7, 0.02, seed=1)
    kw = dict(p_intra=0.7, p_inter=0.02, block_sizes=(8, 16), n_blocks=(2, 4))
    assert is_valid(g, "sbm", **kw)
    assert not is_valid(nx.gnp_random_graph(24, 0.35, seed=1), "sbm", **kw)
    assert not is_valid(g, "sbm")  # blocks too small for the official sizes


def test_validity_bad_family():
    with pytest.raises(ValueError, match="family"):
        is_valid(nx.path_graph(3), "lobster")
    with pytest.raises(ValueError, match="family"):
        vun([nx.path_graph(3)], [nx.path_graph(2)], "grid")
    with pytest.raises(ValueError, match="graph"):
        is_valid([[0, 1]], "tree")


# --------------------------------------------------------------------------- U, N, V.U.N.


def test_uniqueness_counts_isomorphism_classes():
    base = distinct_trees(4)
    assert uniqueness(base) == 1.0
    copies = base + [relabel(base[0], 1), relabel(base[0], 2), relabel(base[2], 3)]
    assert uniqueness(copies) == pytest.approx(4 / 7)
    # same WL hash is not enough: non-isomorphic graphs with equal WL hashes stay distinct
    two_triangles = nx.disjoint_union(nx.cycle_graph(3), nx.cycle_graph(3))
    hexagon = nx.cycle_graph(6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert nx.weisfeiler_lehman_graph_hash(two_triangles) == nx.weisfeiler_lehman_graph_hash(
            hexagon
        )
    assert uniqueness([two_triangles, hexagon]) == 1.0


def test_novelty_and_vun():
    train, new = distinct_trees(5), distinct_trees(8)[5:]
    generated = [relabel(train[0], 7), new[0], relabel(new[0], 8), new[1], nx.cycle_graph(10)]
    assert novelty(generated, train) == pytest.approx(4 / 5)
    assert uniqueness(generated) == pytest.approx(4 / 5)
    # valid + unique + novel: new[0] (first copy) and new[1]; the cycle is not a tree
    assert vun(generated, train, "tree") == pytest.approx(2 / 5)
    assert vun(generated, train, "planar") == pytest.approx(3 / 5)


@pytest.mark.parametrize("fn", [uniqueness, lambda g: novelty(g, trees(2))])
def test_bad_input_generated(fn):
    with pytest.raises(ValueError, match="graphs"):
        fn([])
    with pytest.raises(ValueError, match="graphs"):
        fn([nx.path_graph(3), "not a graph"])
    with pytest.raises(ValueError, match="graphs"):
        fn(nx.path_graph(3))


@pytest.mark.parametrize("mmd", MMDS)
def test_bad_input_mmd(mmd):
    with pytest.raises(ValueError, match="generated"):
        mmd([], trees(2))
    with pytest.raises(ValueError, match="reference"):
        mmd(trees(2), [])
    with pytest.raises(ValueError, match="reference"):
        mmd(trees(2), [np.eye(3)])
    with pytest.raises(ValueError, match="generated"):
        mmd([nx.DiGraph([(0, 1)])], trees(2))
    with pytest.raises(ValueError, match="training"):
        novelty(trees(2), [])


def test_sbm_fits_recover_well_separated_planted_partitions():
    from icml25.defog.metrics import sbm_fit_accuracy

    graphs = sbm_graphs(12, 5, blocks=(2, 3), block_sizes=(15, 20), p_in=0.5, p_out=0.02)
    acc = sbm_fit_accuracy(graphs, p_intra=0.5, p_inter=0.02, block_sizes=(15, 20),
                           n_blocks=(2, 3))  # fmt: skip
    for fit in ("dl", "bethe_hessian", "oracle_k"):
        assert acc[f"{fit}_blocks_right"] == 1.0 and acc[f"{fit}_ari"] > 0.99
        assert acc[f"{fit}_accept"] == acc["accept_planted"]
    assert 0.5 <= acc["blocks_base_rate"] <= 1.0


def test_sbm_fit_refuses_an_unknown_method():
    with pytest.raises(ValueError, match="method must be one of"):
        sbm_fit(nx.path_graph(4), method="louvain")
