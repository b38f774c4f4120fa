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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real
from icml25.steer_learners.game import QuadraticGame, equilibrium, sensitivity


@dataclass(frozen=True)
class LeaderCost:
    """``l(theta, z) = 1/2 |Q z + R theta - r|^2 + gamma/2 |theta|^2``.

    Shapes: ``Q (k, D)``, ``R (k, p)``, ``r (k,)``; ``gamma >= 0``."""

    Q: np.ndarray
    R: np.ndarray
    r: np.ndarray
    gamma: float = 0.0

    def __post_init__(self) -> None:
        Q, R, r = (np.asarray(a, dtype=float) for a in (self.Q, self.R, self.r))
        if Q.ndim != 2 or R.ndim != 2 or r.ndim != 1:
            raise ValueError("Q and R must be 2-d and r 1-d")
        if not Q.shape[0] == R.shape[0] == r.shape[0]:
            raise ValueError(f"Q, R, r must share their first dimension, got {Q.shape}, {R.shape}")
        check_real("gamma", self.gamma, low=0.0, high=np.inf, high_open=True)
        object.__setattr__(self, "Q", Q)
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "r", r)

    def check(self, game: QuadraticGame) -> None:
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
        """``G = grad_theta l + J_hat^T grad_z l`` at ``(theta, z)``; ``(..., p)``."""
        res = z @ self.Q.T + theta @ self.R.T - self.r  # (..., k)
        return res @ (self.R + self.Q @ J_hat) + self.gamma * theta


def leader_objective(game: QuadraticGame, cost: LeaderCost, theta: np.ndarray) -> np.ndarray:
    """``Phi(theta) = l(theta, z*(theta))``; ``theta (..., p)`` -> ``(...)``."""
    cost.check(game)
    theta = np.asarray(theta, dtype=float)
    return cost.value(theta, equilibrium(game, theta))


def optimal_action(game: QuadraticGame, cost: LeaderCost) -> tuple[np.ndarray, float]:
    """The minimiser ``theta*`` of ``Phi`` and ``Phi(theta*)`` (Stackelberg equilibrium).

    ``Phi(theta) = 1/2 |H_1 theta + h|^2 + gamma/2 |theta|^2`` with ``H_1 = Q J + R``,
    ``h = Q z*(0) - r``: ``theta* = -(H_1^T H_1 + gamma I)^{-1} H_1^T h``."""
    cost.check(game)
    H1 = cost.Q @ sensitivity(game) + cost.R  # (k, p)
    h = cost.Q @ equilibrium(game, np.zeros(game.action_dim)) - cost.r
    H = H1.T @ H1 + cost.gamma * np.eye(game.action_dim)
    if np.linalg.eigvalsh(H)[0] <= 1e-12 * max(1.0, np.linalg.norm(H, 2)):
        raise ValueError("Phi is not strongly convex: give gamma > 0 or a full-rank Q J + R")
    theta = -np.linalg.solve(H, H1.T @ h)
    return theta, float(leader_objective(game, cost, theta))


