"""Effort's orthogonal subspace decomposition of a linear layer (Yan et al., *Orthogonal Subspace
Decomposition for Generalizable AI-Generated Image Detection*, ICML 2025, Section 3).

A pre-trained weight ``W`` (out, in) is split by its SVD ``W = U S V^T`` (``n = min(out, in)``
singular values, largest first) into two orthogonal parts:

    W = U_p S_p V_p^T  +  U_r diag(S_r) V_r^T,
        principal (top n - r directions, frozen)   residual (last r directions, trained)

and the layer computes ``y = x (W_p + U_r diag(S_r) V_r^T)^T + b``. At initialisation the sum is
``W`` itself, so the adapted model equals the original; training moves only ``U_r``, ``S_r``,
``V_r``: ``r (out + in + 1)`` numbers per layer. The official code (``effort_detector.py``) keeps
``n - 1`` directions, so ``r = 1``, on every linear layer of CLIP's self-attention, and freezes the
biases; so does :func:`apply_effort` by default.

The paper's optional regularisers, per layer:

- orthogonality: ``||Q_U^T Q_U - I||_F / 2 + ||Q_V^T Q_V - I||_F / 2`` with
  ``Q_U = [U_p, U_r]`` (out, n) and ``Q_V = [V_p, V_r]`` (in, n): the residual stays orthogonal
  to the frozen principal subspace and orthonormal itself;
- norm keeping: ``| ||W_p + U_r diag(S_r) V_r^T||_F^2 - ||W||_F^2 |``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

import torch
from torch import nn
from torch.nn import functional as F

from icml25.common.validate import check_int, check_real

#: Default layers for :func:`apply_effort`: linear layers inside a module whose name contains
#: "attn" or "attention" (the query, key, value and output projections of a ViT's attention).
ATTENTION = re.compile(r"(^|\.)[^.]*(attn|attention)[^.]*\.")


class SVDResidualLinear(nn.Module):
    """An ``nn.Linear`` split into a frozen principal part and a trainable low-rank residual.

    Effort, Section 3: ``W = W_p + U_r diag(S_r) V_r^T`` from the SVD of ``W``, exact at
    initialisation. Shapes: x (..., in) -> (..., out).

    Parameters
    ----------
    linear : torch.nn.Linear
        The layer to decompose; its weight must be finite. It is not changed.
    rank : int, default 1
        Rank ``r`` of the residual, the last ``r`` singular directions, from 1 to
        ``n = min(in_features, out_features)``.

    Notes
    -----
    Buffers: ``weight_main`` (out, in), ``U_main`` (out, n - rank), ``V_main`` (in, n - rank),
    ``weight_norm`` (the original ``||W||_F``). Torch parameters: ``U_residual`` (out, rank),
    ``S_residual`` (rank,), ``V_residual`` (in, rank); ``bias`` (out,) or None, frozen by
    :func:`apply_effort`.
    """

    def __init__(self, linear: nn.Linear, rank: int = 1):
        super().__init__()
        if not isinstance(linear, nn.Linear):
            raise TypeError(f"linear must be a torch.nn.Linear, got {type(linear).__name__}")
        n = min(linear.in_features, linear.out_features)
        rank = check_int("rank", rank, minimum=1)
        if rank > n:
            raise ValueError(
                f"rank must be at most min(in_features, out_features) = {n} for a layer of shape "
                f"{tuple(linear.weight.shape)}, got {rank}"
            )
        if not torch.isfinite(linear.weight).all():
            raise ValueError("linear's weight must be finite: it holds NaN or inf")
        self.in_features, self.out_features, self.rank = (
            linear.in_features,
            linear.out_features,
            rank,
        )
        W = linear.weight.detach()
        U, S, Vh = torch.linalg.svd(W.double(), full_matrices=False)  # (out, n), (n,), (n, in)
        k = n - rank  # principal directions kept frozen
        dtype = W.dtype
        self.register_buffer("weight_main", ((U[:, :k] * S[:k]) @ Vh[:k]).to(dtype))
        self.register_buffer("U_main", U[:, :k].to(dtype).clone())
        self.register_buffer("V_main", Vh[:k].T.to(dtype).clone())
        self.register_buffer("weight_norm", torch.linalg.norm(W.double()).to(dtype))
        self.U_residual = nn.Parameter(U[:, k:].to(dtype).clone())
        self.S_residual = nn.Parameter(S[k:].to(dtype).clone())
        self.V_residual = nn.Parameter(Vh[k:].T.to(dtype).clone())
        self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().clone())

    def residual_weight(self) -> torch.Tensor:
        """``U_r diag(S_r) V_r^T`` (out, in)."""
        return (self.U_residual * self.S_residual) @ self.V_residual.T

    def weight(self) -> torch.Tensor:
        """The current weight ``W_p + U_r diag(S_r) V_r^T`` (out, in)."""
        return self.weight_main + self.residual_weight()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # the whole weight first, as the official code does: W_p + U_r S_r V_r^T equals W to a
        # float32 rounding, so at initialisation the output equals nn.Linear's to ~1e-7
        return F.linear(x, self.weight(), self.bias)  # (..., in) -> (..., out)

    def orthogonality_loss(self) -> torch.Tensor:
        """``||Q_U^T Q_U - I||_F / 2 + ||Q_V^T Q_V - I||_F / 2``, ``Q = [principal, residual]``."""
        loss = self.weight_main.new_zeros(())
        for main, res in ((self.U_main, self.U_residual), (self.V_main, self.V_residual)):
            Q = torch.cat([main, res], dim=1)  # (out or in, n)
            eye = torch.eye(Q.shape[1], dtype=Q.dtype, device=Q.device)
            loss = loss + 0.5 * torch.linalg.norm(Q.T @ Q - eye)
        return loss

    def keep_norm_loss(self) -> torch.Tensor:
        """``| ||W_current||_F^2 - ||W_original||_F^2 |``."""
        return (torch.linalg.norm(self.weight()) ** 2 - self.weight_norm**2).abs()

    def residual_parameters(self) -> list[nn.Parameter]:
        """``U_residual``, ``S_residual``, ``V_residual``: what Effort trains."""
        return [self.U_residual, self.S_residual, self.V_residual]

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, rank={self.rank}"


Target = str | Sequence[str] | Callable[[str, nn.Module], bool] | None


def select_linears(model: nn.Module, target: Target = None) -> list[str]:
    """Qualified names of the ``nn.Linear`` layers of ``model`` that ``target`` picks.

    Parameters
    ----------
    model : torch.nn.Module
        The model to search.
    target : None, str, Sequence[str] or Callable[[str, torch.nn.Module], bool], optional
        None (default) for attention projections, a linear layer inside a module whose name
        contains "attn" or "attention"; a string or a non-empty sequence of strings for a
        layer whose qualified name contains one of them; or a callable
        ``(name, module) -> bool``.

    Returns
    -------
    names : list of str
        The selected layers' qualified names, in module order, never the ``out_proj`` of an
        ``nn.MultiheadAttention``. ValueError if none is selected.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if target is None:
        pick = lambda name, _: bool(ATTENTION.search(name))  # noqa: E731
    elif isinstance(target, str):
        pick = lambda name, _: target in name  # noqa: E731
    elif callable(target):
        pick = target
    elif isinstance(target, Sequence) and target and all(isinstance(t, str) for t in target):
        pick = lambda name, _: any(t in name for t in target)  # noqa: E731
    else:
        raise TypeError(
            "target must be None, a string, a non-empty sequence of strings or a callable "
            f"(name, module) -> bool, got {target!r}"
        )
    fused = {  # nn.MultiheadAttention reads its out_proj's raw weight: it cannot be swapped
        f"{n}.out_proj" for n, m in model.named_modules() if isinstance(m, nn.MultiheadAttention)
    }
    names = [
        n
        for n, m in model.named_modules()
        if isinstance(m, nn.Linear) and n not in fused and pick(n, m)
    ]
    if not names:
        raise ValueError(f"target {target!r} selects no nn.Linear layer of the model")
    return names


