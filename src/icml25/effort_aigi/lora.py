"""LoRA (Hu et al., 2022), the parameter-efficient baseline that Effort is compared with:
``y = x W^T + b + (alpha / r) x A^T B^T``, ``W`` and ``b`` frozen, ``A`` (r, in) random and
``B`` (out, r) zero at initialisation (so the adapted model equals the original), ``r (in + out)``
trainable numbers per layer: at ``r = 1`` one fewer than Effort's ``in + out + 1``.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from icml25.common.validate import check_int, check_real
from icml25.effort_aigi.svd_residual import Target, replace_modules, select_linears


class LoRALinear(nn.Module):
    """A frozen ``nn.Linear`` plus a trainable rank-``rank`` update ``(alpha / rank) B A``.

    Shapes: x (..., in) -> (..., out); ``lora_A`` (rank, in), ``lora_B`` (out, rank).

    Parameters
    ----------
    linear : torch.nn.Linear
        The layer to adapt; it is kept as ``base`` and frozen in place.
    rank : int, default 1
        Rank ``r`` of the update, from 1 to ``min(in_features, out_features)``.
    alpha : float, default 1.0
        Scale of the update, ``> 0``; the update is multiplied by ``alpha / rank``.
    seed : int, default 0
        Seed of ``A``, drawn uniform in ``[-1/sqrt(in), 1/sqrt(in)]``, ``>= 0``; ``B`` starts
        at zero.
    """

    def __init__(self, linear: nn.Linear, rank: int = 1, alpha: float = 1.0, seed: int = 0):
        super().__init__()
        if not isinstance(linear, nn.Linear):
            raise TypeError(f"linear must be a torch.nn.Linear, got {type(linear).__name__}")
        rank = check_int("rank", rank, minimum=1)
        n = min(linear.in_features, linear.out_features)
        if rank > n:
            raise ValueError(
                f"rank must be at most min(in_features, out_features) = {n}, got {rank}"
            )
        self.scale = check_real("alpha", alpha, low=0.0, high=math.inf, low_open=True) / rank
        self.base = linear.requires_grad_(False)
        gen = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
        bound = 1 / math.sqrt(linear.in_features)  # the kaiming-uniform bound of nn.Linear
        A = (torch.rand(rank, linear.in_features, generator=gen) * 2 - 1) * bound
        self.lora_A = nn.Parameter(A.to(linear.weight.dtype))
        self.lora_B = nn.Parameter(linear.weight.new_zeros(linear.out_features, rank))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + self.scale * F.linear(F.linear(x, self.lora_A), self.lora_B)


def apply_lora(
    model: nn.Module, target: Target = None, rank: int = 1, alpha: float = 1.0, seed: int = 0
) -> nn.Module:
    """Apply LoRA to the chosen ``nn.Linear`` layers of a torch model, in place.

    The layers that ``target`` picks (as :func:`~icml25.effort_aigi.apply_effort`) become
    :class:`LoRALinear` and the rest of ``model`` is frozen.

    Parameters
    ----------
    model : torch.nn.Module
        The pre-trained model, changed in place.
    target : None, str, Sequence[str] or Callable[[str, torch.nn.Module], bool], optional
        Which ``nn.Linear`` layers to adapt (see :func:`select_linears`); None (default) for
        the attention projections.
    rank : int, default 1
        Rank of each update, ``>= 1`` and at most ``min(in_features, out_features)`` of each
        chosen layer.
    alpha : float, default 1.0
        Scale of each update, ``> 0``.
    seed : int, default 0
        Layer ``i`` draws its ``A`` with seed ``seed + i``.

    Returns
    -------
    model : torch.nn.Module
        ``model`` itself, with only the ``lora_A`` and ``lora_B`` of the swapped layers
        trainable.
    """
    rank = check_int("rank", rank, minimum=1)
    names = select_linears(model, target)
    model.requires_grad_(False)
    layers = iter(range(len(names)))
    replace_modules(model, names, lambda m: LoRALinear(m, rank, alpha, seed + next(layers)))
    return model
