"""Checks of the array arguments of the Sudoku tools: each raises ValueError naming the argument
and what was expected, before any work is done."""

from __future__ import annotations

import numpy as np

from icml25.common.arrays import int_array

MAX_ENTRIES = 2**28  # an array (or a loop) of more entries than this is refused: out of memory


def check_cells(name: str, value, high: int) -> None:
    """``value`` an integer ``(N, 81)`` array with entries in ``0..high`` (``N`` may be 0)."""
    int_array(name, value, ndim=2, low=0, high=high, nonempty=False)
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        raise ValueError(f"{name} must be an integer array, got dtype {array.dtype}")
    if array.shape[1] != 81:
        raise ValueError(f"{name} must have shape (N, 81), got {array.shape}")


def check_entries(what: str, entries: int) -> None:
    """Refuse an allocation of more than :data:`MAX_ENTRIES` entries."""
    if entries > MAX_ENTRIES:
        raise ValueError(f"{what} = {entries:.3g} entries, more than {MAX_ENTRIES:.3g}: too large")
