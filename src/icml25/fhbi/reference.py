"""Plain, loop-by-loop SVGD and SAM steps: the independent computations that the vectorised
``svgd_step`` / ``fhbi_step`` are checked against (in the tests and in the reproduction's check
cell). Nothing here is vectorised over particles on purpose: each particle is an ``nn.Module``,
its gradient comes from ``torch.autograd.grad``, and the kernel and its gradient are written out
pair by pair (k(a, b) = exp(-||a - b||^2 / (2 sigma^2)), grad_a k(a, b) = -(a - b) k / sigma^2).
"""

from __future__ import annotations

import math

import numpy as np
import torch


def flat_params(module: torch.nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in module.parameters()])


def set_flat_params(module: torch.nn.Module, theta: torch.Tensor) -> None:
    pos = 0
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(theta[pos : pos + p.numel()].view(p.shape))
            pos += p.numel()


def module_gradient(module: torch.nn.Module, X, y) -> torch.Tensor:
    """grad of the mean cross-entropy of ``module`` on (X, y), flattened (d,)."""
    loss = torch.nn.functional.cross_entropy(module(X), y)
    return torch.cat([g.reshape(-1) for g in torch.autograd.grad(loss, list(module.parameters()))])


def plain_svgd_step(modules, X, y, *, lr: float, sigma: float | None = None) -> list[torch.Tensor]:
    """One SVGD step of the particles ``modules`` on the mean cross-entropy; ``sigma=None``:
    the median heuristic (numpy's median over all m x m squared distances / (2 log(m + 1)))."""
    thetas = [flat_params(m) for m in modules]
    grads = [module_gradient(m, X, y) for m in modules]
    return _plain_update(thetas, grads, lr, sigma)


def plain_sam_step(module, X, y, *, lr: float, rho: float) -> torch.Tensor:
    """One SAM step (Foret et al., 2021) of one model: theta - lr grad L(theta + rho g/||g||)."""
    theta = flat_params(module)
    g = module_gradient(module, X, y)
    set_flat_params(module, theta + rho * g / g.norm())
    g_adv = module_gradient(module, X, y)
    set_flat_params(module, theta)
    return theta - lr * g_adv


def _plain_update(thetas, grads, lr, sigma) -> list[torch.Tensor]:
    m = len(thetas)
    sq = [[float(((a - b) ** 2).sum()) for b in thetas] for a in thetas]
    if sigma is None:
        sigma = math.sqrt(float(np.median(np.array(sq))) / (2 * math.log(m + 1)))
    out = []
    for i in range(m):
        phi = torch.zeros_like(thetas[i])
        for j in range(m):
            k = math.exp(-sq[j][i] / (2 * sigma**2))
            grad_k = (
                -(thetas[j] - thetas[i]) * k / sigma**2
            )  # grad wrt theta_j of k(theta_j, theta_i)
            phi += -k * grads[j] + grad_k
        out.append(thetas[i] + lr * phi / m)
    return out
