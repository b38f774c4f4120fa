"""Topological descriptors of a layer zigzag barcode (Gardinazzi et al., ICML 2025, Sec. 4).

All take the barcode in layer units, an int array (B, 3) of ``(p, b, d)``: a p-cycle alive on
the layers ``b <= l < d`` (``d`` exclusive, ``d = L`` if it survives the last layer).

- Betti curves ``β_p(l)`` = number of p-bars alive at layer ``l``;
- the inter-layer persistence matrix ``PHSim_p[i, j]`` = number of p-cycles alive on every
  layer from ``min(i, j)`` to ``max(i, j)``; its diagonal is ``β_p``;
- the birth relative frequency: the share of p-bars born at each layer;
- the persistence image (the paper's 2-D histogram): number of p-bars by birth layer and
  persistence ``d - b``.

``static_betti`` computes a complex's Betti numbers with GUDHI, independently of the zigzag.
"""

from __future__ import annotations

import numpy as np

from icml25.common.optional import require
from icml25.common.validate import check_int


def check_bars(bars, n_layers: int) -> np.ndarray:
    """``bars`` as an int array (B, 3) with ``0 <= b < d <= n_layers``, or ValueError."""
    n_layers = check_int("n_layers", n_layers, minimum=1)
    try:
        bars = np.asarray(bars)
    except ValueError:
        raise ValueError(
            "bars must be an int array (B, 3) of (dim, birth, death), got a ragged list"
        ) from None
    if bars.size == 0:
        return np.zeros((0, 3), dtype=np.int64)
    if bars.ndim != 2 or bars.shape[1] != 3 or not np.issubdtype(bars.dtype, np.integer):
        raise ValueError(f"bars must be an int array (B, 3) of (dim, birth, death), got {bars!r}")
    dim, b, d = bars.T
    if np.any(dim < 0) or np.any(b < 0) or np.any(b >= d) or np.any(d > n_layers):
        raise ValueError(f"bars must satisfy dim >= 0 and 0 <= birth < death <= {n_layers}")
    return bars.astype(np.int64)