def replace_modules(model: nn.Module, names: list[str], build: Callable[[nn.Module], nn.Module]):
    """Swap each named submodule ``m`` of ``model`` for ``build(m)``, in place."""
    for name in names:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, build(getattr(parent, child)))


def apply_effort(model: nn.Module, target: Target = None, rank: int = 1) -> nn.Module:
    """Apply Effort's orthogonal subspace decomposition to a torch model, in place.

    Every ``nn.Linear`` that ``target`` picks (see :func:`select_linears`; by default the
    attention projections) becomes an :class:`SVDResidualLinear` with a rank-``rank`` trainable
    residual, ``W = U_p S_p V_p^T + U_r diag(S_r) V_r^T`` (Yan et al., ICML 2025, Section 3),
    and every other parameter of ``model`` (biases included, as in the official code) is
    frozen. At this call the model computes what it computed before (up to float rounding);
    each swapped layer trains ``rank * (out + in + 1)`` numbers. Add the task head after this
    call (it stays trainable).

    Parameters
    ----------
    model : torch.nn.Module
        The pre-trained model, changed in place. The out-projection of an
        ``nn.MultiheadAttention`` is never swapped (that module reads its raw weight).
    target : None, str, Sequence[str] or Callable[[str, torch.nn.Module], bool], optional
        Which ``nn.Linear`` layers to decompose: None (default) for the linear layers inside a
        module whose name contains "attn" or "attention"; a string or a non-empty sequence of
        strings for the layers whose qualified name contains one of them; or a callable
        ``(name, module) -> bool``. It must select at least one layer.
    rank : int, default 1
        The rank ``r`` of each trainable residual, the last ``r`` singular directions (the
        official code: 1). An integer >= 1, at most ``min(in_features, out_features)`` of
        every selected layer; the selected weights must be finite.

    Returns
    -------
    torch.nn.Module
        ``model`` itself, with the selected layers replaced and only the residuals
        ``U_residual`` (out, r), ``S_residual`` (r,), ``V_residual`` (in, r) trainable.

    Raises
    ------
    ValueError
        If ``rank`` is too large for a selected layer, a selected weight holds NaN or inf, or
        ``target`` selects no layer (nothing is changed then).
    TypeError
        If ``model`` is not a ``torch.nn.Module`` or ``target`` is of another type.
    """
    rank = check_int("rank", rank, minimum=1)
    names = select_linears(model, target)
    for name in names:  # check every layer before changing any
        layer = model.get_submodule(name)
        if rank > min(layer.in_features, layer.out_features):
            raise ValueError(
                f"rank must be at most min(in_features, out_features) = "
                f"{min(layer.in_features, layer.out_features)} for layer {name!r}, got {rank}"
            )
        if not torch.isfinite(layer.weight).all():
            raise ValueError(f"the weight of layer {name!r} must be finite: it holds NaN or inf")
    model.requires_grad_(False)
    replace_modules(model, names, lambda m: SVDResidualLinear(m, rank))
    for module in effort_layers(model):
        if module.bias is not None:
            module.bias.requires_grad_(False)
        for p in module.residual_parameters():
            p.requires_grad_(True)
    return model


