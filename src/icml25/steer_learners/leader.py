"""The decision-maker: epoch-based drift-to-noise control (Frankel et al., ICML 2025).

Frankel, Kulkarni, Drusvyatskiy, Oh & Ratliff, PMLR 267:17575-17656, Algorithms 1 (epoch-based
drift-to-noise control), 2 (geometric decay schedule) and 4 (epoch-based framework). The
paper's full text was not available to us; the algorithm below is reconstructed from the
abstract, the algorithm names and the tracking estimate (see the README).

The decision-maker's cost is ``l(theta, z) = 1/2 |Q z + R theta - r|^2 + gamma/2 |theta|^2``;
what it minimises is ``Phi(theta) = l(theta, z*(theta))``, its cost at the equilibrium its action
induces. It observes the agents' current play ``z_t`` (not ``z*``) and steps along

    G_t = grad_theta l(theta_t, z_t) + J_hat^T grad_z l(theta_t, z_t),

``J_hat`` its estimate of ``dz*/dtheta`` (``J_hat = 0``: the naive decision-maker). Epoch ``k``
runs ``T_k`` rounds with agent step ``eta_k`` and leader step ``alpha_k``; each leader move is
clipped so that the equilibrium drift it induces stays below the agents' noise scale,

    |z*(theta_{t+1}) - z*(theta_t)| <= L_theta |theta_{t+1} - theta_t|
                                    <= kappa sqrt(mu) eta_k^{3/2} sigma,

which keeps the drift term ``Delta^2/(mu eta)^2`` of the tracking bound below ``kappa^2`` times
the noise term ``eta sigma^2 / mu``. With the geometric schedule ``eta_k = eta_0 2^{-k}``,
``alpha_k = alpha_0 2^{-k}``, ``T_k = T_0 2^k``, the error contracts by the same factor each epoch
while the noise floor halves: geometric decrease of both the tracking error and the
decision-maker's suboptimality. Constant steps (``eta_k = eta_0``) stall at the floor.

``J_hat``: the paper's decision-maker does not know the agents' objectives; by default it
learns ``J`` online from their observed play (:class:`~icml25.steer_learners.estimate.
ResponseRegression`) while probing with a small random perturbation of the action it plays.
``J_hat="exact"`` is the reference decision-maker that knows ``J``; an array is a fixed
estimate (zeros: naive).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real
from icml25.steer_learners.estimate import ResponseRegression
from icml25.steer_learners.game import (
    Game,
    QuadraticGame,
    _check_seed,
    _check_size,
    equilibrium,
    sensitivity,
)


@dataclass(frozen=True)
class LeaderCost:
    """``l(theta, z) = 1/2 |Q z + R theta - r|^2 + gamma/2 |theta|^2``.

    Shapes: ``Q (k, D)``, ``R (k, p)``, ``r (k,)``; ``gamma >= 0``.

    Parameters
    ----------
    Q : array_like, shape (k, D)
        The weight of the agents' play in the residual.
    R : array_like, shape (k, p)
        The weight of the decision-maker's action in the residual.
    r : array_like, shape (k,)
        The residual's target.
    gamma : float, default 0.0
        The action's ridge weight, ``>= 0``.

    Raises
    ------
    ValueError
        If ``Q``, ``R`` are not 2-D and ``r`` 1-D with a shared first dimension, or
        ``gamma < 0``.
    """

    Q: np.ndarray
    R: np.ndarray
    r: np.ndarray
    gamma: float = 0.0

    def __post_init__(self) -> None:
        Q, R, r = (real_array(name, getattr(self, name), nonempty=False) for name in "QRr")
        if Q.ndim != 2 or R.ndim != 2 or r.ndim != 1:
            raise ValueError("Q and R must be 2-d and r 1-d")
        if not Q.shape[0] == R.shape[0] == r.shape[0]:
            raise ValueError(f"Q, R, r must share their first dimension, got {Q.shape}, {R.shape}")
        check_real("gamma", self.gamma, low=0.0, high=np.inf, high_open=True)
        object.__setattr__(self, "Q", Q)
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "r", r)

    def check(self, game: Game) -> None:
        if self.Q.shape[1] != game.dim or self.R.shape[1] != game.action_dim:
            raise ValueError(
                f"cost must have Q (k, D={game.dim}) and R (k, p={game.action_dim}), "
                f"got {self.Q.shape}, {self.R.shape}"
            )

    def value(self, theta: np.ndarray, z: np.ndarray) -> np.ndarray:
        """``l(theta, z)``: ``theta (..., p)``, ``z (..., D)`` -> ``(...)``."""
        res = z @ self.Q.T + theta @ self.R.T - self.r
        return 0.5 * np.sum(res**2, axis=-1) + 0.5 * self.gamma * np.sum(theta**2, axis=-1)

    def gradient(self, theta: np.ndarray, z: np.ndarray, J_hat: np.ndarray) -> np.ndarray:
        """``G = grad_theta l + J_hat^T grad_z l`` at ``(theta, z)``; ``(..., p)``.

        ``J_hat``: ``(D, p)``, or ``(..., D, p)`` one estimate per leading index."""
        res = z @ self.Q.T + theta @ self.R.T - self.r  # (..., k)
        return np.einsum("...k,...kp->...p", res, self.R + self.Q @ J_hat) + self.gamma * theta


def leader_objective(game: Game, cost: LeaderCost, theta: np.ndarray) -> np.ndarray:
    """``Phi(theta) = l(theta, z*(theta))``; ``theta (..., p)`` -> ``(...)``.

    Parameters
    ----------
    game : QuadraticGame or SmoothGame
        The agents' game.
    cost : LeaderCost
        The decision-maker's cost ``l``, with ``Q (k, D)`` and ``R (k, p)`` of the game's sizes.
    theta : array_like, shape (..., p)
        The decision-maker's action(s).

    Returns
    -------
    numpy.ndarray, shape (...)
        The decision-maker's cost at the equilibrium each action induces.
    """
    cost.check(game)
    theta = np.asarray(theta, dtype=float)
    return cost.value(theta, equilibrium(game, theta))


def optimal_action(
    game: Game, cost: LeaderCost, theta0: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """The minimiser ``theta*`` of ``Phi`` and ``Phi(theta*)`` (Stackelberg equilibrium).

    Quadratic game: ``Phi(theta) = 1/2 |H_1 theta + h|^2 + gamma/2 |theta|^2`` with
    ``H_1 = Q J + R``, ``h = Q z*(0) - r``: ``theta* = -(H_1^T H_1 + gamma I)^{-1} H_1^T h``.
    Any other game: BFGS on ``Phi`` with its gradient ``grad_theta l + J(theta)^T grad_z l``
    from ``theta0`` (default 0); a local minimiser where ``Phi`` is not convex.

    Parameters
    ----------
    game : QuadraticGame or SmoothGame
        The agents' game.
    cost : LeaderCost
        The decision-maker's cost ``l``.
    theta0 : array_like or None, shape (p,), default None
        The start of BFGS (a non-quadratic game only); None for zeros.

    Returns
    -------
    theta : numpy.ndarray, shape (p,)
        The Stackelberg action ``theta*``.
    phi : float
        Its value ``Phi(theta*)``.

    Raises
    ------
    ValueError
        If the cost does not fit the game, ``theta0`` has the wrong shape, or (quadratic game)
        ``Phi`` is not strongly convex.
    """
    cost.check(game)
    if not isinstance(game, QuadraticGame):
        start = np.zeros(game.action_dim) if theta0 is None else real_array("theta0", theta0)
        if start.shape != (game.action_dim,):
            raise ValueError(
                f"theta0 must have shape (p,) = ({game.action_dim},), got {start.shape}"
            )

        def phi_and_gradient(theta):
            z = equilibrium(game, theta)
            return float(cost.value(theta, z)), cost.gradient(theta, z, sensitivity(game, theta))

        res = minimize(phi_and_gradient, start, jac=True, method="BFGS", options={"gtol": 1e-10})
        return res.x, float(res.fun)
    H1 = cost.Q @ sensitivity(game) + cost.R  # (k, p)
    h = cost.Q @ equilibrium(game, np.zeros(game.action_dim)) - cost.r
    H = H1.T @ H1 + cost.gamma * np.eye(game.action_dim)
    if np.linalg.eigvalsh(H)[0] <= 1e-12 * max(1.0, np.linalg.norm(H, 2)):
        raise ValueError("Phi is not strongly convex: give gamma > 0 or a full-rank Q J + R")
    theta = -np.linalg.solve(H, H1.T @ h)
    return theta, float(leader_objective(game, cost, theta))


def robbins_monro_schedule(
    eta0: float, alpha0: float, epoch0: int, n_rounds: int
) -> tuple[np.ndarray, np.ndarray]:
    """The textbook diminishing schedule, per round: ``eta_t = eta0 / (1 + t / epoch0)``,
    ``alpha_t = alpha0 / (1 + t / epoch0)``, ``t = 0 .. n_rounds - 1`` (the ``1/t`` alternative
    to Algorithm 2, from the same start ``eta0``, ``alpha0`` and time scale ``epoch0 = T_0``).

    Returns ``(etas (N,), alphas (N,))`` for :func:`steer`'s per-round form.

    Parameters
    ----------
    eta0 : float
        The agents' first step, positive.
    alpha0 : float
        The decision-maker's first step, ``>= 0``.
    epoch0 : int
        The time scale ``T_0`` of the decay, in rounds, ``>= 1``.
    n_rounds : int
        The number of rounds ``N``, ``>= 1``.

    Returns
    -------
    etas : numpy.ndarray, shape (N,)
        The agents' step per round.
    alphas : numpy.ndarray, shape (N,)
        The decision-maker's step per round.
    """
    eta0 = check_real("eta0", eta0, low=0.0, high=np.inf, low_open=True, high_open=True)
    alpha0 = check_real("alpha0", alpha0, low=0.0, high=np.inf, high_open=True)
    epoch0 = check_int("epoch0", epoch0, minimum=1)
    N = check_int("n_rounds", n_rounds, minimum=1)
    _check_size("n_rounds", N)
    decay = 1.0 / (1.0 + np.arange(N) / epoch0)
    return eta0 * decay, alpha0 * decay


def geometric_schedule(
    eta0: float, alpha0: float, epoch0: int, n_epochs: int, factor: float = 0.5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Algorithm 2: ``eta_k = eta0 factor^k``, ``alpha_k = alpha0 factor^k``,
    ``T_k = round(epoch0 / factor^k)`` for ``k < n_epochs``; ``factor = 1`` gives constant steps.

    Returns ``(etas (K,), alphas (K,), lengths (K,) int)``.

    Parameters
    ----------
    eta0 : float
        The agents' step in the first epoch, positive.
    alpha0 : float
        The decision-maker's step in the first epoch, ``>= 0``.
    epoch0 : int
        The rounds ``T_0`` of the first epoch, ``>= 1``.
    n_epochs : int
        The number of epochs ``K``, ``>= 1``.
    factor : float, default 0.5
        The decay per epoch, in ``(0, 1]``.

    Returns
    -------
    etas : numpy.ndarray, shape (K,)
        The agents' step per epoch.
    alphas : numpy.ndarray, shape (K,)
        The decision-maker's step per epoch.
    lengths : numpy.ndarray of int, shape (K,)
        The rounds of each epoch.

    Raises
    ------
    ValueError
        If an argument is out of range, or the last epoch's length would overflow an int64.
    """
    eta0 = check_real("eta0", eta0, low=0.0, high=np.inf, low_open=True, high_open=True)
    alpha0 = check_real("alpha0", alpha0, low=0.0, high=np.inf, high_open=True)
    epoch0 = check_int("epoch0", epoch0, minimum=1)
    K = check_int("n_epochs", n_epochs, minimum=1)
    _check_size("n_epochs", K)
    factor = check_real("factor", factor, low=0.0, high=1.0, low_open=True)
    if factor ** (K - 1) * 2.0**62 <= epoch0:  # epoch0 / factor^(K - 1) >= 2^62
        raise ValueError(
            f"n_epochs is too large: epoch {K - 1} would have epoch0 / factor^{K - 1} rounds, "
            f"more than an int64 holds"
        )
    powers = factor ** np.arange(K)
    return eta0 * powers, alpha0 * powers, np.round(epoch0 / powers).astype(int)


