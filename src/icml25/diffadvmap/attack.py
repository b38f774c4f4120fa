"""DiffAdvMAP: unrestricted adversarial examples sampled from a diffusion posterior.

Paper: "DiffAdvMAP" (ICML 2025; official code Powerful-zhengzhao/DiffAdvMAP,
``guided_diffusion/ddim.py``, class ``A_DDIMSampler``). An unrestricted adversarial example is a
maximum a posteriori sample of ``p(x | adversarial, close to x_0) ∝ p_theta(x) p(adv | x)
p(x_0 | x)``, the prior ``p_theta`` being a pretrained diffusion model. In practice:

1. noise the clean image to an intermediate step ``t*``:
   ``x_{t*} = sqrt(abar_{t*}) x_0 + sqrt(1 - abar_{t*}) eps``;
2. at each reverse step ``t`` (DDIM, ``eta = 0``), take gradient steps on ``x_t`` for

       L(x_t) = c_adv (kappa - (z_y(x0_hat) - max_{k != y} z_k(x0_hat)))^2
                + c_rec || x_0 - x0_hat ||^2 + lambda || x_t - x_t^orig ||^2,

   where ``x0_hat = clip((x_t - sqrt(1 - abar_t) eps_theta(x_t, t)) / sqrt(abar_t))`` is
   Tweedie's estimate, ``z`` the classifier's logits, ``kappa < 0`` the adversarial confidence
   (the official ``const``) and ``lambda`` the official code's small anchor ``coef_xt_reg``;
   the step size is ``lr sqrt(abar_t / abar_0)`` (the official ``use_smart_lr_xt_decay``) and
   each step is clipped to ``x_t^orig ± radius``;
3. then the DDIM update ``x_s = sqrt(abar_s) x0_hat + sqrt(1 - abar_s) eps_theta(x_t, t)`` from
   the optimised ``x_t``; the last update goes to the data (``abar_{-1} = 1``).

The regional variant (the paper's "regional" attack) takes a ``mask`` (1 where the clean image
is kept): ``x0_hat`` is replaced by ``mask x_0 + (1 - mask) x0_hat`` in the losses and the output
is pasted the same way. The paper's colour and style variants need colour images and a VGG, and
are not implemented here.
"""

from __future__ import annotations

import math
import numbers

import torch

from icml25.common.diffusion import NoiseSchedule, ddim_timesteps
from icml25.common.validate import check_int, check_real

__all__ = ["attack", "margin"]


