"""One SVGD step and one FHBI step on a stack of particles (Truong et al., *Improving
Generalization with Flat Hilbert Bayesian Inference*, ICML 2025, Algorithm 1).

Symbols: m particles ``theta_i`` (rows of ``theta``, shape (m, d)), a loss ``L`` (the official
code's mean cross-entropy over the mini-batch, i.e. minus the log-likelihood divided by the
batch size and no prior: the target is the tempered posterior ``exp(-L)``), kernel ``k``,
learning rate ``lr``, perturbation radius ``rho``.

SVGD (Liu & Wang, 2016):

    phi_i = (1/m) sum_j [ -k(theta_j, theta_i) grad L(theta_j)
                          + grad_{theta_j} k(theta_j, theta_i) ]
    theta_i <- theta_i + lr phi_i

FHBI, step 1 (adversarial functional perturbation), per particle:

    eps_i = rho grad L(theta_i) / ||grad L(theta_i)||

step 2 (functional descent): the SVGD step with each particle's gradient taken at its perturbed
point, ``g_j = grad L(theta_j + eps_j)``, and the kernel at the unperturbed particles:

    theta_i <- theta_i + lr (1/m) sum_j [ -k(theta_j, theta_i) g_j
                                          + grad_{theta_j} k(theta_j, theta_i) ]

``rho = 0`` is SVGD; ``m = 1`` is SAM (``k(theta, theta) = 1`` and its gradient vanishes).
Gradients are ``torch.func.grad`` vectorised over particles with ``vmap``: no Python loop over
particles.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch.func import grad, vmap

from icml25.common.validate import check_real
from icml25.fhbi.kernels import rbf_function_kernel, rbf_parameter_kernel

KERNELS = ("rbf", "function")

Loss = Callable[[torch.Tensor], torch.Tensor]  # one particle (d,) -> scalar


def check_theta(theta) -> torch.Tensor:
    if not isinstance(theta, torch.Tensor) or theta.ndim != 2 or theta.shape[0] < 1:
        raise ValueError(
            f"theta must be a (particles, dim) tensor, got {getattr(theta, 'shape', theta)!r}"
        )
    if not torch.isfinite(theta).all():
        raise ValueError("theta must be finite")
    return theta


def check_positive(name: str, value) -> float:
    """``value`` as a finite float > 0, or ValueError naming ``name``."""
    return check_real(name, value, low=0.0, high=math.inf, low_open=True, high_open=True)


def check_rho(rho) -> float:
    """``rho`` as a finite float >= 0, or ValueError naming it."""
    return check_real("rho", rho, low=0.0, high=math.inf, high_open=True)


def check_kernel(kernel: str, bandwidth, outputs) -> None:
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if bandwidth != "median":
        check_positive("bandwidth", bandwidth)
    if kernel == "function" and outputs is None:
        raise ValueError("outputs must be given for kernel='function'")


def kernel_terms(
    theta: torch.Tensor,
    kernel: str = "rbf",
    bandwidth: str | float = "median",
    outputs: Callable[[torch.Tensor], torch.Tensor] | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Kernel matrix and repulsive term of the chosen kernel at the particles.

    Parameters
    ----------
    theta : torch.Tensor, shape (m, d)
        The particles, one per row.
    kernel : str, default "rbf"
        ``"function"`` for the RBF on ``outputs(theta_i)`` (``rbf_function_kernel``); any other
        value gives the RBF on the parameters (``rbf_parameter_kernel``). Not checked here.
    bandwidth : "median" or float, default "median"
        The kernel's sigma: the median heuristic or a fixed value ``> 0``.
    outputs : callable or None, default None
        Maps one particle (d,) to its flattened outputs (P,); needed for ``kernel="function"``.

    Returns
    -------
    K : torch.Tensor, shape (m, m)
        Kernel matrix ``k(theta_j, theta_i)``.
    R : torch.Tensor, shape (m, d)
        Repulsive term ``R_i = sum_j grad_{theta_j} k(theta_j, theta_i)``.
    """
    if kernel == "function":
        return rbf_function_kernel(theta, outputs, bandwidth)
    return rbf_parameter_kernel(theta, bandwidth)


