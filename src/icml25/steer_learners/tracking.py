"""Stochastic gradient play against a moving equilibrium: drift and noise decouple.

Frankel et al., ICML 2025 (PMLR 267:17575-17656), Algorithm 3 (projected stochastic gradient
play) and the tracking estimate of Section 3. For a decision-maker playing an arbitrary
sequence ``theta_t`` the agents run

    z_{t+1} = Pi_Z( z_t - eta (g(z_t; theta_t) + xi_t) ),   E xi_t = 0,  E |xi_t|^2 = sigma^2,

and the tracking error ``e_t = z_t - z*(theta_t)`` obeys (for a quadratic game, unconstrained)

    e_{t+1} = A e_t - eta xi_t - v_t,    A = I - eta M,    v_t = z*(theta_{t+1}) - z*(theta_t),

so its mean carries the drift and its covariance the noise. With ``|v_t| <= Delta``,
``q = ||A||_2 <= sqrt(1 - 2 mu eta + L^2 eta^2)`` and a deterministic start ``|e_0| = D_0``:

    E|e_t|^2 <= (q^t D_0 + Delta / (1 - q))^2 + eta^2 sigma^2 / (1 - q^2)
             ~  (1 - mu eta)^t D_0^2 + Delta^2 / (mu eta)^2 + eta sigma^2 / mu   (eta <= mu/L^2),

the reconstructed form of the paper's bound (the full text was not available to us; the
constants here are ours and proved in the README). Where noise dominates the error grows like
``eta``, where drift dominates it falls like ``eta^{-2}``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_discrete_lyapunov

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real
from icml25.steer_learners.game import (
    Game,
    QuadraticGame,
    _check_seed,
    _check_size,
    _no_nan,
    equilibrium,
)


@dataclass(frozen=True)
class Play:
    """Result of :func:`stochastic_gradient_play`.

    ``error (T+1, E, R)``: ``|z_t - z*(theta_t)|^2`` per step, step size and replicate;
    ``z (E, R, D)``: the final play.

    Parameters
    ----------
    error : numpy.ndarray, shape (T+1, E, R)
        ``|z_t - z*(theta_t)|^2`` per step, step size and replicate.
    z : numpy.ndarray, shape (E, R, D)
        The final play per step size and replicate.
    """

    error: np.ndarray
    z: np.ndarray


def _check_etas(eta) -> np.ndarray:
    etas = np.atleast_1d(real_array("eta", eta, nonempty=False))
    if etas.ndim != 1 or etas.size == 0 or not np.all(np.isfinite(etas)) or np.any(etas <= 0):
        raise ValueError(f"eta must be a positive number or 1-d array of them, got {eta!r}")
    return etas


def stochastic_gradient_play(
    game: Game,
    thetas: np.ndarray,
    eta,
    sigma: float,
    z0: np.ndarray | None = None,
    replicates: int = 1,
    seed: int | np.random.Generator = 0,
) -> Play:
    """Algorithm 3 (projected stochastic gradient play) along a fixed leader path.

    Parameters
    ----------
    game : QuadraticGame or SmoothGame
        The agents' game, quadratic or any :class:`SmoothGame`.
    thetas : array_like, shape (T+1, p)
        The decision-maker's actions ``theta_0 .. theta_T``, ``T >= 1``.
    eta : float or array_like, shape (E,)
        The step size, or a 1-d array of ``E`` step sizes run side by side (same noise
        draws); positive.
    sigma : float
        The gradient-noise level, ``xi_t ~ N(0, sigma^2 / D I)`` so ``E|xi_t|^2 = sigma^2``.
    z0 : array_like or None, shape (D,), default None
        The start (default: the equilibrium of ``theta_0``).
    replicates : int, default 1
        Independent runs ``R``.
    seed : int or numpy.random.Generator, default 0
        The seed (``>= 0``) or generator of the noise.

    Returns
    -------
    Play
        ``Play.error (T+1, E, R)``, ``Play.z (E, R, D)``.
    """
    thetas = real_array("thetas", thetas)
    if thetas.ndim != 2 or thetas.shape[1] != game.action_dim or thetas.shape[0] < 2:
        raise ValueError(f"thetas must have shape (T+1, p={game.action_dim}), got {thetas.shape}")
    etas = _check_etas(eta)
    sigma = check_real("sigma", sigma, low=0.0, high=np.inf, high_open=True)
    R = check_int("replicates", replicates, minimum=1)
    _check_size("replicates", etas.size * R * (thetas.shape[0] + game.dim))
    _check_seed(seed)
    rng = np.random.default_rng(seed)
    targets = equilibrium(game, thetas)  # (T+1, D)
    D = game.dim
    z0 = targets[0] if z0 is None else real_array("z0", z0)
    if z0.shape != (D,):
        raise ValueError(f"z0 must have shape (D,) = ({D},), got {z0.shape}")
    z = np.broadcast_to(z0, (etas.size, R, D)).copy()  # (E, R, D)
    step = etas[:, None, None]
    error = np.empty((thetas.shape[0], etas.size, R))
    error[0] = np.sum((z - targets[0]) ** 2, axis=-1)
    scale = sigma / np.sqrt(D)
    for t in range(thetas.shape[0] - 1):
        xi = scale * rng.standard_normal((R, D))  # shared across step sizes
        z = game.project(z - step * (game.gradient(z, thetas[t]) + xi))
        error[t + 1] = np.sum((z - targets[t + 1]) ** 2, axis=-1)
    return Play(error, z)


def _check_quadratic(game) -> None:
    if not isinstance(game, QuadraticGame):
        raise TypeError(
            f"game must be a QuadraticGame for the closed forms (exact moments need M), got "
            f"{type(game).__name__}; simulate other games with stochastic_gradient_play"
        )


def expected_tracking_error(
    game: QuadraticGame, eta: float, sigma: float, drift: np.ndarray, e0: np.ndarray, steps: int
) -> np.ndarray:
    """Exact ``E|e_t|^2`` for ``t = 0..steps`` of unconstrained play with a constant equilibrium
    drift ``v = z*_{t+1} - z*_t`` (a leader moving on a straight line): mean
    ``m_{t+1} = A m_t - v``, covariance ``P_{t+1} = A P_t A^T + eta^2 sigma^2 / D I``.

    Shapes: ``drift (D,)``, ``e0 (D,)`` -> ``(steps+1,)``.

    Parameters
    ----------
    game : QuadraticGame
        The agents' game (the closed form needs ``M``).
    eta : float
        The agents' step size, positive.
    sigma : float
        The gradient-noise level, ``E|xi|^2 = sigma^2``, ``>= 0``.
    drift : array_like, shape (D,)
        The equilibrium's constant move per step ``v``.
    e0 : array_like, shape (D,)
        The initial error ``z_0 - z*(theta_0)``.
    steps : int
        The number of steps, ``>= 0``.

    Returns
    -------
    numpy.ndarray, shape (steps+1,)
        ``E|e_t|^2`` for ``t = 0..steps``.

    Raises
    ------
    TypeError
        If ``game`` is not a ``QuadraticGame``.
    ValueError
        If an argument is out of range or of the wrong shape.
    """
    eta = check_real("eta", eta, low=0.0, high=np.inf, low_open=True, high_open=True)
    sigma = check_real("sigma", sigma, low=0.0, high=np.inf, high_open=True)
    steps = check_int("steps", steps, minimum=0)
    _check_size("steps", steps + 1)
    _check_quadratic(game)
    D = game.dim
    v, m = real_array("drift", drift), real_array("e0", e0)
    if v.shape != (D,) or m.shape != (D,):
        raise ValueError(f"drift and e0 must have shape (D,) = ({D},), got {v.shape}, {m.shape}")
    A = np.eye(D) - eta * game.M
    P = np.zeros((D, D))
    out = np.empty(steps + 1)
    out[0] = m @ m
    for t in range(steps):
        m = A @ m - v
        P = A @ P @ A.T + (eta**2 * sigma**2 / D) * np.eye(D)
        out[t + 1] = m @ m + np.trace(P)
    return out


def steady_state_error(
    game: QuadraticGame, eta: float, sigma: float, drift: np.ndarray
) -> tuple[float, float]:
    """The limit of :func:`expected_tracking_error`, split into its two parts.

    Returns ``(noise, drift)``: ``noise = tr P`` with ``P = A P A^T + eta^2 sigma^2 / D I``
    (discrete Lyapunov equation) and ``drift = |(eta M)^{-1} v|^2`` (the steady lag). For
    ``M = mu I`` these are ``eta sigma^2 / (mu (2 - mu eta))`` and ``|v|^2 / (mu eta)^2``.

    Parameters
    ----------
    game : QuadraticGame
        The agents' game (the closed form needs ``M``).
    eta : float
        The agents' step size, positive, small enough that ``I - eta M`` is stable.
    sigma : float
        The gradient-noise level, ``>= 0``.
    drift : array_like, shape (D,)
        The equilibrium's constant move per step ``v``.

    Returns
    -------
    noise : float
        The noise part ``tr P`` of the limit of ``E|e_t|^2``.
    drift : float
        The drift part ``|(eta M)^{-1} v|^2``.

    Raises
    ------
    TypeError
        If ``game`` is not a ``QuadraticGame``.
    ValueError
        If ``I - eta M`` is not stable or an argument is invalid.
    """
    eta = check_real("eta", eta, low=0.0, high=np.inf, low_open=True, high_open=True)
    sigma = check_real("sigma", sigma, low=0.0, high=np.inf, high_open=True)
    _check_quadratic(game)
    D = game.dim
    v = real_array("drift", drift)
    if v.shape != (D,):
        raise ValueError(f"drift must have shape (D,) = ({D},), got {v.shape}")
    A = np.eye(D) - eta * game.M
    if np.max(np.abs(np.linalg.eigvals(A))) >= 1:
        raise ValueError(f"eta = {eta} too large: I - eta M is not stable, no steady state")
    P = solve_discrete_lyapunov(A, (eta**2 * sigma**2 / D) * np.eye(D))
    lag = np.linalg.solve(eta * game.M, v)
    return float(np.trace(P)), float(lag @ lag)


def tracking_bound(
    mu: float, lipschitz: float, eta: float, sigma: float, drift: float, d0: float, t
) -> np.ndarray:
    """The finite-time tracking bound ``(q^t D_0 + Delta/(1-q))^2 + eta^2 sigma^2/(1-q^2)``
    with ``q = sqrt(1 - 2 mu eta + L^2 eta^2)``, valid for ``0 < eta < 2 mu / L^2``.

    ``mu``: strong monotonicity, ``lipschitz``: ``L``, ``drift``: ``Delta >= |v_t|``,
    ``d0``: ``|e_0|``; ``t`` a step or an array of steps.

    Parameters
    ----------
    mu : float
        The strong-monotonicity modulus, positive.
    lipschitz : float
        The Lipschitz constant ``L >= mu``.
    eta : float
        The step size, in ``(0, 2 mu / L^2)``.
    sigma : float
        The gradient-noise level, ``>= 0``.
    drift : float
        The drift bound ``Delta >= |v_t|``, ``>= 0``.
    d0 : float
        The initial error ``|e_0|``, ``>= 0``.
    t : int or array_like
        The step(s), ``>= 0``.

    Returns
    -------
    numpy.ndarray
        The bound on ``E|e_t|^2``, of the shape of ``t``.
    """
    mu = check_real("mu", mu, low=0.0, high=np.inf, low_open=True, high_open=True)
    L = check_real("lipschitz", lipschitz, low=mu, high=np.inf, high_open=True)
    eta = check_real("eta", eta, low=0.0, high=2 * mu / L**2, low_open=True, high_open=True)
    sigma = check_real("sigma", sigma, low=0.0, high=np.inf, high_open=True)
    drift = check_real("drift", drift, low=0.0, high=np.inf, high_open=True)
    d0 = check_real("d0", d0, low=0.0, high=np.inf, high_open=True)
    t = _no_nan("t", t)
    if np.any(t < 0):
        raise ValueError(f"t must be >= 0, got {t!r}")
    q = np.sqrt(1.0 - 2.0 * mu * eta + (L * eta) ** 2)
    return (q**t * d0 + drift / (1.0 - q)) ** 2 + eta**2 * sigma**2 / (1.0 - q**2)
