"""Random classification noise (RCN) with a known noise matrix ``H``.

Diakonikolas, Ma, Ren & Tzamos, *Statistical Query Hardness of Multiclass Linear Classification
with Random Classification Noise*, ICML 2025 (arXiv 2502.11413), Section 1: a true label ``i``
is flipped to ``j`` with probability ``H_ij`` (``H`` is row-stochastic, row = true label), and
the *separation* is ``sigma = min_{i != j} H_ii - H_ij``.

Closed forms used throughout (``f`` the clean classifier, ``x`` any input):

- noisy posterior ``P(y~ = j | x) = H_{f(x), j}``;
- the Bayes classifier of the noisy labels is ``argmax_j H_{f(x), j}``, which is ``f(x)`` for
  every ``x`` when ``sigma > 0``;
- the noisy 0-1 error of a hypothesis ``h`` is ``err(h) = 1 - E_x H_{f(x), h(x)}``; it is smallest
  for ``h = f`` when ``sigma >= 0``, ``opt = 1 - E_x H_{f(x), f(x)}``, and
  ``err(h) - opt = E_x [H_{f(x), f(x)} - H_{f(x), h(x)}] >= sigma P(h != f)``.
"""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_int, check_real

MAX_FLOATS = 2**30  # an array of more float64s (8 GiB) is refused as a size typo


def _check_size(name: str, floats: int) -> None:
    """ValueError naming ``name`` when an array it sizes would hold more than 2**30 floats."""
    if floats > MAX_FLOATS:
        raise ValueError(f"{name} is too large: an array of {floats} floats (at most 2**30)")


def _as_float_array(name: str, value) -> np.ndarray:
    """``value`` as a float array, or ValueError naming ``name`` when it is ragged or not numeric
    (strings, objects)."""
    try:
        array = np.asarray(value)
    except ValueError:
        raise ValueError(f"{name} must be a numeric array, got a ragged sequence") from None
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be a numeric array, got dtype {array.dtype}")
    return np.asarray(array, dtype=float)


def check_noise_matrix(H) -> np.ndarray:
    """``H`` as a float ``(k, k)`` row-stochastic matrix with ``k >= 2``, or ValueError."""
    H = _as_float_array("H", H)
    if H.ndim != 2 or H.shape[0] != H.shape[1] or H.shape[0] < 2:
        raise ValueError(f"H must be a square (k, k) matrix with k >= 2, got shape {H.shape}")
    if not np.all(np.isfinite(H)) or np.any(H < 0) or not np.allclose(H.sum(axis=1), 1.0):
        raise ValueError("H must be row-stochastic: non-negative entries, each row summing to 1")
    return H


def check_labels(name: str, y, k: int, n: int | None = None) -> np.ndarray:
    """``y`` as a non-empty int array of labels in ``{0, ..., k-1}`` (length ``n`` if given)."""
    try:
        y = np.asarray(y)
    except ValueError:
        raise ValueError(f"{name} must be a 1-d integer array, got a ragged sequence") from None
    if y.ndim != 1 or (y.size and not np.issubdtype(y.dtype, np.integer)):
        raise ValueError(
            f"{name} must be a 1-d integer array, got dtype {y.dtype}, shape {y.shape}"
        )
    if y.size == 0:
        raise ValueError(f"{name} must not be empty")
    if n is not None and y.shape[0] != n:
        raise ValueError(f"{name} must have length {n}, got {y.shape[0]}")
    if y.size and (y.min() < 0 or y.max() >= k):
        raise ValueError(f"{name} must take values in 0..{k - 1}")
    return y.astype(np.int64)


def separation(H) -> float:
    """The paper's separation ``sigma = min_{i != j} H_ii - H_ij`` of a noise matrix.

    Parameters
    ----------
    H : array_like
        (k, k) row-stochastic noise matrix, ``k >= 2``, ``H[i, j] = P(y~ = j | y = i)``.

    Returns
    -------
    float
        ``sigma``, in ``[-1, 1]``; negative when some row puts more mass on a wrong label than
        on the right one.
    """
    H = check_noise_matrix(H)
    gaps = np.diag(H)[:, None] - H  # (k, k), H_ii - H_ij
    np.fill_diagonal(gaps, np.inf)
    return float(gaps.min())


def symmetric_noise_matrix(k: int, eta: float) -> np.ndarray:
    """The symmetric noise matrix ``H = (1 - eta) I + eta / (k - 1) (11^T - I)``.

    The label is kept with probability ``1 - eta`` and otherwise replaced by one of the
    ``k - 1`` others uniformly; the separation is ``1 - eta k / (k - 1)``.

    Parameters
    ----------
    k : int
        Number of classes, ``>= 2``.
    eta : float
        Flip probability, in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray
        (k, k) row-stochastic ``H``.
    """
    k = check_int("k", k, minimum=2)
    _check_size("k", k * k)
    eta = check_real("eta", eta, low=0.0, high=1.0)
    return (1.0 - eta) * np.eye(k) + eta / (k - 1) * (1.0 - np.eye(k))


