"""Zero-shot causal structure from a GPT's attention, and its structural confidence.

Rohekar et al. (ICML 2025, Sec. 3-4) read a causal attention matrix ``A`` (T, T) as the linear
map of a structural causal model over the input tokens, so that the tokens' covariance is
``C = A A^T``; normalising it gives a correlation matrix ``R_ij = C_ij / sqrt(C_ii C_jj)``
(causality-lab's CLEANN: ``cov = A @ A.T`` then ``cov_to_corr``). Conditional independence (CI)
between tokens is tested on ``R`` by partial correlation with Fisher's z (causality-lab's
``CondIndepParCorr``), the number of samples ``n`` taken as the hidden size of the model; a
causal structure consistent with the token order is then learned by an ordered constraint-based
search (causality-lab's ordered ICD): the order of the sequence is a causal order, so an edge
between tokens ``i < j`` can only be ``i -> j``.

The paper's exact confidence score could not be recovered (no experiment code is public and
the text of Sec. 4 was not available to us). ``structural_confidence`` is a documented
stand-in: the mean, over every CI test the ordered search performed, of the distance of the
test's decision from the threshold, ``|log p - log alpha|`` (decisive tests, p far from alpha
on either side, give a confident structure; tests near the threshold an uncertain one).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy.special import log_ndtr

from icml25.common.arrays import int_array, real_array
from icml25.common.validate import check_int, check_real

__all__ = [
    "attention_correlation",
    "fisher_z_log_pvalues",
    "partial_correlation",
    "OrderedStructure",
    "ordered_causal_discovery",
    "structural_confidence",
]

_MAX_ABS_CORR = 1.0 - 1e-12  # |partial correlation| is clipped below 1 so that z stays finite


def attention_correlation(attention: np.ndarray) -> np.ndarray:
    """Correlation matrix of the tokens implied by attention: ``A`` (T, T) -> ``R`` (T, T),
    ``C = A A^T``, ``R_ij = C_ij / sqrt(C_ii C_jj)``.

    Parameters
    ----------
    attention : ndarray, shape (T, S)
        A finite attention matrix (square ``(T, T)`` for causal self-attention); no row may be
        all zero.

    Returns
    -------
    R : ndarray, shape (T, T)
        The tokens' correlation matrix, unit diagonal.
    """
    A = np.asarray(attention, dtype=float)
    if A.ndim != 2 or A.shape[0] < 1 or A.shape[1] < 1 or not np.isfinite(A).all():
        raise ValueError(f"attention must be a finite (T, S) matrix, got shape {A.shape}")
    C = A @ A.T  # (T, T)
    d = np.sqrt(np.diag(C))
    if np.any(d <= 1e-8):
        raise ValueError("attention has an all-zero row: its token has no variance")
    return C / d[:, None] / d[None, :]


def partial_correlation(corr: np.ndarray, x, y, Z) -> np.ndarray:
    """Partial correlations ``rho(x, y | Z)`` for a batch of tests, from a correlation matrix.

    With ``P`` the (pseudo-)inverse of the correlation sub-matrix over ``(x, y, Z)``,
    ``rho = -P_01 / sqrt(P_00 P_11)``.

    Parameters
    ----------
    corr : ndarray, shape (V, V)
        Correlation matrix of the variables.
    x : array_like of int, shape (N,)
        First variable of each test.
    y : array_like of int, shape (N,)
        Second variable of each test.
    Z : array_like of int, shape (N, r)
        Conditioning set of each test (``r`` may be 0).

    Returns
    -------
    rho : ndarray, shape (N,)
        Partial correlation of each test.
    """
    x, y = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
    Z = np.asarray(Z, dtype=np.int64).reshape(len(x), -1)  # (N, r)
    if Z.shape[1] == 0:
        return corr[x, y]
    idx = np.concatenate([x[:, None], y[:, None], Z], axis=1)  # (N, r + 2)
    sub = corr[idx[:, :, None], idx[:, None, :]]  # (N, r + 2, r + 2)
    P = np.linalg.pinv(sub, hermitian=True)
    return -P[:, 0, 1] / np.sqrt(np.abs(P[:, 0, 0] * P[:, 1, 1]))


def fisher_z_log_pvalues(rho: np.ndarray, n: int, r) -> np.ndarray:
    """Natural log of the two-sided p-values of Fisher's z test of ``rho = 0``.

    ``z = sqrt(n - r - 3) atanh(rho)`` is standard normal under the null for ``n`` samples and
    ``r`` conditioning variables; ``log p = log 2 + log Phi(-|z|)``, computed in log space so
    that tiny p-values stay finite.

    Parameters
    ----------
    rho : array_like of float
        (Partial) correlations in ``[-1, 1]`` (clipped just inside, so ``z`` stays finite).
    n : int
        Number of samples, ``>= 1`` and ``> r + 3`` for every test.
    r : int or array_like of int
        Conditioning-set size of each test, ``>= 0``, broadcasting with ``rho``.

    Returns
    -------
    log_p : ndarray
        Natural log of the two-sided p-values, shape of ``rho`` (broadcast with ``r``).
    """
    rho = real_array("rho", rho, nonempty=False)
    if rho.size and np.abs(rho).max() > 1.0 + 1e-9:
        raise ValueError(f"rho must hold correlations in [-1, 1], got {np.abs(rho).max():.6g}")
    rho = np.clip(rho, -_MAX_ABS_CORR, _MAX_ABS_CORR)
    n = check_int("n", n, minimum=1)
    dof = n - int_array("r", r, low=0, nonempty=False) - 3
    if np.any(dof <= 0):
        raise ValueError(f"n must exceed r + 3 for every test, got n={n}")
    z = np.sqrt(dof) * np.arctanh(rho)
    return np.log(2.0) + log_ndtr(-np.abs(z))


@dataclass(frozen=True)
class OrderedStructure:
    """What :func:`ordered_causal_discovery` learns.

    Parameters
    ----------
    adjacency : ndarray of bool, shape (T, T)
        ``adjacency[i, j]`` (i < j) is the edge ``i -> j``.
    log_pvalues : ndarray, shape (M,)
        The natural log p-value of every CI test performed, in the order performed.
    cond_sizes : ndarray of int, shape (M,)
        Each test's conditioning-set size.
    """

    adjacency: np.ndarray
    log_pvalues: np.ndarray
    cond_sizes: np.ndarray


def ordered_causal_discovery(
    corr: np.ndarray, n: int, alpha: float = 0.01, max_cond_size: int = 2
) -> OrderedStructure:
    """Constraint-based causal discovery under a known causal order (the token order).

    Start from the complete graph ``i -> j`` for all ``i < j``. For conditioning-set sizes
    ``r = 0, 1, ..., max_cond_size``: every edge ``i -> j`` still present is tested,
    ``i indep j | Z``, for every ``Z`` of size ``r`` drawn from the other earlier neighbours of
    ``j`` (its possible parents), and removed when some test has ``p > alpha``. Following the
    ordered ICD of causality-lab, the conditioning sets of the base node ``j`` come from nodes
    before it; unlike it, the sets are those possible parents (sufficient under the order with
    no latent confounders) rather than a PDS tree, and all tests of one size are run on the
    graph as it stood before that size (the order-independent "stable" variant), so that they
    run as one vectorised batch. The search stops early when no edge has ``r`` other possible
    parents.

    Parameters
    ----------
    corr : ndarray, shape (T, T)
        Finite correlation matrix of the tokens, in causal (token) order, e.g. from
        ``attention_correlation``.
    n : int
        Number of samples of the CI tests (the model's hidden size), ``>= 4`` and
        ``> max_cond_size + 3``.
    alpha : float, default 0.01
        Significance level in ``(0, 1)``: an edge is removed when a test has ``p > alpha``.
    max_cond_size : int, default 2
        Largest conditioning-set size tested, ``>= 0``.

    Returns
    -------
    OrderedStructure
        The learned edges and every CI test's log p-value and conditioning-set size.
    """
    R = np.asarray(corr, dtype=float)
    if R.ndim != 2 or R.shape[0] != R.shape[1] or not np.isfinite(R).all():
        raise ValueError(f"corr must be a finite square matrix, got shape {R.shape}")
    check_int("n", n, minimum=4)
    check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    check_int("max_cond_size", max_cond_size, minimum=0)
    if n <= max_cond_size + 3:
        raise ValueError(f"n must exceed max_cond_size + 3, got n={n}")
    T = R.shape[0]
    adj = np.triu(np.ones((T, T), dtype=bool), 1)
    log_alpha = np.log(alpha)
    logs, sizes = [], []
    for r in range(max_cond_size + 1):
        xs, ys, zs = _tests_of_size(adj, r)
        if len(xs) == 0:
            break
        logp = fisher_z_log_pvalues(partial_correlation(R, xs, ys, zs), n, r)  # (M_r,)
        independent = logp > log_alpha
        adj[xs[independent], ys[independent]] = False
        logs.append(logp)
        sizes.append(np.full(len(logp), r))
    return OrderedStructure(
        adjacency=adj,
        log_pvalues=np.concatenate(logs) if logs else np.zeros(0),
        cond_sizes=np.concatenate(sizes) if sizes else np.zeros(0, dtype=int),
    )


def _tests_of_size(adj: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All CI tests ``(x, y, Z)`` with ``|Z| = r`` for the edges of ``adj``: ``x`` (M,) the
    earlier node, ``y`` (M,) the base node, ``Z`` (M, r) from the base node's other parents."""
    if r == 0:
        x, y = np.nonzero(adj)
        return x, y, np.zeros((len(x), 0), dtype=np.int64)
    xs, ys, zs = [], [], []
    for j in range(adj.shape[0]):  # per base node: its possible parents, their r-subsets
        parents = np.flatnonzero(adj[:, j])
        if len(parents) < r + 1:
            continue
        subsets = np.array(list(combinations(parents, r)), dtype=np.int64)  # (S, r)
        keep = ~(subsets[None, :, :] == parents[:, None, None]).any(axis=2)  # (k, S)
        xi, si = np.nonzero(keep)
        xs.append(parents[xi])
        ys.append(np.full(len(xi), j))
        zs.append(subsets[si])
    if not xs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, r), np.int64)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(zs)


def structural_confidence(structure: OrderedStructure, alpha: float = 0.01) -> float:
    """Stand-in structural confidence of a learned structure (see the module docstring): the
    mean over the CI tests performed of ``|log p - log alpha|``.

    Parameters
    ----------
    structure : OrderedStructure
        A learned structure with at least one CI test.
    alpha : float, default 0.01
        Significance level in ``(0, 1)``, the threshold the distances are taken from.

    Returns
    -------
    confidence : float
        Mean ``|log p - log alpha|``, ``>= 0``; larger is more decisive.
    """
    check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    if structure.log_pvalues.size == 0:
        raise ValueError("structure has no CI tests: a structure needs at least 2 tokens")
    return float(np.mean(np.abs(structure.log_pvalues - np.log(alpha))))
