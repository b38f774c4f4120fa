"""Normalized loss curves, the collapse deviation, the seed noise floor and their ingredients.

Qiu et al., *Scaling Collapse Reveals Universal Dynamics in Compute-Optimally Trained Neural
Networks*, ICML 2025. With ``L(t, p, w)`` the loss of a model of ``p`` parameters and seed ``w``
after ``t`` of its ``t*(p)`` compute-optimal steps and ``L0`` the irreducible loss:

- normalized curve (Eq. 1):   ``l(x, p, w) = (L(x t*(p), p, w) - L0) / (L(t*(p), p, w) - L0)``;
- collapse deviation:         ``Delta(x) = sd_{p,w}[l(x, p, w)] / mean_{p,w}[l(x, p, w)]``;
- seed noise floor:           ``sigma(x, p) = sd_w[L(x t*(p), p, w) - L0] / mean_w[L - L0]``;
- supercollapse: ``Delta(x) < sigma(x)``, the curves of different sizes agree better than one
  size's curve is known from its seeds;
- ``L0`` from the compute-optimal end points by ``L = L0 + a c^-b``, a Huber loss on log L;
- compute-optimal horizons from a fitted frontier ``c*(p) = kappa p^(1 + gamma)``, i.e.
  ``t*(p) ∝ p^gamma`` samples (``fit_compute_optimal``: frontier of constant-rate curves,
  points won by the smallest or largest size dropped, least squares in log-log);
- for a sum of power laws ``L = L0 + t^-mu + p^-nu`` trained compute-optimally,
  ``l(x) = (r x^-mu + 1) / (r + 1)`` with ``r = nu / mu``, the same for every ``p`` (Sec. 4).

Standard deviations are sample ones (``ddof = 1``) in both ``Delta`` and ``sigma``.
"""

from __future__ import annotations

from itertools import product

import numpy as np
from scipy.optimize import least_squares

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real

MAX_POINTS = 2**30  # frontier grids of more floats (8 GiB) are refused as a size typo


def normalized_curves(loss, L0: float) -> np.ndarray:
    """``l = (L - L0) / (L[..., -1] - L0)``: curves ``(..., X)`` whose last point is ``x = 1``.

    Parameters
    ----------
    loss : array_like
        Raw loss curves ``L`` (..., X), X >= 2, on a grid of fractions ``x`` of each curve's
        compute-optimal horizon whose last point is ``x = 1``; finite real numbers.
    L0 : float
        The irreducible loss; it must lie below every final loss ``L[..., -1]``.

    Returns
    -------
    numpy.ndarray
        The normalized curves ``l`` (..., X), float64, equal to 1 at the last point.

    Raises
    ------
    ValueError
        If ``loss`` is not a finite array with X >= 2, or ``L0`` is not below every final loss.
    """
    loss = real_array("loss", loss)
    L0 = check_real("L0", L0, low=-np.inf, high=np.inf, high_open=True, low_open=True)
    if loss.ndim < 1 or loss.shape[-1] < 2:
        raise ValueError(f"loss must have shape (..., X) with X >= 2, got {loss.shape}")
    final = loss[..., -1:] - L0
    if np.any(final <= 0):
        raise ValueError("L0 must lie below every final loss")
    return (loss - L0) / final


def collapse_deviation(ell) -> np.ndarray:
    """``Delta(x)``: spread of the normalized curves over sizes and seeds, relative to their mean.

    ``Delta(x) = sd_{p,w}[l(x, p, w)] / mean_{p,w}[l(x, p, w)]`` (Qiu et al., ICML 2025), the
    standard deviation a sample one (``ddof = 1``) over the ``P W`` curves pooled. Supercollapse
    is ``Delta(x)`` below the seed noise floor :func:`noise_floor`.

    Parameters
    ----------
    ell : array_like
        The normalized loss curves ``l`` (P, W, X) of P model sizes and W >= 2 seeds each on a
        common grid of X fractions ``x`` of the compute-optimal horizon (as
        :func:`normalized_curves` gives them); finite real numbers, with a nonzero mean over
        sizes and seeds at every ``x``.

    Returns
    -------
    numpy.ndarray
        ``Delta`` (X,), float64: the collapse deviation at each ``x`` (0 where all curves
        agree).

    Raises
    ------
    ValueError
        If ``ell`` is not a finite (P, W, X) array with W >= 2, or its mean is zero at some
        ``x``.
    """
    ell = _curves("l", ell)
    pooled = ell.reshape(-1, ell.shape[-1])  # (P W, X)
    mean = pooled.mean(axis=0)
    if np.any(mean == 0):
        raise ValueError("l must have a nonzero mean over sizes and seeds at every x")
    return pooled.std(axis=0, ddof=1) / mean