RESIDUAL_NAMES = ("U_residual", "S_residual", "V_residual")


def effort_layers(model: nn.Module) -> list[SVDResidualLinear]:
    """The :class:`SVDResidualLinear` layers of ``model``.

    Parameters
    ----------
    model : torch.nn.Module
        The model to search.

    Returns
    -------
    layers : list of SVDResidualLinear
        Its Effort layers, in module order (empty if there is none).
    """
    return [m for m in model.modules() if isinstance(m, SVDResidualLinear)]


def effort_regularizer(
    model: nn.Module, *, orthogonality: float = 1.0, keep_norm: float = 1.0
) -> torch.Tensor:
    """The paper's optional regulariser, averaged over the model's Effort layers.

    Parameters
    ----------
    model : torch.nn.Module
        A model with at least one :class:`SVDResidualLinear` layer.
    orthogonality : float, default 1.0
        Weight of the orthogonality loss ``L_orth``, finite and ``>= 0``.
    keep_norm : float, default 1.0
        Weight of the norm-keeping loss ``L_norm``, finite and ``>= 0``.

    Returns
    -------
    loss : torch.Tensor
        Scalar mean over the :class:`SVDResidualLinear` layers of
        ``orthogonality * L_orth + keep_norm * L_norm``.
    """
    check_real("orthogonality", orthogonality, low=0.0, high=math.inf, high_open=True)
    check_real("keep_norm", keep_norm, low=0.0, high=math.inf, high_open=True)
    layers = effort_layers(model)
    if not layers:
        raise ValueError("model has no SVDResidualLinear layer: call apply_effort first")
    total = sum(
        orthogonality * m.orthogonality_loss() + keep_norm * m.keep_norm_loss() for m in layers
    )
    return total / len(layers)


def count_trainable(model: nn.Module) -> int:
    """Number of trainable numbers of a model.

    Parameters
    ----------
    model : torch.nn.Module
        The model.

    Returns
    -------
    count : int
        Total ``numel`` of its parameters with ``requires_grad``.
    """
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