@dataclass(frozen=True)
class Steering:
    """Result of :func:`steer`.

    ``tracking (K,)``, ``suboptimality (K,)``: at the end of each epoch, means over replicates
    of ``|z - z*(theta)|^2`` and ``Phi(theta) - Phi*``; ``ends (K,)``: the round each epoch ends;
    ``trace_rounds (S,)``, ``trace_tracking (S,)``, ``trace_suboptimality (S,)``: the same means
    every ``record_every`` rounds; ``theta (R, p)``, ``z (R, D)``: the final state;
    ``clipped (K,)``: fraction of leader moves the drift cap shortened, per epoch;
    ``sensitivity_error (K,)``: mean over replicates of ``|J_hat - J(theta)|_F / |J(theta)|_F``
    at each epoch end (0 for the exact decision-maker).

    Parameters
    ----------
    tracking : numpy.ndarray, shape (K,)
        The mean ``|z - z*(theta)|^2`` at each epoch's end.
    suboptimality : numpy.ndarray, shape (K,)
        The mean ``Phi(theta) - Phi*`` at each epoch's end.
    ends : numpy.ndarray of int, shape (K,)
        The round at which each epoch ends.
    trace_rounds : numpy.ndarray of int, shape (S,)
        The rounds of the trace (0, then every ``record_every`` rounds).
    trace_tracking : numpy.ndarray, shape (S,)
        The mean tracking error at each traced round.
    trace_suboptimality : numpy.ndarray, shape (S,)
        The mean suboptimality at each traced round.
    theta : numpy.ndarray, shape (R, p)
        The final action of each replicate.
    z : numpy.ndarray, shape (R, D)
        The final play of each replicate.
    clipped : numpy.ndarray, shape (K,)
        The fraction of leader moves the drift cap shortened, per epoch.
    sensitivity_error : numpy.ndarray, shape (K,)
        The mean relative Frobenius error of ``J_hat`` at each epoch's end.
    """

    tracking: np.ndarray
    suboptimality: np.ndarray
    ends: np.ndarray
    trace_rounds: np.ndarray
    trace_tracking: np.ndarray
    trace_suboptimality: np.ndarray
    theta: np.ndarray
    z: np.ndarray
    clipped: np.ndarray
    sensitivity_error: np.ndarray


