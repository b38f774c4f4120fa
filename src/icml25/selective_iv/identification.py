"""Identification of the class probabilities ``eta_k(x) = P(Y = k | X = x)`` from selectively
labelled data with an instrument, and the cost-sensitive weights of unified cost-sensitive
learning (UCL) (Chen, Li & Mao, ICML 2025).

Every function takes conditional moments (true ones in tests, cross-fitted estimates in
:class:`~icml25.selective_iv.UCLClassifier`) and returns arrays; nothing is fitted here.

Point identification (the Wald ratio, one per class):
``eta_k(x) = Cov(D 1{Y=k}, Z | X=x) / Cov(D, Z | X=x)``.

Partial identification (Manski-type bounds intersected over the instrument's levels): for each
level ``z``, ``l_{k,z}(x) = E[D 1{Y=k} | x, z] + a P(D=0 | x, z)`` and
``u_{k,z}(x) = l_{k,z}(x) + (b - a) P(D=0 | x, z)``, where ``[a, b]`` bounds the unknown
``P(Y=k | x, z, D=0)`` (``a = 0, b = 1`` if nothing is known); then
``L_k = max_z l_{k,z}`` and ``U_k = min_z u_{k,z}`` (tight), or their robust versions, the
``q``-quantile and ``(1-q)``-quantile over ``z`` (the official code uses ``q = 0.8``).

UCL weights: the excess 0-1 risk of predicting class ``k`` is ``max_p eta_p - eta_k``
(point); its worst case over the identified set is ``[max_p U_p - L_k]_+`` (partial). A
classifier ``f`` then minimises ``E[sum_k W_k(X) 1{f(X) = k}]``.
"""

from __future__ import annotations

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_real


def point_identified_eta(
    m_d: np.ndarray,
    m_z: np.ndarray,
    m_dz: np.ndarray,
    m_dy: np.ndarray,
    m_dzy: np.ndarray,
    *,
    min_cov: float = 1e-12,
) -> np.ndarray:
    """The Wald ratio ``eta_k(x) = Cov(D 1{Y=k}, Z | x) / Cov(D, Z | x)`` for every class.

    Parameters
    ----------
    m_d : array_like, shape (n,)
        ``E[D | x]``.
    m_z : array_like, shape (n,)
        ``E[Z | x]``.
    m_dz : array_like, shape (n,)
        ``E[D Z | x]``.
    m_dy : array_like, shape (n, K)
        ``E[D 1{Y=k} | x]``.
    m_dzy : array_like, shape (n, K)
        ``E[D Z 1{Y=k} | x]``.
    min_cov : float, default 1e-12
        Floor, ``> 0``, of ``|Cov(D, Z | x)|`` (sign kept, 0 counted positive), so that units
        where the instrument is estimated to have no effect get a finite (huge, or 0 where the
        numerator is 0 too) ratio instead of inf or nan.

    Returns
    -------
    eta : ndarray, shape (n, K)
        The ratio per unit and class; rows sum to 1 whenever the moments are coherent
        (``sum_k m_dy = m_d``, ``sum_k m_dzy = m_dz``). The ratio is not clipped: estimates may
        leave ``[0, 1]`` where the instrument is weak.
    """
    m_d, m_z, m_dz = (_vector(name, v) for name, v in (("m_d", m_d), ("m_z", m_z), ("m_dz", m_dz)))
    m_dy, m_dzy = _matrix("m_dy", m_dy), _matrix("m_dzy", m_dzy)
    n = m_d.shape[0]
    if m_z.shape[0] != n or m_dz.shape[0] != n or m_dy.shape != m_dzy.shape or m_dy.shape[0] != n:
        raise ValueError(
            "m_d, m_z, m_dz must have shape (n,) and m_dy, m_dzy shape (n, K) with the same n, "
            f"got {m_d.shape}, {m_z.shape}, {m_dz.shape}, {m_dy.shape}, {m_dzy.shape}"
        )
    cov_dz = wald_denominator(m_d, m_z, m_dz)  # (n,) Cov(D, Z | x)
    cov_dyz = m_dzy - m_dy * m_z[:, None]  # (n, K) Cov(D 1{Y=k}, Z | x)
    min_cov = check_real("min_cov", min_cov, low=0.0, high=np.inf, low_open=True)
    cov_dz = np.where(cov_dz < 0, -1.0, 1.0) * np.maximum(np.abs(cov_dz), min_cov)
    return cov_dyz / cov_dz[:, None]


