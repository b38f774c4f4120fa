from itertools import combinations

import networkx as nx
import numpy as np
import pytest

from icml25.maxmin_eig import (
    augment,
    connectivity_augmentation,
    e_optimal_design,
    exact,
    greedy,
    max_trace,
    randomized_rounding,
    relax,
    rounding_draws,
    selection_values,
    value,
)


def small_instance(seed, n=5, m=8, weak_dim=2, rank=1):
    return e_optimal_design(n, m, weak_dim, rank=rank, seed=seed)


def brute_force(M, As, k):
    """Every subset of size <= k, each lambda_min from its own eigvalsh."""
    best = -np.inf
    for size in range(k + 1):
        for subset in combinations(range(len(As)), size):
            best = max(best, np.linalg.eigvalsh(M + As[list(subset)].sum(axis=0))[0])
    return best


def test_instances_have_unit_trace_and_the_declared_structure():
    M, As = e_optimal_design(10, 30, 3, rank=2, seed=1)
    np.testing.assert_allclose(np.trace(As, axis1=1, axis2=2), 1.0)
    assert max_trace(As) == pytest.approx(1.0)
    assert np.linalg.matrix_rank(As[0]) == 2
    np.testing.assert_array_equal(np.diag(M), [0.1] * 3 + [60.0] * 7)


def test_selection_values_match_direct_eigenvalues():
    M, As = small_instance(2)
    selections = np.array([[0, 3, -1], [1, 2, 7], [-1, -1, -1]])
    direct = [
        np.linalg.eigvalsh(M + As[[i for i in row if i >= 0]].sum(0))[0]
        if (row >= 0).any()
        else np.linalg.eigvalsh(M)[0]
        for row in selections
    ]
    np.testing.assert_allclose(selection_values(M, As, selections), direct, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_exact_equals_brute_force(seed):
    M, As = small_instance(seed)
    assert value(M, As, exact(M, As, 3)) == pytest.approx(brute_force(M, As, 3), abs=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_relaxation_bounds_every_feasible_selection(seed):
    M, As = small_instance(seed, rank=1 + seed % 2)
    x, bound = relax(M, As, 3)
    assert x.shape == (8,) and np.all((x >= 0) & (x <= 1)) and x.sum() <= 3 + 1e-6
    subsets = np.array(list(combinations(range(8), 3)))
    assert selection_values(M, As, subsets).max() <= bound + 1e-6
    # and the bound is the relaxation's value: lambda_min at x equals t*
    at_x = np.linalg.eigvalsh(M + np.tensordot(x, As, axes=1))[0]
    assert at_x == pytest.approx(bound, abs=1e-5)


def test_rounding_never_returns_more_than_k_indices():
    M, As = e_optimal_design(8, 40, 2, seed=3)
    x = np.full(40, 0.9)  # a draw keeps about 36 indices: trimming must cut to k
    selections, values = rounding_draws(x, M, As, 5, trials=300, seed=0)
    kept = selections >= 0
    assert selections.shape == (300, 5) and kept.sum(1).max() <= 5
    for row in selections:
        chosen = row[row >= 0]
        assert len(set(chosen)) == len(chosen)
    chosen = randomized_rounding(x, M, As, 5, trials=50, seed=1)
    assert len(chosen) <= 5 and np.all(np.diff(chosen) > 0)
    np.testing.assert_array_equal(chosen, randomized_rounding(x, M, As, 5, trials=50, seed=1))


def test_rounding_keeps_each_index_with_probability_x():
    M, As = e_optimal_design(4, 10, 1, seed=0)
    x = np.linspace(0.0, 0.9, 10)  # sum 4.5 <= k = 9: no trimming
    selections, _ = rounding_draws(x, M, As, 9, trials=20_000, seed=2)
    frequency = np.array([(selections == i).any(1).mean() for i in range(10)])
    np.testing.assert_allclose(frequency, x, atol=0.015)  # 4.5 sd of a Bernoulli mean


def test_greedy_first_step_is_the_best_single_matrix():
    M, As = small_instance(5)
    singles = [value(M, As, [i]) for i in range(len(As))]
    assert value(M, As, greedy(M, As, 1)) == pytest.approx(max(singles))
    assert len(greedy(M, As, 4)) == 4


def test_connectivity_projection_gives_algebraic_connectivity():
    rng = np.random.default_rng(0)
    tree = nx.random_labeled_tree(12, seed=4)
    candidates = list(nx.non_edges(tree))
    M, As, nodes = connectivity_augmentation(tree, candidates)
    assert M.shape == (11, 11) and As.shape == (len(candidates), 11, 11)
    np.testing.assert_allclose(np.trace(As, axis1=1, axis2=2), 2.0)  # R = 2
    assert value(M, As, []) == pytest.approx(nx.algebraic_connectivity(tree, method="lanczos"))
    chosen = rng.choice(len(candidates), size=4, replace=False)
    augmented = tree.copy()
    augmented.add_edges_from(candidates[i] for i in chosen)
    assert value(M, As, chosen) == pytest.approx(
        nx.algebraic_connectivity(augmented, method="lanczos"), abs=1e-8
    )


def test_augment_reports_value_base_and_bound():
    M, As = small_instance(1)
    result = augment(M, As, 3, method="rounding", seed=0)
    assert result.base <= result.value <= result.bound + 1e-6
    optimum = augment(M, As, 3, method="exact")
    assert optimum.bound is None and result.value <= optimum.value + 1e-12


@pytest.mark.parametrize(
    "args, word",
    [
        ((np.ones((3, 4)), np.zeros((5, 3, 3)), 2), "M"),
        ((np.array([[1.0, 2.0], [0.0, 1.0]]), np.zeros((5, 2, 2)), 2), "M must be symmetric"),
        ((-np.eye(2), np.zeros((5, 2, 2)), 2), "M must be positive semidefinite"),
        ((np.eye(2), np.zeros((5, 3, 3)), 2), "As"),
        ((np.eye(2), -np.ones((5, 2, 2)) * np.eye(2), 2), "As must be positive semidefinite"),
        ((np.eye(2), np.zeros((5, 2, 2)), 0), "k"),
        ((np.eye(2), np.zeros((5, 2, 2)), 5), "k must be smaller"),
        ((np.eye(2), np.zeros((5, 2, 2)), 2.5), "k"),
        ((np.full((2, 2), np.nan), np.zeros((5, 2, 2)), 2), "M must be finite"),
        ((np.eye(2), [["a"]], 2), "As must be a numeric array"),
    ],
)
def test_bad_problems_name_the_argument(args, word):
    with pytest.raises(ValueError, match=word):
        greedy(*args)


def test_bad_options_name_the_argument():
    M, As = small_instance(0)
    with pytest.raises(ValueError, match="method"):
        augment(M, As, 2, method="magic")
    with pytest.raises(ValueError, match="x must"):
        rounding_draws(np.ones(3), M, As, 2, trials=5)
    with pytest.raises(ValueError, match="trials"):
        rounding_draws(np.ones(8) / 2, M, As, 2, trials=0)
    with pytest.raises(ValueError, match="weak_dim"):
        e_optimal_design(4, 10, 5)
    with pytest.raises(ValueError, match="candidate_edges"):
        connectivity_augmentation(nx.path_graph(3), [(0, 7)])


def test_exact_refuses_large_problems_at_once():
    M, As = e_optimal_design(3, 60, 1, seed=0)
    with pytest.raises(ValueError, match="max_subsets"):
        exact(M, As, 30)
