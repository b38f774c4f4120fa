"""A tiny random residual text encoder in numpy, for smoke runs and tests without torch.

Not a trained model and not from the paper: words are hashed (CRC-32) into a random embedding
table, then ``n_blocks`` residual blocks each mix tokens (add a multiple of the prompt's mean
token) and apply a random two-layer tanh MLP to the layer-normalised states. It gives every
layer of the pipeline (token states, pooling, dropped blocks) something deterministic to run
on in a fraction of a second.
"""

from __future__ import annotations

import re
import zlib

import numpy as np

from icml25.common.validate import check_int

_WORD = re.compile(r"\w+|[^\w\s]")


class ToyEncoder:
    """Random residual encoder with ``n_blocks`` blocks of width ``dim``, seeded by ``seed``.

    Parameters
    ----------
    n_blocks : int, default 6
        Number of residual blocks ``K`` (at least 1); the encoder has ``K + 1`` layers of states.
    dim : int, default 32
        Width ``d`` of the token states (at least 2).
    vocab : int, default 2048
        Size ``V`` of the hashed embedding table (at least 2).
    seed : int, default 0
        Seed of the random embedding table and block weights (non-negative).

    Raises
    ------
    ValueError
        If an argument is not an integer or is below its minimum.
    """

    def __init__(self, n_blocks: int = 6, dim: int = 32, vocab: int = 2048, seed: int = 0):
        self.n_blocks = check_int("n_blocks", n_blocks, minimum=1)
        self.dim = check_int("dim", dim, minimum=2)
        self.vocab = check_int("vocab", vocab, minimum=2)
        rng = np.random.default_rng(check_int("seed", seed, minimum=0))
        self.table = rng.normal(size=(vocab, dim))  # (V, d)
        self.W1 = rng.normal(size=(n_blocks, dim, 2 * dim)) / np.sqrt(dim)  # (K, d, 2d)
        self.W2 = rng.normal(size=(n_blocks, 2 * dim, dim)) / np.sqrt(2 * dim)  # (K, 2d, d)
        self.mix = rng.uniform(0.1, 0.5, size=n_blocks)  # (K,)

    def tokenize(self, texts: list[str], max_length: int = 32) -> tuple[np.ndarray, np.ndarray]:
        """Token ids (n, T) and a 0/1 mask (n, T), right-padded."""
        check_int("max_length", max_length, minimum=1)
        if isinstance(texts, str) or len(texts) < 1:
            raise ValueError("texts must be a non-empty list of strings")
        words = [_WORD.findall(t.lower())[:max_length] or ["<empty>"] for t in texts]
        T = max(len(w) for w in words)
        ids = np.zeros((len(texts), T), dtype=np.int64)
        mask = np.zeros((len(texts), T))
        for i, w in enumerate(words):
            ids[i, : len(w)] = [zlib.crc32(x.encode()) % self.vocab for x in w]
            mask[i, : len(w)] = 1.0
        return ids, mask

    def token_states(self, texts: list[str], drop_blocks=()) -> tuple[np.ndarray, np.ndarray]:
        """Token states (kept blocks + 1, n, T, d) and the mask (n, T)."""
        if any(not 0 <= b < self.n_blocks for b in drop_blocks):
            raise ValueError(
                f"drop_blocks must be blocks in [0, {self.n_blocks}), got {drop_blocks}"
            )
        ids, mask = self.tokenize(texts)
        T = ids.shape[1]
        position = np.sin(np.arange(T)[:, None] / 10 ** (np.arange(self.dim) / self.dim))
        x = self.table[ids] + 0.5 * position  # (n, T, d)
        states = [x]
        m = mask[:, :, None]
        for k in range(self.n_blocks):
            if k in drop_blocks:
                continue
            mean = (x * m).sum(axis=1, keepdims=True) / m.sum(axis=1, keepdims=True)  # (n, 1, d)
            x = x + self.mix[k] * mean
            h = (x - x.mean(axis=2, keepdims=True)) / x.std(axis=2, keepdims=True)
            x = x + np.tanh(h @ self.W1[k]) @ self.W2[k]
            states.append(x)
        return np.stack(states), mask
