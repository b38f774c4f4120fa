"""Strongly monotone quadratic games steered by a decision-maker (Frankel et al., ICML 2025).

Frankel, Kulkarni, Drusvyatskiy, Oh & Ratliff, *Finite-Time Convergence Rates in Stochastic
Stackelberg Games with Smooth Algorithmic Agents*, PMLR 267:17575-17656.

The agents' game is given by its stacked gradient map (the paper's game Jacobian setting,
specialised to quadratic costs)::

    g(z; theta) = M z + B theta + c,      z = (z_1, ..., z_n) in R^D, theta in R^p,

where block ``i`` of ``g`` is player ``i``'s gradient of its own cost. The game is
``mu``-strongly monotone when ``sym(M) = (M + M^T) / 2 >= mu I`` and ``L``-Lipschitz with
``L = ||M||_2``; its unique Nash equilibrium is ``z*(theta) = -M^{-1} (B theta + c)``, affine in
the decision-maker's action with sensitivity ``J = dz*/dtheta = -M^{-1} B``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real


@dataclass(frozen=True)
class QuadraticGame:
    """The agents' game ``g(z; theta) = M z + B theta + c``.

    Shapes: ``M (D, D)``, ``B (D, p)``, ``c (D,)``; ``blocks`` the players' dimensions
    (summing to ``D``); ``lower``/``upper`` optional box bounds ``(D,)`` of the action set that
    projected gradient play projects on (``None``: the whole space).
    """

    M: np.ndarray
    B: np.ndarray
    c: np.ndarray
    blocks: tuple[int, ...]
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None

    def __post_init__(self) -> None:
        M, B, c = (np.asarray(a, dtype=float) for a in (self.M, self.B, self.c))
        if M.ndim != 2 or M.shape[0] != M.shape[1]:
            raise ValueError(f"M must be a square (D, D) array, got shape {M.shape}")
        D = M.shape[0]
        if B.ndim != 2 or B.shape[0] != D:
            raise ValueError(f"B must have shape (D, p) = ({D}, p), got {B.shape}")
        if c.shape != (D,):
            raise ValueError(f"c must have shape (D,) = ({D},), got {c.shape}")
        if sum(self.blocks) != D or min(self.blocks, default=0) < 1:
            raise ValueError(f"blocks must be positive sizes summing to D = {D}, got {self.blocks}")
        if not np.all(np.isfinite(M)) or not np.all(np.isfinite(B)) or not np.all(np.isfinite(c)):
            raise ValueError("M, B and c must be finite")
        if strong_monotonicity(M) <= 0:
            raise ValueError("M must be strongly monotone: sym(M) = (M + M^T)/2 positive definite")
        for name in ("lower", "upper"):
            bound = getattr(self, name)
            if bound is not None:
                bound = np.asarray(bound, dtype=float)
                if bound.shape != (D,):
                    raise ValueError(f"{name} must have shape (D,) = ({D},), got {bound.shape}")
                object.__setattr__(self, name, bound)
        if self.lower is not None and self.upper is not None and np.any(self.lower > self.upper):
            raise ValueError("lower must be <= upper")
        object.__setattr__(self, "M", M)
        object.__setattr__(self, "B", B)
        object.__setattr__(self, "c", c)

    @property
    def dim(self) -> int:
        return self.M.shape[0]

    @property
    def action_dim(self) -> int:
        return self.B.shape[1]

    @property
    def mu(self) -> float:
        """Strong-monotonicity modulus: the smallest eigenvalue of ``sym(M)``."""
        return strong_monotonicity(self.M)

    @property
    def lipschitz(self) -> float:
        """Lipschitz constant of the game gradient: ``||M||_2``."""
        return float(np.linalg.norm(self.M, 2))

    def gradient(self, z: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """``g(z; theta)``; ``z (..., D)``, ``theta (..., p)`` broadcast -> ``(..., D)``."""
        return z @ self.M.T + theta @ self.B.T + self.c

    def project(self, z: np.ndarray) -> np.ndarray:
        """Euclidean projection on the box action set (identity when unbounded)."""
        if self.lower is None and self.upper is None:
            return z
        return np.clip(z, self.lower, self.upper)


def strong_monotonicity(M: np.ndarray) -> float:
    """``lambda_min((M + M^T) / 2)``, the modulus ``mu`` of ``z -> M z``."""
    return float(np.linalg.eigvalsh(0.5 * (M + M.T))[0])


def equilibrium(game: QuadraticGame, theta: np.ndarray) -> np.ndarray:
    """Nash equilibrium ``z*(theta) = -M^{-1}(B theta + c)``; ``theta (..., p)`` -> ``(..., D)``.

    Unconstrained: the caller keeps ``theta`` where ``z*`` lies inside the action set."""
    theta = np.asarray(theta, dtype=float)
    if theta.shape[-1:] != (game.action_dim,):
        raise ValueError(f"theta must have last dimension p = {game.action_dim}, got {theta.shape}")
    rhs = -(theta @ game.B.T + game.c)  # (..., D)
    return np.linalg.solve(game.M, rhs.reshape(-1, game.dim).T).T.reshape(rhs.shape)


def sensitivity(game: QuadraticGame) -> np.ndarray:
    """``J = dz*/dtheta = -M^{-1} B``, shape ``(D, p)``."""
    return -np.linalg.solve(game.M, game.B)


def random_game(
    blocks: tuple[int, ...] = (3, 3),
    action_dim: int = 2,
    mu: float = 1.0,
    coupling: float = 1.0,
    seed: int | np.random.Generator = 0,
) -> QuadraticGame:
    """A random ``mu``-strongly monotone quadratic game (the notes' two players in ``R^3``).

    ``M = mu I + S + K``: ``S`` positive semi-definite with ``lambda_min(S) = 0`` (so the modulus
    is exactly ``mu``) and ``K`` antisymmetric (the players' conflicting interaction), both of
    spectral size ``coupling``; ``B, c`` standard normal."""
    if not blocks or any(check_int("blocks", b, minimum=1) != b for b in blocks):
        raise ValueError(f"blocks must be a non-empty tuple of positive integers, got {blocks!r}")
    p = check_int("action_dim", action_dim, minimum=1)
    mu = check_real("mu", mu, low=0.0, high=np.inf, low_open=True, high_open=True)
    coupling = check_real("coupling", coupling, low=0.0, high=np.inf, high_open=True)
    rng = np.random.default_rng(seed)
    D = sum(blocks)
    G = rng.normal(size=(D, D))
    S = G @ G.T
    S -= np.linalg.eigvalsh(S)[0] * np.eye(D)
    S *= coupling / np.linalg.norm(S, 2)
    K = rng.normal(size=(D, D))
    K = K - K.T
    K *= coupling / np.linalg.norm(K, 2)
    M = mu * np.eye(D) + S + K
    return QuadraticGame(M, rng.normal(size=(D, p)), rng.normal(size=D), tuple(blocks))


def ride_share_game(
    n_locations: int = 5,
    price: float = 15.0,
    regularization: float = 1.0,
    max_price: float = 20.0,
    seed: int | np.random.Generator = 0,
) -> QuadraticGame:
    """Two ride-share firms pricing ``n_locations`` locations (paper App. D.3, after Narang et
    al. 2022). Reconstructed: the paper's text and data were not available to us.

    Firm ``i`` sets prices ``x_i in [0, max_price]^d``; its demand is
    ``z_i = q_i + theta - a_i * x_i + b_i * x_{-i}`` with own-price effect
    ``a_i = 3 q_i / (2 price)`` and competitor effect ``b_i = 3 q_{-i} / (4 price)`` (Narang et
    al.'s calibration from mean demand ``q`` at a reference price), and it minimises
    ``-x_i . z_i + (regularization / 2) |x_i|^2`` (negative revenue). Mean demands ``q`` are
    drawn uniformly from ``[20, 60]`` rides per location (semi-synthetic: the Boston rides data
    are not shipped). The decision-maker's action ``theta in R^d`` is a demand signal added to
    both firms' base demand per location. Gradient of firm ``i``:
    ``-(q_i + theta) + (2 a_i + regularization) x_i - b_i x_{-i}``.
    """
    d = check_int("n_locations", n_locations, minimum=1)
    price = check_real("price", price, low=0.0, high=np.inf, low_open=True, high_open=True)
    lam = check_real("regularization", regularization, low=0.0, high=np.inf, high_open=True)
    max_price = check_real("max_price", max_price, low=0.0, high=np.inf, low_open=True)
    rng = np.random.default_rng(seed)
    q = rng.uniform(20.0, 60.0, size=(2, d))  # (firm, location) mean demand
    a = 3.0 * q / (2.0 * price)  # own-price effect
    b = 3.0 * q[::-1] / (4.0 * price)  # competitor effect
    M = np.block(
        [
            [np.diag(2 * a[0] + lam), -np.diag(b[0])],
            [-np.diag(b[1]), np.diag(2 * a[1] + lam)],
        ]
    )
    B = -np.vstack([np.eye(d), np.eye(d)])
    return QuadraticGame(
        M, B, -q.ravel(), (d, d), lower=np.zeros(2 * d), upper=np.full(2 * d, max_price)
    )
