"""The anchors DiffAdvMAP is compared with.

- :func:`pgd_linf`: projected gradient descent in the L-infinity ball (Madry et al., 2018):
  ``x_{k+1} = Proj_{||x - x_0||_inf <= epsilon}(x_k + alpha sign(grad_x CE(f(x_k), y)))`` from a
  uniform random start, clipped to the image range ``[-1, 1]``. Hand-made in torch: neither
  torchattacks nor the Adversarial Robustness Toolbox is a dependency of icml25.
- :func:`pixel_attack`: DiffAdvMAP's own loss, ``c_adv (kappa - margin)^2 + c_rec ||x - x_0||^2``,
  minimised by gradient descent directly on the pixels: the same objective without the
  diffusion prior, the control for what the prior adds.
"""

from __future__ import annotations

import math

import torch
from torch.nn import functional as F

from icml25.common.validate import check_int, check_real
from icml25.diffadvmap.attack import _check_inputs, _margin

__all__ = ["pgd_linf", "pixel_attack"]


def pgd_linf(
    model,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    epsilon: float,
    steps: int = 20,
    alpha: float | None = None,
    random_start: bool = True,
    seed: int = 0,
) -> torch.Tensor:
    """Untargeted PGD-Linf on the cross-entropy.

    (B, C, H, W) images in ``[-1, 1]`` -> adversarial images with
    ``||x_adv - x||_inf <= epsilon``; ``alpha`` defaults to ``2.5 epsilon / steps``.

    Parameters
    ----------
    model : callable
        Classifier, ``logits = model(images)``.
    x : torch.Tensor, shape (B, C, H, W)
        Clean images in ``[-1, 1]``.
    y : torch.Tensor of int, shape (B,)
        Their true labels.
    epsilon : float
        Radius of the L-infinity ball, in ``[0, 2]``.
    steps : int, default 20
        Number of signed-gradient steps.
    alpha : float, optional
        Step size (default ``2.5 epsilon / steps``).
    random_start : bool, default True
        Start from a uniform random point of the ball.
    seed : int, default 0
        Seed of the random start.

    Returns
    -------
    torch.Tensor, shape (B, C, H, W)
        Adversarial images in ``[-1, 1]`` within ``epsilon`` of ``x``.

    Raises
    ------
    ValueError
        If the images or labels are malformed or a number is out of range.
    """
    _check_inputs(model, x, y, None)
    check_real("epsilon", epsilon, low=0.0, high=2.0)
    check_int("steps", steps, minimum=1)
    alpha = 2.5 * epsilon / steps if alpha is None else alpha
    check_real("alpha", alpha, low=0.0, high=math.inf, high_open=True)
    x0 = x.detach()
    delta = torch.zeros_like(x0)
    if random_start:
        gen = torch.Generator().manual_seed(seed)
        delta = ((2 * torch.rand(x0.shape, generator=gen) - 1) * epsilon).to(x0)
    x_adv = (x0 + delta).clamp(-1, 1)
    for _ in range(steps):
        with torch.enable_grad():
            x_var = x_adv.requires_grad_(True)
            grad = torch.autograd.grad(F.cross_entropy(model(x_var), y, reduction="sum"), x_var)[0]
        x_adv = x_var.detach() + alpha * grad.sign()
        x_adv = torch.min(torch.max(x_adv, x0 - epsilon), x0 + epsilon).clamp(-1, 1)
    return x_adv.detach()


def pixel_attack(
    model,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    steps: int = 20,
    lr: float = 0.01,
    c_adv: float = 1.0,
    c_rec: float = 1.0,
    kappa: float = -40.0,
) -> torch.Tensor:
    """DiffAdvMAP's loss minimised in pixel space by ``steps`` gradient steps of size ``lr``.

    Each step is clipped to ``[-1, 1]``: (B, C, H, W) -> (B, C, H, W).

    Parameters
    ----------
    model : callable
        Classifier, ``logits = model(images)``.
    x : torch.Tensor, shape (B, C, H, W)
        Clean images in ``[-1, 1]``.
    y : torch.Tensor of int, shape (B,)
        Their true labels.
    steps : int, default 20
        Number of gradient steps.
    lr : float, default 0.01
        Step size, > 0.
    c_adv : float, default 1.0
        Weight of the adversarial term ``(kappa - margin)^2``, >= 0.
    c_rec : float, default 1.0
        Weight of the reconstruction term ``||x - x_0||^2``, >= 0.
    kappa : float, default -40.0
        Adversarial confidence: the target margin.

    Returns
    -------
    torch.Tensor, shape (B, C, H, W)
        Adversarial images in ``[-1, 1]``.

    Raises
    ------
    ValueError
        If the images or labels are malformed or a number is out of range.
    """
    _check_inputs(model, x, y, None)
    check_int("steps", steps, minimum=1)
    check_real("lr", lr, low=0.0, high=math.inf, low_open=True, high_open=True)
    for name, value in (("c_adv", c_adv), ("c_rec", c_rec)):
        check_real(name, value, low=0.0, high=math.inf, high_open=True)
    check_real("kappa", kappa, low=-math.inf, high=math.inf, low_open=True, high_open=True)
    x0 = x.detach()
    x_adv = x0.clone()
    for _ in range(steps):
        with torch.enable_grad():
            x_var = x_adv.requires_grad_(True)
            adv = (kappa - _margin(model(x_var), y)) ** 2  # (B,)
            rec = (x_var - x0).pow(2).flatten(1).sum(1)
            grad = torch.autograd.grad((c_adv * adv + c_rec * rec).sum(), x_var)[0]
        x_adv = (x_var.detach() - lr * torch.nan_to_num(grad)).clamp(-1, 1)
    return x_adv.detach()
