"""Multiclass linear data with a known RCN noise matrix (the paper's learning problem).

Diakonikolas, Ma, Ren & Tzamos (ICML 2025), Section 1: a multiclass linear classifier is
``f(x) = argmax_{i in [k]} w_i . x`` (ties broken by the smallest index); the learner sees
``(x, y~)`` with ``x ~ D_x`` on ``R^d`` and ``y~`` the RCN corruption of ``f(x)`` by ``H``.

The paper is distribution-free: ``D_x`` is arbitrary. We offer two marginals (our choice; the
paper has no experiments), both with a last coordinate equal to 1 so that the homogeneous
classifier has per-class offsets:

- ``"gaussian"``: ``z ~ N(0, I_{d-1})``, symmetric about the origin;
- ``"skewed"``: a two-component Gaussian mixture, weight 0.7 on ``N(mu, I)`` and 0.3 on
  ``N(-2 mu, 0.25 I)`` with ``mu = (1, 0.5, 0, ..., 0)``: mean ``mu / 10``, skewed, so that
  averaging-type estimators (``E[y x]``) are biased and a learner must do real work.
"""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_int, check_real
from icml25.mlc_rcn.noise import _as_float_array, _check_size, apply_rcn, check_noise_matrix

MARGINALS = ("gaussian", "skewed")


def check_features(X, d: int | None = None) -> np.ndarray:
    """``X`` as a finite float ``(n, d)`` array with ``n >= 1``, or ValueError."""
    X = _as_float_array("X", X)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a non-empty (n, d) array, got shape {X.shape}")
    if d is not None and X.shape[1] != d:
        raise ValueError(f"X must have {d} columns to match W, got {X.shape[1]}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite")
    return X


def check_weights(W) -> np.ndarray:
    """``W`` as a finite float ``(k, d)`` array with ``k >= 2``, or ValueError."""
    W = _as_float_array("W", W)
    if W.ndim != 2 or W.shape[0] < 2 or W.shape[1] < 1:
        raise ValueError(f"W must be a (k, d) array with k >= 2, got shape {W.shape}")
    if not np.all(np.isfinite(W)):
        raise ValueError("W must be finite")
    return W


def linear_classifier(W, X) -> np.ndarray:
    """The multiclass linear classifier ``f(x) = argmax_i w_i . x``.

    Ties go to the smallest index (the paper's convention, and ``np.argmax``'s).

    Parameters
    ----------
    W : array_like
        (k, d) finite weights, ``k >= 2``.
    X : array_like
        (n, d) finite inputs, ``n >= 1``, with as many columns as ``W``.

    Returns
    -------
    numpy.ndarray
        (n,) integer labels in ``0..k-1``.
    """
    W = check_weights(W)
    X = check_features(X, W.shape[1])
    return np.argmax(X @ W.T, axis=1)  # (n,)


def sample_marginal(n: int, d: int, seed, marginal: str = "gaussian") -> np.ndarray:
    """Draw inputs in ``R^d`` from one of the two marginals, last coordinate 1.

    Parameters
    ----------
    n : int
        Number of inputs, ``>= 1``.
    d : int
        Dimension including the constant coordinate, ``>= 3``.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the draw (anything ``numpy.random.default_rng`` accepts).
    marginal : {"gaussian", "skewed"}, default "gaussian"
        ``N(0, I_{d-1})``, or the skewed two-component mixture (module docstring).

    Returns
    -------
    numpy.ndarray
        (n, d) float64 inputs whose last column is 1.
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=3)
    _check_size("n * d", n * d)
    if marginal not in MARGINALS:
        raise ValueError(f"marginal must be one of {MARGINALS}, got {marginal!r}")
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, d - 1))  # (n, d-1)
    if marginal == "skewed":
        mu = np.zeros(d - 1)
        mu[:2] = (1.0, 0.5)
        far = rng.random(n) < 0.3  # (n,) the second, tighter component
        z = np.where(far[:, None], 0.5 * z - 2.0 * mu, z + mu)
    return np.hstack([z, np.ones((n, 1))])  # (n, d)


def random_classifier(k: int, d: int, seed, offset_scale: float = 0.5) -> np.ndarray:
    """A random multiclass linear classifier.

    Parameters
    ----------
    k : int
        Number of classes, ``>= 2``.
    d : int
        Dimension including the constant coordinate, ``>= 3``.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the draw (anything ``numpy.random.default_rng`` accepts).
    offset_scale : float, default 0.5
        Scale of the offsets, any finite number (its sign does not change their law).

    Returns
    -------
    numpy.ndarray
        (k, d): standard Gaussian entries on the first ``d - 1`` coordinates and offsets
        ``N(0, offset_scale^2)`` on the last, constant, coordinate.
    """
    k = check_int("k", k, minimum=2)
    d = check_int("d", d, minimum=3)
    _check_size("k * d", k * d)
    check_real("offset_scale", offset_scale, low=-np.inf, high=np.inf, low_open=True)
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((k, d))
    W[:, -1] *= offset_scale
    return W


def make_rcn_data(n: int, W, H, seed, marginal: str = "gaussian"):
    """A sample of the paper's problem: inputs, clean labels and their RCN corruption.

    Parameters
    ----------
    n : int
        Sample size, ``>= 1``.
    W : array_like
        (k, d) finite weights of the clean classifier ``f``, ``k >= 2``, ``d >= 3``.
    H : array_like
        (k, k) row-stochastic noise matrix.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of one generator, drawn for the inputs and then the noise (anything
        ``numpy.random.default_rng`` accepts).
    marginal : {"gaussian", "skewed"}, default "gaussian"
        The marginal of the inputs (:func:`sample_marginal`).

    Returns
    -------
    X : numpy.ndarray
        (n, d) inputs, last column 1.
    y : numpy.ndarray
        (n,) clean labels ``f(X)``.
    y_noisy : numpy.ndarray
        (n,) noisy labels, ``y_noisy[t]`` drawn from row ``H[y[t]]``.
    """
    W = check_weights(W)
    H = check_noise_matrix(H)
    if H.shape[0] != W.shape[0]:
        raise ValueError(f"H must be ({W.shape[0]}, {W.shape[0]}) to match W, got {H.shape}")
    rng = np.random.default_rng(seed)  # int, SeedSequence or Generator
    X = sample_marginal(n, W.shape[1], rng, marginal)
    y = linear_classifier(W, X)
    return X, y, apply_rcn(y, H, rng)
