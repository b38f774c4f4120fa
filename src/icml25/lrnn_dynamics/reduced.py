"""Tasks with a temporal profile of singular values, and the mode-wise reduced dynamics.

Proca et al., ICML 2025, Sec. 3. A task shares its singular vectors across time,

    S(i) = U diag(s_1(i), ..., s_m(i)) V^T,   i = 1..T,

and from the aligned initialisation (:func:`~icml25.lrnn_dynamics.network.init_aligned`)
``W_y W_h^k W_x = U diag(a b^k c) V^T`` stays aligned, so the loss splits into one term per mode

    L_a = 1/2 sum_i (s_a(i) - a b^{T-i} c)^2 .

Our derivation (tested against the full network in ``tests/lrnn_dynamics``): with residuals
``r_k = s_a(T-k) - a b^k c`` (lag ``k = T - i``), gradient flow ``d theta / dt = -dL_a/d theta``
is the scalar system

    da/dt = sum_k r_k b^k c,    dc/dt = sum_k r_k a b^k,    db/dt = sum_k r_k a c k b^{k-1}.

Profiles are arrays ``s (m, T)`` in time order (column ``t`` is ``s(t+1)``, 0-based).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real
from icml25.lrnn_dynamics.network import _check_net, _check_size, _per_mode, _rng


def random_orthogonal(d: int, seed: int | np.random.Generator) -> np.ndarray:
    """A Haar-random orthogonal matrix.

    Parameters
    ----------
    d : int
        Dimension, ``>= 1``.
    seed : int or numpy.random.Generator
        Anything ``numpy.random.default_rng`` takes.

    Returns
    -------
    numpy.ndarray, shape (d, d)
        An orthogonal matrix (QR of a Gaussian matrix, signs fixed by the diagonal of ``R``).
    """
    d = check_int("d", d, minimum=1)
    _check_size("d * d", d * d)
    Q, R = np.linalg.qr(_rng(seed).normal(size=(d, d)))
    return Q * np.sign(np.diag(R))


def check_profiles(s) -> np.ndarray:
    """``s`` as a float ``(m, T)`` array, or ValueError naming it."""
    s = real_array("s", s, nonempty=False)
    if s.ndim == 1:
        s = s[None]
    if s.ndim != 2 or min(s.shape) < 1:
        raise ValueError(f"s must be a finite (modes, T) array of singular values, got {s.shape}")
    return s


def exponential_profile(s: float, lam: float, T: int) -> np.ndarray:
    """An exponential profile ``s(i) = s lam^{T-i}`` for i = 1..T, in time order.

    The paper's exponential task dynamics: one mode learns it exactly, with ``b = lam``.

    Parameters
    ----------
    s : float
        Value at the last time step (lag 0), finite.
    lam : float
        Ratio between consecutive steps, finite.
    T : int
        Sequence length, ``>= 1``.

    Returns
    -------
    numpy.ndarray, shape (T,)
        ``s lam^{T-1}, ..., s lam, s``.
    """
    T = check_int("T", T, minimum=1)
    _check_size("T", T)
    s = check_real("s", s, low=-np.inf, high=np.inf, low_open=True, high_open=True)
    lam = check_real("lam", lam, low=-np.inf, high=np.inf, low_open=True, high_open=True)
    return s * lam ** np.arange(T - 1, -1, -1, dtype=float)


def make_task(U: np.ndarray, V: np.ndarray, s) -> np.ndarray:
    """A task whose maps share singular vectors, ``S(i) = U diag(s(i)) V^T`` for each time.

    Parameters
    ----------
    U : array_like, shape (d_out, m)
        Left singular vectors, one column per mode.
    V : array_like, shape (d_in, m)
        Right singular vectors, one column per mode.
    s : array_like, shape (m, T) or (T,)
        Finite profiles in time order (a 1-d array is one mode).

    Returns
    -------
    S : numpy.ndarray, shape (T, d_out, d_in)
        The task maps, ``S[t] = U diag(s[:, t]) V^T``.
    """
    s = check_profiles(s)
    U, V = real_array("U", U, ndim=2), real_array("V", V, ndim=2)
    if U.shape[1] != s.shape[0] or V.shape[1] != s.shape[0]:
        raise ValueError(
            f"U and V must have one column per mode ({s.shape[0]}), got {U.shape} and {V.shape}"
        )
    return np.einsum("om,mt,im->toi", U, s, V)


def mode_projections(maps: np.ndarray, U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Project maps onto the task's modes: ``u_a^T M v_a`` for each mode ``a``.

    Parameters
    ----------
    maps : array_like, shape (..., T, d_out, d_in)
        Finite maps, for instance ``Training.maps`` (R, T, d_out, d_in).
    U : array_like, shape (d_out, m)
        Left singular vectors ``u_a``.
    V : array_like, shape (d_in, m)
        Right singular vectors ``v_a``, as many as ``U``.

    Returns
    -------
    numpy.ndarray, shape (..., m, T)
        The value of each mode at each time step, comparable with a profile ``s``.
    """
    shape = real_array("maps", maps).shape
    U_shape, V_shape = real_array("U", U, ndim=2).shape, real_array("V", V, ndim=2).shape
    if len(shape) < 3:
        raise ValueError(f"maps must have shape (..., T, d_out, d_in), got {shape}")
    if U_shape[0] != shape[-2] or V_shape[0] != shape[-1] or U_shape[1] != V_shape[1]:
        raise ValueError(
            f"U must be (d_out, m) = ({shape[-2]}, m) and V (d_in, m) = ({shape[-1]}, m) with "
            f"the same m, got {U_shape} and {V_shape}"
        )
    return np.einsum("om,...toi,im->...mt", U, maps, V)


