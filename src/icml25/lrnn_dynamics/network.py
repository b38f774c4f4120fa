"""The linear RNN, its exact whitened loss and full-batch gradient descent on it.

Proca, Dominé, Shanahan & Mediano, *Learning dynamics in linear recurrent neural networks*,
ICML 2025 (PMLR 267:49860-49902). The network (their Sec. 2)

    h_t = W_h h_{t-1} + W_x x_t,  h_0 = 0,  t = 1..T,    y_hat = W_y h_T
        = sum_i W_y W_h^{T-i} W_x x_i,

trained on white inputs (E[x_i x_j^T] = delta_ij I) against targets y = sum_i S(i) x_i has the
exact loss (up to a constant)

    L = 1/2 sum_{i=1..T} || S(i) - W_y W_h^{T-i} W_x ||_F^2 .

We index time 0-based, ``t = i - 1``, and call ``k = T - i`` the lag. All maps and gradients are
built from ``W_y W_h^k`` and ``W_h^k W_x`` (k = 0..T-1), computed once per step.

Shapes: ``W_x (N, d_in)``, ``W_h (N, N)``, ``W_y (d_out, N)``, task ``S (T, d_out, d_in)``
with ``S[t]`` the map from ``x_{t+1}`` to ``y``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real

MAX_ELEMENTS = 2**30  # arrays of more floats (8 GiB) are refused as a size typo


def _check_size(name: str, count: int) -> None:
    if count > MAX_ELEMENTS:
        raise ValueError(f"{name} is too large: {count} floats (at most 2**30)")


def _rng(seed) -> np.random.Generator:
    try:
        return np.random.default_rng(seed)
    except (TypeError, ValueError) as err:
        raise type(err)(f"seed must be a non-negative int or a numpy Generator: {err}") from None


def _per_mode(name: str, value, m: int, *, scalar: bool = True) -> None:
    v = real_array(name, value)
    if v.ndim > 1 or (v.ndim == 0 and not scalar) or v.size not in (1, m):
        kind = "a number or a 1-d array" if scalar else "a 1-d array"
        raise ValueError(f"{name} must be {kind} of 1 or m = {m} values, got shape {v.shape}")


@dataclass(frozen=True)
class LinearRNN:
    """Weights of a linear RNN ``h_t = W_h h_{t-1} + W_x x_t``, ``y_hat = W_y h_T``.

    Parameters
    ----------
    W_x : numpy.ndarray, shape (N, d_in)
        Input weights; finite, real, non-empty.
    W_h : numpy.ndarray, shape (N, N)
        Recurrent weights; square, with ``N`` the hidden width.
    W_y : numpy.ndarray, shape (d_out, N)
        Output weights.

    Notes
    -----
    ``hidden`` is ``N``; ``forward(x)`` runs the recurrence on sequences ``x`` (B, T, d_in)
    from ``h_0 = 0`` and returns ``y_hat`` (B, d_out).
    """

    W_x: np.ndarray
    W_h: np.ndarray
    W_y: np.ndarray

    def __post_init__(self) -> None:
        for name in ("W_x", "W_h", "W_y"):
            value = getattr(self, name)
            if not isinstance(value, np.ndarray) or value.ndim != 2:
                raise ValueError(f"{name} must be a 2-d numpy array, got {type(value).__name__}")
            if value.dtype.kind not in "iuf" or value.size == 0:
                raise ValueError(
                    f"{name} must be a non-empty real array, got {value.dtype} {value.shape}"
                )
            if not np.all(np.isfinite(value)):
                raise ValueError(f"{name} must be finite")
        N = self.W_h.shape[0]
        if self.W_h.shape != (N, N):
            raise ValueError(f"W_h must be square, got shape {self.W_h.shape}")
        if self.W_x.shape[0] != N or self.W_y.shape[1] != N:
            raise ValueError(
                f"W_x must be (N, d_in) and W_y (d_out, N) with N = {N}, got "
                f"{self.W_x.shape} and {self.W_y.shape}"
            )

    @property
    def hidden(self) -> int:
        return self.W_h.shape[0]

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The recurrence itself on sequences ``x (B, T, d_in)``; returns ``y_hat (B, d_out)``."""
        x = real_array("x", x)
        if x.ndim != 3 or x.shape[2] != self.W_x.shape[1]:
            raise ValueError(f"x must have shape (B, T, {self.W_x.shape[1]}), got {x.shape}")
        h = np.zeros((x.shape[0], self.hidden))  # (B, N)
        for t in range(x.shape[1]):
            h = h @ self.W_h.T + x[:, t] @ self.W_x.T
        return h @ self.W_y.T


