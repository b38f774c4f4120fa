"""Strongly monotone games steered by a decision-maker (Frankel et al., ICML 2025).

Frankel, Kulkarni, Drusvyatskiy, Oh & Ratliff, *Finite-Time Convergence Rates in Stochastic
Stackelberg Games with Smooth Algorithmic Agents*, PMLR 267:17575-17656.

The agents' game is given by its stacked gradient map ``g(z; theta)`` (block ``i``: player
``i``'s gradient of its own cost), ``mu``-strongly monotone and ``L``-Lipschitz in ``z``. Any
smooth game is a :class:`SmoothGame` (callable gradient); its Nash equilibrium ``z*(theta)``
(``g(z*; theta) = 0``, or the variational inequality on a box) is found by the contraction
``z <- Pi(z - (mu / L^2) g(z; theta))`` and its sensitivity by the implicit function theorem,
``J(theta) = dz*/dtheta = -(D_z g)^{-1} D_theta g`` at ``z*(theta)``. The quadratic case
(:class:`QuadraticGame`, closed forms)::

    g(z; theta) = M z + B theta + c,      z = (z_1, ..., z_n) in R^D, theta in R^p,

where block ``i`` of ``g`` is player ``i``'s gradient of its own cost. The game is
``mu``-strongly monotone when ``sym(M) = (M + M^T) / 2 >= mu I`` and ``L``-Lipschitz with
``L = ||M||_2``; its unique Nash equilibrium is ``z*(theta) = -M^{-1} (B theta + c)``, affine in
the decision-maker's action with sensitivity ``J = dz*/dtheta = -M^{-1} B``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real

MAX_FLOATS = 2**30  # an array of more float64s (8 GiB) is refused as a size typo


def _check_size(name: str, floats: int) -> None:
    """ValueError naming ``name`` when an array it sizes would hold more than 2**30 floats."""
    if floats > MAX_FLOATS:
        raise ValueError(f"{name} is too large: an array of {floats} floats (at most 2**30)")


def _check_seed(seed) -> None:
    if not isinstance(seed, np.random.Generator):
        check_int("seed", seed, minimum=0)


def _check_blocks(blocks, D: int) -> None:
    """The players' dimensions: positive integers summing to ``D``."""
    try:
        sizes = tuple(blocks)
    except TypeError:
        sizes = None
    if (
        sizes is None
        or any(isinstance(b, bool) or not isinstance(b, numbers.Integral) for b in sizes)
        or sum(sizes) != D
        or min(sizes, default=0) < 1
    ):
        raise ValueError(f"blocks must be positive sizes summing to D = {D}, got {blocks}")


def _no_nan(name: str, value) -> np.ndarray:
    """``value`` as a float64 array of a numeric dtype without NaN (``+-inf`` allowed)."""
    try:
        array = np.asarray(value)
    except ValueError as err:  # ragged nested lists
        raise ValueError(f"{name} must be a numeric array: {err}") from None
    if array.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a numeric array, got dtype {array.dtype}")
    array = np.asarray(array, dtype=float)
    if np.isnan(array).any():
        raise ValueError(f"{name} must not hold NaN")
    return array


def _bound(name: str, value, D: int) -> np.ndarray:
    """A box bound ``(D,)``: numeric, no NaN (``+-inf`` leaves that side of the box open)."""
    bound = _no_nan(name, value)
    if bound.shape != (D,):
        raise ValueError(f"{name} must have shape (D,) = ({D},), got {bound.shape}")
    return bound