def svgd_direction(grads: torch.Tensor, K: torch.Tensor, R: torch.Tensor) -> torch.Tensor:
    """SVGD direction from the loss gradients, the kernel matrix and the repulsive term.

    Parameters
    ----------
    grads : torch.Tensor, shape (m, d)
        Loss gradient ``g_j`` of each particle (in FHBI, taken at the perturbed point).
    K : torch.Tensor, shape (m, m)
        Kernel matrix ``k(theta_j, theta_i)``.
    R : torch.Tensor, shape (m, d)
        Repulsive term ``sum_j grad_{theta_j} k(theta_j, theta_i)``.

    Returns
    -------
    phi : torch.Tensor, shape (m, d)
        ``(-K g + R) / m``; the particles move by ``+ lr phi``.
    """
    return (-K @ grads + R) / grads.shape[0]


def sam_perturbation(grads: torch.Tensor, rho: float) -> torch.Tensor:
    """SAM perturbation of each particle: ``rho`` along its normalised gradient.

    Parameters
    ----------
    grads : torch.Tensor, shape (m, d)
        Loss gradient ``g_i`` of each particle, one per row.
    rho : float
        Perturbation radius, ``>= 0`` (not checked here).

    Returns
    -------
    eps : torch.Tensor, shape (m, d)
        ``eps_i = rho g_i / ||g_i||`` (norm clamped below at 1e-12, so a zero gradient gives
        a zero perturbation).
    """
    norm = torch.linalg.vector_norm(grads, dim=1, keepdim=True)  # (m, 1)
    return rho * grads / norm.clamp_min(1e-12)


def svgd_step(
    theta: torch.Tensor,
    loss: Loss,
    *,
    lr: float,
    kernel: str = "rbf",
    bandwidth: str | float = "median",
    outputs: Callable[[torch.Tensor], torch.Tensor] | None = None,
) -> torch.Tensor:
    """One SVGD step (Liu & Wang, 2016): ``fhbi_step`` with ``rho = 0``.

    Parameters
    ----------
    theta : torch.Tensor, shape (m, d)
        The particles, one per row.
    loss : callable
        Maps one particle (d,) to a scalar loss, e.g. the mean cross-entropy on a mini-batch.
    lr : float
        Step size, ``> 0``.
    kernel : {"rbf", "function"}, default "rbf"
        The RBF on the parameters (the official code's), or the RBF on ``outputs(theta_i)``.
    bandwidth : "median" or float, default "median"
        The kernel's sigma: the median heuristic (the official code's) or a fixed value ``> 0``.
    outputs : callable or None, default None
        Maps one particle (d,) to its flattened outputs (P,); needed for ``kernel="function"``.

    Returns
    -------
    theta : torch.Tensor, shape (m, d)
        ``theta + lr phi``, the gradients taken at the particles themselves.
    """
    return fhbi_step(
        theta, loss, lr=lr, rho=0.0, kernel=kernel, bandwidth=bandwidth, outputs=outputs
    )


def fhbi_step(
    theta: torch.Tensor,
    loss: Loss,
    *,
    lr: float,
    rho: float,
    kernel: str = "rbf",
    bandwidth: str | float = "median",
    outputs: Callable[[torch.Tensor], torch.Tensor] | None = None,
) -> torch.Tensor:
    """One FHBI step (Algorithm 1) on a stack of particles.

    Each particle is perturbed by ``rho`` along its normalised gradient, the gradients are taken
    there, and the unperturbed particles move by the SVGD update with the kernel at the
    unperturbed particles.

    Parameters
    ----------
    theta : torch.Tensor, shape (m, d)
        The particles, one per row; finite, ``m >= 1`` (detached first).
    loss : callable
        Maps one particle (d,) to a scalar loss, e.g. the mean cross-entropy on a mini-batch.
    lr : float
        Step size, ``> 0``.
    rho : float
        Perturbation radius, ``>= 0``; ``rho = 0`` is SVGD.
    kernel : {"rbf", "function"}, default "rbf"
        The RBF on the parameters (the official code's), or the RBF on ``outputs(theta_i)``.
    bandwidth : "median" or float, default "median"
        The kernel's sigma: the median heuristic (the official code's) or a fixed value ``> 0``.
    outputs : callable or None, default None
        Maps one particle (d,) to its flattened outputs (P,); needed for ``kernel="function"``.

    Returns
    -------
    theta : torch.Tensor, shape (m, d)
        The updated particles.
    """
    theta = check_theta(theta)
    lr = check_positive("lr", lr)
    rho = check_rho(rho)
    check_kernel(kernel, bandwidth, outputs)
    theta = theta.detach()
    grad_loss = vmap(grad(loss))
    grads = grad_loss(theta)  # (m, d)
    if rho > 0:
        grads = grad_loss(theta + sam_perturbation(grads, rho))  # (m, d) at the perturbed points
    K, R = kernel_terms(theta, kernel, bandwidth, outputs)
    return theta + lr * svgd_direction(grads, K, R)
