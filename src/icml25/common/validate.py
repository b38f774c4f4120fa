"""Argument checks shared by the papers' methods: each raises ValueError naming the argument.

Scalars here; arrays (finite reals, bounded integers, probabilities, labels) in
:mod:`icml25.common.arrays`."""

from __future__ import annotations

import numbers

import numpy as np


def check_int(name: str, value, *, minimum: int) -> int:
    """``value`` as an int >= ``minimum``, or ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_real(
    name: str,
    value,
    *,
    low: float,
    high: float,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a float in the interval from ``low`` to ``high``, or ValueError naming it."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    if ok:
        ok = (value > low if low_open else value >= low) and (
            value < high if high_open else value <= high
        )
    if not ok:
        interval = f"{'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
        raise ValueError(f"{name} must be a number in {interval}, got {value!r}")
    return float(value)
