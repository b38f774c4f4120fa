"""The pairs of point clouds of the reproduction (HiRef, ICML 2025, Sec. 4.1 and 4.3).

Each sampler takes ``(n, rng)`` with ``rng`` a ``numpy.random.Generator`` and returns
``(X, Y)``, two float64 arrays of shape ``(n, 2)``. The paper draws them with ott-jax's samplers;
we write our own from the descriptions in its notebooks (constants in the README):

- ``checkerboard``: the five centres of a square and its middle -> the four edge midpoints,
  ``5 * centre + 0.25 * N(0, I)``;
- ``moons_rings``: two interleaved half-moons (the MAF "moons") -> four concentric rings;
- ``halfmoon_scurve``: one half-moon -> the 2-D S-curve, noise 0.05, rotations +-pi/6,
  means (0, -0.5) and (0.5, -2), the S-curve scaled by 0.6;
- ``gaussians``: N(0, I) -> N((2, 0), I / 4), whose squared 2-Wasserstein distance is 4.5.

High-dimensional pairs (``HIGHDIM``), where the paper's evidence against mini-batch OT lies
(ImageNet embeddings, MERFISH); ``d`` is 64 or 256:

- ``gmm{d}``: two mixtures of 10 Gaussians in ``d`` dimensions, equal weights, covariance
  ``I / 4``; every component mean is ``N(0, I)`` (drawn from the data set's seed, different
  for X and Y);
- ``digits{d}``: scikit-learn's bundled digits (1797 images of 8 x 8 pixels, scaled to [0, 1]):
  X resamples the digits 0-4 and Y the digits 5-9, each point plus ``N(0, 0.1^2 I)`` pixel
  noise; ``digits64`` is the pixels themselves, ``digits256`` their embedding by a fixed
  random ReLU layer ``max(0, W x + c)`` (W ``N(0, 1/64)``, c ``N(0, 0.1^2)``, seed 0 for
  every cell, so all cells embed by the same map).
"""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_int

__all__ = ["DATASETS", "HIGHDIM", "sample", "GAUSSIAN_W2_SQUARED"]

GAUSSIAN_MEAN = np.array([2.0, 0.0])
GAUSSIAN_STD = 0.5
# W2^2(N(0, I_2), N(m, s^2 I_2)) = |m|^2 + 2 (1 - s)^2
GAUSSIAN_W2_SQUARED = float(GAUSSIAN_MEAN @ GAUSSIAN_MEAN + 2 * (1 - GAUSSIAN_STD) ** 2)


def _rotation(theta: float) -> np.ndarray:
    return np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])


def checkerboard(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    five = np.array([[0.0, 0.0], [1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
    four = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    X = 5.0 * five[rng.integers(0, 5, n)] + 0.25 * rng.standard_normal((n, 2))
    Y = 5.0 * four[rng.integers(0, 4, n)] + 0.25 * rng.standard_normal((n, 2))
    return X, Y


def moons_rings(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    upper = rng.random(n) < 0.5
    t = rng.uniform(0.0, np.pi, n)
    X = np.where(
        upper[:, None],
        np.c_[np.cos(t), np.sin(t)],
        np.c_[1.0 - np.cos(t), 0.5 - np.sin(t)],
    )
    X = X - np.array([0.5, 0.25]) + 0.05 * rng.standard_normal((n, 2))
    radius = 0.5 * rng.integers(1, 5, n)  # rings of radii 0.5, 1, 1.5, 2
    s = rng.uniform(0.0, 2 * np.pi, n)
    Y = radius[:, None] * np.c_[np.cos(s), np.sin(s)] + 0.05 * rng.standard_normal((n, 2))
    return X, Y


def halfmoon_scurve(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    t = rng.uniform(0.0, np.pi, n)
    X = np.c_[np.cos(t), np.sin(t)] + 0.05 * rng.standard_normal((n, 2))
    X = X @ _rotation(np.pi / 6).T + np.array([0.0, -0.5])
    s = rng.uniform(-1.5 * np.pi, 1.5 * np.pi, n)
    Y = np.c_[np.sin(s), np.sign(s) * (np.cos(s) - 1.0)] + 0.05 * rng.standard_normal((n, 2))
    Y = 0.6 * Y @ _rotation(-np.pi / 6).T + np.array([0.5, -2.0])
    return X, Y


def gaussians(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    X = rng.standard_normal((n, 2))
    Y = GAUSSIAN_MEAN + GAUSSIAN_STD * rng.standard_normal((n, 2))
    return X, Y


def gaussian_mixtures(d: int):
    def draw(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        clouds = []
        for _ in range(2):
            means = rng.standard_normal((10, d))  # (10, d)
            clouds.append(means[rng.integers(0, 10, n)] + 0.5 * rng.standard_normal((n, d)))
        return clouds[0], clouds[1]

    return draw


def _digit_embedding(d: int):
    from sklearn.datasets import load_digits

    images, labels = load_digits(return_X_y=True)
    images = images / 16.0  # (1797, 64) in [0, 1]

    def embed(P: np.ndarray) -> np.ndarray:
        if d == 64:
            return P
        fixed = np.random.default_rng(0)
        W = fixed.standard_normal((64, d)) / 8.0  # (64, d), N(0, 1/64)
        c = 0.1 * fixed.standard_normal(d)
        return np.maximum(P @ W + c, 0.0)

    def draw(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        clouds = []
        for low in (labels < 5, labels >= 5):
            pool = images[low]
            P = pool[rng.integers(0, len(pool), n)] + 0.1 * rng.standard_normal((n, 64))
            clouds.append(embed(P))
        return clouds[0], clouds[1]

    return draw


HIGHDIM = {
    "gmm64": gaussian_mixtures(64),
    "gmm256": gaussian_mixtures(256),
    "digits64": _digit_embedding(64),
    "digits256": _digit_embedding(256),
}

DATASETS = {
    "checkerboard": checkerboard,
    "moons_rings": moons_rings,
    "halfmoon_scurve": halfmoon_scurve,
    "gaussians": gaussians,
}


def sample(name: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` points of each cloud of data set ``name``, seeded by ``default_rng(seed)``.

    Parameters
    ----------
    name : str
        A key of ``DATASETS`` (2-D pairs) or ``HIGHDIM`` (``gmm64``, ``gmm256``, ``digits64``,
        ``digits256``).
    n : int
        The number of points of each cloud, ``>= 1``.
    seed : int
        The seed, ``>= 0``.

    Returns
    -------
    X, Y : numpy.ndarray, shape (n, d)
        The source and target clouds, float64; ``d`` is 2, 64 or 256 by data set.

    Raises
    ------
    ValueError
        If ``name`` is unknown, ``n`` is not a positive integer or ``seed`` is negative.
    """
    samplers = DATASETS | HIGHDIM
    if name not in samplers:
        raise ValueError(f"name must be one of {sorted(samplers)}, got {name!r}")
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    check_int("seed", seed, minimum=0)
    return samplers[name](int(n), np.random.default_rng(seed))
