"""DeFoG's noising process and time distortions (Qin, Madeira et al., ICML 2025, Sec. 3).

Each node and each edge is an independent discrete variable on ``S`` states. The conditional
probability path from the prior ``p_0`` to a data point ``x_1`` is the linear interpolation

    p_t(x | x_1) = t delta(x, x_1) + (1 - t) p_0(x),      t in [0, 1],

with time derivative ``d/dt p_t(x | x_1) = delta(x, x_1) - p_0(x)``. The prior ``p_0`` is the
dataset's marginal (``"marginal"``, the default), ``"uniform"``, or ``"absorbing"`` (all mass
on one extra virtual state, appended as the last category).

A time distortion ``f`` maps uniform times to distorted ones, in training (where ``t`` is drawn)
and in sampling (where the step grid ``t_k = f(k / K)`` is laid): ``identity`` ``f(t) = t``,
``polydec`` ``f(t) = 2t - t^2`` (small steps near ``t = 1``), ``polyinc`` ``f(t) = t^2`` and
``cos`` ``f(t) = (1 - cos(pi t)) / 2``.
"""

from __future__ import annotations

import math

import torch

from icml25.defog._checks import check_distribution, check_labels, check_times

__all__ = ["DISTORTIONS", "NOISES", "distort", "dt_p_t", "limit_distribution", "p_t"]

NOISES = ("marginal", "uniform", "absorbing")
DISTORTIONS = ("identity", "polydec", "polyinc", "cos")


def limit_distribution(noise: str, marginal: torch.Tensor) -> torch.Tensor:
    """The prior ``p_0`` over the states of one variable.

    Parameters
    ----------
    noise : {"marginal", "uniform", "absorbing"}
        The prior: the normalised data marginal, uniform over the ``d`` categories, or all
        mass on one extra virtual state.
    marginal : array_like, shape (d,)
        The data marginal, finite and non-negative with a positive sum (need not be
        normalised).

    Returns
    -------
    torch.Tensor of float32, shape (d,) or (d + 1,)
        A probability vector; ``d + 1`` states for ``"absorbing"``, the virtual absorbing state
        last.
    """
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {NOISES}, got {noise!r}")
    try:
        marginal = torch.as_tensor(marginal, dtype=torch.float32)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"marginal must be a vector of numbers, got {marginal!r}") from None
    if marginal.ndim != 1 or marginal.numel() < 1 or (marginal < 0).any():
        raise ValueError(f"marginal must be a non-negative vector, got {marginal!r}")
    if not torch.isfinite(marginal).all() or not marginal.sum() > 0:
        raise ValueError(f"marginal must be finite with a positive sum, got {marginal!r}")
    d = marginal.numel()
    if noise == "marginal":
        return marginal / marginal.sum()
    if noise == "uniform":
        return torch.full((d,), 1.0 / d)
    p0 = torch.zeros(d + 1)
    p0[-1] = 1.0
    return p0


def p_t(x1: torch.Tensor, t: torch.Tensor | float, p0: torch.Tensor) -> torch.Tensor:
    """The conditional probability path ``p_t(. | x_1) = t onehot(x_1) + (1 - t) p_0``.

    Parameters
    ----------
    x1 : torch.Tensor of int64, shape (...)
        Data states, in ``[0, S)``.
    t : float or torch.Tensor
        Times in ``[0, 1]``: a number, or a tensor broadcastable to ``x1.shape``.
    p0 : torch.Tensor, shape (S,)
        The prior, a floating-point probability vector (sum 1 within 1e-4).

    Returns
    -------
    torch.Tensor, shape (..., S)
        ``p_t(x | x_1)`` for every state ``x``, in ``p0``'s dtype, clamped to ``[0, 1]``.
    """
    check_distribution("p0", p0)
    check_labels("x1", x1, p0.numel())
    check_times("t", t, x1.shape)
    return _p_t(x1, t, p0)


def _p_t(x1: torch.Tensor, t: torch.Tensor | float, p0: torch.Tensor) -> torch.Tensor:
    one_hot = torch.nn.functional.one_hot(x1, p0.numel()).to(p0.dtype)
    t = torch.as_tensor(t, dtype=p0.dtype)
    if t.ndim:
        t = t[..., None]
    return (t * one_hot + (1 - t) * p0).clamp(0.0, 1.0)


def dt_p_t(x1: torch.Tensor, p0: torch.Tensor) -> torch.Tensor:
    """Time derivative of the conditional path: ``d/dt p_t(. | x_1) = onehot(x_1) - p_0``.

    Parameters
    ----------
    x1 : torch.Tensor of int64, shape (...)
        Data states, in ``[0, S)``.
    p0 : torch.Tensor, shape (S,)
        The prior, a floating-point probability vector (sum 1 within 1e-4).

    Returns
    -------
    torch.Tensor, shape (..., S)
        The derivative for every state, in ``p0``'s dtype; it does not depend on ``t``.
    """
    check_distribution("p0", p0)
    check_labels("x1", x1, p0.numel())
    return _dt_p_t(x1, p0)


def _dt_p_t(x1: torch.Tensor, p0: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.one_hot(x1, p0.numel()).to(p0.dtype) - p0


def distort(t: torch.Tensor | float, distortion: str) -> torch.Tensor:
    """A time distortion ``f(t)``, mapping ``[0, 1]`` onto itself.

    Parameters
    ----------
    t : float or torch.Tensor
        Times in ``[0, 1]``.
    distortion : {"identity", "polydec", "polyinc", "cos"}
        ``f(t) = t``, ``2t - t^2`` (small steps near ``t = 1``), ``t^2`` or
        ``(1 - cos(pi t)) / 2``.

    Returns
    -------
    torch.Tensor of float32
        ``f(t)``, the shape of ``t`` (0-d for a number).
    """
    check_times("t", t)
    return _distort(t, distortion)


def _distort(t: torch.Tensor | float, distortion: str) -> torch.Tensor:
    t = torch.as_tensor(t, dtype=torch.float32)
    if distortion == "identity":
        return t
    if distortion == "polydec":
        return 2 * t - t**2
    if distortion == "polyinc":
        return t**2
    if distortion == "cos":
        return (1 - torch.cos(t * math.pi)) / 2
    raise ValueError(f"distortion must be one of {DISTORTIONS}, got {distortion!r}")
