"""Data for TimeBridge: a generator of co-integrated multivariate series whose co-integration
rank is known, its drifting-level and no-co-integration variants, and statsmodels' macrodata.

The generator (ours; the paper uses ETT, Weather, Electricity, Traffic, Solar and stock indices,
none of which can be downloaded here): ``K`` random-walk trends ``tau_k(t) = tau_k(t-1) +
trend_sd e``, mixed into ``N`` series with loadings ``B`` (N, K) and a lead-lag ``l_i`` (series
``i`` follows the trends ``l_i`` steps late, ``l_i`` uniform on 0..max_lag; the first ``K``
series lead with ``l = 0``):

    y_i(t) = B_i . tau(t - l_i) + s_i(t) + u_i(t),

``s_i`` two sinusoids of periods 24 and 168 (daily and weekly in hourly data) with random
amplitudes and phases, ``u_i`` AR(1) noise ``u(t) = phi u(t-1) + noise_sd e``. Every ``w`` with
``w^T B = 0`` makes ``w^T y`` stationary (``tau(t - l) - tau(t)`` is a sum of ``l`` increments), so
the co-integration rank is ``N - K``.

Variants (``kind``):
- ``"cointegrated"``: as above, rank ``N - K``;
- ``"independent"``: the control with no co-integration: each series its own random walk
  (``K = N``, ``B = diag`` of the same scale), rank 0;
- ``"drifting"``: the co-integrated series plus a common drifting level ``L(t)`` added to every
  series: ``L(t) = L(t-1) + m(t)`` with a slope ``m`` redrawn N(0, drift_sd^2) at the start of
  each segment of ``drift_every`` steps, so the level drifts up and down within an input window.
  ``L`` is one more common trend (loading 1 on every series): rank ``N - K - 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.signal import lfilter

from icml25.common.validate import check_int, check_real

__all__ = ["KINDS", "MACRO_COLUMNS", "Series", "cointegrated_series", "macrodata"]

KINDS = ("cointegrated", "independent", "drifting")
MAX_FLOATS = 2**30  # an array of more float64s (8 GiB) is refused as a size typo
MACRO_COLUMNS = ("realgdp", "realcons", "realinv", "realgovt", "realdpi", "cpi", "m1", "pop")


@dataclass(frozen=True)
class Series:
    """A multivariate series with its known co-integration structure.

    Parameters
    ----------
    y : ndarray, shape (T, N)
        The series, one column per series.
    rank : int
        Co-integration rank: ``N - K`` (co-integrated), 0 (independent) or ``N - K - 1``
        (drifting).
    trends : ndarray, shape (T, K')
        The common stochastic trends at each step (for ``"drifting"`` the drifting level is the
        last column).
    loadings : ndarray, shape (N, K')
        Loading of each series on each trend.
    lags : ndarray of int, shape (N,)
        Lead-lag of each series: it follows the trends that many steps late.
    """

    y: np.ndarray
    rank: int
    trends: np.ndarray
    loadings: np.ndarray
    lags: np.ndarray


def cointegrated_series(
    n_steps: int,
    n_series: int = 8,
    n_trends: int = 2,
    *,
    kind: str = "cointegrated",
    trend_sd: float = 0.1,
    noise_sd: float = 0.1,
    ar_coef: float = 0.5,
    season_amplitude: float = 0.5,
    max_lag: int = 48,
    drift_sd: float = 0.02,
    drift_every: int = 96,
    seed: int = 0,
) -> Series:
    """Draw one multivariate series of known co-integration rank (see the module docstring).

    Parameters
    ----------
    n_steps : int
        Length T of the series, ``>= 2``.
    n_series : int, default 8
        Number N of series, ``>= 1``.
    n_trends : int, default 2
        Number K of common random-walk trends, ``>= 1`` and ``< n_series`` (ignored for
        ``"independent"``, where ``K = N``).
    kind : {"cointegrated", "independent", "drifting"}, default "cointegrated"
        The variant: rank ``N - K``, rank 0 (each series its own random walk), or the
        co-integrated series plus one common drifting level (rank ``N - K - 1``).
    trend_sd : float, default 0.1
        Standard deviation of the trends' increments, ``>= 0``.
    noise_sd : float, default 0.1
        Standard deviation of the AR(1) noise's innovations, ``>= 0``.
    ar_coef : float, default 0.5
        AR(1) coefficient ``phi`` of the noise, in ``(-1, 1)``.
    season_amplitude : float, default 0.5
        Scale of the two sinusoids of periods 24 and 168, ``>= 0`` (each amplitude is this
        times a uniform draw on ``[0.5, 1.5]``).
    max_lag : int, default 48
        Largest lead-lag of a series, ``>= 0``; lags are uniform on ``0..max_lag``, the first
        K series having lag 0.
    drift_sd : float, default 0.02
        Standard deviation of the drifting level's slope, ``>= 0`` (``"drifting"`` only).
    drift_every : int, default 96
        Steps between two redraws of that slope, ``>= 1`` (``"drifting"`` only).
    seed : int, default 0
        Seed of all the randomness, ``>= 0``.

    Returns
    -------
    Series
        ``y`` (T, N), its ``rank``, ``trends`` (T, K') and ``loadings`` (N, K'), with ``K' = K``
        (``N`` for ``"independent"``, ``K + 1`` for ``"drifting"``), and ``lags`` (N,).
    """
    T = check_int("n_steps", n_steps, minimum=2)
    N = check_int("n_series", n_series, minimum=1)
    K = check_int("n_trends", n_trends, minimum=1)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if K >= N and kind != "independent":
        raise ValueError(f"n_trends must be < n_series, got n_trends={K}, n_series={N}")
    for name, value in (("trend_sd", trend_sd), ("noise_sd", noise_sd), ("drift_sd", drift_sd)):
        check_real(name, value, low=0.0, high=np.inf)
    check_real("season_amplitude", season_amplitude, low=0.0, high=np.inf)
    check_real("ar_coef", ar_coef, low=-1.0, high=1.0, low_open=True, high_open=True)
    L = check_int("max_lag", max_lag, minimum=0)
    every = check_int("drift_every", drift_every, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    width = N if kind == "independent" else K
    sizes = (("n_steps + max_lag", (T + L) * width), ("n_steps * n_series", T * N * width))
    for name, floats in sizes:
        if floats > MAX_FLOATS:
            raise ValueError(f"{name} is too large: an array of {floats} floats (at most 2**30)")
    rng = np.random.default_rng(seed)

    if kind == "independent":
        K = N
        loadings = np.diag(rng.choice([-1.0, 1.0], N) * rng.uniform(0.7, 1.3, N))  # (N, N)
        lags = np.zeros(N, dtype=int)
    else:
        loadings = rng.normal(size=(N, K))  # (N, K)
        lags = np.concatenate([np.zeros(K, dtype=int), rng.integers(0, L + 1, N - K)])
    trends = np.cumsum(trend_sd * rng.normal(size=(T + L, K)), axis=0)  # (T + L, K)
    t = np.arange(T)
    idx = L + t[:, None] - lags[None, :]  # (T, N): index of tau(t - l_i)
    y = np.einsum("tnk,nk->tn", trends[idx], loadings)  # (T, N)

    periods = np.array([24.0, 168.0])
    amp = season_amplitude * rng.uniform(0.5, 1.5, (N, 2))  # (N, 2)
    phase = rng.uniform(0, 2 * np.pi, (N, 2))
    y += (amp * np.sin(2 * np.pi * t[:, None, None] / periods + phase)).sum(-1)

    innovations = noise_sd * rng.normal(size=(T, N))
    start = noise_sd / np.sqrt(1 - ar_coef**2) * rng.normal(size=(1, N))  # stationary u(-1)
    y += lfilter([1.0], [1.0, -ar_coef], innovations, axis=0, zi=ar_coef * start)[0]  # AR(1)

    rank = N - K if kind != "independent" else 0
    common = trends[L:]  # (T, K)
    if kind == "drifting":
        slopes = drift_sd * rng.normal(size=-(-T // every))  # one slope per segment
        level = np.cumsum(np.repeat(slopes, every)[:T])  # (T,)
        y += level[:, None]
        common = np.column_stack([common, level])
        loadings = np.column_stack([loadings, np.ones(N)])
        rank -= 1
    return Series(y=y, rank=rank, trends=common, loadings=loadings, lags=lags)


def macrodata(columns: tuple[str, ...] = MACRO_COLUMNS) -> np.ndarray:
    """Log levels of statsmodels' US macroeconomic data, 1959Q1-2009Q3 (203 quarters).

    The data ships with statsmodels (no download). Real GDP, consumption, investment,
    government spending and disposable income share stochastic trends (the textbook
    co-integrated set); CPI, M1 and population trend on their own.

    Parameters
    ----------
    columns : tuple of str, default MACRO_COLUMNS
        Non-empty subset of the columns of the statsmodels frame, each a positive series.

    Returns
    -------
    ndarray, shape (203, len(columns))
        The natural log of the chosen columns, one column per series.
    """
    from statsmodels.datasets import macrodata as md

    frame = md.load_pandas().data
    unknown = [c for c in columns if c not in frame.columns]
    if unknown or not columns:
        raise ValueError(f"columns must be a non-empty subset of {list(frame.columns)}")
    values = frame[list(columns)].to_numpy(dtype=float)  # (203, N)
    if (values <= 0).any():
        raise ValueError("columns must be positive series (their log is taken)")
    return np.log(values)