def noise_floor(loss, L0: float) -> np.ndarray:
    """``sigma(x, p)``: seed-to-seed spread of ``L - L0`` relative to its mean, for raw curves
    ``loss (P, W, X)`` on a common grid of ``x``; returns ``(P, X)``. ``L0`` must lie below
    the seeds' mean loss at every ``(p, x)``.

    Parameters
    ----------
    loss : array_like
        Raw loss curves ``L`` (P, W, X) of P model sizes and W >= 2 seeds each on a common grid
        of X fractions ``x`` of the compute-optimal horizon; finite real numbers.
    L0 : float
        The irreducible loss, below the mean over seeds of ``loss`` at every ``(p, x)``.

    Returns
    -------
    numpy.ndarray
        ``sigma`` (P, X), float64: the sample standard deviation (``ddof = 1``) over seeds of
        ``L - L0`` divided by its mean over seeds.

    Raises
    ------
    ValueError
        If ``loss`` is not a finite (P, W, X) array with W >= 2, or ``L0`` is not below the
        seeds' mean loss somewhere.
    """
    loss = _curves("loss", loss)
    check_real("L0", L0, low=-np.inf, high=np.inf, high_open=True, low_open=True)
    excess = loss - L0
    mean = excess.mean(axis=1)
    if np.any(mean <= 0):
        raise ValueError("L0 must lie below the mean loss over seeds at every (p, x)")
    return excess.std(axis=1, ddof=1) / mean


def _curves(name: str, a) -> np.ndarray:
    a = real_array(name, a)
    if a.ndim != 3 or a.shape[1] < 2:
        raise ValueError(f"{name} must have shape (P, W, X) with W >= 2 seeds, got {a.shape}")
    return a


def fit_irreducible_loss(compute, loss, delta: float = 1e-3, starts: int = 3) -> dict[str, float]:
    """Fit ``L = L0 + a c^-b`` to end points ``(c_i, L_i)`` by a Huber loss (threshold
    ``delta``) on the residuals of ``log L`` (``scipy.optimize.least_squares``, all parameters
    >= 0), best of a grid of ``starts^2`` initial ``(L0, b)``; compute is rescaled by its smallest
    value inside. Returns ``L0, a, b`` and ``r2`` (on log L), as the official notebook's fit.

    Parameters
    ----------
    compute : array_like
        Compute ``c`` (n,), n >= 3, of the compute-optimal end points; positive.
    loss : array_like
        Their losses ``L`` (n,); positive.
    delta : float, default 1e-3
        The Huber threshold on the residuals of ``log L``; positive.
    starts : int, default 3
        Initial values per parameter ``L0`` and ``b`` (``starts^2`` fits); 1 to 100.

    Returns
    -------
    dict of str to float
        ``"L0"`` the irreducible loss, ``"a"`` and ``"b"`` the amplitude (in the units of the
        original ``compute``) and exponent of ``a c^-b``, and ``"r2"`` the coefficient of
        determination of the fit on ``log L``.

    Raises
    ------
    ValueError
        If ``compute`` and ``loss`` are not equally long 1-d positive arrays of length >= 3, or
        ``delta`` or ``starts`` is out of range.
    """
    c, L = real_array("compute", compute), real_array("loss", loss)
    if c.shape != L.shape or c.ndim != 1 or c.size < 3:
        raise ValueError("compute and loss must be 1-d arrays of the same length >= 3")
    if np.any(c <= 0) or np.any(L <= 0):
        raise ValueError("compute and loss must be positive")
    check_real("delta", delta, low=0.0, high=np.inf, low_open=True, high_open=True)
    starts = check_int("starts", starts, minimum=1)
    if starts > 100:
        raise ValueError(f"starts must be at most 100 (starts^2 fits), got {starts}")
    u = c / c.min()

    def residuals(theta):  # (n,)
        L0, a, b = theta
        return np.log(L0 + a * u**-b) - np.log(L)

    fits = []
    for L0, b in product(np.linspace(0.0, 0.9, starts) * L.min(), np.geomspace(0.03, 1.0, starts)):
        a = max(L.max() - L0, 1e-12)
        fits.append(
            least_squares(residuals, [L0, a, b], bounds=(0, np.inf), loss="huber", f_scale=delta)
        )
    L0, a, b = min(fits, key=lambda r: r.cost).x
    r = residuals((L0, a, b))
    r2 = 1.0 - np.sum(r**2) / np.sum((np.log(L) - np.log(L).mean()) ** 2)
    return {"L0": float(L0), "a": float(a * c.min() ** b), "b": float(b), "r2": float(r2)}


