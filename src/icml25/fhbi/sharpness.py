"""Sharpness of the training loss at each particle: the largest Hessian eigenvalue by power
iteration with Hessian-vector products (the flatness measure behind Truong et al., *Improving
Generalization with Flat Hilbert Bayesian Inference*, ICML 2025, Sec. 5).

For each particle ``theta_i`` (rows of ``theta``, (m, d)):

    v <- H v / ||H v||,   lambda = v^T H v,   H = grad^2 L(theta_i),

with ``H v`` from ``torch.func.jvp`` of ``torch.func.grad`` (forward-over-reverse), vectorised over
particles. It stops when, for every particle, ``|lambda_t - lambda_{t-1}| <= tol |lambda_t|`` and
the residual ``||H v - lambda v|| <= sqrt(tol) |lambda|`` (the eigenvalue's error is of the order
of the squared residual; the residual also catches a +/- pair of top eigenvalues, where the
Rayleigh quotient stalls but the vector never converges), or after ``max_iter`` iterations, and
says which.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.func import grad, jvp, vmap


@dataclass(frozen=True)
class TopEigen:
    """Result of the power iteration of ``top_hessian_eigenvalue``.

    Parameters
    ----------
    values : torch.Tensor, shape (m,)
        The last Rayleigh quotient ``v^T H v`` of each particle: its largest-magnitude Hessian
        eigenvalue once converged.
    converged : bool
        Whether every particle met the stopping rule before ``max_iter``.
    iterations : int
        Number of Hessian-vector products per particle taken, ``1 <= iterations <= max_iter``.
    """

    values: torch.Tensor
    converged: bool
    iterations: int


def top_hessian_eigenvalue(
    loss: Callable[[torch.Tensor], torch.Tensor],
    theta: torch.Tensor,
    *,
    tol: float = 1e-3,
    max_iter: int = 200,
    seed: int = 0,
) -> TopEigen:
    """Largest-magnitude Hessian eigenvalue of the loss at every particle, by power iteration.

    Parameters
    ----------
    loss : callable
        Maps one particle (d,) to a scalar loss tensor; must work under ``torch.func``
        (``grad``, ``jvp``, ``vmap``).
    theta : torch.Tensor, shape (m, d)
        The particles, one per row (detached first).
    tol : float, default 1e-3
        Relative tolerance, ``> 0``: stop once every particle has
        ``|lambda_t - lambda_{t-1}| <= tol |lambda_t|`` and residual
        ``||H v - lambda v|| <= sqrt(tol) |lambda|``.
    max_iter : int, default 200
        Most power iterations, ``>= 1``.
    seed : int, default 0
        Seed of the random unit start vectors.

    Returns
    -------
    TopEigen
        ``values`` (m,), the eigenvalue estimate of each particle, ``converged`` and the number
        of ``iterations`` taken.
    """
    if tol <= 0 or max_iter < 1:
        raise ValueError(f"tol must be > 0 and max_iter >= 1, got {tol!r}, {max_iter!r}")
    theta = theta.detach()
    g = grad(loss)

    def hvp(t: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return jvp(g, (t,), (v,))[1]

    batched = vmap(hvp)
    gen = torch.Generator().manual_seed(seed)
    v = torch.randn(theta.shape, generator=gen, dtype=theta.dtype)
    v = v / torch.linalg.vector_norm(v, dim=1, keepdim=True)  # (m, d)
    lam = torch.zeros(theta.shape[0], dtype=theta.dtype)
    for it in range(1, max_iter + 1):
        hv = batched(theta, v)  # (m, d)
        new = (v * hv).sum(1)  # (m,) Rayleigh quotients
        residual = torch.linalg.vector_norm(hv - new[:, None] * v, dim=1)  # (m,)
        v = hv / torch.linalg.vector_norm(hv, dim=1, keepdim=True).clamp_min(1e-30)
        done = it > 1 and bool(
            (((new - lam).abs() <= tol * new.abs()) & (residual <= tol**0.5 * new.abs())).all()
        )
        lam = new
        if done:
            return TopEigen(lam, True, it)
    return TopEigen(lam, False, max_iter)
