"""The APT network (Wu & Bergman, ICML 2025, Sec. 3.2; official ``apt/model/model.py`` and
``transformer.py``): a transformer over rows and the mixture block.

Rows are embedded by patches of ``d_patch`` features (``x`` zero-padded to a multiple of
``d_patch``; the patch embeddings are summed). Each training row ``j`` gets its label embedded
and added. Every row attends to the training rows only (keys and values from training rows), so
test rows never see each other. The mixture block (Sec. 3.2) turns a last attention into a
mixture over training rows,

    P(test i <- train j) = mean_heads  softmax_j(q_i . k_j / sqrt(d_h)) g_ij / sum_j (...) ,
    p(y = c | x_i) = sum_j P(i <- j) [y_j = c],

with gates ``g_ij`` from the cosine similarity of gate projections (a relaxed Bernoulli of
temperature 0.2 in training, the hard indicator ``g_ij >= `` its 0.3 row quantile at inference),
so any number of classes works without an output head.

Hand-made here, because the shared GPT-2 ``icml25.common.transformer`` takes integer tokens and
a causal/full mask, not real-valued rows whose keys are restricted to the training rows.
Deviation from the official code, which embeds the label integer as a scalar: the label
embedding of training row ``j`` is a projection of the mean row embedding of its class, so the
network is exactly equivariant to relabelling the classes (tested). The ``head`` variant (claim d)
replaces the mixture block by a fixed 10-way linear softmax head and adds a learned embedding of
the label index (a head must know which class is which).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn

from icml25.common.validate import check_int, check_real

HEAD_CLASSES = 10


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of :class:`APT`; ``readout`` is ``"mixture"`` (the paper) or ``"head"`` (control).

    Parameters
    ----------
    n_blocks : int, default 3
        Number of transformer blocks.
    d_model : int, default 64
        Width of the row embeddings; a multiple of ``n_heads``.
    n_heads : int, default 4
        Attention heads (also the heads of the mixture block).
    d_ff : int, default 128
        Hidden width of the MLPs.
    d_patch : int, default 100
        Features per embedding patch; wider inputs are split into summed patches.
    readout : {"mixture", "head"}, default "mixture"
        Mixture block over training rows, or a fixed 10-way softmax head.
    temperature : float, default 0.2
        Temperature of the relaxed Bernoulli gates in training, > 0.
    gate_quantile : float, default 0.3
        Row quantile of the gate similarities below which a gate is closed at inference,
        in ``[0, 1]``.

    Raises
    ------
    ValueError
        If ``readout`` is unknown, a size is below 1, ``temperature`` or ``gate_quantile``
        is out of range, or ``d_model`` is not a multiple of ``n_heads``.
    """

    n_blocks: int = 3
    d_model: int = 64
    n_heads: int = 4
    d_ff: int = 128
    d_patch: int = 100
    readout: str = "mixture"
    temperature: float = 0.2
    gate_quantile: float = 0.3

    def __post_init__(self) -> None:
        if self.readout not in ("mixture", "head"):
            raise ValueError(f"readout must be 'mixture' or 'head', got {self.readout!r}")
        for name in ("n_blocks", "d_model", "n_heads", "d_ff", "d_patch"):
            check_int(name, getattr(self, name), minimum=1)
        inf = float("inf")
        check_real(
            "temperature", self.temperature, low=0.0, high=inf, low_open=True, high_open=True
        )
        check_real("gate_quantile", self.gate_quantile, low=0.0, high=1.0)
        if self.d_model % self.n_heads:
            raise ValueError("d_model must be a multiple of n_heads")

    def to_dict(self) -> dict:
        return asdict(self)


def _mlp(d_in: int, d_ff: int, d_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(d_in, d_ff), nn.GELU(), nn.Linear(d_ff, d_out))


class _Block(nn.Module):
    """Pre-norm transformer block; queries from all rows, keys/values from training rows."""

    def __init__(self, c: ModelConfig):
        super().__init__()
        self.n_heads = c.n_heads
        self.ln1, self.ln2 = nn.LayerNorm(c.d_model), nn.LayerNorm(c.d_model)
        self.qkv = nn.Linear(c.d_model, 3 * c.d_model)
        self.proj = nn.Linear(c.d_model, c.d_model)
        self.ff = _mlp(c.d_model, c.d_ff, c.d_model)

    def forward(self, h: torch.Tensor, n_train: int) -> torch.Tensor:
        B, n, d = h.shape
        q, k, v = self.qkv(self.ln1(h)).view(B, n, 3, self.n_heads, -1).permute(2, 0, 3, 1, 4)
        k, v = k[:, :, :n_train], v[:, :, :n_train]  # (B, H, n_train, d_h)
        a = F.scaled_dot_product_attention(q, k, v)  # (B, H, n, d_h)
        h = h + self.proj(a.transpose(1, 2).reshape(B, n, d))
        return h + self.ff(self.ln2(h))


