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
    """Turn an sklearn-style labelled dataset into the ``(C, n, d)`` form of the flow.

    Each class is subsampled without replacement to ``n_per_class`` points, so every class stays a
    uniform empirical measure of real points.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Finite features.
    y : array_like, shape (N,)
        Labels of the rows of ``X``.
    n_per_class : int or None, default None
        Points kept per class, ``>= 1`` and at most the smallest class size; None uses the
        smallest class size.
    seed : int, default 0
        Seed of ``numpy.random.default_rng`` for the subsampling, ``>= 0``.

    Returns
    -------
    P : ndarray, shape (C, n, d)
        The points of each class, classes in sorted label order.
    classes : ndarray, shape (C,)
        The sorted distinct labels.
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
    """Turn a ``(C, n, d)`` dataset back into sklearn-style ``(X, y)``.

    Parameters
    ----------
    P : array_like, shape (C, n, d)
        The points of each class.
    classes : array_like, shape (C,), optional
        Label of each class; None (default) uses ``0 .. C - 1``.

    Returns
    -------
    X : ndarray, shape (C n, d)
        The points, class by class.
    y : ndarray, shape (C n,)
        The label of each row.
    """
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 3:
        raise ValueError(f"P must have shape (C, n, d), got {P.shape}")
    classes = np.arange(len(P)) if classes is None else np.asarray(classes)
    if classes.shape != (len(P),):
        raise ValueError(f"classes must have shape ({len(P)},), got {classes.shape}")
    return P.reshape(-1, P.shape[2]), np.repeat(classes, P.shape[1])


def rings(n_per_ring: int = 80, radius: float = 0.3, gap: float = 0.5, seed: int = 42):
    """Build the paper's rings toy: one small blob to be split into three circles.

    The target has three circles of radius ``radius`` centred at ``(-i (2 + gap) radius, 0)``,
    ``i = 0, 1, 2``, with ``n_per_ring`` evenly spaced points each; the source has three classes
    all drawn from one small Gaussian ``N((-radius, 0), 0.01^2 I)``, so that the flow must split
    them (x and y swapped, as in the official notebook).

    Parameters
    ----------
    n_per_ring : int, default 80
        Points per class, ``>= 1``.
    radius : float, default 0.3
        Radius ``r`` of each circle.
    gap : float, default 0.5
        Space between neighbouring circles, in units of ``r``.
    seed : int, default 42
        Seed of ``numpy.random.default_rng`` for the source points.

    Returns
    -------
    source : ndarray, shape (3, n_per_ring, 2)
        The starting dataset.
    target : ndarray, shape (3, n_per_ring, 2)
        The three circles.
    centres : ndarray, shape (3, 2)
        The circles' centres.
    """
    n = check_int("n_per_ring", n_per_ring, minimum=1)
    angles = np.linspace(0, 2 * np.pi, n + 1)[:-1]
    circle = radius * np.stack([np.sin(angles), np.cos(angles)], axis=1)  # (N, 2), swapped
    centres = np.array([[-i * (2 + gap) * radius, 0.0] for i in range(3)])  # (3, 2)
    target = circle[None] + centres[:, None]  # (3, N, 2)
    rng = np.random.default_rng(seed)
    source = rng.standard_normal((3, n, 2)) / 100 + np.array([-radius, 0.0])
    return source, target, centres


def thicken(images, size: int = 2):
    """Thicken the strokes of 8x8 images, a style shift.

    A grey dilation (``scipy.ndimage.grey_dilation``) of each image by a ``size`` x ``size``
    square; values stay in the input range.

    Parameters
    ----------
    images : array_like, shape (N, 64)
        Flattened 8x8 images.
    size : int, default 2
        Side of the square structuring element, ``>= 1``.

    Returns
    -------
    ndarray, shape (N, 64)
        The thickened images.
    """
    images = np.asarray(images, dtype=np.float64)
    if images.ndim != 2 or images.shape[1] != 64:
        raise ValueError(f"images must have shape (N, 64), got {images.shape}")
    size = check_int("size", size, minimum=1)
    out = ndimage.grey_dilation(images.reshape(-1, 8, 8), size=(1, size, size))
    return out.reshape(-1, 64)


def digits_split(seed: int = 0):
    """Load sklearn's digits, scaled to ``[0, 1]``, split in two halves stratified by class.

    Parameters
    ----------
    seed : int, default 0
        ``random_state`` of ``sklearn.model_selection.train_test_split``.

    Returns
    -------
    X_a : ndarray, shape (N_a, 64)
        Pixels / 16 of the first half.
    y_a : ndarray, shape (N_a,)
        Its labels ``0..9``.
    X_b : ndarray, shape (N_b, 64)
        Pixels / 16 of the second half.
    y_b : ndarray, shape (N_b,)
        Its labels.
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    X_a, X_b, y_a, y_b = train_test_split(X / 16.0, y, test_size=0.5, stratify=y, random_state=seed)
    return X_a, y_a, X_b, y_b