def compute_frontier(compute: list, loss: list, n_points: int = 200):
    """The Pareto frontier of loss against compute over several models' curves.

    ``compute[i], loss[i]`` are the curve of model ``i`` (increasing compute); on ``n_points``
    log-spaced computes inside the range all curves cover at least one of, returns
    ``(c (n,), L_min (n,), best (n,))`` with ``best`` the index of the winning model (log-log
    linear interpolation of each curve, as the official notebook).

    Parameters
    ----------
    compute : list of array_like
        One increasing 1-d array of computes per model, with some positive entries (entries
        <= 0 are ignored).
    loss : list of array_like
        The matching 1-d loss curves, as long as ``compute[i]`` and positive where it is.
    n_points : int, default 200
        Number of log-spaced computes of the frontier grid; at least 1.

    Returns
    -------
    c : numpy.ndarray
        The compute grid (n_points,), log-spaced from the smallest positive to the largest
        compute of any curve.
    L_min : numpy.ndarray
        The frontier (n_points,): the least interpolated loss at each ``c`` (``inf`` where no
        curve covers it).
    best : numpy.ndarray
        The index (n_points,) of the model that attains ``L_min``, int.

    Raises
    ------
    ValueError
        If the lists are empty or unequally long, a curve is malformed, or ``n_points`` times
        the number of curves exceeds ``2**30``.
    """
    if len(compute) != len(loss) or not len(compute):
        raise ValueError("compute and loss must be equally long, non-empty lists of curves")
    for i, (c, L) in enumerate(zip(compute, loss, strict=True)):
        c, L = real_array(f"compute[{i}]", c, ndim=1), real_array(f"loss[{i}]", L, ndim=1)
        if c.shape != L.shape:
            raise ValueError(
                f"compute[{i}] and loss[{i}] must be equally long, got {c.shape}, {L.shape}"
            )
        if not np.any(c > 0) or np.any(np.diff(c) < 0):
            raise ValueError(f"compute[{i}] must be increasing with some positive entries")
        if np.any(L[c > 0] <= 0):
            raise ValueError(f"loss[{i}] must be positive where compute[{i}] is")
    n_points = check_int("n_points", n_points, minimum=1)
    if n_points * len(compute) > MAX_POINTS:
        raise ValueError(
            f"n_points * len(compute) must be at most 2**30, got {n_points * len(compute)}"
        )
    lo = min(np.min(np.asarray(c)[np.asarray(c) > 0]) for c in compute)
    hi = max(np.max(c) for c in compute)
    grid = np.geomspace(lo, hi, n_points)
    interp = np.full((len(compute), n_points), np.inf)
    for i, (c, L) in enumerate(zip(compute, loss, strict=True)):
        c, L = np.asarray(c, dtype=float), np.asarray(L, dtype=float)
        ok = c > 0
        inside = (grid >= c[ok].min()) & (grid <= c[ok].max())
        interp[i, inside] = np.exp(np.interp(np.log(grid[inside]), np.log(c[ok]), np.log(L[ok])))
    best = interp.argmin(axis=0)
    return grid, interp[best, np.arange(n_points)], best


