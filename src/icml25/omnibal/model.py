"""A small vision-language model in torch, shaped like InternVL-Chat: a ViT over image patches,
a projector that merges 2 x 2 neighbouring patches (InternVL's pixel shuffle) into one language
token, and a causal decoder over [image tokens of the sample, text tokens].

The model is a chain of single-tensor layers (``model.chain(batch)``) so that ``profile`` can
time each layer, and ``model.loss(batch)`` runs the whole chain with the next-token loss. A
batch either pads its samples to the longest (``packed=False``, a (B, T) batch) or packs them
into one sequence with block-diagonal causal attention (``packed=True``, what ISF groups use).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class VLMConfig:
    """Sizes of ``TinyVLM``.

    Parameters
    ----------
    image : int, default 32
        Pixels per image side.
    patch : int, default 8
        Pixels per patch side; ``(image / patch)^2`` patches per image.
    vit_width : int, default 128
        Width of the ViT.
    vit_layers : int, default 4
        Transformer blocks of the ViT.
    llm_width : int, default 192
        Width of the language model.
    llm_layers : int, default 4
        Transformer blocks of the language model.
    heads : int, default 4
        Attention heads of every block.
    vocab : int, default 512
        Vocabulary size.
    seed : int, default 0
        Seed of the initialisation.
    """

    image: int = 32  # pixels per side
    patch: int = 8  # pixels per patch side; (image / patch)^2 patches per image
    vit_width: int = 128
    vit_layers: int = 4
    llm_width: int = 192
    llm_layers: int = 4
    heads: int = 4
    vocab: int = 512
    seed: int = 0

    @property
    def patches(self) -> int:
        return (self.image // self.patch) ** 2

    @property
    def tokens_per_image(self) -> int:
        return self.patches // 4


@dataclass
class VLBatch:
    """One rank's mini-batch: pixels (N_img, 3, H, W), per-sample image counts (B,), text ids of
    each sample (list of (t_i,)), and the layout.

    Parameters
    ----------
    pixels : torch.Tensor, shape (N_img, 3, H, W)
        The images of all samples, in sample order.
    images : ndarray of int, shape (B,)
        Images of each sample.
    text : list of torch.Tensor
        Text token ids of each sample, shape (t_i,).
    packed : bool
        Whether the samples are packed into one sequence or padded to the longest.
    """

    pixels: torch.Tensor
    images: np.ndarray
    text: list[torch.Tensor]
    packed: bool


def make_batch(config: VLMConfig, images, text_tokens, *, packed: bool, seed: int) -> VLBatch:
    """Random pixels and text ids for samples with the given images (B,) and text tokens (B,).

    Parameters
    ----------
    config : VLMConfig
        Gives the image size and the vocabulary.
    images : array_like of int, shape (B,)
        Images of each sample.
    text_tokens : array_like of int, shape (B,)
        Text tokens of each sample.
    packed : bool
        Layout of the batch (packed sequence or padded).
    seed : int
        Seed of the random pixels and ids.

    Returns
    -------
    VLBatch
        The batch, pixels of shape (sum(images), 3, image, image).
    """
    g = torch.Generator().manual_seed(seed)
    n_img = int(np.sum(images))
    pixels = torch.randn(n_img, 3, config.image, config.image, generator=g)
    text = [torch.randint(config.vocab, (int(t),), generator=g) for t in text_tokens]
    return VLBatch(pixels, np.asarray(images, int), text, packed)


class Block(nn.Module):
    """Pre-norm transformer block; ``mask`` is set by the chain before the forward."""

    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.out = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.mlp = nn.Sequential(
            nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
        )
        self.mask: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, C)
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, self.heads, C // self.heads).unbind(2)
        y = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), attn_mask=self.mask
        )  # (B, H, T, C / H)
        x = x + self.out(y.transpose(1, 2).reshape(B, T, C))
        return x + self.mlp(self.ln2(x))


class PatchEmbed(nn.Module):
    def __init__(self, config: VLMConfig):
        super().__init__()
        self.proj = nn.Conv2d(3, config.vit_width, config.patch, stride=config.patch)
        self.pos = nn.Parameter(torch.zeros(1, config.patches, config.vit_width))

    def forward(self, pixels: torch.Tensor) -> torch.Tensor:  # (N, 3, H, W) -> (N, p, Cv)
        return self.proj(pixels).flatten(2).transpose(1, 2) + self.pos


class Projector(nn.Module):
    """2 x 2 patch merge (pixel shuffle) and an MLP to the language width."""

    def __init__(self, config: VLMConfig):
        super().__init__()
        self.side = config.image // config.patch
        self.mlp = nn.Sequential(
            nn.LayerNorm(4 * config.vit_width),
            nn.Linear(4 * config.vit_width, config.llm_width),
            nn.GELU(),
            nn.Linear(config.llm_width, config.llm_width),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (N, p, Cv) -> (N, p / 4, Cl)
        N, _, C = x.shape
        s = self.side
        x = x.view(N, s // 2, 2, s // 2, 2, C).permute(0, 1, 3, 2, 4, 5).reshape(N, -1, 4 * C)
        return self.mlp(x)


class Merge(nn.Module):
    """Image tokens and text embeddings into the decoder's sequences (padded or packed)."""

    def __init__(self, config: VLMConfig):
        super().__init__()
        self.embed = nn.Embedding(config.vocab, config.llm_width)
        self.batch: VLBatch | None = None

    def forward(self, img: torch.Tensor) -> torch.Tensor:  # (N, q, Cl) -> (B, T, Cl)
        batch = self.batch
        per_sample = torch.split(img.reshape(-1, img.shape[-1]), list(batch.images * img.shape[1]))
        seqs = [
            torch.cat([im, self.embed(t)]) for im, t in zip(per_sample, batch.text, strict=True)
        ]
        if batch.packed:
            return torch.cat(seqs)[None]
        return nn.utils.rnn.pad_sequence(seqs, batch_first=True)


