"""Synthetic regression data for the reproduction (the paper: a random sinusoid on [-5, 5] in 1-D,
and California Housing, which needs a download; we use a smooth 8-D target in its place)."""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_int, check_real
from icml25.rf_ensembles.features import _check_size, _finite, _numeric


def sinusoid_1d(
    n: int, rng: np.random.Generator, *, noise: float = 0.05, grid: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Draw the 1-D sinusoid regression data.

    ``x`` is uniform on ``[-5, 5]`` (sorted) or an even grid there, and
    ``y = sin(x) + 0.3 x + noise * eps`` with standard normal ``eps``.

    Parameters
    ----------
    n : int
        Number of points, ``>= 1``.
    rng : numpy.random.Generator
        Source of the inputs and the noise.
    noise : float, default 0.05
        Standard deviation of the label noise, finite and ``>= 0``.
    grid : bool, default False
        Use ``n`` evenly spaced inputs instead of random ones.

    Returns
    -------
    X : ndarray, shape (n, 1)
        The inputs.
    y : ndarray, shape (n,)
        The labels.
    """
    n = check_int("n", n, minimum=1)
    _check_size("n", n)
    noise = check_real("noise", noise, low=0.0, high=np.inf)
    x = np.linspace(-5, 5, n) if grid else np.sort(rng.uniform(-5, 5, n))
    y = np.sin(x) + 0.3 * x + noise * rng.standard_normal(n)
    return x[:, None], y


def smooth_target(
    n: int, d: int, rng: np.random.Generator, *, noise: float = 0.05, direction=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw a smooth d-dimensional regression target.

    ``x ~ N(0, I_d)`` (like standardised tabular features) and
    ``y = sin(x . u) + 0.5 x_1 + noise * eps`` with ``u ~ N(0, I_d / d)`` drawn once; pass
    ``direction`` to reuse a ``u``.

    Parameters
    ----------
    n : int
        Number of points, ``>= 1``.
    d : int
        Input dimension, ``>= 1``.
    rng : numpy.random.Generator
        Source of ``u`` (when drawn), the inputs and the noise.
    noise : float, default 0.05
        Standard deviation of the label noise, finite and ``>= 0``.
    direction : array_like, shape (d,), optional
        A finite direction ``u`` to use; None (default) draws one.

    Returns
    -------
    X : ndarray, shape (n, d)
        The inputs.
    y : ndarray, shape (n,)
        The labels.
    direction : ndarray, shape (d,)
        The direction ``u`` used.
    """
    n, d = check_int("n", n, minimum=1), check_int("d", d, minimum=1)
    _check_size("n * d", n * d)
    check_real("noise", noise, low=0.0, high=np.inf)
    if direction is not None:
        _finite("direction", _numeric("direction", direction), 1)
        if np.shape(direction) != (d,):
            raise ValueError(f"direction must have shape ({d},), got {np.shape(direction)}")
    u = rng.standard_normal(d) / np.sqrt(d) if direction is None else np.asarray(direction)
    X = rng.standard_normal((n, d))
    y = np.sin(X @ u) + 0.5 * X[:, 0] + noise * rng.standard_normal(n)
    return X, y, u