def geometric_schedule(
    eta0: float, alpha0: float, epoch0: int, n_epochs: int, factor: float = 0.5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Algorithm 2: ``eta_k = eta0 factor^k``, ``alpha_k = alpha0 factor^k``,
    ``T_k = round(epoch0 / factor^k)`` for ``k < n_epochs``; ``factor = 1`` gives constant steps.

    Returns ``(etas (K,), alphas (K,), lengths (K,) int)``."""
    eta0 = check_real("eta0", eta0, low=0.0, high=np.inf, low_open=True, high_open=True)
    alpha0 = check_real("alpha0", alpha0, low=0.0, high=np.inf, high_open=True)
    epoch0 = check_int("epoch0", epoch0, minimum=1)
    K = check_int("n_epochs", n_epochs, minimum=1)
    factor = check_real("factor", factor, low=0.0, high=1.0, low_open=True)
    powers = factor ** np.arange(K)
    return eta0 * powers, alpha0 * powers, np.round(epoch0 / powers).astype(int)


@dataclass(frozen=True)
class Steering:
    """Result of :func:`steer`.

    ``tracking (K,)``, ``suboptimality (K,)``: at the end of each epoch, means over replicates
    of ``|z - z*(theta)|^2`` and ``Phi(theta) - Phi*``; ``ends (K,)``: the round each epoch ends;
    ``trace_rounds (S,)``, ``trace_tracking (S,)``, ``trace_suboptimality (S,)``: the same means
    every ``record_every`` rounds; ``theta (R, p)``, ``z (R, D)``: the final state;
    ``clipped (K,)``: fraction of leader moves the drift cap shortened, per epoch."""

    tracking: np.ndarray
    suboptimality: np.ndarray
    ends: np.ndarray
    trace_rounds: np.ndarray
    trace_tracking: np.ndarray
    trace_suboptimality: np.ndarray
    theta: np.ndarray
    z: np.ndarray
    clipped: np.ndarray


def steer(
    game: QuadraticGame,
    cost: LeaderCost,
    etas: np.ndarray,
    alphas: np.ndarray,
    lengths: np.ndarray,
    sigma: float,
    theta0: np.ndarray,
    z0: np.ndarray | None = None,
    J_hat: np.ndarray | None = None,
    drift_to_noise: float = 1.0,
    replicates: int = 1,
    record_every: int = 10,
    seed: int | np.random.Generator = 0,
) -> Steering:
    """Algorithms 1 + 4: the decision-maker steers agents running projected stochastic gradient
    play, epoch by epoch, with its drift capped against the agents' noise.

    Each round: the agents step ``z <- Pi(z - eta_k (g(z; theta) + xi))``; the decision-maker
    observes ``z`` and moves ``theta <- theta - s``, ``s = alpha_k G`` shortened to
    ``|s| <= kappa sqrt(mu) eta_k^{3/2} sigma / L_theta`` (``L_theta = ||dz*/dtheta||_2``,
    ``kappa = drift_to_noise``; ``inf``: no cap, the only way to move when ``sigma = 0``).

    Parameters
    ----------
    etas, alphas, lengths : ``(K,)`` per-epoch agent step, leader step and number of rounds
        (:func:`geometric_schedule`).
    sigma : agents' gradient noise, ``E|xi|^2 = sigma^2``.
    theta0 : ``(p,)`` initial action; ``z0 (D,)`` initial play (default ``z*(theta0)``).
    J_hat : ``(D, p)`` the decision-maker's sensitivity estimate (default: the true
        ``dz*/dtheta``, a strategic decision-maker; zeros: a naive one).
    """
    cost.check(game)
    etas, alphas = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (etas, alphas))
    lengths = np.atleast_1d(np.asarray(lengths))
    K = etas.size
    if etas.ndim != 1 or K == 0 or not np.all(np.isfinite(etas)) or np.any(etas <= 0):
        raise ValueError(f"etas must be a non-empty 1-d array of positive steps, got {etas!r}")
    if alphas.shape != (K,) or not np.all(np.isfinite(alphas)) or np.any(alphas < 0):
        raise ValueError(f"alphas must be {K} non-negative steps, got {alphas!r}")
    if lengths.shape != (K,) or not np.issubdtype(lengths.dtype, np.integer) or lengths.min() < 1:
        raise ValueError(f"lengths must be {K} positive integers, got {lengths!r}")
    sigma = check_real("sigma", sigma, low=0.0, high=np.inf, high_open=True)
    kappa = (
        np.inf
        if drift_to_noise == np.inf
        else check_real("drift_to_noise", drift_to_noise, low=0.0, high=np.inf, low_open=True)
    )
    R = check_int("replicates", replicates, minimum=1)
    every = check_int("record_every", record_every, minimum=1)
    theta0 = np.asarray(theta0, dtype=float)
    if theta0.shape != (game.action_dim,):
        raise ValueError(f"theta0 must have shape (p,) = ({game.action_dim},), got {theta0.shape}")
    J = sensitivity(game)
    J_hat = J if J_hat is None else np.asarray(J_hat, dtype=float)
    if J_hat.shape != J.shape:
        raise ValueError(f"J_hat must have shape (D, p) = {J.shape}, got {J_hat.shape}")
    _, phi_star = optimal_action(game, cost)
    z0 = equilibrium(game, theta0) if z0 is None else np.asarray(z0, dtype=float)
    if z0.shape != (game.dim,):
        raise ValueError(f"z0 must have shape (D,) = ({game.dim},), got {z0.shape}")

    rng = np.random.default_rng(seed)
    theta = np.broadcast_to(theta0, (R, game.action_dim)).copy()  # (R, p)
    z = np.broadcast_to(z0, (R, game.dim)).copy()  # (R, D)
    L_theta = float(np.linalg.norm(J, 2))
    noise = sigma / np.sqrt(game.dim)

    def measure() -> tuple[float, float]:
        track = np.mean(np.sum((z - equilibrium(game, theta)) ** 2, axis=-1))
        sub = np.mean(leader_objective(game, cost, theta)) - phi_star
        return float(track), float(sub)

    tracking, suboptimality, clipped = np.empty(K), np.empty(K), np.empty(K)
    trace = [(0, *measure())]
    t = 0
    for k in range(K):
        cap = (
            np.inf
            if np.isinf(kappa)
            else kappa * np.sqrt(game.mu) * etas[k] ** 1.5 * sigma / L_theta
        )
        n_clipped = 0
        for _ in range(int(lengths[k])):
            xi = noise * rng.standard_normal(z.shape)
            z = game.project(z - etas[k] * (game.gradient(z, theta) + xi))
            step = alphas[k] * cost.gradient(theta, z, J_hat)  # (R, p)
            size = np.linalg.norm(step, axis=-1, keepdims=True)
            shrink = np.minimum(1.0, cap / np.maximum(size, 1e-300))
            n_clipped += int(np.sum(shrink < 1.0))
            theta = theta - shrink * step
            t += 1
            if t % every == 0:
                trace.append((t, *measure()))
        tracking[k], suboptimality[k] = measure()
        clipped[k] = n_clipped / (R * lengths[k])
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
    )