def fit_frontier_exponent(params, compute) -> tuple[float, float]:
    """Fit ``c*(p) = kappa p^(1 + gamma)`` to compute-optimal pairs (least squares in log-log, as
    the official notebook); returns ``(kappa, gamma)``: horizons then grow as ``p^gamma``.

    Parameters
    ----------
    params : array_like
        Model sizes ``p`` (n,) of the compute-optimal pairs, positive, at least 2 distinct.
    compute : array_like
        Their compute-optimal computes ``c*`` (n,), positive.

    Returns
    -------
    kappa : float
        The prefactor of ``c*(p) = kappa p^(1 + gamma)``.
    gamma : float
        The exponent of the horizons, ``t*(p) ∝ p^gamma``.

    Raises
    ------
    ValueError
        If the arrays are not 1-d, equally long and positive with >= 2 distinct sizes.
    """
    p, c = real_array("params", params), real_array("compute", compute)
    if p.shape != c.shape or p.ndim != 1 or np.unique(p).size < 2:
        raise ValueError("params and compute must be 1-d, equally long, with >= 2 distinct sizes")
    if np.any(p <= 0) or np.any(c <= 0):
        raise ValueError("params and compute must be positive")
    slope, intercept = np.polyfit(np.log(p), np.log(c), 1)
    return float(np.exp(intercept)), float(slope - 1.0)


def fit_compute_optimal(params, compute: list, loss: list, n_points: int = 1000) -> dict:
    """The compute-optimal scaling of a family of loss curves (official notebook
    ``fit_optimal_horizon``): the Pareto frontier of the curves of models of sizes ``params (P,)``
    (``compute[i], loss[i]`` the curve of model ``i``, usually trained at a constant rate), the
    frontier points won by the smallest or the largest model dropped (their optimal range is cut
    by the budget), and ``c* = kappa p^(1 + gamma)`` fitted to the rest. If fewer than two sizes
    win inside, all frontier points are used (``interior`` False). Returns ``kappa, gamma``,
    the frontier ``c, L_min, p_opt`` and ``interior``.

    Parameters
    ----------
    params : array_like
        Model sizes ``p`` (P,), positive, one per curve.
    compute : list of array_like
        The P compute axes, as in :func:`compute_frontier`.
    loss : list of array_like
        The P loss curves, as in :func:`compute_frontier`.
    n_points : int, default 1000
        Number of log-spaced computes of the frontier grid.

    Returns
    -------
    dict
        ``"kappa"``, ``"gamma"`` (float) of ``c* = kappa p^(1 + gamma)``; the frontier ``"c"``,
        ``"L_min"`` (n_points,) and ``"p_opt"`` (n_points,) the size winning at each ``c``; and
        ``"interior"`` (bool), whether only points won by inner sizes were fitted.

    Raises
    ------
    ValueError
        If ``params`` is not P positive sizes, or as :func:`compute_frontier` and
        :func:`fit_frontier_exponent` raise.
    """
    p = real_array("params", params)
    if p.ndim != 1 or p.size != len(compute) or np.any(p <= 0):
        raise ValueError(f"params must be {len(compute)} positive sizes, got {params!r}")
    c, L_min, best = compute_frontier(compute, loss, n_points)
    p_opt = p[best]  # (n,)
    inner = (p_opt > p.min()) & (p_opt < p.max())
    interior = np.unique(p_opt[inner]).size >= 2
    keep = inner if interior else np.ones_like(inner)
    kappa, gamma = fit_frontier_exponent(p_opt[keep], c[keep])
    return {
        "kappa": kappa,
        "gamma": gamma,
        "c": c,
        "L_min": L_min,
        "p_opt": p_opt,
        "interior": bool(interior),
    }


def optimal_horizon(params, gamma: float, ref_params: float, ref_horizon: float) -> np.ndarray:
    """``t*(p) = t_ref (p / p_ref)^gamma``: the compute-optimal number of training samples (or
    steps at a fixed batch) of each size, anchored at ``t*(p_ref) = t_ref``.

    Parameters
    ----------
    params : array_like
        Model sizes ``p``, any shape, positive.
    gamma : float
        The horizon exponent (from :func:`fit_frontier_exponent`).
    ref_params : float
        The reference size ``p_ref``, positive.
    ref_horizon : float
        Its compute-optimal horizon ``t_ref``, positive.

    Returns
    -------
    numpy.ndarray
        ``t*(p)``, the shape of ``params``, float64 (in the units of ``ref_horizon``).

    Raises
    ------
    ValueError
        If a size, ``ref_params`` or ``ref_horizon`` is not positive, or ``gamma`` not finite.
    """
    gamma = check_real("gamma", gamma, low=-np.inf, high=np.inf, low_open=True, high_open=True)
    ref_params = check_real("ref_params", ref_params, low=0, high=np.inf, low_open=True)
    ref_horizon = check_real("ref_horizon", ref_horizon, low=0, high=np.inf, low_open=True)
    p = real_array("params", params)
    if np.any(p <= 0):
        raise ValueError("params must be positive")
    return ref_horizon * (p / ref_params) ** gamma


