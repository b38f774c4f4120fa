"""A small Vision Transformer (Dosovitskiy et al., 2021) for the reproduction's backbone: patch
embedding, a class token, pre-norm blocks of multi-head self-attention and an MLP. Its attention
is written with four ``nn.Linear`` projections (``attn.q``, ``attn.k``, ``attn.v``, ``attn.proj``)
so that Effort and LoRA can replace them, as they do in CLIP's ViT.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from icml25.common.validate import check_int


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, D = x.shape
        split = lambda y: y.view(B, T, self.heads, D // self.heads).transpose(1, 2)  # noqa: E731
        out = F.scaled_dot_product_attention(split(self.q(x)), split(self.k(x)), split(self.v(x)))
        return self.proj(out.transpose(1, 2).reshape(B, T, D))  # (B, T, D)


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, mlp_ratio: int):
        super().__init__()
        self.norm1, self.attn = nn.LayerNorm(dim), Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(
            nn.Linear(dim, mlp_ratio * dim), nn.GELU(), nn.Linear(mlp_ratio * dim, dim)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyViT(nn.Module):
    """A small Vision Transformer whose attention uses four swappable ``nn.Linear`` layers.

    ``features(x)``: the final-normed class token (B, dim) of images x (B, C, H, W);
    ``forward(x)``: ``head(features(x))`` (B, classes).

    Parameters
    ----------
    image_size : int, default 8
        Height and width of the square input images, ``>= 1``.
    patch : int, default 2
        Side of the square patches, ``>= 1``, dividing ``image_size``.
    channels : int, default 1
        Image channels ``C``, ``>= 1``.
    dim : int, default 32
        Token width, ``>= 1``, a multiple of ``heads``.
    depth : int, default 4
        Transformer blocks, ``>= 1``.
    heads : int, default 4
        Attention heads, ``>= 1``.
    mlp_ratio : int, default 2
        Hidden width of each block's MLP over ``dim``, ``>= 1``.
    classes : int, default 10
        Outputs of the linear ``head``, ``>= 1``.
    seed : int, default 0
        Seed of the initial weights (the global torch stream is left as it was), ``>= 0``.
    """

    def __init__(
        self,
        image_size: int = 8,
        patch: int = 2,
        channels: int = 1,
        dim: int = 32,
        depth: int = 4,
        heads: int = 4,
        mlp_ratio: int = 2,
        classes: int = 10,
        seed: int = 0,
    ):
        super().__init__()
        image_size, patch = (
            check_int("image_size", image_size, minimum=1),
            check_int("patch", patch, minimum=1),
        )
        if image_size % patch:
            raise ValueError(f"patch must divide image_size={image_size}, got {patch}")
        dim, heads = check_int("dim", dim, minimum=1), check_int("heads", heads, minimum=1)
        for name, value in (
            ("channels", channels),
            ("depth", depth),
            ("mlp_ratio", mlp_ratio),
            ("classes", classes),
        ):
            check_int(name, value, minimum=1)
        if dim % heads:
            raise ValueError(f"heads must divide dim={dim}, got {heads}")
        with torch.random.fork_rng(devices=[]):  # nn initialisers draw from the global stream
            torch.manual_seed(check_int("seed", seed, minimum=0))
            self.embed = nn.Conv2d(channels, dim, patch, patch)
            tokens = (image_size // patch) ** 2 + 1
            self.cls = nn.Parameter(0.02 * torch.randn(1, 1, dim))
            self.pos = nn.Parameter(0.02 * torch.randn(1, tokens, dim))
            self.blocks = nn.ModuleList(Block(dim, heads, mlp_ratio) for _ in range(depth))
            self.norm = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, classes)
        self.dim = dim

    def features(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x).flatten(2).transpose(1, 2)  # (B, P, dim)
        h = torch.cat([self.cls.expand(len(h), -1, -1), h], dim=1) + self.pos  # (B, P + 1, dim)
        for block in self.blocks:
            h = block(h)
        return self.norm(h[:, 0])  # (B, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))
