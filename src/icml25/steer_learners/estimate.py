"""The decision-maker's online estimate of the agents' sensitivity ``J = dz*/dtheta``.

Frankel et al., ICML 2025 (PMLR 267:17575-17656): the decision-maker "might not a priori know
the agents' objectives" (Abstract). Its strategic gradient ``grad_theta l + J^T grad_z l`` needs
``J``; here it learns ``J`` from what it observes, the agents' play. The paper's estimator could
not be read (see the README); this one is a regression on observed responses in the style of
Narang et al. (2022)'s adaptive method (learn a parametric model of the response, then step on
it), which the paper's ride-share experiment follows.

The agents' step is ``z_{t+1} = Pi(z_t - eta_t (g(z_t; theta_t) + xi_t))`` with the step size
``eta_t`` the decision-maker scheduled (Alg. 4), so away from the box's faces

    y_t = (z_t - z_{t+1}) / eta_t = g(z_t; theta_t) + xi_t,

a noisy observation of the game's gradient map. The decision-maker fits the local linear model
``g(z; theta) ~ M z + B theta + c`` by ridge least squares on ``x_t = (z_t, theta_t, 1)``,

    W = argmin_W  sum_t w_t |y_t - W^T x_t|^2 + lambda |(M, B) - (mu I, 0)|^2,

(the prior "no influence", ``J_hat = 0``: the naive decision-maker before any data; the offset
``c`` is not shrunk, else the prior would bias ``M`` through the play's large mean)
and reads ``J_hat = -M_hat^{-1} B_hat`` (implicit function theorem). The weights ``w_t`` are
discounted by ``forget`` at each epoch end, so a non-quadratic game's local Jacobians are
tracked as ``theta`` moves. ``M`` is identified from the agents' own noise (their play
fluctuates around ``z*``); ``B`` needs ``theta`` to vary, which the decision-maker's probing
(a small random perturbation of the action it plays, :func:`~icml25.steer_learners.steer`)
guarantees.
"""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_int, check_real
from icml25.steer_learners.game import _check_size


class ResponseRegression:
    """Online ridge regression of the agents' gradient map, one per replicate (vectorised).

    Shapes: ``update`` takes ``z (R, D)``, ``theta (R, p)``, ``z_next (R, D)``;
    ``sensitivity()`` returns ``(R, D, p)``.

    Parameters
    ----------
    replicates : int
        The number ``R`` of independent regressions (one per replicate), ``>= 1``.
    dim : int
        The agents' joint dimension ``D``, ``>= 1``.
    action_dim : int
        The action dimension ``p``, ``>= 1``.
    mu : float
        The prior's modulus (``M`` is shrunk towards ``mu I``), positive.
    ridge : float, default 1.0
        The ridge weight ``lambda``, positive.

    Raises
    ------
    ValueError
        If an argument is out of range or the sums would be too large.
    """

    def __init__(
        self, replicates: int, dim: int, action_dim: int, mu: float, ridge: float = 1.0
    ) -> None:
        R = check_int("replicates", replicates, minimum=1)
        D = check_int("dim", dim, minimum=1)
        p = check_int("action_dim", action_dim, minimum=1)
        mu = check_real("mu", mu, low=0.0, high=np.inf, low_open=True, high_open=True)
        self.ridge = check_real("ridge", ridge, low=0.0, high=np.inf, low_open=True, high_open=True)
        self.dim, self.action_dim = D, p
        dx = D + p + 1
        _check_size("replicates", R * dx * (dx + D))
        self.prior = np.zeros((dx, D))  # W_0: g = mu z, no theta effect
        self.prior[:D] = mu * np.eye(D)
        self.xx = np.zeros((R, dx, dx))  # sum_t w_t x_t x_t^T
        self.xy = np.zeros((R, dx, D))  # sum_t w_t x_t y_t^T
        self._x: list[np.ndarray] = []  # rounds not yet added to the sums
        self._y: list[np.ndarray] = []

    def _features(self, z: np.ndarray, theta: np.ndarray) -> np.ndarray:
        return np.concatenate([z, theta, np.ones(z.shape[:-1] + (1,))], axis=-1)  # (R, dx)

    def update(self, z: np.ndarray, theta: np.ndarray, z_next: np.ndarray, eta: float) -> None:
        """Add the round ``(z_t, theta_t) -> z_{t+1}`` played with agent step ``eta``."""
        self._x.append(self._features(z, theta))
        self._y.append((z - z_next) / eta)  # (R, D) observed gradient

    def _flush(self) -> None:
        if self._x:
            x = np.stack(self._x, axis=1)  # (R, n, dx)
            y = np.stack(self._y, axis=1)  # (R, n, D)
            self.xx += np.swapaxes(x, 1, 2) @ x
            self.xy += np.swapaxes(x, 1, 2) @ y
            self._x, self._y = [], []

    def forget(self, factor: float) -> None:
        """Multiply the weight of every round seen so far by ``factor`` in ``[0, 1]``."""
        factor = check_real("forget", factor, low=0.0, high=1.0)
        self._flush()
        self.xx *= factor
        self.xy *= factor

    def coefficients(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(M_hat (R, D, D), B_hat (R, D, p), c_hat (R, D))`` of ``g ~ M z + B theta + c``."""
        self._flush()
        dx = self.xx.shape[-1]
        penalty = self.ridge * np.eye(dx)
        penalty[-1, -1] = 1e-12 * self.ridge  # the offset c is left free (not shrunk to 0)
        W = np.linalg.solve(self.xx + penalty, self.xy + penalty @ self.prior)
        D, p = self.dim, self.action_dim
        Wt = np.swapaxes(W, -1, -2)  # (R, D, dx): y = Wt x
        return Wt[..., :D], Wt[..., D : D + p], Wt[..., -1]

    def sensitivity(self) -> np.ndarray:
        """``J_hat = -M_hat^{-1} B_hat``, ``(R, D, p)``."""
        M, B, _ = self.coefficients()
        return -np.linalg.solve(M, B)
