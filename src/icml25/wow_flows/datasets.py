"""Labelled datasets as (C, n, d) tensors, and the data of the reproduction.

- :func:`to_classes` / :func:`from_classes`: sklearn-style ``(X, y)`` to the (C, n, d) form the
  flow needs and back. Classes of unequal size are **subsampled** (without replacement) to a
  common ``n``, by default the smallest class size: every class stays a uniform empirical measure
  of real points, which is what the paper's datasets are (the official code draws
  ``n_data_by_class`` points per class the same way). Padding with zero-weight points would need
  weighted quantiles in every sliced distance for no gain in the flow.
- :func:`rings`: the paper's toy (official rings notebook, from Glaser et al.'s KALE flow code).
- :func:`digits_split`, :func:`thicken`: sklearn's 8x8 digits scaled to [0, 1] and a stroke
  thickening style shift.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from icml25.common.validate import check_int


def to_classes(X, y, n_per_class: int | None = None, seed: int = 0):
    """``(X (N, d), y (N,))`` -> ``(P (C, n, d), classes (C,))``, classes in sorted order.

    Each class is subsampled without replacement to ``n_per_class`` points (default: the size of
    the smallest class), drawn by ``numpy.random.default_rng(seed)``.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2:
        raise ValueError(f"X must have shape (N, d), got {X.shape}")
    if y.ndim != 1 or len(y) != len(X):
        raise ValueError(f"y must have shape ({len(X)},) like X's rows, got {y.shape}")
    if not np.isfinite(X).all():
        raise ValueError("X must be finite (no NaN or inf)")
    classes, counts = np.unique(y, return_counts=True)
    n = counts.min() if n_per_class is None else check_int("n_per_class", n_per_class, minimum=1)
    if n > counts.min():
        raise ValueError(
            f"n_per_class must be at most the smallest class size {counts.min()}, got {n}"
        )
    rng = np.random.default_rng(check_int("seed", seed, minimum=0))
    order = np.argsort(y, kind="stable")  # rows grouped by class
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    keys = rng.random((len(classes), counts.max()))  # (C, max count)
    keys[np.arange(counts.max())[None, :] >= counts[:, None]] = np.inf  # beyond a class's size
    pick = np.argsort(keys, axis=1)[:, :n]  # (C, n) positions within each class
    return X[order[starts[:, None] + pick]], classes  # (C, n, d), (C,)


def from_classes(P, classes=None):
    """``P (C, n, d)`` -> ``(X (C n, d), y (C n,))``; ``classes`` (C,) labels, default 0..C-1."""
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 3:
        raise ValueError(f"P must have shape (C, n, d), got {P.shape}")
    classes = np.arange(len(P)) if classes is None else np.asarray(classes)
    if classes.shape != (len(P),):
        raise ValueError(f"classes must have shape ({len(P)},), got {classes.shape}")
    return P.reshape(-1, P.shape[2]), np.repeat(classes, P.shape[1])


def rings(n_per_ring: int = 80, radius: float = 0.3, gap: float = 0.5, seed: int = 42):
    """The paper's rings toy: target (3, N, 2) three circles of radius ``r`` centred at
    ``(-i (2 + gap) r, 0)``, i = 0, 1, 2; source (3, N, 2) all three classes drawn from one small
    Gaussian N((-r, 0), 0.01^2 I), so that the flow must split them (official notebook, x and y
    swapped as there). Returns (source, target, centres (3, 2))."""
    n = check_int("n_per_ring", n_per_ring, minimum=1)
    angles = np.linspace(0, 2 * np.pi, n + 1)[:-1]
    circle = radius * np.stack([np.sin(angles), np.cos(angles)], axis=1)  # (N, 2), swapped
    centres = np.array([[-i * (2 + gap) * radius, 0.0] for i in range(3)])  # (3, 2)
    target = circle[None] + centres[:, None]  # (3, N, 2)
    rng = np.random.default_rng(seed)
    source = rng.standard_normal((3, n, 2)) / 100 + np.array([-radius, 0.0])
    return source, target, centres


def thicken(images, size: int = 2):
    """Stroke thickening: grey dilation of (N, 64) 8x8 images by a ``size`` x ``size`` square
    (``scipy.ndimage.grey_dilation``); values stay in the input range."""
    images = np.asarray(images, dtype=np.float64)
    if images.ndim != 2 or images.shape[1] != 64:
        raise ValueError(f"images must have shape (N, 64), got {images.shape}")
    size = check_int("size", size, minimum=1)
    out = ndimage.grey_dilation(images.reshape(-1, 8, 8), size=(1, size, size))
    return out.reshape(-1, 64)


def digits_split(seed: int = 0):
    """sklearn's digits scaled to [0, 1] (pixels / 16), split in two halves stratified by class:
    ``(X_a, y_a, X_b, y_b)``."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    X_a, X_b, y_a, y_b = train_test_split(X / 16.0, y, test_size=0.5, stratify=y, random_state=seed)
    return X_a, y_a, X_b, y_b
