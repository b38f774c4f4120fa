"""Synthetic regression data for the reproduction (the paper: a random sinusoid on [-5, 5] in 1-D,
and California Housing, which needs a download; we use a smooth 8-D target in its place)."""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_int, check_real
from icml25.rf_ensembles.features import _check_size, _finite, _numeric


def sinusoid_1d(
    n: int, rng: np.random.Generator, *, noise: float = 0.05, grid: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """``x`` uniform on [-5, 5] (or an even grid), ``y = sin(x) + 0.3 x + noise * eps``.

    Shapes: -> X (n, 1), y (n,).
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
    """``x ~ N(0, I_d)`` (like standardised tabular features), ``y = sin(x . u) + 0.5 x_1 +
    noise * eps`` with ``u ~ N(0, I_d / d)`` drawn once (pass ``direction`` to reuse it).

    Shapes: -> X (n, d), y (n,), direction (d,).
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