def power_law_loss(t, p, mu: float, nu: float, L0: float = 0.0) -> np.ndarray:
    """``L(t, p) = L0 + t^-mu + p^-nu`` (broadcast over ``t`` and ``p``, both positive).

    Parameters
    ----------
    t : array_like
        Training horizons (samples or steps), positive; broadcast against ``p``.
    p : array_like
        Model sizes, positive.
    mu : float
        The exponent of the horizon term, positive.
    nu : float
        The exponent of the size term, positive.
    L0 : float, default 0.0
        The irreducible loss.

    Returns
    -------
    numpy.ndarray
        ``L(t, p)``, float64, of the broadcast shape of ``t`` and ``p``.

    Raises
    ------
    ValueError
        If ``t`` or ``p`` is not positive, they do not broadcast, or an exponent is not
        positive.
    """
    for name, value in (("t", t), ("p", p)):
        if np.any(real_array(name, value) <= 0):
            raise ValueError(f"{name} must be positive")
    try:
        np.broadcast_shapes(np.shape(t), np.shape(p))
    except ValueError:
        raise ValueError(
            f"t and p must broadcast together, got {np.shape(t)} and {np.shape(p)}"
        ) from None
    check_real("mu", mu, low=0, high=np.inf, low_open=True, high_open=True)
    check_real("nu", nu, low=0, high=np.inf, low_open=True, high_open=True)
    check_real("L0", L0, low=-np.inf, high=np.inf, low_open=True, high_open=True)
    return L0 + np.asarray(t, dtype=float) ** -mu + np.asarray(p, dtype=float) ** -nu


def power_law_optimal_horizon(p, mu: float, nu: float) -> np.ndarray:
    """The minimiser of ``power_law_loss`` at fixed compute ``c = 6 p t``:
    ``t*(p) = (mu / nu)^(1/mu) p^(nu/mu)`` (stationarity: ``mu t^-mu = nu p^-nu``).

    Parameters
    ----------
    p : array_like
        Model sizes, any shape, positive.
    mu : float
        The exponent of the horizon term, positive.
    nu : float
        The exponent of the size term, positive.

    Returns
    -------
    numpy.ndarray
        ``t*(p)``, float64, the shape of ``p``.

    Raises
    ------
    ValueError
        If a size or an exponent is not positive.
    """
    mu = check_real("mu", mu, low=0, high=np.inf, low_open=True, high_open=True)
    nu = check_real("nu", nu, low=0, high=np.inf, low_open=True, high_open=True)
    p = real_array("p", p)
    if np.any(p <= 0):
        raise ValueError("p must be positive")
    return (mu / nu) ** (1.0 / mu) * p ** (nu / mu)


def power_law_collapse(x, mu: float, nu: float) -> np.ndarray:
    """The universal normalized curve ``l(x) = (r x^-mu + 1) / (r + 1)``, ``r = nu / mu``.

    Parameters
    ----------
    x : array_like
        Fractions of the compute-optimal horizon, any shape, positive.
    mu : float
        The exponent of the horizon term, positive.
    nu : float
        The exponent of the size term, positive.

    Returns
    -------
    numpy.ndarray
        ``l(x)``, float64, the shape of ``x`` (1 at ``x = 1``).

    Raises
    ------
    ValueError
        If ``x`` or an exponent is not positive.
    """
    mu = check_real("mu", mu, low=0, high=np.inf, low_open=True, high_open=True)
    nu = check_real("nu", nu, low=0, high=np.inf, low_open=True, high_open=True)
    x = real_array("x", x)
    if np.any(x <= 0):
        raise ValueError("x must be positive")
    r = nu / mu
    return (r * x**-mu + 1.0) / (r + 1.0)
