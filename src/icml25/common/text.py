"""Sentence embeddings shared by the papers that compare or classify texts offline."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from icml25.common.optional import load_minilm


def embed(texts: Sequence[str]) -> np.ndarray:
    """Unit-length all-MiniLM-L6-v2 embeddings of ``texts``, float64. (n, 384)"""
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings, not one string")
    return np.asarray(
        load_minilm().encode(list(texts), batch_size=64, normalize_embeddings=True),
        dtype=np.float64,
    )