def margin(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``z_y - max_{k != y} z_k`` per sample: (B, K), (B,) -> (B,); negative = misclassified.

    Refuses non-finite logits, fewer than 2 classes and labels outside ``[0, K)``.

    Parameters
    ----------
    logits : torch.Tensor, shape (B, K)
        Finite float logits ``z``, ``K >= 2``.
    y : torch.Tensor of int, shape (B,)
        True labels in ``[0, K)``.

    Returns
    -------
    torch.Tensor, shape (B,)
        The margin of each sample; negative where the argmax is not ``y``.

    Raises
    ------
    ValueError
        If ``logits`` or ``y`` is malformed as described above.
    """
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError(
            f"logits must be a float tensor (B, K), got {getattr(logits, 'shape', logits)!r}"
        )
    if logits.shape[1] < 2 or not torch.isfinite(logits).all():
        raise ValueError(
            f"logits must be finite with at least 2 classes, got shape {tuple(logits.shape)}"
        )
    _check_labels(y, len(logits))
    if len(y) and y.max() >= logits.shape[1]:
        raise ValueError(f"y must hold labels in [0, {logits.shape[1]}), got {int(y.max())}")
    return _margin(logits, y)


def _margin(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    true = logits.gather(1, y[:, None])[:, 0]  # (B,)
    other = logits.masked_fill(torch.nn.functional.one_hot(y, logits.shape[1]).bool(), -math.inf)
    return true - other.max(1).values


def _unpack(denoiser, schedule):
    """A :class:`~icml25.common.diffusion.TrainedDDPM` brings its own schedule."""
    if hasattr(denoiser, "model") and hasattr(denoiser, "schedule"):
        return denoiser.model, schedule or denoiser.schedule
    if not callable(denoiser):
        raise TypeError(f"denoiser must be callable as denoiser(x_t, t), got {type(denoiser)}")
    if schedule is None:
        schedule = NoiseSchedule(100)
    if not isinstance(schedule, NoiseSchedule):
        raise TypeError(f"schedule must be a NoiseSchedule, got {type(schedule)}")
    return denoiser, schedule


def _check_inputs(model, x, y, mask):
    if not callable(model):
        raise TypeError(f"model must be a callable classifier, got {type(model)}")
    if not isinstance(x, torch.Tensor) or x.dim() != 4 or not x.is_floating_point():
        raise ValueError(f"x must be a float tensor (B, C, H, W), got {getattr(x, 'shape', x)!r}")
    if x.numel() == 0:
        raise ValueError(f"x must hold at least one image, got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all() or x.min() < -1 or x.max() > 1:
        raise ValueError("x must be finite images scaled to [-1, 1]")
    _check_labels(y, len(x))
    if mask is not None:
        if not isinstance(mask, torch.Tensor) or mask.dim() != 4:
            raise ValueError("mask must be a tensor (B or 1, 1 or C, H, W) of 0/1 values")
        if mask.shape[-2:] != x.shape[-2:] or ((mask != 0) & (mask != 1)).any():
            raise ValueError(f"mask must be 0/1 of spatial shape {tuple(x.shape[-2:])}")
        if mask.shape[0] not in (1, len(x)) or mask.shape[1] not in (1, x.shape[1]):
            raise ValueError(
                f"mask must have shape (1 or {len(x)}, 1 or {x.shape[1]}, H, W), "
                f"got {tuple(mask.shape)}"
            )


def _check_labels(y, n: int) -> None:
    """``y``: an integer tensor of ``n`` labels >= 0."""
    if not isinstance(y, torch.Tensor) or y.shape != (n,) or y.is_floating_point():
        raise ValueError(f"y must be an integer tensor of shape ({n},), got {y!r}")
    if n and y.min() < 0:
        raise ValueError(f"y must hold labels >= 0, got {int(y.min())}")


def _check_images(name: str, x) -> None:
    """``x``: a non-empty float tensor of finite values, one row per sample."""
    if not isinstance(x, torch.Tensor) or x.dim() < 2 or not x.is_floating_point():
        raise ValueError(f"{name} must be a float tensor (N, ...), got {getattr(x, 'shape', x)!r}")
    if x.numel() == 0:
        raise ValueError(f"{name} must not be empty, got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError(f"{name} must be finite: it holds NaN or inf")


def attack(
    model,
    denoiser,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    t_star: int = 20,
    steps: int | None = None,
    lr: float = 0.01,
    c_adv: float = 1.0,
    c_rec: float = 1.0,
    kappa: float = -40.0,
    xt_reg: float = 0.01,
    inner_steps: int = 1,
    radius: float = 0.5,
    schedule: NoiseSchedule | None = None,
    mask: torch.Tensor | None = None,
    seed: int = 0,
) -> torch.Tensor:
    """Unrestricted adversarial examples of ``x`` against ``model`` by DiffAdvMAP.

    Parameters
    ----------
    model : callable
        Classifier, ``logits = model(images)`` with images (B, C, H, W) in ``[-1, 1]`` and
        logits (B, K); put any input normalisation inside it.
    denoiser : callable or TrainedDDPM
        ``eps = denoiser(x_t, t)`` (see ``icml25.common.diffusion``), or a
        ``TrainedDDPM`` (its schedule is then used).
    x : torch.Tensor, shape (B, C, H, W)
        Clean images in ``[-1, 1]``.
    y : torch.Tensor of int, shape (B,)
        Their true labels.
    t_star : int, default 20
        The step ``t*`` in ``[0, T)`` the image is noised to.
    steps : int, optional
        Number of DDIM reverse steps from ``t*`` to 0 (default ``t* + 1``: every step).
    lr : float, default 0.01
        Step size on ``x_t`` (decayed as ``lr sqrt(abar_t / abar_0)``), > 0.
    c_adv : float, default 1.0
        Weight of the adversarial term, >= 0.
    c_rec : float, default 1.0
        Weight of the reconstruction term ``||x_0 - x0_hat||^2``, >= 0.
    kappa : float, default -40.0
        Adversarial confidence: the target margin (the official ``const``).
    xt_reg : float, default 0.01
        Weight ``lambda`` of the anchor ``||x_t - x_t^orig||^2`` (``coef_xt_reg``), >= 0.
    inner_steps : int, default 1
        Gradient steps on ``x_t`` per reverse step (0: plain DDIM reconstruction).
    radius : float, default 0.5
        Each step is clipped to ``x_t^orig ± radius``, > 0.
    schedule : NoiseSchedule, optional
        The denoiser's noise schedule (default: that of a ``TrainedDDPM``, else T = 100).
    mask : torch.Tensor, optional
        Shape (B or 1, 1 or C, H, W), 1 where the clean image is kept (regional attack).
    seed : int, default 0
        Seeds the noise of step 1.

    Returns
    -------
    torch.Tensor, shape (B, C, H, W)
        Adversarial images in ``[-1, 1]``.

    Raises
    ------
    ValueError
        If ``x`` is not finite images in ``[-1, 1]``, ``y`` or ``mask`` is malformed, or a
        number is out of range.
    TypeError
        If ``model`` or ``denoiser`` is not callable or ``schedule`` not a NoiseSchedule.
    """
    net, schedule = _unpack(denoiser, schedule)
    _check_inputs(model, x, y, mask)
    if (
        isinstance(t_star, bool)
        or not isinstance(t_star, numbers.Integral)
        or not 0 <= t_star < schedule.T
    ):
        raise ValueError(f"t_star must be an integer step in [0, {schedule.T}), got {t_star!r}")
    steps = t_star + 1 if steps is None else check_int("steps", steps, minimum=1)
    if steps > t_star + 1:
        raise ValueError(f"steps must be at most t_star + 1 = {t_star + 1}, got {steps}")
    check_real("lr", lr, low=0.0, high=math.inf, low_open=True, high_open=True)
    for name, value in (("c_adv", c_adv), ("c_rec", c_rec), ("xt_reg", xt_reg)):
        check_real(name, value, low=0.0, high=math.inf, high_open=True)
    check_real("kappa", kappa, low=-math.inf, high=math.inf, low_open=True, high_open=True)
    check_real("radius", radius, low=0.0, high=math.inf, low_open=True)
    check_int("inner_steps", inner_steps, minimum=0)
    check_int("seed", seed, minimum=0)

    x0 = x.detach()
    keep = torch.zeros_like(x0[:1]) if mask is None else mask.to(x0)  # 1: keep the clean pixel
    gen = torch.Generator().manual_seed(seed)
    noise = torch.randn(x0.shape, generator=gen).to(x0)
    ab = schedule.abar(t_star)
    x_t = math.sqrt(ab) * x0 + math.sqrt(1 - ab) * noise  # (B, C, H, W)
    ts = ddim_timesteps(t_star + 1, steps)  # latest first: t_star ... 0

    def tweedie(x_t, t):
        eps = net(x_t, torch.full((len(x_t),), t, dtype=torch.long, device=x_t.device))
        x0_hat = schedule.predict_x0(x_t, t, eps).clamp(-1, 1)
        return eps, keep * x0 + (1 - keep) * x0_hat

    def loss_fn(x_t, origin, t):
        _, x0_hat = tweedie(x_t, t)
        adv = (kappa - _margin(model(x0_hat), y)) ** 2  # (B,)
        rec = ((1 - keep) * (x0 - x0_hat)).pow(2).flatten(1).sum(1)
        anchor = (x_t - origin).pow(2).flatten(1).sum(1)
        return (c_adv * adv + c_rec * rec + xt_reg * anchor).sum()  # samples are independent

    for t, s in zip(ts, ts[1:] + [-1], strict=True):
        origin = x_t.detach()
        step = lr * math.sqrt(schedule.abar(t) / schedule.abar(0))
        x_t = origin.clone()
        with torch.enable_grad():
            for _ in range(inner_steps):
                x_var = x_t.requires_grad_(True)
                grad = torch.autograd.grad(loss_fn(x_var, origin, t), x_var)[0]
                grad = torch.nan_to_num(grad)
                x_t = torch.clamp(x_var.detach() - step * grad, origin - radius, origin + radius)
        with torch.no_grad():
            _, x0_hat = tweedie(x_t, t)
            # the noise that goes with the clipped (and masked) x0_hat, as guided diffusion's DDIM
            # does, so that the update moves x_t towards the estimate it was judged on
            ab_t = schedule.abar(t)
            eps = (x_t - math.sqrt(ab_t) * x0_hat) / math.sqrt(1 - ab_t)
            x_t = schedule.ddim_step(x_t, t, s, eps)  # eta = 0
    return (keep * x0 + (1 - keep) * x_t.clamp(-1, 1)).detach()