def reduced_loss(a, b, c, s) -> float:
    """The reduced loss ``sum_a L_a = 1/2 sum_a sum_i (s_a(i) - a b^{T-i} c)^2``.

    Parameters
    ----------
    a : array_like, shape (m,)
        Output scalar of each mode: a 1-d array of ``m`` values, or of one used for all.
    b : array_like, shape (m,)
        Recurrent scalar of each mode.
    c : array_like, shape (m,)
        Input scalar of each mode.
    s : array_like, shape (m, T)
        Finite profiles in time order.

    Returns
    -------
    float
        The loss, ``>= 0``; for the task ``make_task(U, V, s)`` it equals the exact loss of
        the aligned network ``init_aligned(U, V, a, b, c, ...)``.
    """
    s = check_profiles(s)
    for name, value in (("a", a), ("b", b), ("c", c)):
        _per_mode(name, value, s.shape[0], scalar=False)
    return 0.5 * float(np.sum(_residuals(a, b, c, s) ** 2))


def _residuals(a, b, c, s) -> np.ndarray:
    a, b, c = (np.asarray(v, float) for v in (a, b, c))
    T = s.shape[1]
    lags = np.arange(T - 1, -1, -1)  # lag of each time step
    return s - (a * c)[:, None] * np.asarray(b)[:, None] ** lags  # (m, T)


def reduced_gradient(a, b, c, s) -> np.ndarray:
    """The negative gradient ``-dL_a/d(a, b, c)``: the right-hand side of the scalar ODEs.

    Parameters
    ----------
    a : array_like, shape (m,)
        Output scalar of each mode: a 1-d array of ``m`` values, or of one used for all.
    b : array_like, shape (m,)
        Recurrent scalar of each mode.
    c : array_like, shape (m,)
        Input scalar of each mode.
    s : array_like, shape (m, T)
        Finite profiles in time order.

    Returns
    -------
    numpy.ndarray, shape (3, m)
        Rows ``da/dt``, ``db/dt``, ``dc/dt``.
    """
    s = check_profiles(s)
    for name, value in (("a", a), ("b", b), ("c", c)):
        _per_mode(name, value, s.shape[0], scalar=False)
    return _reduced_gradient(a, b, c, s)