def wald_denominator(m_d: np.ndarray, m_z: np.ndarray, m_dz: np.ndarray) -> np.ndarray:
    """The first stage of the Wald ratio, ``Cov(D, Z | x) = E[D Z | x] - E[D | x] E[Z | x]``.

    Parameters
    ----------
    m_d : array_like, shape (n,)
        ``E[D | x]``.
    m_z : array_like, shape (n,)
        ``E[Z | x]``.
    m_dz : array_like, shape (n,)
        ``E[D Z | x]``.

    Returns
    -------
    ndarray, shape (n,)
        ``Cov(D, Z | x)`` per unit.
    """
    m_d, m_z, m_dz = (_vector(name, v) for name, v in (("m_d", m_d), ("m_z", m_z), ("m_dz", m_dz)))
    if not m_d.shape == m_z.shape == m_dz.shape:
        raise ValueError(
            f"m_d, m_z, m_dz must have the same shape (n,), got {m_d.shape}, {m_z.shape}, "
            f"{m_dz.shape}"
        )
    return m_dz - m_d * m_z


def first_stage_slope(m_d, m_z, m_dz, var_z: float) -> np.ndarray:
    """Per-unit strength of the instrument: ``Cov(D, Z | x) / Var(Z)``.

    With ``Z`` assigned at random (``Var(Z | x) = Var(Z)``) this is the slope of the linear
    projection of ``P(D = 1 | x, Z)`` on ``Z``: how much the decision probability at ``x``
    moves per unit of the instrument. The Wald ratio divides by ``Cov(D, Z | x)``; where the
    slope is near 0 the instrument is weak at ``x`` and the estimate of ``eta(x)`` is the
    nuisance models' error divided by a tiny number.

    Parameters
    ----------
    m_d : array_like, shape (n,)
        ``E[D | x]``.
    m_z : array_like, shape (n,)
        ``E[Z | x]``.
    m_dz : array_like, shape (n,)
        ``E[D Z | x]``.
    var_z : float
        Variance of the instrument, ``> 0``.

    Returns
    -------
    ndarray, shape (n,)
        The slope per unit.
    """
    var_z = check_real("var_z", var_z, low=0.0, high=np.inf, low_open=True)
    return wald_denominator(m_d, m_z, m_dz) / var_z