def init_random(
    d_in: int, d_out: int, hidden: int, scale: float, seed: int | np.random.Generator
) -> LinearRNN:
    """A linear RNN with Gaussian weights, entries ``N(0, scale^2 / fan_in)``.

    ``scale = 1`` is LeCun's initialisation; the fan-in is ``d_in`` for ``W_x`` and ``hidden``
    for ``W_h`` and ``W_y``.

    Parameters
    ----------
    d_in : int
        Input dimension, ``>= 1``.
    d_out : int
        Output dimension, ``>= 1``.
    hidden : int
        Hidden width ``N``, ``>= 1``.
    scale : float
        Scale of the weights, ``> 0``.
    seed : int or numpy.random.Generator
        Anything ``numpy.random.default_rng`` takes.

    Returns
    -------
    LinearRNN
        ``W_x`` (hidden, d_in), ``W_h`` (hidden, hidden), ``W_y`` (d_out, hidden).
    """
    d_in = check_int("d_in", d_in, minimum=1)
    d_out = check_int("d_out", d_out, minimum=1)
    hidden = check_int("hidden", hidden, minimum=1)
    scale = check_real("scale", scale, low=0.0, high=np.inf, low_open=True, high_open=True)
    _check_size("hidden * (hidden + d_in + d_out)", hidden * (hidden + d_in + d_out))
    rng = _rng(seed)
    return LinearRNN(
        W_x=rng.normal(0.0, scale / np.sqrt(d_in), (hidden, d_in)),
        W_h=rng.normal(0.0, scale / np.sqrt(hidden), (hidden, hidden)),
        W_y=rng.normal(0.0, scale / np.sqrt(hidden), (d_out, hidden)),
    )


def init_aligned(
    U: np.ndarray,
    V: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    hidden: int,
    seed: int | np.random.Generator,
) -> LinearRNN:
    """The paper's aligned initialisation: ``W_y = U diag(a) R^T``, ``W_h = R diag(b) R^T``,
    ``W_x = R diag(c) V^T`` with ``R (N, m)`` random orthonormal, so that
    ``W_y W_h^k W_x = U diag(a b^k c) V^T`` for every lag ``k``: the modes decouple.

    Parameters
    ----------
    U : array_like, shape (d_out, m)
        Orthonormal columns, the task's left singular vectors.
    V : array_like, shape (d_in, m)
        Orthonormal columns, the task's right singular vectors (as many as ``U``).
    a : float or array_like, shape (m,)
        Output scalar of each mode (one value is used for every mode).
    b : float or array_like, shape (m,)
        Recurrent scalar of each mode.
    c : float or array_like, shape (m,)
        Input scalar of each mode.
    hidden : int
        Hidden width ``N``, ``>= m``.
    seed : int or numpy.random.Generator
        Seed of the random orthonormal ``R`` (anything ``numpy.random.default_rng`` takes).

    Returns
    -------
    LinearRNN
        ``W_x`` (N, d_in), ``W_h`` (N, N), ``W_y`` (d_out, N), aligned with ``U`` and ``V``.
    """
    U, V = real_array("U", U, ndim=2), real_array("V", V, ndim=2)
    m = U.shape[1]
    hidden = check_int("hidden", hidden, minimum=m)
    for name, value in (("a", a), ("b", b), ("c", c)):
        _per_mode(name, value, m)
    a, b, c = (np.broadcast_to(np.asarray(v, float), (m,)) for v in (a, b, c))
    if V.shape[1] != m:
        raise ValueError(f"U and V must have the same number of columns, got {m} and {V.shape[1]}")
    _check_size("hidden * (hidden + d_in + d_out)", hidden * (hidden + U.shape[0] + V.shape[0]))
    R, _ = np.linalg.qr(_rng(seed).normal(size=(hidden, m)))  # (N, m)
    return LinearRNN(W_x=(R * c) @ V.T, W_h=(R * b) @ R.T, W_y=(U * a) @ R.T)