def _reduced_gradient(a, b, c, s) -> np.ndarray:
    """``reduced_gradient`` on checked profiles: the inner step of the integrators."""
    a, b, c = (np.asarray(v, float) for v in (a, b, c))
    T = s.shape[1]
    k = np.arange(T - 1, -1, -1, dtype=float)  # (T,) lag of each time step
    r = _residuals(a, b, c, s)  # (m, T)
    bk = b[:, None] ** k  # (m, T)
    bk1 = np.where(k > 0, b[:, None] ** np.maximum(k - 1, 0), 0.0)  # b^{k-1}, 0 at k = 0
    da = np.sum(r * bk, axis=1) * c
    dc = np.sum(r * bk, axis=1) * a
    db = np.sum(r * k * bk1, axis=1) * a * c
    return np.stack([da, db, dc])


@dataclass(frozen=True)
class ReducedTrajectory:
    """Trajectory of the reduced dynamics: the scalars of every mode over time.

    Parameters
    ----------
    times : numpy.ndarray, shape (R,)
        Times of the rows (for gradient descent, ``step * lr``).
    a : numpy.ndarray, shape (R, m)
        Output scalar of each mode at each time.
    b : numpy.ndarray, shape (R, m)
        Recurrent scalar.
    c : numpy.ndarray, shape (R, m)
        Input scalar.
    T : int
        Sequence length of the task.

    Notes
    -----
    ``maps`` (R, m, T) are the predicted mode maps ``a b^{T-i} c`` in time order, comparable
    with :func:`mode_projections` of a network's sequence maps.
    """

    times: np.ndarray
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    T: int

    @property
    def maps(self) -> np.ndarray:
        T = self.T
        lags = np.arange(T - 1, -1, -1)
        return (self.a * self.c)[..., None] * self.b[..., None] ** lags


def reduced_flow(s, a0, b0, c0, times, rtol: float = 1e-9) -> ReducedTrajectory:
    """Integrate the scalar gradient-flow ODEs of every mode from ``(a0, b0, c0)`` and return
    them at ``times`` (increasing, from 0; gradient-descent step ``n`` at ``lr`` is time
    ``n lr``).

    Integrated by scipy's ``solve_ivp`` (``DOP853``, absolute tolerance ``1e-14``).

    Parameters
    ----------
    s : array_like, shape (m, T)
        Finite profiles in time order (a 1-d array is one mode).
    a0 : float or array_like, shape (m,)
        Initial output scalar of each mode (one value is used for every mode).
    b0 : float or array_like, shape (m,)
        Initial recurrent scalar.
    c0 : float or array_like, shape (m,)
        Initial input scalar.
    times : array_like, shape (R,)
        Non-decreasing times, the first ``>= 0``.
    rtol : float, default 1e-9
        Relative tolerance of the solver, in ``[0, 1]``.

    Returns
    -------
    ReducedTrajectory
        ``a``, ``b``, ``c`` (R, m) at ``times``.

    Raises
    ------
    RuntimeError
        If the ODE solver fails.
    """
    s = check_profiles(s)
    m = s.shape[0]
    times = real_array("times", times, nonempty=False)
    if times.ndim != 1 or times.size < 1 or np.any(np.diff(times) < 0) or times[0] < 0:
        raise ValueError("times must be a non-empty increasing 1-d array starting at >= 0")
    for name, value in (("a0", a0), ("b0", b0), ("c0", c0)):
        _per_mode(name, value, m)
    _check_size("len(times) * 3 m", times.size * 3 * m)
    check_real("rtol", rtol, low=0.0, high=1.0)
    y0 = np.concatenate([np.broadcast_to(np.asarray(v, float), (m,)) for v in (a0, b0, c0)])

    def rhs(_, y):
        return _reduced_gradient(y[:m], y[m : 2 * m], y[2 * m :], s).ravel()

    sol = solve_ivp(
        rhs,
        (0.0, max(times[-1], 1e-12)),
        y0,
        t_eval=times,
        method="DOP853",
        rtol=rtol,
        atol=1e-14,
    )
    if not sol.success:
        raise RuntimeError(f"reduced_flow: the ODE solver failed: {sol.message}")
    y = sol.y.T  # (R, 3m)
    return ReducedTrajectory(times, y[:, :m], y[:, m : 2 * m], y[:, 2 * m :], s.shape[1])


