"""Checks of array arguments shared by the papers' methods: each raises ValueError naming the
argument and what was expected (its shape, its kind of numbers, NaN or inf), before any work is
done, so that bad input never becomes a plausible wrong answer.

Scalars are checked by :mod:`icml25.common.validate`.
"""

from __future__ import annotations

import numpy as np


def real_array(name: str, value, *, ndim: int | None = None, nonempty: bool = True) -> np.ndarray:
    """``value`` as a float64 array of finite numbers (``ndim`` dimensions where given, at least
    one element unless ``nonempty=False``), or ValueError naming ``name``."""
    array = _numeric(name, value)
    _shape(name, array, ndim, nonempty)
    array = array.astype(np.float64, copy=False)
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite: it holds NaN or inf")
    return array


def int_array(
    name: str,
    value,
    *,
    ndim: int | None = None,
    low: int | None = None,
    high: int | None = None,
    nonempty: bool = True,
) -> np.ndarray:
    """``value`` as an int64 array (integers, or floats that are whole numbers) with every
    entry in ``[low, high]`` where given, or ValueError naming ``name``."""
    array = _numeric(name, value)
    _shape(name, array, ndim, nonempty)
    if array.dtype.kind == "f":
        if not np.isfinite(array).all():
            raise ValueError(f"{name} must hold integers: it holds NaN or inf")
        if not (array == np.round(array)).all():
            raise ValueError(f"{name} must hold integers, got fractions such as {array.ravel()[0]}")
    array = array.astype(np.int64, copy=False)
    if array.size and low is not None and array.min() < low:
        raise ValueError(f"{name} must be >= {low}, got {array.min()}")
    if array.size and high is not None and array.max() > high:
        raise ValueError(f"{name} must be <= {high}, got {array.max()}")
    return array


def probabilities(name: str, value, *, atol: float = 1e-6) -> np.ndarray:
    """``value`` (n, C) as float64 rows of probabilities: finite, in [0, 1], each summing to 1
    within ``atol``, or ValueError naming ``name``."""
    array = real_array(name, value, ndim=2)
    if array.shape[1] == 0:
        raise ValueError(f"{name} must have at least one class (column), got shape {array.shape}")
    if array.min() < -atol or array.max() > 1 + atol:
        raise ValueError(f"{name} must hold probabilities in [0, 1]")
    sums = array.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1) > atol * array.shape[1])
    if bad.size:
        raise ValueError(f"{name} rows must sum to 1: row {bad[0]} sums to {sums[bad[0]]:.6g}")
    return array


def labels(name: str, value, *, n: int, classes: int) -> np.ndarray:
    """``value`` as ``n`` integer labels in ``[0, classes)``, or ValueError naming ``name``."""
    array = int_array(name, value, ndim=1, low=0, high=classes - 1)
    if array.shape[0] != n:
        raise ValueError(f"{name} must hold {n} labels, one per row, got {array.shape[0]}")
    return array


def _numeric(name: str, value) -> np.ndarray:
    try:
        array = np.asarray(value)
    except ValueError as err:  # ragged nested lists
        raise ValueError(f"{name} must be a numeric array: {err}") from None
    if array.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a numeric array, got dtype {array.dtype}")
    return array


def _shape(name: str, array: np.ndarray, ndim: int | None, nonempty: bool) -> None:
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {array.shape}")
    if nonempty and array.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {array.shape}")