def random_noise_matrix(k: int, alpha: float, seed) -> np.ndarray:
    """A random noise matrix ``H = (1 - alpha) I + alpha R``, ``R`` with Dirichlet(1) rows.

    Parameters
    ----------
    k : int
        Number of classes, ``>= 2``.
    alpha : float
        Noise level, in ``[0, 1]``; for large ``alpha`` the separation may have either sign
        (read it with :func:`separation`).
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of ``R`` (anything ``numpy.random.default_rng`` accepts).

    Returns
    -------
    numpy.ndarray
        (k, k) row-stochastic ``H``.
    """
    k = check_int("k", k, minimum=2)
    _check_size("k", k * k)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    R = np.random.default_rng(seed).dirichlet(np.ones(k), size=k)  # (k, k)
    return (1.0 - alpha) * np.eye(k) + alpha * R


def apply_rcn(y, H, seed) -> np.ndarray:
    """Corrupt clean labels with RCN: ``y~_t = j`` with probability ``H[y_t, j]``, independently.

    Each label is drawn by inverse-CDF sampling of its row of ``H``.

    Parameters
    ----------
    y : array_like
        (n,) integer clean labels in ``0..k-1``, ``n >= 1``.
    H : array_like
        (k, k) row-stochastic noise matrix, ``k >= 2``, ``H[i, j] = P(y~ = j | y = i)``.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the uniforms (anything ``numpy.random.default_rng`` accepts).

    Returns
    -------
    numpy.ndarray
        (n,) integer noisy labels in ``0..k-1``.
    """
    H = check_noise_matrix(H)
    y = check_labels("y", y, H.shape[0])
    cdf = np.cumsum(H, axis=1)  # (k, k)
    cdf[:, -1] = 1.0
    u = np.random.default_rng(seed).random(y.shape[0])  # (n,)
    return (u[:, None] >= cdf[y]).sum(axis=1)


def noisy_posterior(H, y) -> np.ndarray:
    """The noisy posterior ``P(y~ = j | x) = H_{f(x), j}`` of each input.

    Parameters
    ----------
    H : array_like
        (k, k) row-stochastic noise matrix, ``k >= 2``, ``H[i, j] = P(y~ = j | y = i)``.
    y : array_like
        (n,) integer clean labels ``f(x_t)`` in ``0..k-1``, ``n >= 1``.

    Returns
    -------
    numpy.ndarray
        (n, k): row ``t`` is ``H[y[t]]``.
    """
    H = check_noise_matrix(H)
    return H[check_labels("y", y, H.shape[0])]


def noisy_bayes_classifier(H, y) -> np.ndarray:
    """The Bayes classifier of the noisy labels, ``argmax_j H_{f(x), j}``.

    Parameters
    ----------
    H : array_like
        (k, k) row-stochastic noise matrix, ``k >= 2``, ``H[i, j] = P(y~ = j | y = i)``.
    y : array_like
        (n,) integer clean labels ``f(x_t)`` in ``0..k-1``, ``n >= 1``.

    Returns
    -------
    numpy.ndarray
        (n,) integer labels (ties go to the smallest ``j``); equal to ``y`` when the separation
        is positive.
    """
    return np.argmax(noisy_posterior(H, y), axis=1)


def noisy_error(H, y, h) -> float:
    """Expected 0-1 error of predictions against the noisy labels, the noise integrated out.

    Parameters
    ----------
    H : array_like
        (k, k) row-stochastic noise matrix, ``k >= 2``, ``H[i, j] = P(y~ = j | y = i)``.
    y : array_like
        (n,) integer clean labels ``f(x_t)`` in ``0..k-1``, ``n >= 1``.
    h : array_like
        (n,) integer predictions in ``0..k-1``.

    Returns
    -------
    float
        ``1 - mean_t H[y_t, h_t]``, in ``[0, 1]``.
    """
    H = check_noise_matrix(H)
    y = check_labels("y", y, H.shape[0])
    h = check_labels("h", h, H.shape[0], n=y.shape[0])
    return float(1.0 - H[y, h].mean())


def optimal_error(H, y) -> float:
    """The noisy error of the clean classifier itself, the least achievable when ``sigma >= 0``.

    Parameters
    ----------
    H : array_like
        (k, k) row-stochastic noise matrix, ``k >= 2``, ``H[i, j] = P(y~ = j | y = i)``.
    y : array_like
        (n,) integer clean labels ``f(x_t)`` in ``0..k-1``, ``n >= 1``.

    Returns
    -------
    float
        ``opt = 1 - mean_t H[y_t, y_t]``, in ``[0, 1]``.
    """
    H = check_noise_matrix(H)
    y = check_labels("y", y, H.shape[0])
    return float(1.0 - np.diag(H)[y].mean())


def excess_error(H, y, h) -> float:
    """Excess noisy error of predictions over the clean classifier.

    Parameters
    ----------
    H : array_like
        (k, k) row-stochastic noise matrix, ``k >= 2``, ``H[i, j] = P(y~ = j | y = i)``.
    y : array_like
        (n,) integer clean labels ``f(x_t)`` in ``0..k-1``, ``n >= 1``.
    h : array_like
        (n,) integer predictions in ``0..k-1``.

    Returns
    -------
    float
        ``err(h) - opt = mean_t (H[y_t, y_t] - H[y_t, h_t])``, at least ``sigma`` times the
        share of ``t`` with ``h_t != y_t``.
    """
    return noisy_error(H, y, h) - optimal_error(H, y)
