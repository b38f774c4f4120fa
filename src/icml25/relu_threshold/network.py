"""Two-layer ReLU networks trained by full-batch gradient descent from a small balanced start.

Boursier & Flammarion, "Simplicity bias and optimization threshold in two-layer ReLU
networks", ICML 2025 (arXiv 2410.02348).

The network is ``f(x) = sum_j a_j relu(w_j . x)`` with ``m`` neurons; inputs carry a constant
last coordinate (a bias). The balanced initialisation draws ``w_j ~ N(0, (lambda^2 / m) I_d)``
and ``a_j = +-||w_j||`` with a random sign, so ``|a_j| = ||w_j||``. A small ``lambda`` puts the
training in the early-alignment regime: while the weights are tiny, the neurons' directions
rotate towards a few data-dependent directions before their norms grow. The loss is
``L = 1/(2n) sum_i (f(x_i) - y_i)^2`` and gradient descent takes steps of size ``lr``.

The paper's result: above an *optimization threshold* in the number of samples ``n``, training
from such a start no longer reaches a global minimum (interpolation) but a simple estimator,
close to ordinary least squares on a linear target, which generalises better.

The functions below take independent runs along a leading dimension ``runs`` (numpy arrays or
torch tensors, computed in float64 and returned as torch tensors); ``ReLUNet`` in ``model.py`` is
the one-data-set fit/predict front end on numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icml25.common.arrays import int_array, real_array
from icml25.common.validate import check_int, check_real

BETA_STAR = (0.5, -0.3, 0.2, 1.5)  # the linear target of our experiments, bias last
MAX_ELEMENTS = 2**30  # tensors of more numbers (8 GiB in float64) are refused as a size typo


def _check_size(name: str, count: int) -> None:
    if count > MAX_ELEMENTS:
        raise ValueError(f"{name} is too large: {count} numbers (at most 2**30)")


def _given(**arrays) -> None:
    for name, value in arrays.items():
        if value is None:
            raise TypeError(f"{name} must be an array, got None")


def _check_generator(generator) -> None:
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(
            f"generator must be a torch.Generator or None, got {type(generator).__name__}"
        )


def as_runs(name: str, value, shape: str) -> torch.Tensor:
    """``value`` (numpy array, torch tensor or nested lists) as a float64 tensor with as many
    dimensions as the names in ``shape`` (e.g. ``"(runs, n, d)"``), finite; otherwise a
    TypeError or ValueError that names the argument and the expected shape."""
    if isinstance(value, torch.Tensor):
        if value.is_complex():
            raise TypeError(f"{name} must be an array of real numbers {shape}, got {value.dtype}")
        tensor = value.to(torch.float64)
    else:
        try:
            kind = np.asarray(value).dtype.kind
            if kind not in "biuf":
                raise TypeError(f"got dtype {np.asarray(value).dtype}")
            tensor = torch.from_numpy(np.array(value, dtype=np.float64))
        except (TypeError, ValueError) as err:
            raise TypeError(f"{name} must be an array of real numbers {shape}: {err}") from None
    ndim = len([part for part in shape.strip("()").split(",") if part.strip()])
    if tensor.ndim != ndim:
        raise ValueError(
            f"{name} must be a {ndim}-D array {shape}, got shape {tuple(tensor.shape)}"
        )
    if tensor.numel() == 0:
        raise ValueError(f"{name} must not be empty, got shape {tuple(tensor.shape)}")
    if not torch.isfinite(tensor).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return tensor


def check_network(W, a, X=None, y=None):
    """Weights, inputs and targets as float64 tensors of matching shapes: ``W`` (runs, m, d),
    ``a`` (runs, m), ``X`` (runs, n, d), ``y`` (runs, n); ValueError naming the mismatch."""
    W, a = as_runs("W", W, "(runs, m, d)"), as_runs("a", a, "(runs, m)")
    if a.shape != W.shape[:2]:
        raise ValueError(
            f"a must have shape (runs, m) = {tuple(W.shape[:2])}, got {tuple(a.shape)}"
        )
    out = [W, a]
    if X is not None:
        X = as_runs("X", X, "(runs, n, d)")
        if X.shape[0] != W.shape[0] or X.shape[2] != W.shape[2]:
            raise ValueError(
                f"X must have shape (runs, n, d) with runs = {W.shape[0]} and d = {W.shape[2]} "
                f"as in W, got {tuple(X.shape)}"
            )
        out.append(X)
    if y is not None:
        y = as_runs("y", y, "(runs, n)")
        if y.shape != X.shape[:2]:
            raise ValueError(
                f"y must have shape (runs, n) = {tuple(X.shape[:2])} as X, got {tuple(y.shape)}"
            )
        out.append(y)
    return out


def linear_data(n: int, runs: int, *, noise: float = 0.5, beta=BETA_STAR, generator=None):
    """``x = (U[-1, 1]^{d-1}, 1)``, ``y = x . beta + noise * eps``, eps standard normal.

    Parameters
    ----------
    n : int
        Samples per run, ``>= 1``.
    runs : int
        Independent data sets, ``>= 1``.
    noise : float, default 0.5
        Standard deviation of the noise, ``>= 0``.
    beta : array_like of float, shape (d,), default BETA_STAR
        The linear target, bias last: ``BETA_STAR = (0.5, -0.3, 0.2, 1.5)``.
    generator : torch.Generator, optional
        Source of the draws (torch's global one if None).

    Returns
    -------
    X : torch.Tensor, shape (runs, n, d)
        Inputs, float64, last coordinate 1.
    y : torch.Tensor, shape (runs, n)
        Targets, float64.
    """
    n = check_int("n", n, minimum=1)
    runs = check_int("runs", runs, minimum=1)
    noise = check_real("noise", noise, low=0.0, high=np.inf, high_open=True)
    real_array("beta", beta, ndim=1)
    _check_generator(generator)
    beta = torch.as_tensor(beta, dtype=torch.float64)
    d = beta.numel()
    _check_size("runs * n * len(beta)", runs * n * d)
    X = torch.ones(runs, n, d, dtype=torch.float64)
    X[..., :-1] = 2 * torch.rand(runs, n, d - 1, generator=generator, dtype=torch.float64) - 1
    y = X @ beta + noise * torch.randn(runs, n, generator=generator, dtype=torch.float64)
    return X, y


def balanced_init(runs: int, m: int, d: int, scale: float, generator=None):
    """``W`` (runs, m, d) with rows ``N(0, scale^2 / m I)``, and ``a`` (runs, m) = +-||w_j||.

    Parameters
    ----------
    runs : int
        Independent networks, ``>= 1``.
    m : int
        Neurons, ``>= 1``.
    d : int
        Input dimension (the bias coordinate included), ``>= 1``.
    scale : float
        Initial scale ``lambda``, ``> 0``.
    generator : torch.Generator, optional
        Source of the draws (torch's global one if None).

    Returns
    -------
    W : torch.Tensor, shape (runs, m, d)
        Hidden weights, float64.
    a : torch.Tensor, shape (runs, m)
        Output weights ``+-||w_j||`` with random signs, float64.
    """
    runs = check_int("runs", runs, minimum=1)
    m = check_int("m", m, minimum=1)
    d = check_int("d", d, minimum=1)
    scale = check_real("scale", scale, low=0.0, high=np.inf, low_open=True, high_open=True)
    _check_size("runs * m * d", runs * m * d)
    _check_generator(generator)
    W = torch.randn(runs, m, d, generator=generator, dtype=torch.float64) * scale / m**0.5
    sign = torch.randint(0, 2, (runs, m), generator=generator, dtype=torch.float64) * 2 - 1
    return W, sign * W.norm(dim=-1)


def forward(W: torch.Tensor, a: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """``f(X)`` (runs, n) from ``W`` (runs, m, d), ``a`` (runs, m), ``X`` (runs, n, d).

    Parameters
    ----------
    W : array_like of float, shape (runs, m, d)
        Hidden weights.
    a : array_like of float, shape (runs, m)
        Output weights.
    X : array_like of float, shape (runs, n, d)
        Inputs.

    Returns
    -------
    f : torch.Tensor, shape (runs, n)
        ``sum_j a_j relu(w_j . x)`` for each input, float64.
    """
    _given(X=X)
    W, a, X = check_network(W, a, X)
    return (torch.relu(X @ W.transpose(1, 2)) * a.unsqueeze(1)).sum(-1)


def loss_and_gradients(W, a, X, y):
    """The loss (runs,) and its exact gradients, written out.

    Per run, with ``P = X W^T`` (n, m), ``H = relu(P)`` and residual ``r = H a - y`` (n,):
    ``dL/da = H^T r / n`` and ``dL/dw_j = a_j sum_i r_i 1[P_ij > 0] x_i / n``, i.e.
    ``dL/dW = a * (1[P > 0]^T (r * X)) / n``.

    The runs are taken one at a time through one preallocated (n, m) buffer (``_Gradients``):
    it stays in cache, where batched (runs, n, m) computations spill to memory (``bmm`` over 2 to
    20 runs: about 2x slower at n = 256, m = 200, one thread); see the README's "Speed".

    Parameters
    ----------
    W : array_like of float, shape (runs, m, d)
        Hidden weights.
    a : array_like of float, shape (runs, m)
        Output weights.
    X : array_like of float, shape (runs, n, d)
        Inputs.
    y : array_like of float, shape (runs, n)
        Targets.

    Returns
    -------
    loss : torch.Tensor, shape (runs,)
        ``1/(2n) sum_i (f(x_i) - y_i)^2`` per run.
    grad_W : torch.Tensor, shape (runs, m, d)
        ``dL/dW``.
    grad_a : torch.Tensor, shape (runs, m)
        ``dL/da``.
    """
    _given(X=X, y=y)
    return _loss_and_gradients(*check_network(W, a, X, y))


def _loss_and_gradients(W, a, X, y):
    """``loss_and_gradients`` on checked float64 tensors."""
    gradients = _Gradients(W, a, X, y)
    grad_W, grad_a = gradients()
    return gradients.loss(), grad_W, grad_a


class _Gradients:
    """The gradients of the loss at the current values of ``W`` (runs, m, d) and ``a`` (runs, m),
    for fixed ``X`` (runs, n, d) and ``y`` (runs, n): the training loop's inner step.

    Per run, in one (n, m) buffer: ``H = relu(X W^T)`` in place, ``r = H a - y``,
    ``dL/da = H^T r / n``, then ``H`` becomes the mask ``1[X W^T > 0]`` in place (``H > 0``) and
    ``G = (r * X)^T mask`` (d, m), so ``dL/dW = a * G^T / n``: the floating-point operations of
    the plain per-run formula of ``loss_and_gradients``, with fewer passes over the (n, m) numbers
    and no allocation of them, except one product taken in the other layout: ``G^T`` for
    ``mask^T (r * X)`` (2.8x faster with MKL at n = 256, m = 200, d = 4). The two orders of the
    same sum are equal to the bit for the shapes of our scales (d = 4, m = 50, 200 or 2000) but
    not for every shape: with d = 3, or some odd m (3, 7, ...), MKL rounds them differently (the
    last bits; see the README's "Speed"). ``W`` and ``a`` are read through views, so they must be
    updated in place. The loss is computed only when asked for (``loss``), from the last call's
    residuals.
    """

    def __init__(self, W, a, X, y):
        runs, n, d = X.shape
        m = W.shape[1]
        self.n = n
        self.buffer = torch.empty(n, m, dtype=torch.float64)  # H, then the mask
        self.residual = torch.empty(runs, n, dtype=torch.float64)
        self.G = torch.empty(runs, d, m, dtype=torch.float64)
        self.grad_a = torch.empty(runs, m, dtype=torch.float64)
        self.a = a.unsqueeze(-1)  # (runs, m, 1)
        self.per_run = list(
            zip(
                X.unbind(0),
                y.unbind(0),
                [Wr.T for Wr in W.unbind(0)],
                a.unbind(0),
                self.residual.unbind(0),
                self.G.unbind(0),
                self.grad_a.unbind(0),
                strict=True,
            )
        )

    def __call__(self):
        """``(dL/dW (runs, m, d), dL/da (runs, m))``, new tensors."""
        H = self.buffer
        for Xr, yr, WrT, ar, r, G, grad_a in self.per_run:
            torch.mm(Xr, WrT, out=H)  # P = X W^T (n, m)
            H.relu_()
            torch.mv(H, ar, out=r)
            r -= yr  # r = H a - y (n,)
            torch.mv(H.T, r, out=grad_a)  # H^T r (m,)
            H.gt_(0)  # the mask 1[P > 0]
            torch.mm((r.unsqueeze(-1) * Xr).T, H, out=G)  # (r * X)^T mask (d, m)
        return self.a * self.G.transpose(1, 2) / self.n, self.grad_a / self.n

    def loss(self) -> torch.Tensor:
        """``1/(2n) sum_i r_i^2`` per run (runs,), from the last call's residuals."""
        return torch.stack([0.5 * (r**2).mean() for r in self.residual.unbind(0)])


@dataclass
class Training:
    """What ``train`` returns: final weights, and the loss and alignment over time.

    Parameters
    ----------
    W : torch.Tensor, shape (runs, m, d)
        Final hidden weights.
    a : torch.Tensor, shape (runs, m)
        Final output weights.
    step : ndarray of int, shape (K,)
        Steps at which the curves are recorded.
    loss : ndarray, shape (K, runs)
        Training loss at the recorded steps.
    concentration : ndarray, shape (K, runs)
        Direction concentration at the recorded steps, see ``direction_concentration``
        (``cosine=0.95``, ``top=2``).
    """

    W: torch.Tensor  # (runs, m, d)
    a: torch.Tensor  # (runs, m)
    step: np.ndarray  # (K,) steps at which the curves are recorded
    loss: np.ndarray  # (K, runs)
    concentration: np.ndarray  # (K, runs), see ``direction_concentration``


def record_schedule(steps: int, points: int = 300) -> np.ndarray:
    """About ``points`` steps from 0 to ``steps``, geometrically spaced: dense early, where the
    alignment phase lasts a few hundred steps, sparse late.

    Parameters
    ----------
    steps : int
        Last step, ``>= 1``.
    points : int, default 300
        Geometrically spaced points between 1 and ``steps``, ``>= 1`` (duplicates after
        rounding are dropped).

    Returns
    -------
    schedule : ndarray of int64, shape (K,)
        Sorted unique steps, starting at 0 and ending at ``steps``.
    """
    steps = check_int("steps", steps, minimum=1)
    points = check_int("points", points, minimum=1)
    _check_size("points", points)
    return np.unique(np.r_[0, np.geomspace(1, steps, points).round().astype(np.int64)])


def train(W, a, X, y, *, lr: float, steps: int, record_at=None) -> Training:
    """Full-batch gradient descent, all runs at once; the loss and the direction concentration
    are recorded at the steps ``record_at`` (default ``record_schedule(steps)``).

    Parameters
    ----------
    W : array_like of float, shape (runs, m, d)
        Initial hidden weights (copied, not changed).
    a : array_like of float, shape (runs, m)
        Initial output weights (copied, not changed).
    X : array_like of float, shape (runs, n, d)
        Inputs.
    y : array_like of float, shape (runs, n)
        Targets.
    lr : float
        Step size, ``> 0``.
    steps : int
        Gradient steps, ``>= 1``.
    record_at : array_like of int, optional
        Steps in ``[0, steps]`` at which to record the loss and the concentration (the last
        step is always recorded); default ``record_schedule(steps)``.

    Returns
    -------
    Training
        The final weights and the recorded curves.
    """
    lr = check_real("lr", lr, low=0.0, high=np.inf, low_open=True, high_open=True)
    steps = check_int("steps", steps, minimum=1)
    if record_at is not None:
        record_at = int_array("record_at", record_at, ndim=1, low=0, high=steps).tolist()
    record_at = set(record_schedule(steps).tolist() if record_at is None else record_at)
    _given(X=X, y=y)
    W, a, X, y = check_network(W, a, X, y)
    _check_size("runs * m * m (the neurons' cosines)", W.shape[0] * W.shape[1] ** 2)
    W, a = W.clone(), a.clone()  # updated in place: ``gradients`` reads them through views
    gradients = _Gradients(W, a, X, y)
    steps_seen, losses, concentrations = [], [], []
    for t in range(steps + 1):
        grad_W, grad_a = gradients()
        if t in record_at or t == steps:
            steps_seen.append(t)
            losses.append(gradients.loss().numpy())
            concentrations.append(_concentration(W, a, 0.95, 2))
        if t < steps:
            W -= lr * grad_W
            a -= lr * grad_a
    return Training(W, a, np.array(steps_seen), np.array(losses), np.array(concentrations))


def direction_concentration(
    W: torch.Tensor, a: torch.Tensor, *, cosine: float = 0.95, top: int = 2
) -> np.ndarray:
    """Share of the output weight mass ``sum_j |a_j| ||w_j||`` held by the ``top`` heaviest
    direction clusters, per run, shape (runs,). A cluster is the heaviest neuron not yet taken
    and every free neuron whose direction is within ``cosine`` of it. 1: all mass on ``top``
    directions. Runs without output weight mass are refused.

    Parameters
    ----------
    W : array_like of float, shape (runs, m, d)
        Hidden weights.
    a : array_like of float, shape (runs, m)
        Output weights.
    cosine : float, default 0.95
        Cosine within which a neuron joins a cluster, in ``[-1, 1]``.
    top : int, default 2
        Clusters counted, ``>= 1`` (at most ``m`` are used).

    Returns
    -------
    concentration : ndarray, shape (runs,)
        Share of the output weight mass in the ``top`` heaviest clusters, in ``(0, 1]``.
    """
    W, a = check_network(W, a)
    cosine = check_real("cosine", cosine, low=-1.0, high=1.0)
    top = min(check_int("top", top, minimum=1), W.shape[1])  # past m clusters nothing is left
    _check_size("runs * m * m (the neurons' cosines)", W.shape[0] * W.shape[1] ** 2)
    if not ((a.abs() * W.norm(dim=-1)).sum(-1) > 0).all():
        raise ValueError(
            "W and a must have some output weight mass sum_j |a_j| ||w_j|| in every run"
        )
    return _concentration(W, a, cosine, top)


def _concentration(W, a, cosine: float, top: int) -> np.ndarray:
    """``direction_concentration`` on checked tensors."""
    mass = a.abs() * W.norm(dim=-1)  # (runs, m)
    unit = W / W.norm(dim=-1, keepdim=True).clamp_min(1e-300)  # (runs, m, d)
    similar = (unit @ unit.transpose(1, 2)) >= cosine  # (runs, m, m)
    free = torch.ones_like(mass, dtype=torch.bool)
    held = torch.zeros(mass.shape[0], dtype=torch.float64)
    rows = torch.arange(mass.shape[0])
    for _ in range(top):
        centre = torch.where(free, mass, -1.0).argmax(-1)  # (runs,)
        members = similar[rows, centre] & free  # (runs, m)
        held += (mass * members).sum(-1)
        free &= ~members
    return (held / mass.sum(-1)).numpy()


def ols(X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Ordinary least squares per run: ``beta_hat`` (runs, d) from X (runs, n, d), y (runs, n).

    Parameters
    ----------
    X : array_like of float, shape (runs, n, d)
        Inputs.
    y : array_like of float, shape (runs, n)
        Targets.

    Returns
    -------
    beta_hat : torch.Tensor, shape (runs, d)
        Least-squares coefficients of each run (minimum-norm if ``X`` is rank-deficient).
    """
    X = as_runs("X", X, "(runs, n, d)")
    y = as_runs("y", y, "(runs, n)")
    if y.shape != X.shape[:2]:
        raise ValueError(
            f"y must have shape (runs, n) = {tuple(X.shape[:2])} as X, got {tuple(y.shape)}"
        )
    return torch.linalg.lstsq(X, y.unsqueeze(-1), driver="gelsd").solution.squeeze(-1)