def _products(W_x: np.ndarray, W_h: np.ndarray, W_y: np.ndarray, T: int):
    """``A_k = W_y W_h^k`` ``(T, d_out, N)`` and ``B_k = W_h^k W_x`` ``(T, N, d_in)``, k = 0..T-1.

    Built by ``A_{k+1} = A_k W_h`` and ``B_{k+1} = W_h B_k``: ``O(T N^2 d)`` per step rather than
    the ``O(T N^3)`` of forming the powers ``W_h^k`` themselves.
    """
    A = np.empty((T, W_y.shape[0], W_h.shape[0]))
    B = np.empty((T, W_h.shape[0], W_x.shape[1]))
    A[0], B[0] = W_y, W_x
    with np.errstate(over="ignore", invalid="ignore"):  # divergence is reported by train
        for k in range(1, T):
            A[k] = A[k - 1] @ W_h
            B[k] = W_h @ B[k - 1]
    return A, B


def lag_maps(net: LinearRNN, T: int) -> np.ndarray:
    """The network's map of each lag, ``M[k] = W_y W_h^k W_x`` for k = 0..T-1.

    Parameters
    ----------
    net : LinearRNN
        The network.
    T : int
        Sequence length, ``>= 1``.

    Returns
    -------
    numpy.ndarray, shape (T, d_out, d_in)
        ``M[k]``, in lag order (lag 0 first, the last input's map).
    """
    _check_net(net)
    T = check_int("T", T, minimum=1)
    _check_lags(net, T)
    A, _ = _products(net.W_x, net.W_h, net.W_y, T)  # (T, d_out, N)
    return A @ net.W_x


def _check_net(net) -> None:
    if not isinstance(net, LinearRNN):
        raise TypeError(f"net must be a LinearRNN, got {type(net).__name__}")


def _check_lags(net: LinearRNN, T: int) -> None:
    N, d_out, d_in = net.hidden, net.W_y.shape[0], net.W_x.shape[1]
    _check_size("T * hidden * (d_out + d_in)", T * N * (d_out + d_in))


def sequence_maps(net: LinearRNN, T: int) -> np.ndarray:
    """The map from each input ``x_t`` (t = 0..T-1, 0-based) to ``y_hat``, in time order.

    Row ``t`` is ``W_y W_h^{T-1-t} W_x``: the same time order as a task ``S``, i.e.
    :func:`lag_maps` reversed.

    Parameters
    ----------
    net : LinearRNN
        The network.
    T : int
        Sequence length, ``>= 1``.

    Returns
    -------
    numpy.ndarray, shape (T, d_out, d_in)
        The sequence maps, first input first.
    """
    return lag_maps(net, T)[::-1]


def check_task(S: np.ndarray, net: LinearRNN | None = None) -> np.ndarray:
    """Check a task and return it as a float array.

    Parameters
    ----------
    S : array_like, shape (T, d_out, d_in)
        Finite task maps in time order, ``T >= 1``.
    net : LinearRNN, optional
        When given, ``S`` must match its output and input dimensions.

    Returns
    -------
    numpy.ndarray of float64, shape (T, d_out, d_in)
        ``S``.

    Raises
    ------
    ValueError
        If ``S`` has the wrong shape, holds non-finite values, does not match ``net`` or is too
        large.
    """
    _check_size("S", np.size(S))
    S = real_array("S", S)
    if S.ndim != 3 or S.shape[0] < 1:
        raise ValueError(f"S must have shape (T, d_out, d_in) with T >= 1, got {S.shape}")
    if net is None:
        return S
    _check_net(net)
    if S.shape[1:] != (net.W_y.shape[0], net.W_x.shape[1]):
        raise ValueError(
            f"S must have shape (T, {net.W_y.shape[0]}, {net.W_x.shape[1]}) for this network, "
            f"got {S.shape}"
        )
    _check_lags(net, S.shape[0])
    return S


def exact_loss(net: LinearRNN, S: np.ndarray) -> float:
    """The exact loss on white inputs, ``L = 1/2 sum_i ||S(i) - W_y W_h^{T-i} W_x||_F^2``.

    Paper Sec. 2: the mean squared error up to a constant when ``E[x_i x_j^T] = delta_ij I``.

    Parameters
    ----------
    net : LinearRNN
        The network.
    S : array_like, shape (T, d_out, d_in)
        Task maps in time order, matching ``net``.

    Returns
    -------
    float
        ``L >= 0``.
    """
    _check_net(net)
    S = check_task(S, net)
    return 0.5 * float(np.sum((sequence_maps(net, S.shape[0]) - S) ** 2))


