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

from icml25.common.validate import check_int

MAX_FLOATS = 2**30  # an array of more float64s (8 GiB) is refused as a size typo


def _check_size(name: str, floats: int) -> None:
    """ValueError naming ``name`` when an array it sizes would hold more than 2**30 floats."""
    if floats > MAX_FLOATS:
        raise ValueError(f"{name} is too large: an array of {floats} floats (at most 2**30)")


def _numeric(name: str, value) -> np.ndarray:
    """``value`` as a float array, or ValueError naming ``name`` when it is ragged or holds no
    numbers (strings, objects)."""
    try:
        array = np.asarray(value)
    except ValueError:
        raise ValueError(f"{name} must be a numeric array, got a ragged sequence") from None
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be a numeric array, got dtype {array.dtype}")
    return np.asarray(array, dtype=float)


def _finite(name: str, array: np.ndarray, ndim: int) -> np.ndarray:
    """``array`` unchanged if it has ``ndim`` dimensions, no zero-length axis and no NaN or inf;
    else ValueError naming ``name``."""
    if array.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite: it holds NaN or inf")
    return array


def as_inputs(name: str, X) -> np.ndarray:
    """``X`` as a float (n, d) array; a 1-D array is read as n inputs of dimension 1."""
    X = _numeric(name, X)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or X.size == 0 or not np.all(np.isfinite(X)):
        raise ValueError(
            f"{name} must be a finite (n, d) array with n, d >= 1, got shape {X.shape}"
        )
    return X


def with_bias(X: np.ndarray) -> np.ndarray:
    """Append the constant bias input: (n, d) -> (n, d + 1)."""
    return np.concatenate([X, np.ones((X.shape[0], 1))], axis=1)


def arccos_kernel(X, Z=None) -> np.ndarray:
    """Infinite-width kernel of ReLU random features with a bias input.

    The degree-1 arc-cosine kernel ``k(x, z) = E_{w ~ N(0, I)}[relu(w . x~) relu(w . z~)]`` with
    ``x~ = (x, 1)``, that is ``|x~| |z~| (sin t + (pi - t) cos t) / (2 pi)`` where ``t`` is the
    angle between ``x~`` and ``z~``.

    Parameters
    ----------
    X : array_like, shape (n, d)
        Finite inputs; a 1-D array is read as ``n`` inputs of dimension 1.
    Z : array_like, shape (m, d), optional
        Second set of inputs with the same ``d``; None (default) uses ``X``.

    Returns
    -------
    K : ndarray, shape (n, m)
        The kernel matrix ``k(X, Z)``.
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
    """Draw the input weights of a batch of ReLU random-feature models.

    Parameters
    ----------
    members : int
        Number of models ``B``, ``>= 1``.
    width : int
        Features per model ``D``, ``>= 1``.
    d : int
        Input dimension, ``>= 1``; a bias weight is added, giving ``d + 1`` columns.
    rng : numpy.random.Generator
        Source of the weights.

    Returns
    -------
    W : ndarray, shape (members, width, d + 1)
        I.i.d. standard normal weights.
    """
    members = check_int("members", members, minimum=1)
    width = check_int("width", width, minimum=1)
    d = check_int("d", d, minimum=1)
    _check_size("members", members * width * (d + 1))
    return rng.standard_normal((members, width, d + 1))


def relu_features(X, W: np.ndarray) -> np.ndarray:
    """Compute the ReLU random features of every member at once.

    ``phi(x) = relu(W x~) / sqrt(D)`` with the bias input ``x~ = (x, 1)``.

    Parameters
    ----------
    X : array_like, shape (n, d)
        Finite inputs; a 1-D array is read as ``n`` inputs of dimension 1.
    W : ndarray, shape (B, D, d + 1)
        Finite weights of ``B`` members, as from :func:`sample_relu_weights`.

    Returns
    -------
    Phi : ndarray, shape (B, n, D)
        The features of each member at each input.
    """
    X = as_inputs("X", X)
    W = _numeric("W", W)
    if W.ndim != 3 or W.shape[2] != X.shape[1] + 1:
        raise ValueError(f"W must have shape (B, D, {X.shape[1] + 1}), got {W.shape}")
    return _relu_features(X, _finite("W", W, 3))


def _relu_features(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    Xb = with_bias(X)  # (n, d + 1)
    out = np.matmul(Xb, W.transpose(0, 2, 1))  # (B, n, D): one BLAS product per member
    np.maximum(out, 0.0, out=out)
    out *= 1.0 / np.sqrt(W.shape[1])
    return out


def kernel_root(K: np.ndarray) -> np.ndarray:
    """Compute a square root ``R`` of a kernel matrix, with ``R R^T = K``.

    From the symmetric eigendecomposition, negative eigenvalues from round-off set to 0.

    Parameters
    ----------
    K : ndarray, shape (P, P)
        A finite symmetric matrix (relative asymmetry at most ``1e-8``).

    Returns
    -------
    R : ndarray, shape (P, P)
        The eigenvectors scaled by the square roots of the clipped eigenvalues.
    """
    K = _finite("K", _numeric("K", K), 2)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square (P, P) matrix, got shape {K.shape}")
    if np.abs(K - K.T).max() > 1e-8 * np.abs(K).max():
        raise ValueError("K must be symmetric (a kernel matrix)")
    vals, vecs = np.linalg.eigh(K)
    return vecs * np.sqrt(np.clip(vals, 0.0, None))


def gaussian_features(
    root: np.ndarray, members: int, width: int, rng: np.random.Generator
) -> np.ndarray:
    """Draw Gaussian-universality features on a fixed set of points.

    ``F = R G / sqrt(D)`` with ``G`` standard normal, so each feature column is ``N(0, K / D)``
    over the ``P`` points, the covariance a ReLU feature column has in the infinite-width limit.

    Parameters
    ----------
    root : ndarray, shape (P, P)
        A finite root ``R`` of the kernel matrix ``K = R R^T`` of the points (see
        :func:`kernel_root`).
    members : int
        Number of members ``B``, ``>= 1``.
    width : int
        Features per member ``D``, ``>= 1``.
    rng : numpy.random.Generator
        Source of ``G``.

    Returns
    -------
    F : ndarray, shape (members, P, width)
        The features of each member at each point.
    """
    root = _finite("root", _numeric("root", root), 2)
    members = check_int("members", members, minimum=1)
    width = check_int("width", width, minimum=1)
    _check_size("members", max(root.shape) * members * width)
    return _gaussian_features(root, members, width, rng)


def _gaussian_features(root: np.ndarray, members: int, width: int, rng) -> np.ndarray:
    P = root.shape[0]
    G = rng.standard_normal((root.shape[1], members * width))  # (P, B D): one BLAS product
    F = (root @ G).reshape(P, members, width) / np.sqrt(width)  # (P, B, D)
    return F.transpose(1, 0, 2)  # (B, P, D)
