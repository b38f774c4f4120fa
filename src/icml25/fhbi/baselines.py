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
    """Train a deep ensemble: ``members`` independent models by SGD or SAM.

    Each member moves by ``theta_i <- theta_i - lr_t grad L(theta_i + eps_i)`` on the shared
    mini-batch, with ``eps_i = 0`` for SGD (``rho = 0``) and ``eps_i = rho g_i / ||g_i||`` for
    SAM (``rho > 0``): the FHBI particles without the kernel.

    Parameters
    ----------
    model_fn : callable
        Takes no argument and builds one ``torch.nn.Module`` mapping ``(n, features)`` inputs to
        ``(n, C)`` logits; called ``members`` times under ``seed`` for the initial members. No
        batch norm or dropout layer.
    X : array_like, shape (n, features)
        Finite training inputs (cast to float32).
    y : array_like of int, shape (n,)
        Non-negative integer class labels.
    members : int
        Number m of members, ``>= 1``.
    lr : float
        Initial step size, ``> 0``.
    steps : int
        Number of update steps, one mini-batch each.
    rho : float, default 0.0
        SAM perturbation radius, ``>= 0``; ``0`` is plain SGD.
    batch_size : int, default 64
        Mini-batch size, capped at ``n``.
    schedule : {"cosine", "constant"}, default "cosine"
        Step-size schedule over the ``steps``, as in ``fit``.
    record_every : int or None, default None
        Record the members' mean training loss on all of (X, y) every that many steps (and at
        the end) in ``history``; ``None`` records nothing.
    seed : int, default 0
        Seed of the initial members and of the mini-batch order.

    Returns
    -------
    ParticleEnsemble
        The trained members as the rows of ``theta`` (m, d); ``predict_proba(X)`` (n, C)
        averages their class probabilities and ``history`` lists ``(step, mean training loss)``.
    """
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
    """Train a one-hidden-layer MLP with dropout (MC dropout) by SGD.

    The loss is the mean cross-entropy on each mini-batch, with a fresh dropout mask on the
    hidden units at every step, drawn from a generator seeded by ``seed + 1``.

    Parameters
    ----------
    X : array_like, shape (n, features)
        Finite training inputs (cast to float32).
    y : array_like of int, shape (n,)
        Non-negative integer class labels, below ``classes``.
    hidden : int
        Number of hidden ReLU units.
    classes : int
        Number C of classes (output logits).
    p : float
        Dropout rate of the hidden units, in ``[0, 1)``; kept units are scaled by ``1 / (1 - p)``.
    lr : float
        Initial step size, ``> 0``.
    steps : int
        Number of SGD steps, one mini-batch each.
    batch_size : int, default 64
        Mini-batch size, capped at ``n``.
    schedule : {"cosine", "constant"}, default "cosine"
        Step-size schedule over the ``steps``, as in ``fit``.
    record_every : int or None, default None
        Every that many steps (and at the end), append ``(step, loss)`` to ``history``, the
        loss being the mean cross-entropy on all of (X, y) without dropout; ``None`` records
        nothing.
    seed : int, default 0
        Seed of the initial weights and of the mini-batch order.

    Returns
    -------
    DropoutMLP
        The trained network; called without a mask it is the network without dropout. Its
        ``history`` attribute is a list of ``(step, training loss)``.
    """
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
    """Class probabilities of an MC-dropout network under ``samples`` random dropout masks.

    Parameters
    ----------
    model : DropoutMLP
        A network from ``fit_mc_dropout``.
    X : array_like, shape (n, features)
        Finite inputs (cast to float32).
    p : float
        Dropout rate of the hidden units, in ``[0, 1)``; the rate used in training.
    samples : int
        Number S of dropout masks, each one member of the ensemble.
    seed : int
        Seed of the generator of the masks.

    Returns
    -------
    proba : ndarray of float64, shape (S, n, C)
        Softmax probabilities of the network under each mask; each row sums to 1.
    """
    X, _ = _check_data(X)
    gen = torch.Generator().manual_seed(seed)
    hidden = model.hidden.out_features
    with torch.no_grad():
        probs = [
            torch.softmax(model(X, _mask((X.shape[0], hidden), p, gen)), -1) for _ in range(samples)
        ]
    return torch.stack(probs).numpy().astype(np.float64)
