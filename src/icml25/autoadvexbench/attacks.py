"""Scripted L-infinity attacks: PGD (Madry et al. 2018) with BPDA and EOT (Athalye, Carlini &
Wagner 2018), the attackers that stand in for AutoAdvExBench's LLM agent in our reproduction.

PGD maximises the cross-entropy ``L(f(x'), y)`` over the ball ``||x' - x||_inf <= eps`` (and
[0, 1]) by ``x' <- clip(x' + alpha sign(g))`` from a uniform random start, where ``g`` is

- plain PGD: ``grad_x' L(f(x'), y)`` through the defence as it is (one random draw per step for
  a randomised defence);
- BPDA: the same, but the backward pass treats a shape-preserving preprocessing ``t`` as the
  identity (``t(x) ~ x``), the forward pass staying exact;
- EOT: ``(1/K) sum_k grad_x' L(f_k(x'), y)`` over ``K`` independent draws of the defence's
  randomness, batched as one (K n)-row forward pass;
- detector-aware: the loss minus ``lam * relu(s(x') - tau)`` for a defence with a
  differentiable detector score ``s`` and rejection threshold ``tau``.

This file imports only torch: the scripted attacker writes it into the task's folder and runs
it there, in the sandbox, as an agent would run its own attack.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

ATTACKS = {
    "pgd": {"bpda": False, "eot": 1, "detector_weight": 0.0},
    "pgd_bpda": {"bpda": True, "eot": 1, "detector_weight": 0.0},
    "pgd_eot": {"bpda": False, "eot": 8, "detector_weight": 0.0},
    "adaptive": {"bpda": True, "eot": 8, "detector_weight": 10.0},
}


def attack_loss(defense, x_adv, y, *, bpda: bool, eot: int, detector_weight: float):
    """Sum over the batch (and the ``eot`` draws) of the loss the attacker ascends."""
    if not getattr(defense, "randomised", False):
        eot = 1  # a deterministic defence: every draw is the same
    xs = x_adv.repeat(eot, 1, 1, 1) if eot > 1 else x_adv  # (K n, 1, 8, 8)
    ys = y.repeat(eot) if eot > 1 else y
    t = defense.preprocess(xs)
    if bpda and t.shape == xs.shape:
        t = xs + (t - xs).detach()  # forward t(x), backward identity
    loss = F.cross_entropy(defense.classifier(t), ys, reduction="sum") / eot
    if detector_weight and getattr(defense, "rejects", False):
        excess = F.relu(defense.detector_score(x_adv) - defense.threshold)  # (n,)
        loss = loss - detector_weight * excess.sum()
    return loss


def pgd(
    defense,
    x: torch.Tensor,
    y: torch.Tensor,
    eps: float,
    *,
    steps: int = 40,
    step_size: float | None = None,
    bpda: bool = False,
    eot: int = 1,
    detector_weight: float = 0.0,
    seed: int = 0,
    batch_size: int = 1000,
) -> torch.Tensor:
    """L-infinity PGD adversarial examples, with optional BPDA, EOT and detector term.

    From a uniform random start in the ``eps`` ball, ``steps`` signed-gradient steps on the
    loss of the module docstring, each followed by projection onto the ball and onto [0, 1].

    Parameters
    ----------
    defense : Defense
        The defence attacked: its ``preprocess`` and ``classifier`` are used (and its
        ``randomised``, ``reseed``, ``rejects``, ``detector_score``, ``threshold`` where
        present).
    x : torch.Tensor
        (n, 1, 8, 8) clean images in [0, 1].
    y : torch.Tensor
        (n,) int64 true labels.
    eps : float
        L-infinity budget, ``> 0``.
    steps : int, default 40
        PGD steps, ``>= 1``.
    step_size : float or None, default None
        Step ``alpha``; None gives ``2.5 eps / steps``.
    bpda : bool, default False
        Treat a shape-preserving ``preprocess`` as the identity in the backward pass.
    eot : int, default 1
        Draws of the defence's randomness averaged per gradient, ``>= 1`` (1 for a
        deterministic defence).
    detector_weight : float, default 0.0
        Weight ``lam`` of the penalty on detector scores above the threshold; used only for a
        defence that rejects.
    seed : int, default 0
        Seed of the random start; a randomised defence is reseeded with ``seed + 1``.
    batch_size : int, default 1000
        Images attacked at once.

    Returns
    -------
    x_adv : torch.Tensor
        (n, 1, 8, 8) adversarial images, detached, in [0, 1] and within ``eps`` of ``x``.
    """
    if not eps > 0:
        raise ValueError(f"eps must be > 0, got {eps!r}")
    if steps < 1 or eot < 1:
        raise ValueError(f"steps and eot must be >= 1, got steps={steps!r}, eot={eot!r}")
    alpha = 2.5 * eps / steps if step_size is None else step_size
    generator = torch.Generator().manual_seed(int(seed))
    if getattr(defense, "randomised", False):
        defense.reseed(seed + 1)
    out = []
    for start in range(0, len(x), batch_size):
        xb, yb = x[start : start + batch_size], y[start : start + batch_size]
        noise = torch.rand(xb.shape, generator=generator) * 2 - 1  # (b, 1, 8, 8)
        x_adv = (xb + eps * noise).clamp(0, 1)
        for _ in range(steps):
            x_adv.requires_grad_(True)
            loss = attack_loss(
                defense, x_adv, yb, bpda=bpda, eot=eot, detector_weight=detector_weight
            )
            (grad,) = torch.autograd.grad(loss, x_adv)
            with torch.no_grad():
                x_adv = x_adv + alpha * grad.sign()
                x_adv = torch.minimum(torch.maximum(x_adv, xb - eps), xb + eps).clamp(0, 1)
        out.append(x_adv.detach())
    return torch.cat(out)


def run_attack(name: str, defense, x, y, eps: float, *, steps: int = 40, seed: int = 0):
    """Run one of the named ``ATTACKS`` (a :func:`pgd` with preset settings).

    Parameters
    ----------
    name : str
        A key of ``ATTACKS``: ``"pgd"``, ``"pgd_bpda"``, ``"pgd_eot"`` or ``"adaptive"``.
    defense : Defense
        The defence attacked.
    x : torch.Tensor
        (n, 1, 8, 8) clean images in [0, 1].
    y : torch.Tensor
        (n,) int64 true labels.
    eps : float
        L-infinity budget, ``> 0``.
    steps : int, default 40
        PGD steps, ``>= 1``.
    seed : int, default 0
        Seed of the random start (and of a randomised defence, as in :func:`pgd`).

    Returns
    -------
    x_adv : torch.Tensor
        (n, 1, 8, 8) adversarial images within ``eps`` of ``x``.
    """
    if name not in ATTACKS:
        raise ValueError(f"name must be one of {sorted(ATTACKS)}, got {name!r}")
    return pgd(defense, x, y, eps, steps=steps, seed=seed, **ATTACKS[name])