@dataclass(frozen=True)
class QuadraticGame:
    """The agents' game ``g(z; theta) = M z + B theta + c``.

    Shapes: ``M (D, D)``, ``B (D, p)``, ``c (D,)``; ``blocks`` the players' dimensions
    (summing to ``D``); ``lower``/``upper`` optional box bounds ``(D,)`` of the action set that
    projected gradient play projects on (``None``: the whole space).

    Parameters
    ----------
    M : array_like, shape (D, D)
        The game's Jacobian in ``z``, finite, with ``sym(M)`` positive definite (strongly
        monotone).
    B : array_like, shape (D, p)
        The influence of the decision-maker's action ``theta`` on the gradients, finite.
    c : array_like, shape (D,)
        The gradients' offset, finite.
    blocks : tuple of int
        The players' dimensions, positive, summing to ``D``.
    lower : array_like or None, shape (D,), default None
        The box's lower bounds (no NaN; ``-inf`` leaves a side open); None for none.
    upper : array_like or None, shape (D,), default None
        The box's upper bounds, ``>= lower``; None for none.

    Raises
    ------
    ValueError
        If a shape does not match, an entry is not finite, ``M`` is not strongly monotone, the
        blocks do not sum to ``D`` or ``lower > upper`` somewhere.
    """

    M: np.ndarray
    B: np.ndarray
    c: np.ndarray
    blocks: tuple[int, ...]
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None

    def __post_init__(self) -> None:
        M, B, c = (real_array(name, getattr(self, name)) for name in ("M", "B", "c"))
        if M.ndim != 2 or M.shape[0] != M.shape[1]:
            raise ValueError(f"M must be a square (D, D) array, got shape {M.shape}")
        D = M.shape[0]
        if B.ndim != 2 or B.shape[0] != D:
            raise ValueError(f"B must have shape (D, p) = ({D}, p), got {B.shape}")
        if c.shape != (D,):
            raise ValueError(f"c must have shape (D,) = ({D},), got {c.shape}")
        _check_blocks(self.blocks, D)
        if not np.all(np.isfinite(M)) or not np.all(np.isfinite(B)) or not np.all(np.isfinite(c)):
            raise ValueError("M, B and c must be finite")
        if _modulus(M) <= 0:
            raise ValueError("M must be strongly monotone: sym(M) = (M + M^T)/2 positive definite")
        for name in ("lower", "upper"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _bound(name, getattr(self, name), D))
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
        return _modulus(self.M)

    @property
    def lipschitz(self) -> float:
        """Lipschitz constant of the game gradient: ``||M||_2``."""
        return float(np.linalg.norm(self.M, 2))

    def gradient(self, z: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """``g(z; theta)``; ``z (..., D)``, ``theta (..., p)`` broadcast -> ``(..., D)``."""
        return z @ self.M.T + theta @ self.B.T + self.c

    def project(self, z: np.ndarray) -> np.ndarray:
        """Euclidean projection on the box action set (identity when unbounded)."""
        return _project(z, self.lower, self.upper)

    def equilibrium(self, theta: np.ndarray) -> np.ndarray:
        """``z*(theta) = -M^{-1}(B theta + c)``; ``theta (..., p)`` -> ``(..., D)``.

        Unconstrained: the caller keeps ``theta`` where ``z*`` lies inside the action set."""
        theta = _check_theta(self, theta)
        rhs = -(theta @ self.B.T + self.c)  # (..., D)
        return np.linalg.solve(self.M, rhs.reshape(-1, self.dim).T).T.reshape(rhs.shape)

    def sensitivity(self, theta: np.ndarray | None = None) -> np.ndarray:
        """``J = -M^{-1} B``, constant: ``(D, p)``, or ``(..., D, p)`` for ``theta (..., p)``."""
        J = -np.linalg.solve(self.M, self.B)
        if theta is None:
            return J
        theta = _check_theta(self, theta)
        return np.broadcast_to(J, theta.shape[:-1] + J.shape).copy()


@dataclass(frozen=True)
class SmoothGame:
    """Any smooth strongly monotone game, given by its gradient map ``g(z; theta)``.

    ``gradient_map(z (..., D), theta (..., p)) -> (..., D)`` must broadcast over leading axes;
    ``mu``, ``lipschitz``: the game's strong-monotonicity modulus and Lipschitz constant in
    ``z`` (what the paper's schedules are built from; the caller states them); ``blocks`` the
    players' dimensions (default one block); ``lower``/``upper`` optional box bounds ``(D,)``;
    ``tol``: the equilibrium solver's tolerance on ``|z_{k+1} - z_k|_inf``; ``fd_step``: the
    central-difference step of the Jacobians ``D_z g``, ``D_theta g``.

    Parameters
    ----------
    gradient_map : callable
        ``g(z, theta)``: ``z (..., D)``, ``theta (..., p)`` -> ``(..., D)``, broadcasting over
        leading axes.
    dim : int
        The agents' joint dimension ``D``, ``>= 1``.
    action_dim : int
        The decision-maker's action dimension ``p``, ``>= 1``.
    mu : float
        The strong-monotonicity modulus in ``z``, positive.
    lipschitz : float
        The Lipschitz constant ``L`` in ``z``, ``>= mu``.
    blocks : tuple of int, default ()
        The players' dimensions summing to ``D``; ``()`` for one block ``(D,)``.
    lower : array_like or None, shape (D,), default None
        The box's lower bounds; None for none.
    upper : array_like or None, shape (D,), default None
        The box's upper bounds; None for none.
    tol : float, default 1e-11
        The equilibrium solver's tolerance on ``|z_{k+1} - z_k|_inf`` (relative to
        ``1 + |z|_inf``), positive.
    fd_step : float, default 1e-5
        The central-difference step of the Jacobians, positive.

    Raises
    ------
    TypeError
        If ``gradient_map`` is not callable.
    ValueError
        If a dimension, constant or bound is invalid, or ``gradient_map`` does not return
        shape ``(1, D)`` for ``(1, D)`` and ``(1, p)`` zeros.
    """

    gradient_map: Callable[[np.ndarray, np.ndarray], np.ndarray]
    dim: int
    action_dim: int
    mu: float
    lipschitz: float
    blocks: tuple[int, ...] = ()
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    tol: float = 1e-11
    fd_step: float = 1e-5

    def __post_init__(self) -> None:
        if not callable(self.gradient_map):
            raise TypeError(f"gradient_map must be callable, got {type(self.gradient_map)}")
        D = check_int("dim", self.dim, minimum=1)
        check_int("action_dim", self.action_dim, minimum=1)
        _check_size("dim", D)
        _check_size("action_dim", self.action_dim)
        mu = check_real("mu", self.mu, low=0.0, high=np.inf, low_open=True, high_open=True)
        check_real("lipschitz", self.lipschitz, low=mu, high=np.inf, high_open=True)
        check_real("tol", self.tol, low=0.0, high=np.inf, low_open=True, high_open=True)
        check_real("fd_step", self.fd_step, low=0.0, high=np.inf, low_open=True, high_open=True)
        blocks = self.blocks or (D,)
        _check_blocks(blocks, D)
        object.__setattr__(self, "blocks", tuple(blocks))
        for name in ("lower", "upper"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _bound(name, getattr(self, name), D))
        probe = self.gradient_map(np.zeros((1, D)), np.zeros((1, self.action_dim)))
        if np.shape(probe) != (1, D):
            raise ValueError(
                f"gradient_map must return shape (..., D) = (1, {D}) for (1, D) and "
                f"(1, p) inputs, got {np.shape(probe)}"
            )

    def gradient(self, z: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """``g(z; theta)``; ``z (..., D)``, ``theta (..., p)`` broadcast -> ``(..., D)``."""
        return np.asarray(self.gradient_map(z, theta), dtype=float)

    def project(self, z: np.ndarray) -> np.ndarray:
        """Euclidean projection on the box action set (identity when unbounded)."""
        return _project(z, self.lower, self.upper)

    def equilibrium(self, theta: np.ndarray, z0: np.ndarray | None = None) -> np.ndarray:
        """``z*(theta)`` by the contraction ``z <- Pi(z - (mu/L^2) g(z; theta))`` (factor
        ``sqrt(1 - mu^2/L^2)`` per step), from ``z0`` (default zeros) until the step is below
        ``tol``; ``theta (..., p)`` -> ``(..., D)``. Raises if it has not converged."""
        theta = _check_theta(self, theta)
        z = np.zeros(theta.shape[:-1] + (self.dim,)) if z0 is None else np.array(z0, dtype=float)
        z = np.broadcast_to(z, theta.shape[:-1] + (self.dim,)).copy()
        step = self.mu / self.lipschitz**2
        rate = max(np.sqrt(1.0 - (self.mu / self.lipschitz) ** 2), 1e-300)
        max_iter = int(np.ceil(60.0 / max(-np.log(rate), 1e-12))) + 10  # e^-60 of any start
        for _ in range(max_iter):
            z_next = self.project(z - step * self.gradient(z, theta))
            moved = np.max(np.abs(z_next - z), initial=0.0)
            z = z_next
            if moved <= self.tol * (1.0 + np.max(np.abs(z), initial=0.0)):
                return z
        raise ValueError(
            f"equilibrium did not converge in {max_iter} steps: is the game mu-strongly monotone "
            f"and L-Lipschitz with mu = {self.mu}, L = {self.lipschitz}?"
        )

    def jacobians(self, z: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(D_z g (..., D, D), D_theta g (..., D, p))`` at ``(z (..., D), theta (..., p))``
        by central differences of step ``fd_step`` (all directions in one call each)."""
        z, theta = np.asarray(z, dtype=float), np.asarray(theta, dtype=float)
        lead = np.broadcast_shapes(z.shape[:-1], theta.shape[:-1])
        z, theta = (
            np.broadcast_to(z, lead + z.shape[-1:]),
            np.broadcast_to(theta, lead + theta.shape[-1:]),
        )
        h = self.fd_step
        ez, et = h * np.eye(self.dim), h * np.eye(self.action_dim)
        zs, ts = z[..., None, :], theta[..., None, :]  # (..., 1, D), (..., 1, p)
        Gz = self.gradient(zs + ez, ts) - self.gradient(zs - ez, ts)  # (..., D, D): row j = d/dz_j
        Gt = self.gradient(zs, ts + et) - self.gradient(zs, ts - et)  # (..., p, D)
        return np.swapaxes(Gz, -1, -2) / (2 * h), np.swapaxes(Gt, -1, -2) / (2 * h)

    def sensitivity(self, theta: np.ndarray | None = None) -> np.ndarray:
        """``J(theta) = -(D_z g)^{-1} D_theta g`` at ``z*(theta)`` (implicit function
        theorem; ignores active box constraints); ``theta (..., p)`` -> ``(..., D, p)``,
        ``None``: at ``theta = 0``."""
        theta = np.zeros(self.action_dim) if theta is None else _check_theta(self, theta)
        Gz, Gt = self.jacobians(self.equilibrium(theta), theta)
        return -np.linalg.solve(Gz, Gt)


def _project(z: np.ndarray, lower, upper) -> np.ndarray:
    if lower is None and upper is None:
        return z
    return np.clip(z, lower, upper)


def _check_theta(game, theta) -> np.ndarray:
    theta = real_array("theta", theta)
    if theta.shape[-1:] != (game.action_dim,):
        raise ValueError(f"theta must have last dimension p = {game.action_dim}, got {theta.shape}")
    return theta


Game = QuadraticGame | SmoothGame


def strong_monotonicity(M: np.ndarray) -> float:
    """``lambda_min((M + M^T) / 2)``, the modulus ``mu`` of ``z -> M z``; ``M`` a finite
    square matrix.

    Parameters
    ----------
    M : array_like, shape (D, D)
        A finite square matrix.

    Returns
    -------
    float
        The smallest eigenvalue of ``sym(M)``; positive exactly when ``z -> M z`` is
        strongly monotone.

    Raises
    ------
    ValueError
        If ``M`` is not a finite square 2-D array.
    """
    M = real_array("M", M, ndim=2)
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be a square (D, D) array, got shape {M.shape}")
    return _modulus(M)


def _modulus(M: np.ndarray) -> float:
    return float(np.linalg.eigvalsh(0.5 * (M + M.T))[0])


def equilibrium(game: Game, theta: np.ndarray) -> np.ndarray:
    """Nash equilibrium ``z*(theta)`` of any game; ``theta (..., p)`` -> ``(..., D)``
    (quadratic: ``-M^{-1}(B theta + c)``).

    Parameters
    ----------
    game : QuadraticGame or SmoothGame
        The agents' game.
    theta : array_like, shape (..., p)
        The decision-maker's action(s).

    Returns
    -------
    numpy.ndarray, shape (..., D)
        The equilibrium play ``z*(theta)`` for each action.
    """
    return game.equilibrium(theta)


def sensitivity(game: Game, theta: np.ndarray | None = None) -> np.ndarray:
    """``J = dz*/dtheta``: ``(D, p)`` at ``theta`` (``None``: the quadratic game's constant
    ``-M^{-1} B``, a smooth game's ``J(0)``), ``(..., D, p)`` for ``theta (..., p)``.

    Parameters
    ----------
    game : QuadraticGame or SmoothGame
        The agents' game.
    theta : array_like or None, shape (..., p), default None
        The action(s) at which to differentiate; None as above.

    Returns
    -------
    numpy.ndarray, shape (D, p) or (..., D, p)
        The Jacobian ``J = dz*/dtheta`` of the equilibrium in the action.
    """
    return game.sensitivity(theta)


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
    spectral size ``coupling``; ``B, c`` standard normal.

    Parameters
    ----------
    blocks : tuple of int, default (3, 3)
        The players' dimensions, positive; ``D = sum(blocks)``.
    action_dim : int, default 2
        The decision-maker's action dimension ``p``, ``>= 1``.
    mu : float, default 1.0
        The strong-monotonicity modulus, positive.
    coupling : float, default 1.0
        The spectral norm of each of ``S`` and ``K``, ``>= 0``.
    seed : int or numpy.random.Generator, default 0
        The seed (``>= 0``) or generator of the draws.

    Returns
    -------
    QuadraticGame
        The game, unbounded, with ``M (D, D)``, ``B (D, p)``, ``c (D,)``.

    Raises
    ------
    ValueError
        If an argument is out of range.
    """
    if (
        not isinstance(blocks, tuple | list)
        or not blocks
        or any(check_int("blocks", b, minimum=1) != b for b in blocks)
    ):
        raise ValueError(f"blocks must be a non-empty tuple of positive integers, got {blocks!r}")
    p = check_int("action_dim", action_dim, minimum=1)
    mu = check_real("mu", mu, low=0.0, high=np.inf, low_open=True, high_open=True)
    coupling = check_real("coupling", coupling, low=0.0, high=np.inf, high_open=True)
    _check_size("blocks", sum(blocks) * (sum(blocks) + p))
    _check_seed(seed)
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

    Parameters
    ----------
    n_locations : int, default 5
        The number of locations ``d``, ``>= 1``; ``D = 2 d``, ``p = d``.
    price : float, default 15.0
        The reference price of the demand calibration, positive.
    regularization : float, default 1.0
        The firms' price penalty, ``>= 0``.
    max_price : float, default 20.0
        The upper bound of every price, positive (the lower bound is 0).
    seed : int or numpy.random.Generator, default 0
        The seed (``>= 0``) or generator of the mean demands ``q``.

    Returns
    -------
    QuadraticGame
        The game with blocks ``(d, d)`` and the box ``[0, max_price]^{2d}``.

    Raises
    ------
    ValueError
        If an argument is out of range.
    """
    d = check_int("n_locations", n_locations, minimum=1)
    price = check_real("price", price, low=0.0, high=np.inf, low_open=True, high_open=True)
    lam = check_real("regularization", regularization, low=0.0, high=np.inf, high_open=True)
    max_price = check_real("max_price", max_price, low=0.0, high=np.inf, low_open=True)
    _check_size("n_locations", (2 * d) ** 2)
    _check_seed(seed)
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