def exact_gradients(net: LinearRNN, S: np.ndarray) -> tuple[float, LinearRNN]:
    """The loss and its gradients ``(dL/dW_x, dL/dW_h, dL/dW_y)``, as a ``LinearRNN``.

    With residuals ``E_k = W_y W_h^k W_x - S(T-k)``, ``A_k = W_y W_h^k`` and ``B_k = W_h^k W_x``:
    ``dL/dW_y = sum_k E_k B_k^T``, ``dL/dW_x = sum_k A_k^T E_k`` and
    ``dL/dW_h = sum_k sum_{j+l=k-1} A_j^T E_k B_l^T``; the double sum is one Toeplitz gather.

    Parameters
    ----------
    net : LinearRNN
        The network.
    S : array_like, shape (T, d_out, d_in)
        Task maps in time order, matching ``net``.

    Returns
    -------
    loss : float
        The exact loss ``L`` (as :func:`exact_loss`).
    gradients : LinearRNN
        ``W_x = dL/dW_x`` (N, d_in), ``W_h = dL/dW_h`` (N, N), ``W_y = dL/dW_y`` (d_out, N).
    """
    _check_net(net)
    S = check_task(S, net)
    _check_size("T^2 * d_out * d_in (S's lag pairs)", S.shape[0] ** 2 * S[0].size)
    loss, g_x, g_h, g_y = _gradients(net.W_x, net.W_h, net.W_y, S[::-1])
    return loss, LinearRNN(W_x=g_x, W_h=g_h, W_y=g_y)


def _gradients(W_x, W_h, W_y, S_lag) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    T = S_lag.shape[0]
    A, B = _products(W_x, W_h, W_y, T)  # (T, d_out, N), (T, N, d_in)
    E = A @ W_x - S_lag  # (T, d_out, d_in) residual by lag
    g_y = np.tensordot(E, B, axes=([0, 2], [0, 2]))  # sum_k E_k B_k^T: (d_out, N)
    g_x = np.tensordot(A, E, axes=([0, 1], [0, 1]))  # sum_k A_k^T E_k: (N, d_in)
    if T > 1:
        j = np.arange(T - 1)
        K = j[:, None] + j[None, :] + 1  # (T-1, T-1): lag k = j + l + 1
        E_ext = np.concatenate([E, np.zeros((1, *E.shape[1:]))])  # index T = zero slab
        E_pad = E_ext[np.minimum(K, T)]  # (T-1, T-1, d_out, d_in)
        Z = np.tensordot(E_pad, B[: T - 1], axes=([1, 3], [0, 2]))  # (T-1, d_out, N)
        g_h = np.tensordot(A[: T - 1], Z, axes=([0, 1], [0, 1]))  # (N, N)
    else:
        g_h = np.zeros_like(W_h)
    loss = 0.5 * float(np.sum(E**2))
    return loss, g_x, g_h, g_y


@dataclass(frozen=True)
class Training:
    """Result of :func:`train`.

    Parameters
    ----------
    net : LinearRNN
        The network after the last step.
    loss : numpy.ndarray, shape (steps + 1,)
        The exact loss before each step and after the last one.
    steps : numpy.ndarray of int, shape (R,)
        The recorded steps, ``0, record_every, 2 record_every, ...``.
    maps : numpy.ndarray, shape (R, T, d_out, d_in)
        The sequence maps (:func:`sequence_maps`) at the recorded steps.
    """

    net: LinearRNN
    loss: np.ndarray
    steps: np.ndarray
    maps: np.ndarray


