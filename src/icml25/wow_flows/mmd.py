"""MMD between labelled datasets with a sliced-Wasserstein kernel on classes (Bonet, Vauthier &
Korba, ICML 2025, Eq. (17); official ``lib/mmd.py``).

A dataset with ``C`` classes of ``n`` points in R^d is the measure ``P = (1/C) sum_c delta_{mu_c}``
over the class measures ``mu_c = (1/n) sum_i delta_{x_i^c}``, stored as a (C, n, d) tensor. With a
kernel ``K`` on measures,

    MMD_K^2(P, Q) = mean_{c,c'} K(mu_c, mu_c') + mean_{c,c'} K(nu_c, nu_c')
                    - 2 mean_{c,c'} K(mu_c, nu_c'),

every ``K`` evaluated on the same L directions (as the official code does within one step).
"""

from __future__ import annotations

import torch

from icml25.common.validate import check_int
from icml25.wow_flows.kernels import SWKernel, get_kernel
from icml25.wow_flows.sliced import (
    as_classes,
    check_same_dimension,
    random_projections,
    sorted_projections,
    sw_pp_pairwise,
)


def self_sw_pp(a: torch.Tensor, p: int) -> torch.Tensor:
    """SW_p^p between the classes of one dataset (C, L, n): (C, C'), diagonal exactly 0."""
    s = sw_pp_pairwise(a, a, p)
    eye = torch.eye(s.shape[0], dtype=torch.bool)
    return torch.where(eye, torch.zeros_like(s), s)


def mmd2_sorted(a: torch.Tensor, b: torch.Tensor, kernel: SWKernel) -> torch.Tensor:
    """MMD_K^2 from sorted slices of the source (C, L, n) and the target (C', L, m)."""
    k_xx = kernel(self_sw_pp(a, kernel.p))  # (C, C)
    k_yy = kernel(self_sw_pp(b, kernel.p))  # (C', C')
    k_xy = kernel(sw_pp_pairwise(a, b, kernel.p))  # (C, C')
    return k_xx.mean() + k_yy.mean() - 2 * k_xy.mean()


def as_datasets(source, target) -> tuple[torch.Tensor, torch.Tensor]:
    """``source`` (C, n, d) and ``target`` (C', m, d) as finite float tensors of one feature
    dimension d; ValueError naming the argument otherwise."""
    source = as_classes("source", source, min_ndim=3)
    target = as_classes("target", target, min_ndim=3)
    if source.ndim != 3:
        raise ValueError(f"source must have shape (C, n, d), got {tuple(source.shape)}")
    if target.ndim != 3:
        raise ValueError(f"target must have shape (C, m, d), got {tuple(target.shape)}")
    check_same_dimension(source, target, "source", "target")
    return source, target


def mmd_wow(
    source,
    target,
    kernel: str | SWKernel = "riesz",
    *,
    n_projections: int = 500,
    seed: int = 0,
    projections: torch.Tensor | None = None,
) -> torch.Tensor:
    """Squared MMD between two labelled datasets, with a kernel on their classes.

    ``MMD_K^2(P, Q)`` of Eq. (17), every ``K`` evaluated on the same ``L`` directions. The official
    code's objective is half of it.

    Parameters
    ----------
    source : array_like or torch.Tensor, shape (C, n, d)
        Classes of the first dataset, finite; differentiable if a float torch tensor.
    target : array_like or torch.Tensor, shape (C', m, d)
        Classes of the second dataset, with the same ``d``.
    kernel : str or SWKernel, default "riesz"
        ``"riesz"``, ``"gaussian"``, ``"laplace"``, ``"imq"`` (default parameters), or an
        :class:`~icml25.wow_flows.kernels.SWKernel` such as ``gaussian_kernel(h=0.5)``.
    n_projections : int, default 500
        Number ``L`` of random directions, ``>= 1``; not used when ``projections`` is given.
    seed : int, default 0
        Seed of the ``torch.Generator`` that draws the directions, ``>= 0``.
    projections : torch.Tensor, shape (d, L), optional
        Unit directions to use instead of random ones.

    Returns
    -------
    torch.Tensor
        The scalar ``MMD_K^2(P, Q)``, in the dtype of ``source``.
    """
    source, target = as_datasets(source, target)
    kernel = get_kernel(kernel)
    target = target.to(source.dtype)
    if projections is None:
        generator = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
        n_projections = check_int("n_projections", n_projections, minimum=1)
        projections = random_projections(source.shape[-1], n_projections, generator, source.dtype)
    return mmd2_sorted(
        sorted_projections(source, projections), sorted_projections(target, projections), kernel
    )
