"""scikit-learn's 8x8 digits (1797 images, bundled: no download), scaled to [0, 1]."""

from __future__ import annotations

from functools import cache

import numpy as np
import torch
from sklearn.datasets import load_digits


@cache
def _digits() -> tuple[np.ndarray, np.ndarray]:
    data = load_digits()
    return (data.images / 16.0).astype(np.float32), data.target.astype(np.int64)


def digits_split(
    seed: int, n_test: int = 500
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """A seeded train/test split of scikit-learn's 8x8 digits, pixels scaled to [0, 1].

    Parameters
    ----------
    seed : int
        Seed of the numpy permutation that picks the test digits.
    n_test : int, default 500
        Test digits, strictly between 0 and 1797.

    Returns
    -------
    x_train : torch.Tensor
        (N, 1, 8, 8) float32 training images in [0, 1], ``N = 1797 - n_test``.
    y_train : torch.Tensor
        (N,) int64 labels 0..9.
    x_test : torch.Tensor
        (n_test, 1, 8, 8) float32 test images in [0, 1].
    y_test : torch.Tensor
        (n_test,) int64 labels 0..9.
    """
    images, labels = _digits()
    if not 0 < n_test < len(labels):
        raise ValueError(f"n_test must be in (0, {len(labels)}), got {n_test!r}")
    order = np.random.default_rng(seed).permutation(len(labels))
    test, train = order[:n_test], order[n_test:]
    x = torch.from_numpy(images)[:, None]  # (1797, 1, 8, 8)
    y = torch.from_numpy(labels)
    return x[train], y[train], x[test], y[test]