class MixtureBlock(nn.Module):
    """Sec. 3.2: gated attention of test rows over training rows, averaged over heads.

    Parameters
    ----------
    c : ModelConfig
        Sizes (``d_model``, ``d_ff``, ``n_heads``) and the gates' ``temperature`` and
        ``gate_quantile``.
    """

    def __init__(self, c: ModelConfig):
        super().__init__()
        self.c = c
        self.logits = _mlp(c.d_model, c.d_ff, c.d_model)
        self.gates = _mlp(c.d_model, c.d_ff, c.d_model)

    def forward(
        self, h: torch.Tensor, n_train: int, generator: torch.Generator | None = None
    ) -> torch.Tensor:
        """``h`` ``(B, n, d)`` -> mixture weights ``(B, n - n_train, n_train)``, rows sum to 1."""
        B, n, _ = h.shape
        H = self.c.n_heads
        g = F.normalize(self.gates(h).view(B, n, H, -1).transpose(1, 2), dim=-1)  # (B, H, n, dh)
        gates = g[:, :, n_train:] @ g[:, :, :n_train].transpose(-1, -2)  # (B, H, m, n_train)
        if self.training:  # relaxed Bernoulli(logits=gates), temperature tau, seeded
            u = torch.rand(gates.shape, generator=generator).clamp(1e-6, 1 - 1e-6)
            gates = torch.sigmoid((gates + torch.log(u) - torch.log1p(-u)) / self.c.temperature)
        else:
            cut = torch.quantile(gates, self.c.gate_quantile, dim=-1, keepdim=True)
            gates = (gates >= cut).to(gates.dtype)
        z = self.logits(h).view(B, n, H, -1).transpose(1, 2)  # (B, H, n, dh)
        att = (z[:, :, n_train:] @ z[:, :, :n_train].transpose(-1, -2)) * z.shape[-1] ** -0.5
        w = att.softmax(-1) * gates  # (B, H, m, n_train)
        w = w / w.sum(-1, keepdim=True).clamp(min=1e-12)
        return w.mean(1)  # (B, m, n_train)


def _check_rows(x, y_train, n_classes) -> None:
    """``x`` finite ``(B, n, F)`` floats, ``y_train`` ``(B, n_train)`` int64 labels ``>= 0`` with
    ``1 <= n_train <= n``, ``n_classes`` None or an integer ``>= 1``."""
    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.ndim != 3:
        raise TypeError("x must be a (B, n, F) floating-point torch tensor")
    if not isinstance(y_train, torch.Tensor) or y_train.dtype != torch.long or y_train.ndim != 2:
        raise TypeError("y_train must be a (B, n_train) torch int64 tensor of labels")
    if y_train.shape[0] != x.shape[0] or not 1 <= y_train.shape[1] <= x.shape[1]:
        raise ValueError(
            f"y_train must be (B, n_train) with the B of x and 1 <= n_train <= n, got "
            f"{tuple(y_train.shape)} for x of shape {tuple(x.shape)}"
        )
    if not torch.isfinite(x).all():
        raise ValueError("x must be finite: it holds NaN or inf")
    if int(y_train.min()) < 0:
        raise ValueError(f"y_train must hold labels >= 0, got {int(y_train.min())}")
    if n_classes is not None:
        check_int("n_classes", n_classes, minimum=1)


class APT(nn.Module):
    """The network. ``forward(x, y_train)``: ``x`` ``(B, n, F)`` standardised features, the first
    ``n_train = y_train.shape[1]`` rows labelled by ``y_train`` ``(B, n_train)`` in
    ``[0, n_classes)``; returns class probabilities ``(B, n - n_train, n_classes)`` (mixture:
    ``n_classes = max label + 1`` or the given ``n_classes``; head: 10).

    Parameters
    ----------
    config : ModelConfig
        The network's sizes and read-out.
    seed : int, default 0
        Seed of the weight initialisation (torch's global generator is forked and restored).
    """

    def __init__(self, config: ModelConfig, seed: int = 0):
        super().__init__()
        self.config = c = config
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)  # torch's initialisers draw globally; forked, then restored
            self.embed_x = nn.Linear(c.d_patch, c.d_model)
            self.embed_y = _mlp(c.d_model, c.d_ff, c.d_model)
            self.blocks = nn.ModuleList(_Block(c) for _ in range(c.n_blocks))
            self.ln_f = nn.LayerNorm(c.d_model)
            if c.readout == "mixture":
                self.mixture = MixtureBlock(c)
            else:
                self.label_index = nn.Embedding(HEAD_CLASSES, c.d_model)
                self.head = nn.Linear(c.d_model, HEAD_CLASSES)

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        """Patch embedding: ``(B, n, F)`` -> ``(B, n, d)``, patches of ``d_patch`` summed."""
        P = self.config.d_patch
        B, n, F_ = x.shape
        x = F.pad(x, (0, -F_ % P)).view(B, n, -1, P)  # (B, n, patches, P)
        return self.embed_x(x).sum(2)

    def forward(
        self,
        x: torch.Tensor,
        y_train: torch.Tensor,
        n_classes: int | None = None,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        _check_rows(x, y_train, n_classes)
        n_train = y_train.shape[1]
        K = int(y_train.max()) + 1 if n_classes is None else n_classes
        if self.config.readout == "head":
            K = max(K, HEAD_CLASSES)
        if int(y_train.max()) >= K:
            raise ValueError(f"y_train must hold labels below n_classes = {K}")
        h = self.embed(x)  # (B, n, d)
        onehot = F.one_hot(y_train, K).to(h.dtype)  # (B, n_train, K)
        counts = onehot.sum(1).clamp(min=1)  # (B, K)
        means = onehot.transpose(1, 2) @ h[:, :n_train] / counts[..., None]  # (B, K, d)
        label = self.embed_y(onehot @ means)  # (B, n_train, d): class-mean projection
        if self.config.readout == "head":
            label = label + self.label_index(y_train.clamp(max=HEAD_CLASSES - 1))
        h = torch.cat([h[:, :n_train] + label, h[:, n_train:]], dim=1)
        for block in self.blocks:
            h = block(h, n_train)
        h = self.ln_f(h)
        if self.config.readout == "head":
            return self.head(h[:, n_train:]).softmax(-1)  # (B, m, 10)
        w = self.mixture(h, n_train, generator)  # (B, m, n_train)
        return w @ onehot  # (B, m, K)
