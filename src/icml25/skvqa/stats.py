"""Dataset statistics of the kind SK-VQA reports to compare data sets (Sec. 4, Table 1).

- :func:`unique_share`: distinct questions (after normalisation) / all questions;
- :func:`type_entropy`: Shannon entropy in bits of the question types, a type being the first
  two words ("how many", "what year", ...), a common proxy for question-type diversity;
- :func:`distinct_2`: distinct word bigrams / all word bigrams over the questions (Li et al.,
  2016), lexical diversity;
- :func:`embedding_diversity`: mean pairwise cosine distance of the questions' MiniLM
  embeddings, semantic diversity.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from icml25.common.text import embed
from icml25.skvqa.filters import normalise


def _check(questions: Sequence[str]) -> list[str]:
    if isinstance(questions, str) or len(questions) < 2:
        raise ValueError("questions must be a list of at least two questions")
    return [normalise(q) for q in questions]


def unique_share(questions: Sequence[str]) -> float:
    norm = _check(questions)
    return len(set(norm)) / len(norm)


def type_entropy(questions: Sequence[str]) -> float:
    counts = np.array(list(Counter(" ".join(q.split()[:2]) for q in _check(questions)).values()))
    p = counts / counts.sum()
    return float(max(0.0, -(p * np.log2(p)).sum()))


def distinct_2(questions: Sequence[str]) -> float:
    bigrams = [
        tuple(w[i : i + 2])
        for w in (q.split() for q in _check(questions))
        for i in range(len(w) - 1)
    ]
    return len(set(bigrams)) / max(len(bigrams), 1)


def embedding_diversity(questions: Sequence[str]) -> float:
    _check(questions)
    e = embed(questions)  # (n, 384), unit rows
    n = len(e)
    mean_cos = (e.sum(axis=0) @ e.sum(axis=0) - n) / (n * (n - 1))  # off-diagonal mean
    return float(1.0 - mean_cos)


STATISTICS = {
    "unique_share": unique_share,
    "type_entropy": type_entropy,
    "distinct_2": distinct_2,
    "embedding_diversity": embedding_diversity,
}