def matched_initial_condition(net, U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Scalar initial values ``(a0, b0, c0)`` ``(3, m)`` for a network that is *not* aligned.

    Our rule (the paper's theory starts aligned): near zero weights the lag-0 gradient dominates,
    and the hidden vectors ``z_a = W_y^T u_a`` and ``w_a = W_x v_a`` of mode ``a`` obey
    ``dz/dt = s w``, ``dw/dt = s z`` (Saxe et al.'s linear network): ``z - w`` decays,
    ``z + w`` grows, so after alignment ``z ~ w ~ (z0 + w0) / 2 e^{st}``. The aligned system
    with the same future starts at ``a0 = c0 = ||z0 + w0|| / 2`` and, along the hidden
    direction ``r = (z0 + w0) / ||z0 + w0||``, at ``b0 = r^T W_h r``. No fitting to the
    trajectory.

    Parameters
    ----------
    net : LinearRNN
        The (unaligned) network, for instance from ``init_random``.
    U : array_like, shape (d_out, m)
        The task's left singular vectors.
    V : array_like, shape (d_in, m)
        The task's right singular vectors.

    Returns
    -------
    numpy.ndarray, shape (3, m)
        Rows ``a0``, ``b0``, ``c0``, to pass to :func:`reduced_flow` or :func:`reduced_gd`.

    Raises
    ------
    ValueError
        If the network has no weight along some mode (``z0 + w0 = 0``).
    """
    _check_net(net)
    U, V = real_array("U", U, ndim=2), real_array("V", V, ndim=2)
    if U.shape != (net.W_y.shape[0], U.shape[1]) or V.shape != (net.W_x.shape[1], U.shape[1]):
        raise ValueError(
            f"U must be (d_out, m) = ({net.W_y.shape[0]}, m) and V (d_in, m) = "
            f"({net.W_x.shape[1]}, m) with the same m, got {U.shape} and {V.shape}"
        )
    r = net.W_y.T @ U + net.W_x @ V  # (N, m): z0 + w0 per mode
    size = np.linalg.norm(r, axis=0)  # (m,)
    if np.any(size == 0):
        raise ValueError("the network has no weight along some mode; cannot match it")
    direction = r / size  # (N, m)
    b0 = np.einsum("nm,nk,km->m", direction, net.W_h, direction)
    return np.stack([size / 2, b0, size / 2])


def reduced_gd(s, a0, b0, c0, lr: float, steps: int) -> ReducedTrajectory:
    """The reduced system under discrete gradient descent (step ``lr``), recorded every step.

    ``theta <- theta + lr * reduced_gradient(theta)`` for ``theta = (a, b, c)``: the scalar
    counterpart of :func:`~icml25.lrnn_dynamics.network.train` from an aligned start.

    Parameters
    ----------
    s : array_like, shape (m, T)
        Finite profiles in time order (a 1-d array is one mode).
    a0 : float or array_like, shape (m,)
        Initial output scalar of each mode (one value is used for every mode).
    b0 : float or array_like, shape (m,)
        Initial recurrent scalar.
    c0 : float or array_like, shape (m,)
        Initial input scalar.
    lr : float
        Step size, ``> 0``.
    steps : int
        Gradient steps, ``>= 0``.

    Returns
    -------
    ReducedTrajectory
        ``times = lr * arange(steps + 1)`` and ``a``, ``b``, ``c`` of shape (steps + 1, m).
    """
    s = check_profiles(s)
    lr = check_real("lr", lr, low=0.0, high=np.inf, low_open=True, high_open=True)
    steps = check_int("steps", steps, minimum=0)
    m = s.shape[0]
    for name, value in (("a0", a0), ("b0", b0), ("c0", c0)):
        _per_mode(name, value, m)
    _check_size("(steps + 1) * 3 m", (steps + 1) * 3 * m)
    theta = np.stack([np.broadcast_to(np.asarray(v, float), (m,)) for v in (a0, b0, c0)])
    out = np.empty((steps + 1, 3, m))
    out[0] = theta
    for n in range(steps):
        theta = theta + lr * _reduced_gradient(*theta, s)
        out[n + 1] = theta
    return ReducedTrajectory(lr * np.arange(steps + 1), out[:, 0], out[:, 1], out[:, 2], s.shape[1])