def level_first_stage_slope(p_d1_z: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Per-unit first-stage slope from the decision probability at each level of the instrument.

    Parameters
    ----------
    p_d1_z : array_like, shape (n, L)
        ``P(D = 1 | x, Z = z_j)`` of each unit at each of the ``L`` levels.
    levels : array_like, shape (L,)
        The levels ``z_j``, ``L >= 2`` and not all equal.

    Returns
    -------
    ndarray, shape (n,)
        The least-squares slope of ``P(D = 1 | x, z)`` on ``z`` over the ``L`` levels (equal
        weights, as for a uniformly assigned instrument).
    """
    p_d1_z = _matrix("p_d1_z", p_d1_z)
    levels = _vector("levels", levels)
    if p_d1_z.shape[1] != levels.shape[0] or levels.shape[0] < 2:
        raise ValueError(
            f"levels must have shape (L,) with L >= 2 matching p_d1_z (n, L), got "
            f"{levels.shape} and {p_d1_z.shape}"
        )
    centred = levels - levels.mean()  # (L,)
    return (p_d1_z - p_d1_z.mean(axis=1, keepdims=True)) @ centred / (centred @ centred)


def partial_identification_bounds(
    m_dy_z: np.ndarray,
    p_d0_z: np.ndarray,
    *,
    a: float = 0.0,
    b: float = 1.0,
    quantile: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Bounds ``L_k(x) <= eta_k(x) <= U_k(x)`` from each instrument level, intersected over ``z``.

    Parameters
    ----------
    m_dy_z : array_like, shape (n, L, K)
        ``E[D 1{Y=k} | x, Z = z_j]`` at each of the ``L`` levels, in ``[0, 1]``.
    p_d0_z : array_like, shape (n, L)
        ``P(D = 0 | x, Z = z_j)``, in ``[0, 1]``.
    a : float, default 0.0
        Known lower bound on ``P(Y = k | x, z, D = 0)``, in ``[0, 1]``.
    b : float, default 1.0
        Known upper bound on ``P(Y = k | x, z, D = 0)``, in ``[a, 1]``.
    quantile : float, default 1.0
        ``q`` in ``[0.5, 1]``; ``L_k`` is the ``q``-quantile over levels of ``l_{k,z}`` and
        ``U_k`` the ``(1-q)``-quantile of ``u_{k,z}`` (linear interpolation). ``q = 1`` gives
        the tight intersection bounds ``max_z l``, ``min_z u``; the official code uses 0.8.

    Returns
    -------
    L : ndarray, shape (n, K)
        Lower bounds ``L_k(x)``.
    U : ndarray, shape (n, K)
        Upper bounds ``U_k(x)``; not forced above ``L`` (they may cross when the levels
        disagree).
    """
    m_dy_z = real_array("m_dy_z", m_dy_z)
    p_d0_z = real_array("p_d0_z", p_d0_z)
    if m_dy_z.ndim != 3 or p_d0_z.shape != m_dy_z.shape[:2]:
        raise ValueError(
            "m_dy_z must have shape (n, L, K) and p_d0_z shape (n, L), "
            f"got {m_dy_z.shape} and {p_d0_z.shape}"
        )
    for name, values in (("m_dy_z", m_dy_z), ("p_d0_z", p_d0_z)):
        if values.min() < 0.0 or values.max() > 1.0:
            raise ValueError(f"{name} must hold probabilities in [0, 1]")
    a = check_real("a", a, low=0.0, high=1.0)
    b = check_real("b", b, low=a, high=1.0)
    q = check_real("quantile", quantile, low=0.5, high=1.0)
    lower = m_dy_z + a * p_d0_z[:, :, None]  # (n, L, K) l_{k,z}
    upper = lower + (b - a) * p_d0_z[:, :, None]  # (n, L, K) u_{k,z}
    return np.quantile(lower, q, axis=1), np.quantile(upper, 1.0 - q, axis=1)


def point_weights(eta: np.ndarray) -> np.ndarray:
    """UCL weights under point identification: ``W_k = max_p eta_p - eta_k``.

    ``sum_k W_k 1{f = k}`` is the excess 0-1 risk of predicting ``f`` over the Bayes rule.

    Parameters
    ----------
    eta : array_like, shape (n, K)
        Class probabilities ``eta_k(x)`` (or their estimates) of each unit.

    Returns
    -------
    ndarray, shape (n, K)
        ``W_k(x) >= 0``, 0 at each unit's most probable class.
    """
    eta = _matrix("eta", eta)
    return eta.max(axis=1, keepdims=True) - eta


def partial_weights(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """UCL weights under partial identification: ``W_k = [max_p U_p - L_k]_+``.

    The largest excess risk of predicting ``k`` over all ``eta`` with ``L <= eta <= U``
    (the official code's choice: the simplex constraint ``sum_k eta_k = 1`` is not imposed).

    Parameters
    ----------
    lower : array_like, shape (n, K)
        Lower bounds ``L_k(x)``.
    upper : array_like, shape (n, K)
        Upper bounds ``U_k(x)``, same shape as ``lower``.

    Returns
    -------
    ndarray, shape (n, K)
        ``W_k(x) >= 0``.
    """
    lower, upper = _matrix("lower", lower), _matrix("upper", upper)
    if lower.shape != upper.shape:
        raise ValueError(
            f"lower and upper must have the same shape, got {lower.shape}, {upper.shape}"
        )
    return np.maximum(upper.max(axis=1, keepdims=True) - lower, 0.0)


def clip_upper_quantile(weights: np.ndarray, quantile: float | None) -> np.ndarray:
    """Clip each column of the weights at its upper quantile.

    Parameters
    ----------
    weights : ndarray, shape (n, K) or (n,)
        Weights, one row per unit.
    quantile : float or None
        Quantile in ``[0, 1]`` of each column (over the rows) to clip at (official code: 0.9);
        None leaves ``weights`` unchanged.

    Returns
    -------
    ndarray, same shape as ``weights``
        ``min(weights, column quantile)``; ``weights`` itself when ``quantile`` is None.
    """
    if quantile is None:
        return weights
    q = check_real("quantile", quantile, low=0.0, high=1.0)
    return np.minimum(weights, np.quantile(weights, q, axis=0, keepdims=True))


def _vector(name: str, value) -> np.ndarray:
    value = np.asarray(value, dtype=float)
    if value.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array of shape (n,), got shape {value.shape}")
    return value


def _matrix(name: str, value) -> np.ndarray:
    value = np.asarray(value, dtype=float)
    if value.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array of shape (n, K), got shape {value.shape}")
    return value
