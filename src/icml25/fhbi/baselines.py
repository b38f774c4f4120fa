"""The reproduction's baselines: a deep ensemble (Lakshminarayanan et al., 2017) of independently
trained members, plain or SAM-trained (Foret et al., 2021), and MC dropout (Gal & Ghahramani,
2016), on the same mean cross-entropy, mini-batches and step-size schedule as FHBI/SVGD.

A deep ensemble is the particles without the kernel: each member moves by
``theta_i <- theta_i - lr grad L(theta_i + eps_i)`` (``eps_i = 0`` for plain training,
``rho g_i/||g_i||`` for SAM), vectorised over members with ``vmap``.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch.func import grad, vmap

from icml25.fhbi.ensemble import ParticleEnsemble, _check_data, batch_indices, step_size_factor
from icml25.fhbi.steps import check_positive, check_rho, sam_perturbation


def fit_deep_ensemble(
    model_fn,
    X,
    y,
    *,
    members: int,
    lr: float,
    steps: int,
    rho: float = 0.0,
    batch_size: int = 64,
    schedule: str = "cosine",
    record_every: int | None = None,
    seed: int = 0,
) -> ParticleEnsemble:
    """``members`` independent models trained by SGD (``rho = 0``) or SAM (``rho > 0``); the
    training-loss history as in ``fit``."""
    X, y = _check_data(X, y)
    lr, rho = check_positive("lr", lr), check_rho(rho)
    ens = ParticleEnsemble(model_fn, particles=members, seed=seed)
    batch = min(batch_size, X.shape[0])
    for t, idx in enumerate(batch_indices(X.shape[0], batch, steps, seed)):
        grad_loss = vmap(grad(ens.loss_fn(X[idx], y[idx])))
        theta = ens.theta
        g = grad_loss(theta)  # (m, d)
        if rho > 0:
            g = grad_loss(theta + sam_perturbation(g, rho))
        ens.theta = theta - lr * step_size_factor(t, steps, schedule) * g
        ens.record(t + 1, steps, record_every, X, y)
    return ens


class DropoutMLP(torch.nn.Module):
    """One hidden layer with ReLU and dropout on the hidden units; the mask (n, hidden) is passed
    in, so that its randomness comes from an explicit generator."""

    def __init__(self, inputs: int, hidden: int, classes: int):
        super().__init__()
        self.hidden, self.out = torch.nn.Linear(inputs, hidden), torch.nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        h = torch.relu(self.hidden(x))  # (n, hidden)
        return self.out(h if mask is None else h * mask)


def _mask(shape, p: float, gen: torch.Generator) -> torch.Tensor:
    return (torch.rand(shape, generator=gen) >= p).float() / (1 - p)


def fit_mc_dropout(
    X,
    y,
    *,
    hidden: int,
    classes: int,
    p: float,
    lr: float,
    steps: int,
    batch_size: int = 64,
    schedule: str = "cosine",
    record_every: int | None = None,
    seed: int = 0,
) -> DropoutMLP:
    """An MLP with dropout rate ``p`` trained by SGD on the mean cross-entropy; ``history``
    records the training loss of the network without dropout, as in ``fit``."""
    X, y = _check_data(X, y)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = DropoutMLP(X.shape[1], hidden, classes)
    model.history = []
    gen = torch.Generator().manual_seed(seed + 1)
    params = list(model.parameters())
    batch = min(batch_size, X.shape[0])
    for t, idx in enumerate(batch_indices(X.shape[0], batch, steps, seed)):
        loss = F.cross_entropy(model(X[idx], _mask((len(idx), hidden), p, gen)), y[idx])
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for q, g in zip(params, grads, strict=True):
                q -= lr * step_size_factor(t, steps, schedule) * g
        if record_every is not None and ((t + 1) % record_every == 0 or t + 1 == steps):
            with torch.no_grad():
                model.history.append((t + 1, float(F.cross_entropy(model(X), y))))
    return model


def mc_dropout_member_proba(
    model: DropoutMLP, X, *, p: float, samples: int, seed: int
) -> np.ndarray:
    """Class probabilities of ``samples`` dropout masks: (samples, n, C)."""
    X, _ = _check_data(X)
    gen = torch.Generator().manual_seed(seed)
    hidden = model.hidden.out_features
    with torch.no_grad():
        probs = [
            torch.softmax(model(X, _mask((X.shape[0], hidden), p, gen)), -1) for _ in range(samples)
        ]
    return torch.stack(probs).numpy().astype(np.float64)
