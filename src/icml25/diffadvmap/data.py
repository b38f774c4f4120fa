"""The images: scikit-learn's bundled handwritten digits (1797 images, 8 x 8, 10 classes),
scaled from ``[0, 16]`` to ``[-1, 1]``, split into a training and a test set by a seed."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch
from sklearn.datasets import load_digits

from icml25.common.validate import check_int, check_real

__all__ = ["digits"]


@lru_cache(maxsize=4)
def digits(seed: int = 0, test_fraction: float = 0.2):
    """``(x_train, y_train, x_test, y_test)``: float images (N, 1, 8, 8) in ``[-1, 1]`` and
    long labels (N,), a stratified-free random split by ``seed``; ``test_fraction`` in (0, 1).

    Cached: repeated calls with the same arguments return the same tensors.

    Parameters
    ----------
    seed : int, default 0
        Seed of the random split (non-negative).
    test_fraction : float, default 0.2
        Share of the 1797 images in the test set, in (0, 1).

    Returns
    -------
    x_train : torch.Tensor of float32, shape (N_train, 1, 8, 8)
        Training images in ``[-1, 1]``.
    y_train : torch.Tensor of int64, shape (N_train,)
        Training labels in ``[0, 10)``.
    x_test : torch.Tensor of float32, shape (N_test, 1, 8, 8)
        Test images, ``N_test = round(test_fraction * 1797)``.
    y_test : torch.Tensor of int64, shape (N_test,)
        Test labels.

    Raises
    ------
    ValueError
        If ``seed`` is negative or ``test_fraction`` leaves an empty set.
    """
    check_int("seed", seed, minimum=0)
    check_real("test_fraction", test_fraction, low=0.0, high=1.0, low_open=True, high_open=True)
    data = load_digits()
    x = torch.tensor(data.images / 8.0 - 1.0, dtype=torch.float32)[:, None]  # (1797, 1, 8, 8)
    y = torch.tensor(data.target, dtype=torch.long)
    order = torch.tensor(np.random.default_rng(seed).permutation(len(x)))
    n_test = int(round(test_fraction * len(x)))
    if not 0 < n_test < len(x):
        raise ValueError(f"test_fraction {test_fraction} leaves an empty training or test set")
    test, train = order[:n_test], order[n_test:]
    return x[train], y[train], x[test], y[test]
