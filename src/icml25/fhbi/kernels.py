"""RBF kernels of particle-based inference (Truong et al., *Improving Generalization with Flat
Hilbert Bayesian Inference*, ICML 2025), with the bandwidth of the official code.

The kernel of the SVGD/FHBI update is

    k(theta_j, theta_i) = exp(-||z_j - z_i||^2 / (2 sigma^2)),

with ``z = theta`` (the parameter-space kernel, what the official code uses) or ``z = f(theta)``,
the network's outputs on a batch (the function-space variant). The median heuristic of the
official code (``RBF`` in ``src/utils.py``) is

    sigma^2 = median_{i,j} ||z_i - z_j||^2 / (2 log(m + 1)),

the median taken over all m x m entries (diagonal included) and treated as a constant (not
differentiated). Both functions return what the update needs: the kernel matrix ``K`` (m, m) and
the repulsive term ``R_i = sum_j grad_{theta_j} k(theta_j, theta_i)`` (m, d).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch.func import jacrev, vmap


def median_bandwidth(sq_dist: torch.Tensor) -> torch.Tensor:
    """Bandwidth sigma of the median heuristic from the particles' squared distances.

    Parameters
    ----------
    sq_dist : torch.Tensor, shape (m, m)
        Squared distances ``||z_i - z_j||^2`` between the m particles, diagonal included.

    Returns
    -------
    sigma : torch.Tensor, shape ()
        ``sqrt(median / (2 log(m + 1)))``, the median over all ``m * m`` entries (the mean of
        the middle pair when their number is even); 0 when all particles coincide.
    """
    m = sq_dist.shape[0]
    med = torch.quantile(sq_dist.reshape(-1), 0.5)  # numpy's median: mean of the middle pair
    return torch.sqrt(med / (2 * math.log(m + 1)))


def _sigma(sq_dist: torch.Tensor, bandwidth: str | float) -> torch.Tensor:
    if bandwidth == "median":
        sigma = median_bandwidth(sq_dist)
        # all particles equal: any bandwidth gives K = 1 and no repulsion
        return torch.where(sigma > 0, sigma, torch.ones_like(sigma))
    return torch.as_tensor(float(bandwidth), dtype=sq_dist.dtype)


def rbf_parameter_kernel(
    theta: torch.Tensor, bandwidth: str | float = "median"
) -> tuple[torch.Tensor, torch.Tensor]:
    """Parameter-space RBF kernel on the particles and its repulsive term.

    Parameters
    ----------
    theta : torch.Tensor, shape (m, d)
        The particles, one per row.
    bandwidth : "median" or float, default "median"
        The kernel's sigma: the median heuristic (``median_bandwidth``, not differentiated;
        1 when all particles coincide), or a fixed value ``> 0``.

    Returns
    -------
    K : torch.Tensor, shape (m, m)
        ``k_ij = exp(-||theta_i - theta_j||^2 / (2 sigma^2))``.
    R : torch.Tensor, shape (m, d)
        The repulsive term ``R_i = sum_j grad_{theta_j} k(theta_j, theta_i)
        = sum_j k_ij (theta_i - theta_j) / sigma^2``.
    """
    diff = theta[:, None, :] - theta[None, :, :]  # (m, m, d): theta_i - theta_j
    sq = (diff**2).sum(-1)  # (m, m)
    sigma = _sigma(sq.detach(), bandwidth)
    K = torch.exp(-sq / (2 * sigma**2))  # (m, m)
    R = (K[:, :, None] * diff).sum(1) / sigma**2  # (m, d)
    return K, R


def rbf_function_kernel(
    theta: torch.Tensor,
    outputs: Callable[[torch.Tensor], torch.Tensor],
    bandwidth: str | float = "median",
) -> tuple[torch.Tensor, torch.Tensor]:
    """Function-space RBF kernel: the RBF on the particles' outputs ``f(theta_i)`` on a batch.

    Parameters
    ----------
    theta : torch.Tensor, shape (m, d)
        The particles, one per row.
    outputs : callable
        Maps one particle (d,) to its flattened outputs (P,), e.g. the logits on the current
        mini-batch; must work under ``torch.func.vmap`` and ``jacrev``.
    bandwidth : "median" or float, default "median"
        The kernel's sigma on the outputs: the median heuristic (not differentiated; 1 when
        all outputs coincide), or a fixed value ``> 0``.

    Returns
    -------
    K : torch.Tensor, shape (m, m)
        ``k_ij = exp(-||f_i - f_j||^2 / (2 sigma^2))``.
    R : torch.Tensor, shape (m, d)
        The repulsive term ``R_i = sum_j J_j^T grad_{f_j} k(f_j, f_i)
        = sum_j J_j^T k_ij (f_i - f_j) / sigma^2``, with ``J_j = d f / d theta`` (P, d) at
        particle j, by reverse-mode autodiff.
    """
    f = vmap(outputs)(theta)  # (m, P)
    J = vmap(jacrev(outputs))(theta)  # (m, P, d)
    diff = f[:, None, :] - f[None, :, :]  # (m, m, P): f_i - f_j
    sq = (diff**2).sum(-1)  # (m, m)
    sigma = _sigma(sq.detach(), bandwidth)
    K = torch.exp(-sq / (2 * sigma**2))  # (m, m)
    A = K[:, :, None] * diff / sigma**2  # (m_i, m_j, P): grad_{f_j} k(f_j, f_i)
    R = torch.einsum("ijp,jpd->id", A, J)  # (m, d)
    return K, R