def train(net: LinearRNN, S: np.ndarray, lr: float, steps: int, record_every: int = 1) -> Training:
    """Full-batch gradient descent on the exact loss: ``W <- W - lr dL/dW``, all three at once.

    Gradient descent with step ``lr`` is the Euler scheme of the gradient flow
    ``dW/dt = -dL/dW`` at times ``t = step * lr``.

    Parameters
    ----------
    net : LinearRNN
        The initial network (not modified).
    S : array_like, shape (T, d_out, d_in)
        Task maps in time order, matching ``net``.
    lr : float
        Step size, ``> 0``.
    steps : int
        Gradient steps, ``>= 0``.
    record_every : int, default 1
        Record the sequence maps every this many steps (step 0 always), ``>= 1``.

    Returns
    -------
    Training
        The final network, the loss (steps + 1,), the recorded steps (R,) and the maps
        (R, T, d_out, d_in).

    Raises
    ------
    FloatingPointError
        If the loss stops being finite (``lr`` too large).
    """
    _check_net(net)
    S = check_task(S, net)
    _check_size("T^2 * d_out * d_in (S's lag pairs)", S.shape[0] ** 2 * S[0].size)
    lr = check_real("lr", lr, low=0.0, high=np.inf, low_open=True, high_open=True)
    steps = check_int("steps", steps, minimum=0)
    record_every = check_int("record_every", record_every, minimum=1)
    _check_size("steps", steps + 1)
    _check_size(
        "the recorded maps (steps / record_every * S.size)", (steps // record_every + 1) * S.size
    )
    S_lag = S[::-1]
    W_x, W_h, W_y = net.W_x.copy(), net.W_h.copy(), net.W_y.copy()
    losses = np.empty(steps + 1)
    recorded = list(range(0, steps + 1, record_every))
    maps = np.empty((len(recorded), *S.shape))
    r = 0
    for step in range(steps + 1):
        with np.errstate(over="ignore", invalid="ignore"):
            loss, g_x, g_h, g_y = _gradients(W_x, W_h, W_y, S_lag)
        losses[step] = loss
        if r < len(recorded) and recorded[r] == step:
            with np.errstate(over="ignore", invalid="ignore"):
                maps[r] = (_products(W_x, W_h, W_y, S.shape[0])[0] @ W_x)[::-1]
            r += 1
        if not np.isfinite(loss):
            raise FloatingPointError(f"training diverged at step {step}; lower lr (got {lr})")
        if step < steps:
            W_x -= lr * g_x
            W_h -= lr * g_h
            W_y -= lr * g_y
    return Training(LinearRNN(W_x, W_h, W_y), losses, np.array(recorded), maps)


def ntk(net: LinearRNN, T: int) -> np.ndarray:
    """The empirical neural tangent kernel of the network's ``T`` sequence maps.

    The output on any input sequence is linear in the entries of ``M_k = W_y W_h^k W_x``, so the
    kernel on the entries, ``K = J J^T`` with ``J = d vec(M_0..M_{T-1}) / d theta``, determines
    the NTK on every input. Shape ``(T d_out d_in, T d_out d_in)``. With ``T = 1`` this is the
    NTK of the two-layer linear feedforward network ``W_y W_x`` (``W_h`` does not enter).

    Parameters
    ----------
    net : LinearRNN
        The network at which the kernel is taken.
    T : int
        Sequence length, ``>= 1``.

    Returns
    -------
    numpy.ndarray, shape (T d_out d_in, T d_out d_in)
        ``K = J J^T``, rows and columns ordered as ``vec(M_0..M_{T-1})`` (lag order, then
        output, then input index).
    """
    _check_net(net)
    T = check_int("T", T, minimum=1)
    d_out, d_in, N = net.W_y.shape[0], net.W_x.shape[1], net.hidden
    rows = T * d_out * d_in
    _check_size("T * d_out * d_in * (parameters + rows)", rows * (N * (N + d_out + d_in) + rows))
    _check_size("T^3", T**3)
    A, B = _products(net.W_x, net.W_h, net.W_y, T)  # (T, d_out, N), (T, N, d_in)
    J_y = np.einsum("op,kni->koipn", np.eye(d_out), B).reshape(T * d_out * d_in, -1)
    J_x = np.einsum("kon,ip->koinp", A, np.eye(d_in)).reshape(T * d_out * d_in, -1)
    blocks = [J_y, J_x]
    if T > 1:
        k, j, q = np.meshgrid(np.arange(T), np.arange(T), np.arange(T), indexing="ij")
        toeplitz = (j + q == k - 1).astype(float)  # (T, T, T): W_h^j (dW_h) W_h^q in W_h^k
        J_h = np.einsum("kjl,jon,lmi->koinm", toeplitz, A, B).reshape(T * d_out * d_in, N * N)
        blocks.append(J_h)
    J = np.concatenate(blocks, axis=1)  # (T d_out d_in, params)
    return J @ J.T
