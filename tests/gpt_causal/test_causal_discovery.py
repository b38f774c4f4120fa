import numpy as np
import pytest
from scipy import stats

from icml25.gpt_causal.causal_discovery import (
    OrderedStructure,
    attention_correlation,
    fisher_z_log_pvalues,
    ordered_causal_discovery,
    partial_correlation,
    structural_confidence,
)

N = 3000


def _chain(rng):
    """X -> Y -> Z, Gaussian: X indep Z given Y, not marginally. (N, 3)."""
    x = rng.standard_normal(N)
    y = 0.8 * x + rng.standard_normal(N)
    z = 0.8 * y + rng.standard_normal(N)
    return np.stack([x, y, z], axis=1)


def _collider(rng):
    """X -> Z <- Y: X indep Y marginally, dependent given Z. (N, 3)."""
    x, y = rng.standard_normal(N), rng.standard_normal(N)
    z = 0.8 * x + 0.8 * y + rng.standard_normal(N)
    return np.stack([x, y, z], axis=1)


def _residual_partial_corr(data, i, j, cond):
    """Independent computation: regress the conditioning set out of both with lstsq."""
    D = data - data.mean(axis=0)
    Z = np.column_stack([np.ones(len(D))] + [D[:, k] for k in cond])
    ri = D[:, i] - Z @ np.linalg.lstsq(Z, D[:, i], rcond=None)[0]
    rj = D[:, j] - Z @ np.linalg.lstsq(Z, D[:, j], rcond=None)[0]
    return stats.pearsonr(ri, rj).statistic


def test_partial_correlation_and_p_values_match_regression_and_scipy():
    data = _chain(np.random.default_rng(0))
    R = np.corrcoef(data, rowvar=False)
    for i, j, cond in [(0, 2, ()), (0, 2, (1,)), (0, 1, (2,)), (1, 2, (0,))]:
        rho = partial_correlation(R, [i], [j], np.array([cond], dtype=int).reshape(1, -1))[0]
        assert rho == pytest.approx(_residual_partial_corr(data, i, j, cond), abs=1e-10)
        z = np.sqrt(N - len(cond) - 3) * np.arctanh(rho)
        p = 2 * stats.norm.sf(abs(z))
        log_p = fisher_z_log_pvalues(np.array([rho]), N, len(cond))[0]
        assert np.exp(log_p) == pytest.approx(p, rel=1e-9, abs=1e-300)


def test_known_independences_on_gaussian_data():
    R = np.corrcoef(_chain(np.random.default_rng(1)), rowvar=False)
    lp = lambda i, j, Z: fisher_z_log_pvalues(  # noqa: E731
        partial_correlation(R, [i], [j], np.array([Z]).reshape(1, -1)), N, len(Z)
    )[0]
    assert lp(0, 2, []) < np.log(1e-6)  # dependent marginally
    assert lp(0, 2, [1]) > np.log(0.01)  # independent given Y
    R = np.corrcoef(_collider(np.random.default_rng(2)), rowvar=False)
    assert lp(0, 1, []) > np.log(0.01) and lp(0, 1, [2]) < np.log(1e-6)


def test_ordered_discovery_recovers_chain_and_collider():
    R = np.corrcoef(_chain(np.random.default_rng(3)), rowvar=False)
    s = ordered_causal_discovery(R, N, alpha=0.01)
    assert {tuple(e) for e in np.argwhere(s.adjacency)} == {(0, 1), (1, 2)}
    R = np.corrcoef(_collider(np.random.default_rng(4)), rowvar=False)
    s = ordered_causal_discovery(R, N, alpha=0.01)
    assert {tuple(e) for e in np.argwhere(s.adjacency)} == {(0, 2), (1, 2)}
    assert s.log_pvalues.shape == s.cond_sizes.shape
    assert np.isfinite(structural_confidence(s, 0.01))


def test_batched_tests_equal_one_at_a_time():
    rng = np.random.default_rng(5)
    data = rng.standard_normal((200, 6)) @ rng.standard_normal((6, 6))
    R = np.corrcoef(data, rowvar=False)
    x, y, Z = np.array([0, 1, 2]), np.array([3, 4, 5]), np.array([[1, 2], [0, 3], [4, 5]])
    Z[2] = [0, 1]
    batch = partial_correlation(R, x, y, Z)
    for k in range(3):
        assert batch[k] == pytest.approx(
            partial_correlation(R, x[k : k + 1], y[k : k + 1], Z[k : k + 1])[0]
        )
        assert batch[k] == pytest.approx(_residual_partial_corr(data, x[k], y[k], Z[k]), abs=1e-10)


def test_attention_correlation_is_normalised_a_at():
    rng = np.random.default_rng(6)
    L = np.tril(rng.random((7, 7)))
    A = L / L.sum(axis=1, keepdims=True)
    R = attention_correlation(A)
    C = A @ A.T
    assert np.allclose(R, C / np.sqrt(np.outer(np.diag(C), np.diag(C))))
    assert np.allclose(np.diag(R), 1.0) and np.allclose(R, R.T)


def test_confidence_grows_with_decisive_tests():
    # a strongly dependent pair (p far below alpha) scores higher than a pair near the threshold
    strong = OrderedStructure(np.zeros((2, 2), bool), np.log([1e-12]), np.zeros(1, int))
    weak = OrderedStructure(np.zeros((2, 2), bool), np.log([0.009]), np.zeros(1, int))
    assert structural_confidence(strong, 0.01) > structural_confidence(weak, 0.01)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: attention_correlation(np.zeros((3, 3))), "all-zero row"),
        (lambda: attention_correlation(np.ones(3)), "attention must be"),
        (lambda: ordered_causal_discovery(np.eye(3)[:2], 50), "corr must be"),
        (lambda: ordered_causal_discovery(np.eye(3), 50, alpha=0.0), "alpha"),
        (lambda: ordered_causal_discovery(np.eye(3), 5, max_cond_size=2), "n must"),
        (lambda: ordered_causal_discovery(np.eye(3), 50, max_cond_size=-1), "max_cond_size"),
        (lambda: fisher_z_log_pvalues(np.array([0.1]), 3, 1), "n must"),
        (
            lambda: structural_confidence(
                OrderedStructure(np.zeros((1, 1), bool), np.zeros(0), np.zeros(0, int))
            ),
            "no CI tests",
        ),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
