"""Bayes-optimal denoisers ``E[x_{L+1} | x~]`` of the three tasks, in closed form
(Smart, Bietti & Sengupta, ICML 2025, Sec. 3: the posterior means under a known ``p_X``).

All take the noisy queries ``x~`` (B, n) and the prompt's latent structure and return (B, n);
the "oracle" knows the subspace, sphere or centres exactly (the paper's baselines).
"""

from __future__ import annotations

import numpy as np
from scipy.special import ive, softmax

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real


def _check_query(query, other, other_name: str, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """``query`` (B, n) and ``other`` (B, ...) as arrays (not copied), numeric, non-empty and
    finite, with the same ``B`` and ``n`` on ``axis`` of ``other``, or ValueError."""
    real_array("query", query)
    real_array(other_name, other)
    query, other = np.asarray(query), np.asarray(other)
    if query.ndim != 2 or other.ndim != 3 or other.shape[0] != query.shape[0]:
        raise ValueError(
            f"query must be (B, n) and {other_name} (B, ...) with the same B, "
            f"got {query.shape} and {other.shape}"
        )
    if other.shape[axis] != query.shape[1]:
        raise ValueError(
            f"{other_name} must have n = {query.shape[1]} on axis {axis}, got {other.shape}"
        )
    return query, other


def _positive(name: str, value: float, *, zero_ok: bool = False) -> float:
    return check_real(name, value, low=0.0, high=np.inf, low_open=not zero_ok, high_open=True)


def bayes_linear(
    query: np.ndarray, basis: np.ndarray, sigma_0_sq: float, sigma_z_sq: float
) -> np.ndarray:
    """Bayes-optimal denoiser of the linear-subspace task, given the subspace.

    Parameters
    ----------
    query : numpy.ndarray
        (B, n): the noisy queries ``x~``, finite.
    basis : numpy.ndarray
        (B, n, d): an orthonormal basis ``U`` of each prompt's subspace.
    sigma_0_sq : float
        Variance ``sigma_0^2`` of the subspace coordinates, ``> 0``.
    sigma_z_sq : float
        Noise variance ``sigma_Z^2``, ``> 0``.

    Returns
    -------
    numpy.ndarray
        (B, n): the posterior means ``E[x | x~]``.

    Notes
    -----
    ``E[x | x~] = sigma_0^2 / (sigma_0^2 + sigma_Z^2) P x~`` with ``P = U U^T`` the projection
    on the subspace.
    """
    query, basis = _check_query(query, basis, "basis", 1)
    s0, sz = _positive("sigma_0_sq", sigma_0_sq), _positive("sigma_z_sq", sigma_z_sq)
    coords = np.einsum("bnd,bn->bd", basis, query)  # (B, d)
    return s0 / (s0 + sz) * np.einsum("bnd,bd->bn", basis, coords)


def bayes_linear_risk(n: int, d: int, sigma_0_sq: float, sigma_z_sq: float) -> float:
    """The linear task's Bayes risk per coordinate.

    Parameters
    ----------
    n : int
        Token dimension, ``>= 1``.
    d : int
        Subspace dimension, ``1 <= d <= n``.
    sigma_0_sq : float
        Variance ``sigma_0^2`` of the subspace coordinates, ``> 0``.
    sigma_z_sq : float
        Noise variance ``sigma_Z^2``, ``> 0``.

    Returns
    -------
    float
        ``d sigma_0^2 sigma_Z^2 / ((sigma_0^2 + sigma_Z^2) n)``: the trace of the posterior
        covariance divided by ``n``.
    """
    check_int("n", n, minimum=1)
    check_int("d", d, minimum=1)
    if d > n:
        raise ValueError(f"d must be <= n = {n} (a subspace of R^n), got {d}")
    s0, sz = _positive("sigma_0_sq", sigma_0_sq), _positive("sigma_z_sq", sigma_z_sq)
    return d * s0 * sz / ((s0 + sz) * n)


_TINY = 1e-280  # below this an exponentially scaled Bessel value has lost its digits


def _bessel_ratio_by_recurrence(nu: float, x: np.ndarray) -> np.ndarray:
    """``R_nu(x) = I_{nu+1}(x) / I_nu(x)`` by the backward recurrence
    ``R_{mu-1} = x / (2 mu + x R_mu)`` (from ``I_{mu-1} - I_{mu+1} = (2 mu / x) I_mu``), started
    at an order ``mu_0 >= nu + 2 max(x) + 41`` from Amos's approximation
    ``x / (mu_0 + 1 + sqrt((mu_0 + 1)^2 + x^2))``. Above ``mu = x / 2`` each step shrinks the
    starting error by ``(x / 2 mu)^2 <= 1/4``, so the last 40 steps alone take it below 1e-24.
    Exact at ``x = 0`` (ratio 0); one vector operation per order. Shapes: x (k,) -> (k,)."""
    steps = int(np.ceil(2 * x.max())) + 40
    mu = nu + steps + 1
    r = x / (mu + 1 + np.hypot(mu + 1, x))  # (k,), about R_{mu_0}
    for _ in range(steps + 1):  # orders mu_0, ..., nu + 1: r becomes R_{mu - 1}
        r = x / (2 * mu + x * r)
        mu -= 1
    return r


def vmf_mean_ratio(m: int, kappa: np.ndarray) -> np.ndarray:
    """Mean resultant length of the von Mises-Fisher law on the unit sphere of ``R^m``.

    Parameters
    ----------
    m : int
        Dimension of the ambient space of the sphere, ``>= 1``.
    kappa : numpy.ndarray
        Concentrations, any non-empty shape, finite and non-negative.

    Returns
    -------
    numpy.ndarray
        Same shape as ``kappa``: ``A_m(kappa) = I_{m/2}(kappa) / I_{m/2 - 1}(kappa)``, in
        ``[0, 1)``, with ``A_m(0) = 0``.

    Notes
    -----
    Computed with scipy's exponentially scaled ``ive`` (stable for large ``kappa``); where
    ``ive`` underflows or is infinite (``kappa`` small against ``m``, ``kappa = 0``), by the
    backward recurrence of the Bessel ratio.
    """
    check_int("m", m, minimum=1)
    kappa = real_array("kappa", kappa)
    if kappa.min() < 0:
        raise ValueError(f"kappa must be non-negative (a concentration), got {kappa.min()}")
    num, den = ive(m / 2, kappa), ive(m / 2 - 1, kappa)
    good = (num > _TINY) & (den > _TINY) & np.isfinite(den)
    ratio = np.divide(num, den, out=np.zeros_like(num), where=good)
    if not good.all():
        ratio[~good] = _bessel_ratio_by_recurrence(m / 2 - 1, kappa[~good])
    return ratio


def bayes_sphere(
    query: np.ndarray, basis: np.ndarray, radius: float, sigma_z_sq: float
) -> np.ndarray:
    """Bayes-optimal denoiser of the sphere task, given the sphere's subspace.

    Parameters
    ----------
    query : numpy.ndarray
        (B, n): the noisy queries ``x~``, finite.
    basis : numpy.ndarray
        (B, n, d+1): an orthonormal basis of the ``m = d + 1``-dimensional subspace holding
        each prompt's sphere.
    radius : float
        Sphere radius ``R``, ``> 0``.
    sigma_z_sq : float
        Noise variance ``sigma_Z^2``, ``> 0``.

    Returns
    -------
    numpy.ndarray
        (B, n): the posterior means ``E[x | x~]``; 0 where ``x~_par = 0`` (a uniform posterior).

    Notes
    -----
    The posterior of ``x`` given ``x~`` is von Mises-Fisher on the sphere with mean direction
    ``x~_par / |x~_par|`` (``x~_par`` the projection on the subspace) and concentration
    ``kappa = R |x~_par| / sigma_Z^2``, so
    ``E[x | x~] = [I_{(d+1)/2}(kappa) / I_{(d-1)/2}(kappa)] R x~_par / |x~_par|``
    (the paper's equation; the official code's baseline uses orders ``d - 1/2``, ``d - 3/2``).
    """
    query, basis = _check_query(query, basis, "basis", 1)
    R, sz = _positive("radius", radius), _positive("sigma_z_sq", sigma_z_sq)
    coords = np.einsum("bnm,bn->bm", basis, query)  # (B, m), x~_par in the subspace
    norm = np.linalg.norm(coords, axis=1, keepdims=True)  # (B, 1)
    ratio = vmf_mean_ratio(basis.shape[2], R * norm / sz)  # (B, 1)
    # x~_par = 0: the posterior is uniform on the sphere, mean 0
    scaled = ratio * R * coords  # (B, m)
    mean = np.divide(scaled, norm, out=np.zeros_like(scaled), where=norm > 0)  # (B, m)
    return np.einsum("bnm,bm->bn", basis, mean)


def bayes_gmm(
    query: np.ndarray,
    centers: np.ndarray,
    sigma_0_sq: float,
    sigma_z_sq: float,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Bayes-optimal denoiser of the isotropic Gaussian-mixture task, given the centres.

    Parameters
    ----------
    query : numpy.ndarray
        (B, n): the noisy queries ``x~``, finite.
    centers : numpy.ndarray
        (B, K, n): the centres ``mu_a`` of each prompt's mixture.
    sigma_0_sq : float
        Variance ``sigma_0^2`` of each component, ``>= 0``.
    sigma_z_sq : float
        Noise variance ``sigma_Z^2``, ``> 0``.
    weights : numpy.ndarray or None, default None
        (K,) or (B, K): positive mixture weights ``w_a`` (normalised to sum to 1); None for
        equal weights ``1/K``.

    Returns
    -------
    numpy.ndarray
        (B, n): the posterior means ``E[x | x~]``.

    Notes
    -----
    For the mixture ``sum_a w_a N(mu_a, sigma_0^2 I)``,
    ``E[x | x~] = s x~ + (1 - s) sum_a softmax_a(<mu_a, x~> / v - |mu_a|^2 / (2 v) + ln w_a) mu_a``
    with ``v = sigma_0^2 + sigma_Z^2``, ``s = sigma_0^2 / v``; for equal-norm centres the
    ``|mu_a|^2`` term cancels and this is the paper's formula.
    """
    query, centers = _check_query(query, centers, "centers", 2)
    s0 = _positive("sigma_0_sq", sigma_0_sq, zero_ok=True)
    sz = _positive("sigma_z_sq", sigma_z_sq)
    K = centers.shape[1]
    w = np.full(K, 1.0 / K) if weights is None else real_array("weights", weights)
    if w.shape not in ((K,), (query.shape[0], K)) or np.any(w <= 0):
        raise ValueError(f"weights must be positive with shape ({K},) or (B, {K}), got {w.shape}")
    v = s0 + sz
    logits = (
        np.einsum("bkn,bn->bk", centers, query) - 0.5 * np.sum(centers**2, axis=2)
    ) / v + np.log(w / w.sum(axis=-1, keepdims=True))
    resp = softmax(logits, axis=1)  # (B, K) posterior over components
    return s0 / v * query + sz / v * np.einsum("bk,bkn->bn", resp, centers)