class Head(nn.Module):
    def __init__(self, config: VLMConfig):
        super().__init__()
        self.ln = nn.LayerNorm(config.llm_width)
        self.proj = nn.Linear(config.llm_width, config.vocab, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, Cl) -> (B, T, V)
        return self.proj(self.ln(x))


class TinyVLM(nn.Module):
    """A small vision-language model: patch embedding, ViT blocks, projector, merge, decoder
    blocks and head, as one chain of single-tensor layers.

    Parameters
    ----------
    config : VLMConfig
        Sizes of the model; ``config.seed`` seeds the initialisation (the global torch random
        state is kept).
    """

    def __init__(self, config: VLMConfig):
        super().__init__()
        self.config = config
        with torch.random.fork_rng():  # initialisation seeded by config.seed, global state kept
            torch.manual_seed(config.seed)
            self.patch = PatchEmbed(config)
            self.vit = nn.ModuleList(
                Block(config.vit_width, config.heads) for _ in range(config.vit_layers)
            )
            self.projector = Projector(config)
            self.merge = Merge(config)
            self.llm = nn.ModuleList(
                Block(config.llm_width, config.heads) for _ in range(config.llm_layers)
            )
            self.head = Head(config)

    def chain(self, batch: VLBatch) -> list[nn.Module]:
        """The layers in order, their masks and the merge set for ``batch``."""
        lengths = batch.images * self.config.tokens_per_image + np.array(
            [len(t) for t in batch.text]
        )
        mask = decoder_mask(lengths, batch.packed)
        for block in self.llm:
            block.mask = mask
        self.merge.batch = batch
        return [self.patch, *self.vit, self.projector, self.merge, *self.llm, self.head]

    def loss(self, batch: VLBatch) -> torch.Tensor:
        x = batch.pixels
        for layer in self.chain(batch):
            x = layer(x)
        return next_token_loss(x, batch, self.config.tokens_per_image)


def decoder_mask(lengths: np.ndarray, packed: bool) -> torch.Tensor:
    """Boolean attention mask (True = attend): causal within each sample; packed -> (T, T)
    block-diagonal, padded -> (B, 1, T, T) with the padding keys masked."""
    if packed:
        seg = torch.repeat_interleave(torch.arange(len(lengths)), torch.as_tensor(lengths))
        T = len(seg)
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        return causal & (seg[:, None] == seg[None, :])
    T = int(lengths.max())
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    valid = torch.arange(T)[None, :] < torch.as_tensor(lengths)[:, None]  # (B, T)
    return (causal[None] & valid[:, None, :])[:, None]


def next_token_loss(logits: torch.Tensor, batch: VLBatch, per_image: int) -> torch.Tensor:
    """Cross-entropy of each text token given the tokens before it (logits (B, T, V))."""
    rows, cols, targets = [], [], []
    offset = 0
    for i, (n_img, t) in enumerate(zip(batch.images, batch.text, strict=True)):
        start = int(n_img) * per_image
        row = 0 if batch.packed else i
        base = offset if batch.packed else 0
        pos = base + start + torch.arange(len(t) - 1)
        rows.append(torch.full_like(pos, row))
        cols.append(pos)
        targets.append(t[1:])
        offset += start + len(t)
    rows, cols, targets = torch.cat(rows), torch.cat(cols), torch.cat(targets)
    return F.cross_entropy(logits[rows, cols], targets)
