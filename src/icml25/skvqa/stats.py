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
    """Share of distinct questions among all questions, after normalisation.

    Each question is normalised (lower case, punctuation and articles removed) before it is
    compared, so questions that differ only in such details count once.

    Parameters
    ----------
    questions : sequence of str
        The questions, at least two; a single string is refused.

    Returns
    -------
    float
        Number of distinct normalised questions over the number of questions, in ``(0, 1]``.
    """
    norm = _check(questions)
    return len(set(norm)) / len(norm)


def type_entropy(questions: Sequence[str]) -> float:
    """Shannon entropy, in bits, of the question types.

    A question's type is the first two words of its normalised text ("how many", "what year",
    ...), a common proxy for the diversity of question types.

    Parameters
    ----------
    questions : sequence of str
        The questions, at least two; a single string is refused.

    Returns
    -------
    float
        ``-sum_k p_k log2 p_k`` over the shares ``p_k`` of the types, ``>= 0``; 0 when every
        question has the same type.
    """
    counts = np.array(list(Counter(" ".join(q.split()[:2]) for q in _check(questions)).values()))
    p = counts / counts.sum()
    return float(max(0.0, -(p * np.log2(p)).sum()))


def distinct_2(questions: Sequence[str]) -> float:
    """Distinct-2 lexical diversity: distinct word bigrams over all word bigrams.

    Bigrams are taken within each normalised question (Li et al., 2016) and pooled over all of
    them.

    Parameters
    ----------
    questions : sequence of str
        The questions, at least two; a single string is refused.

    Returns
    -------
    float
        Distinct bigrams over all bigrams, in ``[0, 1]``; 0 when no question has two words.
    """
    bigrams = [
        tuple(w[i : i + 2])
        for w in (q.split() for q in _check(questions))
        for i in range(len(w) - 1)
    ]
    return len(set(bigrams)) / max(len(bigrams), 1)


def embedding_diversity(questions: Sequence[str]) -> float:
    """Semantic diversity: mean pairwise cosine distance of the question embeddings.

    The questions, as given (not normalised), are embedded with all-MiniLM-L6-v2 into unit
    vectors (n, 384); the mean cosine similarity is taken over the ``n (n - 1)`` ordered pairs
    of distinct questions.

    Parameters
    ----------
    questions : sequence of str
        The questions, at least two; a single string is refused.

    Returns
    -------
    float
        One minus the mean off-diagonal cosine similarity, in ``[0, 2]``; larger is more
        diverse.
    """
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
