"""The three small classification sets of the reproduction, split and standardised per seed.

- ``moons``: scikit-learn's two moons (geometric noise 0.1), 100 training points of which 20%
  (exactly 20) have their label flipped, and 500 clean test points;
- ``breast_cancer`` (569 x 30, 2 classes) and ``digits`` (1797 x 64, 10 classes): a stratified
  70/30 train/test split per seed.

Features are standardised with the training mean and standard deviation. ``validation=True``
splits the training set again (80/20, stratified) and returns (fit, validation) in place of
(train, test): the rho of FHBI is chosen there, never on the test set.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, make_moons
from sklearn.model_selection import train_test_split

DATASETS = ("moons", "breast_cancer", "digits")


@dataclass(frozen=True)
class Split:
    X_train: np.ndarray  # (n, p) float32
    y_train: np.ndarray  # (n,) int64
    X_test: np.ndarray  # (t, p)
    y_test: np.ndarray  # (t,)
    classes: int


@lru_cache(maxsize=2)
def _bundled(name: str) -> tuple[np.ndarray, np.ndarray]:
    data = load_breast_cancer() if name == "breast_cancer" else load_digits()
    return data.data.astype(np.float64), data.target.astype(np.int64)


def load(
    name: str, seed: int, *, validation: bool = False, label_noise: float = 0.2, n_moons: int = 100
) -> Split:
    """The split of dataset ``name`` for ``seed`` (see the module docstring)."""
    if name not in DATASETS:
        raise ValueError(f"name must be one of {DATASETS}, got {name!r}")
    rng = np.random.default_rng([seed, DATASETS.index(name)])
    if name == "moons":
        X, y = make_moons(n_moons + 500, noise=0.1, random_state=int(rng.integers(2**31)))
        X_tr, y_tr, X_te, y_te = X[:n_moons], y[:n_moons].copy(), X[n_moons:], y[n_moons:]
        flip = rng.choice(n_moons, int(round(label_noise * n_moons)), replace=False)
        y_tr[flip] = 1 - y_tr[flip]
    else:
        X, y = _bundled(name)
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.3, stratify=y, random_state=int(rng.integers(2**31))
        )
    if validation:
        X_tr, X_te, y_tr, y_te = train_test_split(
            X_tr, y_tr, test_size=0.2, stratify=y_tr, random_state=int(rng.integers(2**31))
        )
    mean, std = X_tr.mean(0), X_tr.std(0)
    std = np.where(std > 0, std, 1.0)
    return Split(
        ((X_tr - mean) / std).astype(np.float32),
        y_tr.astype(np.int64),
        ((X_te - mean) / std).astype(np.float32),
        y_te.astype(np.int64),
        int(max(y.max(), 1) + 1),
    )
