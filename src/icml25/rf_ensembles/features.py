"""Random features and their infinite-width kernel (Dern, Cunningham & Pleiss, ICML 2025).

A random-feature (RF) regressor of width ``D`` maps an input ``x`` (``d`` numbers, with a constant
1 appended as a bias input, so ``x~ = (x, 1)``) to ``phi(x) = relu(W x~) / sqrt(D)``, the rows of
``W`` drawn i.i.d. from ``N(0, I_{d+1})``. As ``D -> infinity`` the feature inner product
``phi(x) . phi(z)`` tends to the arc-cosine kernel of degree 1 (Cho & Saul, 2009), in the
normalisation ``E_w[relu(w . x~) relu(w . z~)]``::

    k(x, z) = |x~| |z~| (sin t + (pi - t) cos t) / (2 pi),   cos t = x~ . z~ / (|x~| |z~|).

The *Gaussian-universality* mode of the paper replaces the ReLU features on a fixed finite set of
points (training and test inputs together, ``P`` of them) by Gaussian features with the same
covariance: ``F = R G / sqrt(D)``, ``R R^T = K`` the kernel matrix of the ``P`` points and ``G``
a ``(P, D)`` standard normal matrix. In that mode the paper's mean and variance formulas are
exact at every finite ``D > N + 1``.
"""

from __future__ import annotations

import numpy as np


def as_inputs(name: str, X) -> np.ndarray:
    """``X`` as a float (n, d) array; a 1-D array is read as n inputs of dimension 1."""
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or X.shape[0] == 0 or not np.all(np.isfinite(X)):
        raise ValueError(f"{name} must be a finite (n, d) array with n >= 1, got shape {X.shape}")
    return X


def with_bias(X: np.ndarray) -> np.ndarray:
    """Append the constant bias input: (n, d) -> (n, d + 1)."""
    return np.concatenate([X, np.ones((X.shape[0], 1))], axis=1)


def arccos_kernel(X, Z=None) -> np.ndarray:
    """The infinite-width kernel of ReLU random features with a bias input (degree-1 arc-cosine).

    ``k(x, z) = E_{w ~ N(0, I)}[relu(w . x~) relu(w . z~)]``, ``x~ = (x, 1)``.

    Shapes: X (n, d), Z (m, d) (default X) -> (n, m).
    """
    X = with_bias(as_inputs("X", X))
    Z = X if Z is None else with_bias(as_inputs("Z", Z))
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"Z must have d = {X.shape[1] - 1} columns, got {Z.shape[1] - 1}")
    nx = np.linalg.norm(X, axis=1)  # (n,)
    nz = np.linalg.norm(Z, axis=1)  # (m,)
    cos = np.clip((X @ Z.T) / np.outer(nx, nz), -1.0, 1.0)  # (n, m)
    t = np.arccos(cos)
    return np.outer(nx, nz) * (np.sin(t) + (np.pi - t) * cos) / (2 * np.pi)


def sample_relu_weights(members: int, width: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """Input weights of ``members`` ReLU RF models: (members, width, d + 1), i.i.d. N(0, 1)."""
    return rng.standard_normal((members, width, d + 1))


def relu_features(X, W: np.ndarray) -> np.ndarray:
    """``phi(x) = relu(W x~) / sqrt(D)`` for every member at once.

    Shapes: X (n, d), W (B, D, d + 1) -> (B, n, D).
    """
    Xb = with_bias(as_inputs("X", X))  # (n, d + 1)
    if W.ndim != 3 or W.shape[2] != Xb.shape[1]:
        raise ValueError(f"W must have shape (B, D, {Xb.shape[1]}), got {W.shape}")
    out = np.matmul(Xb, W.transpose(0, 2, 1))  # (B, n, D): one BLAS product per member
    np.maximum(out, 0.0, out=out)
    out *= 1.0 / np.sqrt(W.shape[1])
    return out


def kernel_root(K: np.ndarray) -> np.ndarray:
    """A square root ``R`` with ``R R^T = K`` (symmetric eigendecomposition, negative eigenvalues
    from round-off set to 0). Shapes: K (P, P) -> (P, P)."""
    vals, vecs = np.linalg.eigh(K)
    return vecs * np.sqrt(np.clip(vals, 0.0, None))


def gaussian_features(
    root: np.ndarray, members: int, width: int, rng: np.random.Generator
) -> np.ndarray:
    """Gaussian-universality features ``F = R G / sqrt(D)`` on the ``P`` points of ``root``.

    Each column of ``F`` is N(0, K / D) over the points, as a ReLU feature column has covariance
    K / D in the infinite-width limit. Shapes: root (P, P) -> (members, P, width).
    """
    P = root.shape[0]
    G = rng.standard_normal((root.shape[1], members * width))  # (P, B D): one BLAS product
    F = (root @ G).reshape(P, members, width) / np.sqrt(width)  # (P, B, D)
    return F.transpose(1, 0, 2)  # (B, P, D)