def _per_round(name: str, values, K: int, N: int, lengths: np.ndarray, low_open: bool):
    """``(K,)`` per-epoch or ``(N,)`` per-round steps -> ``(N,)`` per round."""
    v = np.atleast_1d(real_array(name, values, nonempty=False))
    ok = v.ndim == 1 and v.size in (K, N) and np.all(np.isfinite(v))
    ok = ok and (np.all(v > 0) if low_open else np.all(v >= 0))
    if not ok:
        sign = "positive" if low_open else "non-negative"
        raise ValueError(
            f"{name} must be {K} (per epoch) or {N} (per round) {sign} steps, got {values!r}"
        )
    return v if v.size == N and N != K else np.repeat(v, lengths)


def steer(
    game: Game,
    cost: LeaderCost,
    etas: np.ndarray,
    alphas: np.ndarray,
    lengths: np.ndarray,
    sigma: float,
    theta0: np.ndarray,
    z0: np.ndarray | None = None,
    J_hat: str | np.ndarray = "estimate",
    drift_to_noise: float = 1.0,
    sensitivity_bound: float | None = None,
    probe: float = 0.5,
    forget: float = 1.0,
    ridge: float = 1.0,
    refit_every: int = 10,
    replicates: int = 1,
    record_every: int = 10,
    seed: int | np.random.Generator = 0,
) -> Steering:
    """Algorithms 1 + 4: the decision-maker steers agents running projected stochastic gradient
    play, epoch by epoch, with its drift capped against the agents' noise.

    Each round: the decision-maker plays ``theta + delta u`` (``u ~ N(0, I/p)``, a probe, only
    when it estimates ``J``); the agents step ``z <- Pi(z - eta_t (g(z; played) + xi))``; the
    decision-maker observes ``z`` (updating its estimate ``J_hat``) and moves
    ``theta <- theta - s``, ``s = alpha_t G`` shortened to
    ``|s| <= kappa sqrt(mu) eta_t^{3/2} sigma / L_theta`` (``kappa = drift_to_noise``; ``inf``:
    no cap, the only way to move when ``sigma = 0``).

    Parameters
    ----------
    game : QuadraticGame or SmoothGame
        The agents' game (any game through its gradient map, :class:`SmoothGame`).
    cost : LeaderCost
        The decision-maker's cost ``l``.
    etas, alphas : array_like, shape (K,) or (N,)
        Agent and leader steps, ``(K,)`` one per epoch (:func:`geometric_schedule`) or
        ``(N,)`` one per round, ``N = sum(lengths)`` (:func:`robbins_monro_schedule`); etas
        positive, alphas non-negative.
    lengths : array_like of int, shape (K,)
        Rounds per epoch, positive; errors are reported at each epoch's end.
    sigma : float
        The agents' gradient noise, ``E|xi|^2 = sigma^2``, ``>= 0``.
    theta0 : array_like, shape (p,)
        The initial action.
    z0 : array_like or None, shape (D,), default None
        The initial play; None for ``z*(theta0)``.
    J_hat : {"estimate", "exact"} or array_like, shape (D, p), default "estimate"
        ``"estimate"``: online regression on the agents' observed steps,
        :class:`ResponseRegression`, refitted every ``refit_every`` rounds, its data discounted
        by ``forget`` at each epoch end; ``"exact"``: the true ``J(theta)`` (reference);
        or a fixed ``(D, p)`` array (zeros: the naive decision-maker).
    drift_to_noise : float, default 1.0
        The cap's ``kappa``, positive; ``inf`` for no cap.
    sensitivity_bound : float or None, default None
        ``L_theta >= ||J||``, a constant of the problem like ``mu`` and ``L``
        (default ``||J(theta0)||_2``); sets the drift cap and the probe.
    probe : float, default 0.5
        The probe's size relative to the agents' noise: ``delta = probe sigma /
        (L L_theta)``, so its push on the agents, ``|D_theta g| delta <= probe sigma``, adds at
        most ``probe^2`` to their noise.
    forget : float, default 1.0
        The discount in ``[0, 1]`` of the regression's data at each epoch end (1: keep all).
    ridge : float, default 1.0
        The regression's ridge weight, positive.
    refit_every : int, default 10
        Rounds between refits of ``J_hat`` (``"estimate"``, or ``"exact"`` on a smooth game).
    replicates : int, default 1
        Independent runs ``R``, simulated side by side.
    record_every : int, default 10
        Rounds between the trace's records.
    seed : int or numpy.random.Generator, default 0
        The seed (``>= 0``) or generator of the noise and the probe.

    Returns
    -------
    Steering
        The per-epoch and traced tracking errors and suboptimalities (means over replicates),
        the final state, the clipped fractions and the sensitivity errors.

    Raises
    ------
    ValueError
        If an argument is out of range or of the wrong shape, or ``cost`` does not fit the
        game.
    """
    cost.check(game)
    lengths = np.atleast_1d(np.asarray(lengths))
    if lengths.ndim != 1 or lengths.size == 0 or not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(f"lengths must be a non-empty 1-d array of integers, got {lengths!r}")
    if lengths.min() < 1:
        raise ValueError(f"lengths must be positive integers, got {lengths!r}")
    K, N = lengths.size, int(lengths.sum())
    _check_size("lengths", N)
    eta_t = _per_round("etas", etas, K, N, lengths, low_open=True)  # (N,)
    alpha_t = _per_round("alphas", alphas, K, N, lengths, low_open=False)  # (N,)
    sigma = check_real("sigma", sigma, low=0.0, high=np.inf, high_open=True)
    kappa = (
        np.inf
        if drift_to_noise == np.inf
        else check_real("drift_to_noise", drift_to_noise, low=0.0, high=np.inf, low_open=True)
    )
    probe = check_real("probe", probe, low=0.0, high=np.inf, high_open=True)
    forget = check_real("forget", forget, low=0.0, high=1.0)
    refit = check_int("refit_every", refit_every, minimum=1)
    R = check_int("replicates", replicates, minimum=1)
    every = check_int("record_every", record_every, minimum=1)
    theta0 = real_array("theta0", theta0)
    if theta0.shape != (game.action_dim,):
        raise ValueError(f"theta0 must have shape (p,) = ({game.action_dim},), got {theta0.shape}")
    D, p = game.dim, game.action_dim
    _check_size("replicates", R * (D + p + 1) ** 2)
    _check_seed(seed)
    exact_fixed = isinstance(game, QuadraticGame)  # J does not depend on theta
    mode = "fixed"
    if isinstance(J_hat, str):
        if J_hat not in ("estimate", "exact"):
            raise ValueError(f"J_hat must be 'estimate', 'exact' or a (D, p) array, got {J_hat!r}")
        mode = J_hat
    else:
        J_hat = real_array("J_hat", J_hat)
        if J_hat.shape != (D, p):
            raise ValueError(f"J_hat must have shape (D, p) = ({D}, {p}), got {J_hat.shape}")
    if sensitivity_bound is None:
        L_theta = float(np.linalg.norm(sensitivity(game, theta0), 2))
    else:
        L_theta = check_real(
            "sensitivity_bound", sensitivity_bound, low=0.0, high=np.inf, low_open=True
        )
    _, phi_star = optimal_action(game, cost)
    z0 = equilibrium(game, theta0) if z0 is None else real_array("z0", z0)
    if z0.shape != (D,):
        raise ValueError(f"z0 must have shape (D,) = ({D},), got {z0.shape}")

    rng = np.random.default_rng(seed)
    theta = np.broadcast_to(theta0, (R, p)).copy()  # (R, p)
    z = np.broadcast_to(z0, (R, D)).copy()  # (R, D)
    noise = sigma / np.sqrt(D)
    delta = probe * sigma / (game.lipschitz * L_theta) if mode == "estimate" else 0.0
    regression = ResponseRegression(R, D, p, game.mu, ridge) if mode == "estimate" else None

    def true_sensitivity() -> np.ndarray:
        return sensitivity(game) if exact_fixed else sensitivity(game, theta)  # (D,p)|(R,D,p)

    J_use = {"estimate": np.zeros((D, p)), "exact": true_sensitivity(), "fixed": J_hat}[mode]

    def measure() -> tuple[float, float]:
        track = np.mean(np.sum((z - equilibrium(game, theta)) ** 2, axis=-1))
        sub = np.mean(leader_objective(game, cost, theta)) - phi_star
        return float(track), float(sub)

    def sensitivity_error() -> float:
        J = np.broadcast_to(true_sensitivity(), (R, D, p))
        err = np.linalg.norm(J_use - J, axis=(-2, -1)) / np.linalg.norm(J, axis=(-2, -1))
        return float(np.mean(err))

    tracking, suboptimality, clipped, j_error = (np.empty(K) for _ in range(4))
    trace = [(0, *measure())]
    t = 0
    for k in range(K):
        n_clipped = 0
        for _ in range(int(lengths[k])):
            eta, alpha = eta_t[t], alpha_t[t]
            played = theta
            if delta > 0:  # the probe: white, |u| ~ 1
                played = theta + delta / np.sqrt(p) * rng.standard_normal((R, p))
            xi = noise * rng.standard_normal((R, D))
            z_next = game.project(z - eta * (game.gradient(z, played) + xi))
            if regression is not None:
                regression.update(z, played, z_next, eta)
            z = z_next
            t += 1
            if mode != "fixed" and t % refit == 0 and not (mode == "exact" and exact_fixed):
                J_use = regression.sensitivity() if regression is not None else true_sensitivity()
            step = alpha * cost.gradient(theta, z, J_use)  # (R, p)
            cap = (
                np.inf if np.isinf(kappa) else kappa * np.sqrt(game.mu) * eta**1.5 * sigma / L_theta
            )
            size = np.linalg.norm(step, axis=-1, keepdims=True)
            shrink = np.minimum(1.0, cap / np.maximum(size, 1e-300))
            n_clipped += int(np.sum(shrink < 1.0))
            theta = theta - shrink * step
            if t % every == 0:
                trace.append((t, *measure()))
        tracking[k], suboptimality[k] = measure()
        clipped[k] = n_clipped / (R * lengths[k])
        j_error[k] = sensitivity_error()
        if regression is not None:
            regression.forget(forget)
    rounds, track_trace, sub_trace = (np.array(col) for col in zip(*trace, strict=True))
    return Steering(
        tracking,
        suboptimality,
        np.cumsum(lengths),
        rounds.astype(int),
        track_trace,
        sub_trace,
        theta,
        z,
        clipped,
        j_error,
    )
