"""Layer pruning from zigzag persistence, and the angular-distance rule it is compared with.

Gardinazzi et al. (ICML 2025, Sec. 5): a layer whose p-cycles (p = 1) persist across many other
layers carries little that the others do not, so it can go. With ``PHSim_p`` the inter-layer
persistence matrix and ``β_p`` the Betti curve, layer ``i`` scores

    r_i = (1/L) sum_j PHSim_p[i, j] / β_p(j)        (terms with β_p(j) = 0 count 0),

and the paper removes the layers with ``r_i >= p · max r`` (p = 0.9 cut ~10%, p = 0.8 ~20% of
Llama's layers), never the last representation (there: the final norm).

Indices are *representation* indices. With Hugging Face ``hidden_states`` (embeddings first),
representation ``i >= 1`` is the output of block ``i - 1``.

The competitor is the angular distance of Gromov et al. (2024), *The unreasonable
ineffectiveness of the deeper layers*: remove the ``n`` consecutive blocks whose input and
output representations are closest, ``argmin_l mean_prompts arccos(cos(x_l, x_{l+n})) / π``.
"""

from __future__ import annotations

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real
from icml25.zigzag_layers.descriptors import betti_curves, check_bars, persistence_matrix


def layer_scores(bars, n_layers: int, dim: int = 1) -> np.ndarray:
    """(L,) the paper's ``r_i = mean_j PHSim_p[i, j] / β_p(j)``.

    Parameters
    ----------
    bars : array_like of int, shape (B, 3)
        Barcode in layer units from :func:`~icml25.zigzag_layers.zigzag_barcode`.
    n_layers : int
        Number of representations ``L``.
    dim : int, default 1
        Homology dimension ``p`` of the cycles (paper: 1).

    Returns
    -------
    numpy.ndarray of float, shape (L,)
        The score ``r_i`` of every representation (terms with ``β_p(j) = 0`` count 0).

    Raises
    ------
    ValueError
        If ``bars`` is not a valid barcode for ``n_layers`` layers or ``dim`` is negative.
    """
    bars = check_bars(bars, n_layers)
    dim = check_int("dim", dim, minimum=0)
    betti = betti_curves(bars, n_layers, max_dim=dim)[dim].astype(float)  # (L,)
    ph = persistence_matrix(bars, n_layers, dim).astype(float)  # (L, L)
    ratio = np.divide(ph, betti[None, :], out=np.zeros_like(ph), where=betti[None, :] > 0)
    return ratio.mean(axis=1)


def _check_candidates(candidates, n_layers: int) -> np.ndarray:
    if candidates is None:
        return np.arange(n_layers - 1)  # the paper never removes the last representation
    cand = np.asarray(candidates)
    if (
        cand.ndim != 1
        or cand.size == 0
        or not np.issubdtype(cand.dtype, np.integer)
        or np.any(cand < 0)
        or np.any(cand >= n_layers)
        or len(np.unique(cand)) != len(cand)
    ):
        raise ValueError(
            f"candidates must be distinct layer indices in [0, {n_layers}), got {candidates!r}"
        )
    return cand


def prune_layers(
    bars,
    n_layers: int,
    fraction: float | None = None,
    p: float | None = None,
    dim: int = 1,
    candidates=None,
) -> np.ndarray:
    """The representations the zigzag criterion removes, sorted ascending.

    Give exactly one of ``fraction`` (remove the ``round(fraction · len(candidates))``
    candidates with the largest ``r_i``; ties to the lower index) or ``p`` (the paper's rule:
    every candidate with ``r_i >= p · max_candidates r``).

    Parameters
    ----------
    bars : array_like of int, shape (B, 3)
        Barcode in layer units from :func:`~icml25.zigzag_layers.zigzag_barcode`.
    n_layers : int
        L, the number of representations.
    fraction : float, optional
        Share of the candidates to remove, in ``[0, 1]``.
    p : float, optional
        Threshold of the paper's rule, in ``[0, 1]`` (paper: 0.9 and 0.8).
    dim : int, default 1
        Homology dimension of the cycles (paper: 1).
    candidates : array_like of int, optional
        Distinct representation indices that may be removed (default: all but the last).

    Returns
    -------
    numpy.ndarray of int
        The removed representation indices, sorted ascending.

    Raises
    ------
    ValueError
        If not exactly one of ``fraction`` and ``p`` is given, or an argument is out of range.
    """
    r = layer_scores(bars, n_layers, dim)
    cand = _check_candidates(candidates, n_layers)
    if (fraction is None) == (p is None):
        raise ValueError("give exactly one of fraction and p")
    if p is not None:
        p = check_real("p", p, low=0.0, high=1.0)
        return np.sort(cand[r[cand] >= p * r[cand].max()])
    fraction = check_real("fraction", fraction, low=0.0, high=1.0)
    n = int(round(fraction * len(cand)))
    order = cand[np.lexsort((cand, -r[cand]))]  # largest r first, ties to the lower index
    return np.sort(order[:n])


def angular_distances(reps, n_remove: int) -> np.ndarray:
    """(L - n,) mean angular distance ``arccos(cos(x_l, x_{l+n})) / π`` over prompts.

    ``reps`` is (L, prompts, d); entry ``l`` scores removing the layers that map ``x_l`` to
    ``x_{l+n}``; NaN, inf, empty arrays and zero vectors (no angle) are refused.

    Parameters
    ----------
    reps : array_like, shape (L, prompts, d)
        Per-layer representations of the same prompts.
    n_remove : int
        Number ``n`` of consecutive layers removed, ``1 <= n < L``.

    Returns
    -------
    numpy.ndarray of float, shape (L - n,)
        Mean angular distance in ``[0, 1]`` for every start ``l``.

    Raises
    ------
    ValueError
        If ``reps`` is not a finite 3-D array, holds a zero vector, or ``n_remove`` is out of
        range.
    """
    reps = real_array("reps", reps)
    if reps.ndim != 3:
        raise ValueError(f"reps must be an array (layers, prompts, dim), got shape {reps.shape}")
    norms = np.linalg.norm(reps, axis=2, keepdims=True)  # (L, n, 1)
    if np.any(norms == 0):
        layer, prompt, _ = np.argwhere(norms == 0)[0]
        raise ValueError(
            f"reps must hold no zero vector (it has no angle): layer {layer}, prompt {prompt}"
        )
    n_remove = check_int("n_remove", n_remove, minimum=1)
    if n_remove >= reps.shape[0]:
        raise ValueError(f"n_remove must be < the number of layers {reps.shape[0]}")
    unit = reps / norms  # (L, n, d)
    cos = np.einsum("lnd,lnd->ln", unit[:-n_remove], unit[n_remove:])  # (L - n, n)
    return (np.arccos(np.clip(cos, -1.0, 1.0)) / np.pi).mean(axis=1)


def angular_prune(reps, n_remove: int) -> np.ndarray:
    """(n,) representations ``l* + 1 .. l* + n`` whose layers the angular rule removes.

    They are the outputs of the ``n`` consecutive layers after ``x_{l*}``, ``l* = argmin``
    distance (:func:`angular_distances`).

    Parameters
    ----------
    reps : array_like, shape (L, prompts, d)
        Per-layer representations of the same prompts.
    n_remove : int
        Number ``n`` of consecutive layers removed, ``1 <= n < L``.

    Returns
    -------
    numpy.ndarray of int, shape (n,)
        The representation indices ``l* + 1 .. l* + n``.

    Raises
    ------
    ValueError
        As :func:`angular_distances`.
    """
    start = int(np.argmin(angular_distances(reps, n_remove)))
    return np.arange(start + 1, start + 1 + n_remove)
