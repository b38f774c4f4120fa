"""A small decoder-style transformer, causal or bidirectional, for papers that train one on
generated token sequences (a next-token model, a masked-diffusion denoiser on the same network,
a GPT on game moves).

The GPT-2 block (Radford et al., 2019) at CPU size, laid out like nanoGPT: token and learned
position embeddings, ``n_layer`` pre-norm blocks ``h <- h + Attn(LN(h))``, ``h <- h + MLP(LN(h))``
with a 4x GELU MLP, a final LayerNorm and a read-out tied to the token embedding. Attention is
``softmax(Q K^T / sqrt(d_head) + M) V`` per head, with ``M`` the causal mask (``-inf`` above the
diagonal) when ``causal`` and no mask otherwise (a masked-diffusion denoiser sees every position).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from icml25.common.validate import check_int, check_real

__all__ = ["Transformer", "TransformerConfig"]


@dataclass(frozen=True)
class TransformerConfig:
    """Sizes of :class:`Transformer`. ``n_embd % n_head == 0``."""

    vocab_size: int
    block_size: int
    n_layer: int = 3
    n_head: int = 4
    n_embd: int = 96
    dropout: float = 0.0
    causal: bool = True

    def __post_init__(self) -> None:
        for name in ("vocab_size", "block_size", "n_layer", "n_head", "n_embd"):
            check_int(name, getattr(self, name), minimum=1)
        check_real("dropout", self.dropout, low=0.0, high=1.0)
        if self.n_embd % self.n_head:
            raise ValueError(
                f"n_embd must be a multiple of n_head, got n_embd={self.n_embd}, "
                f"n_head={self.n_head}"
            )


class _Attention(nn.Module):
    def __init__(self, c: TransformerConfig):
        super().__init__()
        self.n_head, self.causal, self.dropout = c.n_head, c.causal, c.dropout
        self.qkv = nn.Linear(c.n_embd, 3 * c.n_embd)
        self.out = nn.Linear(c.n_embd, c.n_embd)

    def forward(self, h: torch.Tensor, keep: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        B, T, C = h.shape
        q, k, v = self.qkv(h).split(C, dim=2)  # (B, T, C) each
        q, k, v = (x.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for x in (q, k, v))
        if keep:  # the weights themselves, for a caller that reads them: (B, H, T, T)
            scores = q @ k.transpose(-2, -1) / (q.shape[-1] ** 0.5)
            if self.causal:
                above = torch.ones(T, T, dtype=torch.bool, device=h.device).triu(1)
                scores = scores.masked_fill(above, float("-inf"))
            weights = scores.softmax(dim=-1)
            y = F.dropout(weights, self.dropout, self.training) @ v  # (B, H, T, d_head)
        else:
            weights = None
            y = F.scaled_dot_product_attention(
                q, k, v, dropout_p=self.dropout if self.training else 0.0, is_causal=self.causal
            )
        y = y.transpose(1, 2).reshape(B, T, C)
        return F.dropout(self.out(y), self.dropout, self.training), weights


class _Block(nn.Module):
    def __init__(self, c: TransformerConfig):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(c.n_embd), nn.LayerNorm(c.n_embd)
        self.attn = _Attention(c)
        self.mlp = nn.Sequential(
            nn.Linear(c.n_embd, 4 * c.n_embd),
            nn.GELU(),
            nn.Linear(4 * c.n_embd, c.n_embd),
            nn.Dropout(c.dropout),
        )

    def forward(self, h: torch.Tensor, keep: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        a, weights = self.attn(self.ln1(h), keep)
        h = h + a
        return h + self.mlp(self.ln2(h)), weights


class Transformer(nn.Module):
    """The network; parameters initialised from ``seed`` alone (GPT-2's N(0, 0.02) weights, zero
    biases), without touching torch's global random state.

    Shapes: ``idx`` ``(B, T)`` integer tokens in ``[0, vocab_size)``, ``T <= block_size`` ->
    logits ``(B, T, vocab_size)``; with ``return_attention=True`` also the attention weights
    ``(n_layer, B, n_head, T, T)``, each row summing to 1.
    """

    def __init__(self, config: TransformerConfig, seed: int = 0):
        super().__init__()
        check_int("seed", seed, minimum=0)
        self.config = c = config
        with torch.random.fork_rng(devices=[]):  # torch's own initialisers draw globally
            self.tok = nn.Embedding(c.vocab_size, c.n_embd)
            self.pos = nn.Embedding(c.block_size, c.n_embd)
            self.blocks = nn.ModuleList(_Block(c) for _ in range(c.n_layer))
            self.ln_f = nn.LayerNorm(c.n_embd)
        generator = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.endswith("bias"):
                    p.zero_()
                elif p.ndim == 1:  # LayerNorm gains
                    p.fill_(1.0)
                else:
                    p.copy_(torch.randn(p.shape, generator=generator) * 0.02)

    def forward(
        self, idx: torch.Tensor, return_attention: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        if idx.ndim != 2 or idx.dtype not in (torch.int64, torch.int32):
            raise ValueError(f"idx must be a (B, T) integer tensor, got {idx.dtype} {idx.shape}")
        T = idx.shape[1]
        if not 1 <= T <= self.config.block_size:
            raise ValueError(f"idx must have 1 to block_size={self.config.block_size} columns")
        h = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))  # (B, T, C)
        maps = []
        for block in self.blocks:
            h, weights = block(h, return_attention)
            maps.append(weights)
        logits = self.ln_f(h) @ self.tok.weight.T  # (B, T, V), read-out tied to the embedding
        return (logits, torch.stack(maps)) if return_attention else logits
