"""Kernels on probability distributions built from the sliced Wasserstein distance (Bonet,
Vauthier & Korba, ICML 2025, Sec. 4.2; official ``lib/kernels.py``).

Each kernel reads a matrix of ``SW_p^p`` values between classes:

- Riesz ``K(mu, nu) = -SW_2(mu, nu)^r``, ``0 < r < 2`` (``r = 1`` is the paper's "MMDSW");
- Gaussian ``K = exp(-SW_2^2 / (2 h))`` (official default ``h = 0.1``);
- Laplace ``K = exp(-SW_1 / h)`` (official rings value ``h = 0.5``);
- IMQ ``K = (h + SW_2^2)^(-1/2)`` (official default ``h = 1``).

SW_2 embeds the measures in a Hilbert space (their quantile functions along each direction),
so the Riesz kernel is conditionally positive definite and the Gaussian one positive definite:
the MMD they define is non-negative.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from icml25.common.validate import check_real


@dataclass(frozen=True)
class SWKernel:
    """A kernel ``K = fn(SW_p^p)`` on probability distributions.

    Calling it on a tensor of ``SW_p^p`` values returns the kernel values, elementwise.

    Parameters
    ----------
    name : str
        Name with its parameter, e.g. ``"riesz(r=1)"``.
    p : int
        Which sliced power the kernel reads: ``SW_1`` (``p = 1``) or ``SW_2^2`` (``p = 2``).
    fn : callable
        Map from a tensor of ``SW_p^p`` values to kernel values of the same shape.
    """

    name: str
    p: int
    fn: Callable[[torch.Tensor], torch.Tensor]

    def __call__(self, sw_pp: torch.Tensor) -> torch.Tensor:
        return self.fn(sw_pp)


def _safe_power(s: torch.Tensor, exponent: float) -> torch.Tensor:
    """``s ** exponent`` for ``s >= 0``, with value and gradient 0 at ``s = 0`` (the
    subgradient the official code picks for ``|z|`` at 0)."""
    positive = s > 0
    return torch.where(positive, torch.where(positive, s, torch.ones_like(s)) ** exponent, 0.0)


def riesz_kernel(r: float = 1.0) -> SWKernel:
    """Riesz kernel ``K = -SW_2^r``, conditionally positive definite.

    ``r = 1`` is the paper's "MMDSW", which needs no bandwidth. The value and gradient are 0 where
    ``SW_2 = 0``.

    Parameters
    ----------
    r : float, default 1.0
        Exponent, in the open interval ``(0, 2)``.

    Returns
    -------
    SWKernel
        The kernel, reading ``SW_2^2`` (``p = 2``).
    """
    r = check_real("r", r, low=0.0, high=2.0, low_open=True, high_open=True)
    return SWKernel(f"riesz(r={r:g})", 2, lambda s: -_safe_power(s, r / 2))


def gaussian_kernel(h: float = 0.1) -> SWKernel:
    """Gaussian kernel ``K = exp(-SW_2^2 / (2 h))``, positive definite.

    Parameters
    ----------
    h : float, default 0.1
        Bandwidth, finite and ``> 0`` (0.1 is the official default).

    Returns
    -------
    SWKernel
        The kernel, reading ``SW_2^2`` (``p = 2``).
    """
    h = check_real("h", h, low=0.0, high=float("inf"), low_open=True, high_open=True)
    return SWKernel(f"gaussian(h={h:g})", 2, lambda s: torch.exp(-s / (2 * h)))


def laplace_kernel(h: float = 0.5) -> SWKernel:
    """Laplace kernel ``K = exp(-SW_1 / h)``.

    Parameters
    ----------
    h : float, default 0.5
        Bandwidth, finite and ``> 0`` (0.5 is the official value on the rings).

    Returns
    -------
    SWKernel
        The kernel, reading ``SW_1`` (``p = 1``).
    """
    h = check_real("h", h, low=0.0, high=float("inf"), low_open=True, high_open=True)
    return SWKernel(f"laplace(h={h:g})", 1, lambda s: torch.exp(-s / h))


def imq_kernel(h: float = 1.0) -> SWKernel:
    """Inverse multiquadric kernel ``K = (h + SW_2^2)^(-1/2)``.

    Parameters
    ----------
    h : float, default 1.0
        Offset, finite and ``> 0`` (1 is the official default).

    Returns
    -------
    SWKernel
        The kernel, reading ``SW_2^2`` (``p = 2``).
    """
    h = check_real("h", h, low=0.0, high=float("inf"), low_open=True, high_open=True)
    return SWKernel(f"imq(h={h:g})", 2, lambda s: torch.rsqrt(h + s))


KERNELS = {
    "riesz": riesz_kernel,
    "gaussian": gaussian_kernel,
    "laplace": laplace_kernel,
    "imq": imq_kernel,
}


def get_kernel(kernel: str | SWKernel) -> SWKernel:
    """Look up a kernel by name, or pass one through.

    Parameters
    ----------
    kernel : str or SWKernel
        One of ``"riesz"``, ``"gaussian"``, ``"laplace"``, ``"imq"`` (default parameters), or an
        :class:`SWKernel`.

    Returns
    -------
    SWKernel
        The kernel.
    """
    if isinstance(kernel, SWKernel):
        return kernel
    if isinstance(kernel, str) and kernel in KERNELS:
        return KERNELS[kernel]()
    raise ValueError(f"kernel must be one of {sorted(KERNELS)} or an SWKernel, got {kernel!r}")
