"""Particles of any small ``torch.nn.Module`` as one stacked parameter tensor, trained by FHBI or
SVGD (Truong et al., *Improving Generalization with Flat Hilbert Bayesian Inference*, ICML 2025).

``ParticleEnsemble`` keeps the m particles as rows of ``theta`` (m, d) and evaluates them all at
once with ``torch.func.functional_call`` under ``vmap``. ``fit`` runs Algorithm 1 on mini-batches
of (X, y); ``predict_proba`` is the Bayesian model average ``(1/m) sum_i softmax(f(x; theta_i))``.

The loss is the official code's: the mean cross-entropy over the mini-batch, with no prior
(weight decay 0 in its configs). The particles therefore sample a tempered posterior,
``p(theta | D)^(1/N)`` for N training points, in which the repulsive term weighs N times more
against the data than in the untempered posterior. (The official code takes the cross-entropy of
the particles' averaged logits; we use each particle's own likelihood, as the paper's update is
written, so that the particles are not coupled through the loss.)
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

from icml25.common.validate import check_int
from icml25.fhbi.steps import check_kernel, check_positive, check_rho, fhbi_step

SCHEDULES = ("cosine", "constant")


def _check_data(X, y=None) -> tuple[torch.Tensor, torch.Tensor | None]:
    X = torch.as_tensor(np.asarray(X, dtype=np.float32))
    if X.ndim != 2 or X.shape[0] < 1:
        raise ValueError(f"X must be a non-empty (n, features) array, got shape {tuple(X.shape)}")
    if not torch.isfinite(X).all():
        raise ValueError("X must be finite (it has NaN or inf)")
    if y is None:
        return X, None
    y = np.asarray(y)
    if y.shape != (X.shape[0],) or not np.issubdtype(y.dtype, np.integer) or (y < 0).any():
        raise ValueError(f"y must be ({X.shape[0]},) non-negative integer class labels")
    return X, torch.as_tensor(y, dtype=torch.long)


# layers whose output is not a function of (parameters, input) alone: batch statistics and
# running buffers shared by every particle, or a random mask that vmap cannot draw per particle
_STATEFUL = (torch.nn.modules.batchnorm._NormBase, torch.nn.modules.dropout._DropoutNd)


def _check_module(module) -> None:
    if not isinstance(module, torch.nn.Module):
        raise ValueError(f"model_fn must build a torch.nn.Module, got {type(module).__name__}")
    for name, layer in module.named_modules():
        if isinstance(layer, _STATEFUL):
            raise ValueError(
                f"model_fn builds a {type(layer).__name__} layer ({name!r}): FHBI evaluates "
                "every particle as a function of its parameters alone, which batch statistics, "
                "running buffers and dropout masks are not; build the model without it "
                "(LayerNorm in place of a batch norm)"
            )


class ParticleEnsemble:
    """m particles of ``model_fn()`` stacked as ``theta`` (m, d).

    Parameters
    ----------
    model_fn : builds one module (called m times, under a fixed seed, for the initial particles).
    particles : m >= 1.
    seed : the initialisation seed (the global RNG is forked, and restored afterwards).
    """

    def __init__(self, model_fn: Callable[[], torch.nn.Module], *, particles: int, seed: int = 0):
        self.particles = check_int("particles", particles, minimum=1)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            modules = [model_fn() for _ in range(self.particles)]
        _check_module(modules[0])
        self.model = modules[0]
        named = [(n, p) for n, p in self.model.named_parameters()]
        self.names = [n for n, _ in named]
        self.shapes = [p.shape for _, p in named]
        self.sizes = [p.numel() for _, p in named]
        self.theta = torch.stack(
            [torch.cat([p.detach().reshape(-1) for p in m.parameters()]) for m in modules]
        )  # (m, d)
        self.history: list[tuple[int, float]] = []

    @property
    def dim(self) -> int:
        return self.theta.shape[1]

    def unflatten(self, theta: torch.Tensor) -> dict[str, torch.Tensor]:
        """One particle (d,) -> the module's parameters by name."""
        parts = torch.split(theta, self.sizes)
        return {n: t.view(s) for n, t, s in zip(self.names, parts, self.shapes, strict=True)}

    def forward_one(self, theta: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        """Logits of one particle (d,) on X (n, p): (n, C)."""
        return functional_call(self.model, self.unflatten(theta), (X,))

    def logits(self, X, theta: torch.Tensor | None = None) -> torch.Tensor:
        """Logits of every particle: (m, n, C)."""
        X, _ = _check_data(X)
        theta = self.theta if theta is None else theta
        with torch.no_grad():
            return vmap(self.forward_one, in_dims=(0, None))(theta, X)

    def loss_fn(self, X: torch.Tensor, y: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
        """One particle (d,) -> mean cross-entropy on (X, y)."""
        return lambda theta: F.cross_entropy(self.forward_one(theta, X), y)

    def outputs_fn(self, X: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
        """One particle (d,) -> its flattened logits on X (n C,), for the function-space kernel."""
        return lambda theta: self.forward_one(theta, X).reshape(-1)

    def train_losses(self, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Each particle's mean cross-entropy on (X, y): (m,)."""
        with torch.no_grad():
            return vmap(self.loss_fn(X, y))(self.theta)

    def gradients(self, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Each particle's gradient of its mean cross-entropy on (X, y), at ``theta``: (m, d)."""
        return vmap(grad(self.loss_fn(X, y)))(self.theta)

    def record(self, t: int, steps: int, every: int | None, X, y) -> None:
        """Record ``(t, mean training loss)`` every ``every`` steps, and at the end."""
        if every is not None and (t % every == 0 or t == steps):
            self.history.append((t, float(self.train_losses(X, y).mean())))

    def member_proba(self, X) -> np.ndarray:
        """Each particle's class probabilities: (m, n, C)."""
        return torch.softmax(self.logits(X), -1).numpy().astype(np.float64)

    def predict_proba(self, X) -> np.ndarray:
        """The particles' average of class probabilities: (n, C), rows summing to 1."""
        return self.member_proba(X).mean(0)

    def step(self, X, y, *, lr: float, rho: float, kernel: str, bandwidth) -> None:
        """One FHBI step (``rho = 0``: SVGD) on the batch (X, y); the kernel-function variant
        uses the logits on this batch."""
        outputs = self.outputs_fn(X) if kernel == "function" else None
        self.theta = fhbi_step(
            self.theta,
            self.loss_fn(X, y),
            lr=lr,
            rho=rho,
            kernel=kernel,
            bandwidth=bandwidth,
            outputs=outputs,
        )


def fit(
    model_fn: Callable[[], torch.nn.Module],
    X,
    y,
    *,
    particles: int = 10,
    rho: float = 0.3,
    lr: float = 1.0,
    steps: int = 1500,
    kernel: str = "rbf",
    bandwidth: str | float = "median",
    batch_size: int | None = 64,
    schedule: str = "cosine",
    record_every: int | None = None,
    seed: int = 0,
) -> ParticleEnsemble:
    """Fit m particles of ``model_fn()`` to (X, y) by FHBI (``rho = 0``: SVGD).

    Mini-batches of ``batch_size`` (``None``: the full data) are drawn by reshuffling every
    epoch from a generator seeded by ``seed``, so two fits with one seed see the same batches
    and start from the same particles. The kernel defaults to the official code's: the RBF on
    parameters with the median heuristic. ``schedule="cosine"`` decays the step size as
    ``lr (1 + cos(pi t / steps)) / 2`` (the official code's cosine schedule, without its warm-up),
    so that the particles come to rest at the end of the budget; ``"constant"`` keeps ``lr``.
    ``record_every``: every that many steps (and at the end), the particles' mean training
    loss on all of (X, y) is appended to ``history`` as ``(step, loss)``.

    Returns the fitted ``ParticleEnsemble``; its ``predict_proba`` averages the particles.

    Parameters
    ----------
    model_fn : callable
        Takes no argument and builds one ``torch.nn.Module`` mapping ``(n, features)`` inputs
        to ``(n, C)`` logits; it is called ``particles`` times, under ``seed``, for the
        initial particles.
    X : array_like, shape (n, features)
        Finite training inputs (cast to float32).
    y : array_like of int, shape (n,)
        Non-negative integer class labels.
    particles : int, default 10
        Number m of particles, ``m >= 1``.
    rho : float, default 0.3
        Radius of the sharpness-aware perturbation, ``rho >= 0``; ``0`` is plain SVGD. The
        default is the value the reproduction chose on validation on each of its three data
        sets; choose it on your own validation split.
    lr : float, default 1.0
        Initial step size, ``lr > 0`` (the reproduction's: the update carries a ``1 / m``).
    steps : int, default 1500
        Number of update steps (one mini-batch each), ``steps >= 1``.
    kernel : {"rbf", "function"}, default "rbf"
        The RBF kernel on the parameters, or on the particles' logits on the current batch.
    bandwidth : "median" or float, default "median"
        The kernel's bandwidth: the median heuristic, or a fixed value ``> 0``.
    batch_size : int or None, default 64
        Mini-batch size (capped at ``n``); ``None`` uses the full data at every step.
    schedule : {"cosine", "constant"}, default "cosine"
        Step-size schedule over the ``steps``.
    record_every : int or None, default None
        Record the mean training loss every that many steps (and at the end) in
        ``history``; ``None`` records nothing.
    seed : int, default 0
        Seed of the initial particles and of the mini-batch order.

    Returns
    -------
    ParticleEnsemble
        The fitted particles: ``theta`` ``(m, d)``, ``predict_proba(X)`` ``(n, C)`` (the
        average of the particles' class probabilities) and ``history``, a list of
        ``(step, mean training loss)``.
    """
    X, y = _check_data(X, y)
    rho = check_rho(rho)
    lr = check_positive("lr", lr)
    steps = check_int("steps", steps, minimum=1)
    check_kernel(kernel, bandwidth, outputs=True)
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    n = X.shape[0]
    batch = n if batch_size is None else min(check_int("batch_size", batch_size, minimum=1), n)
    ens = ParticleEnsemble(model_fn, particles=particles, seed=seed)
    for t, idx in enumerate(batch_indices(n, batch, steps, seed)):
        lr_t = lr * step_size_factor(t, steps, schedule)
        ens.step(X[idx], y[idx], lr=lr_t, rho=rho, kernel=kernel, bandwidth=bandwidth)
        ens.record(t + 1, steps, record_every, X, y)
    return ens


def step_size_factor(t: int, steps: int, schedule: str) -> float:
    """The multiplier of ``lr`` at step ``t`` of ``steps`` (always > 0)."""
    if schedule == "constant":
        return 1.0
    return max(0.5 * (1 + math.cos(math.pi * t / steps)), 1e-6)


def batch_indices(n: int, batch: int, steps: int, seed: int):
    """``steps`` index tensors of size ``batch``: epochs of a seeded permutation of range(n)."""
    gen = torch.Generator().manual_seed(seed)
    perm, pos = torch.randperm(n, generator=gen), 0
    for _ in range(steps):
        if pos + batch > n:
            perm, pos = torch.randperm(n, generator=gen), 0
        yield perm[pos : pos + batch]
        pos += batch