def _of_dim(bars: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    dim = check_int("dim", dim, minimum=0)
    sel = bars[bars[:, 0] == dim]
    return sel[:, 1], sel[:, 2]


def betti_curves(bars, n_layers: int, max_dim: int = 1) -> np.ndarray:
    """(max_dim + 1, L) Betti numbers ``β_p(l)`` read off the barcode, ``p = 0..max_dim``.

    Parameters
    ----------
    bars : array_like of int, shape (B, 3)
        Barcode in layer units, rows ``(p, b, d)`` with ``0 <= b < d <= n_layers``.
    n_layers : int
        Number of layers ``L`` (at least 1).
    max_dim : int, default 1
        Largest homology dimension ``p`` returned.

    Returns
    -------
    numpy.ndarray of int64, shape (max_dim + 1, L)
        Row ``p``, column ``l``: the number of p-bars alive at layer ``l``.

    Raises
    ------
    ValueError
        If ``bars`` is not a valid barcode for ``n_layers`` layers or an integer is out of range.
    """
    bars = check_bars(bars, n_layers)
    max_dim = check_int("max_dim", max_dim, minimum=0)
    keep = bars[bars[:, 0] <= max_dim]
    delta = np.zeros((max_dim + 1, n_layers + 1), dtype=np.int64)
    np.add.at(delta, (keep[:, 0], keep[:, 1]), 1)
    np.add.at(delta, (keep[:, 0], keep[:, 2]), -1)
    return np.cumsum(delta, axis=1)[:, :n_layers]


def persistence_matrix(bars, n_layers: int, dim: int = 1) -> np.ndarray:
    """(L, L) ``PHSim_p[i, j]``: p-cycles alive on all layers ``min(i,j) .. max(i,j)``.

    From the (birth, death) histogram ``H``: ``PHSim[i, j] = sum_{b <= i, d > j} H[b, d]`` for
    ``i <= j`` (the official code's recursion, in closed form).

    Parameters
    ----------
    bars : array_like of int, shape (B, 3)
        Barcode in layer units, rows ``(p, b, d)`` with ``0 <= b < d <= n_layers``.
    n_layers : int
        Number of layers ``L`` (at least 1).
    dim : int, default 1
        Homology dimension ``p`` of the cycles counted.

    Returns
    -------
    numpy.ndarray of int64, shape (L, L)
        The symmetric matrix ``PHSim_p``; its diagonal is the Betti curve ``β_p``.

    Raises
    ------
    ValueError
        If ``bars`` is not a valid barcode for ``n_layers`` layers or ``dim`` is negative.
    """
    bars = check_bars(bars, n_layers)
    b, d = _of_dim(bars, dim)
    H = np.zeros((n_layers, n_layers + 2), dtype=np.int64)  # (birth, death)
    np.add.at(H, (b, d), 1)
    born_by = np.cumsum(H, axis=0)  # [i, d]: born at or before i
    alive_after = np.cumsum(born_by[:, ::-1], axis=1)[:, ::-1]  # [i, j]: ... and dying at >= j
    lo = np.minimum.outer(np.arange(n_layers), np.arange(n_layers))
    hi = np.maximum.outer(np.arange(n_layers), np.arange(n_layers))
    return alive_after[lo, hi + 1]


def birth_relative_frequency(bars, n_layers: int, dim: int = 1) -> np.ndarray:
    """(L,) share of the p-bars born at each layer (zeros if there is no p-bar).

    Parameters
    ----------
    bars : array_like of int, shape (B, 3)
        Barcode in layer units, rows ``(p, b, d)`` with ``0 <= b < d <= n_layers``.
    n_layers : int
        Number of layers ``L`` (at least 1).
    dim : int, default 1
        Homology dimension ``p`` of the bars counted.

    Returns
    -------
    numpy.ndarray of float, shape (L,)
        Fraction of the p-bars born at each layer; sums to 1 unless there is no p-bar.

    Raises
    ------
    ValueError
        If ``bars`` is not a valid barcode for ``n_layers`` layers or ``dim`` is negative.
    """
    bars = check_bars(bars, n_layers)
    b, _ = _of_dim(bars, dim)
    counts = np.bincount(b, minlength=n_layers).astype(float)
    return counts / max(len(b), 1)


def persistence_image(bars, n_layers: int, dim: int = 1) -> np.ndarray:
    """(L, L) number of p-bars by birth layer and persistence, the paper's histogram.

    Row: birth layer ``b``; column ``d - b - 1``: persistence ``d - b``.

    Parameters
    ----------
    bars : array_like of int, shape (B, 3)
        Barcode in layer units, rows ``(p, b, d)`` with ``0 <= b < d <= n_layers``.
    n_layers : int
        Number of layers ``L`` (at least 1).
    dim : int, default 1
        Homology dimension ``p`` of the bars counted.

    Returns
    -------
    numpy.ndarray of int64, shape (L, L)
        Counts of p-bars; entries with ``b + persistence > L`` are 0.

    Raises
    ------
    ValueError
        If ``bars`` is not a valid barcode for ``n_layers`` layers or ``dim`` is negative.
    """
    bars = check_bars(bars, n_layers)
    b, d = _of_dim(bars, dim)
    image = np.zeros((n_layers, n_layers), dtype=np.int64)
    np.add.at(image, (b, d - b - 1), 1)
    return image


def static_betti(simplices, max_dim: int = 1) -> np.ndarray:
    """(max_dim + 1,) Betti numbers of one simplicial complex over Z/2, by GUDHI.

    ``simplices`` is an int array (S, D) padded with -1 (a layer's complex from
    :meth:`ZigzagFiltration.layer_simplices`); it must be closed under faces.

    Parameters
    ----------
    simplices : array_like of int, shape (S, D)
        One simplex per row, vertex ids ``>= 0`` first, padded at the end with -1.
    max_dim : int, default 1
        Largest homology dimension returned.

    Returns
    -------
    numpy.ndarray of int, shape (max_dim + 1,)
        Betti numbers ``β_0 .. β_max_dim`` over Z/2 (0 above the complex's dimension).

    Raises
    ------
    ValueError
        If ``simplices`` is not an int array padded as described or ``max_dim`` is negative.
    """
    gudhi = require("gudhi", "topology")
    try:
        simplices = np.asarray(simplices)
    except ValueError:
        raise ValueError("simplices must be an int array (S, D), got a ragged list") from None
    if simplices.ndim != 2 or not np.issubdtype(simplices.dtype, np.integer):
        raise ValueError(f"simplices must be an int array (S, D), got shape {simplices.shape}")
    if simplices.size and (
        simplices.min() < -1
        or np.any(simplices[:, 0] < 0)
        or np.any((simplices[:, 1:] >= 0) & (simplices[:, :-1] < 0))
    ):
        raise ValueError("simplices must hold vertex ids >= 0 first, padded at the end with -1")
    max_dim = check_int("max_dim", max_dim, minimum=0)
    tree = gudhi.SimplexTree()
    for width in range(1, simplices.shape[1] + 1):
        rows = simplices[(simplices >= 0).sum(axis=1) == width, :width]
        if len(rows):
            tree.insert_batch(rows.T, np.zeros(len(rows)))
    tree.compute_persistence(homology_coeff_field=2, persistence_dim_max=True)
    betti = tree.betti_numbers()
    return np.array([betti[p] if p < len(betti) else 0 for p in range(max_dim + 1)])
