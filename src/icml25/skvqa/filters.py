"""The filters of the SK-VQA pipeline: answer in the document, question needs the image, no
repeated questions.

SK-VQA (Su, Luo, Pan et al., ICML 2025, Sec. 3) asks GPT-4 for a context document about an
image and question-answer pairs that need both, then keeps the pairs that pass checks. Each
filter here has an offline form, and the one that needs judgement also a model form:

- :func:`answer_in_context`: the answer, normalised as in the SQuAD evaluation script (lower
  case, no punctuation, no articles, single spaces), occurs as a contiguous run of tokens in
  the normalised document.
- :func:`refers_to_image` (offline proxy) / :func:`answerable_without_image` (with a model): a
  question that can be answered from the document alone does not need the image. Offline we ask
  whether the question points at the image at all (a demonstrative such as "this" or "these",
  or "shown", "pictured", "in the photo"...); with a model we give it the document without the
  image and keep the pair only if it cannot produce the answer. The word list was written from
  the dev half of the labelled set ("being" after "the instrument being played").
- :func:`duplicate_groups`: among the questions about one image, questions equal after
  normalisation, or whose all-MiniLM-L6-v2 embeddings have cosine similarity >= ``threshold``
  (0.85: on the dev half of the labelled pairs, true duplicates scored 0.91-1.00 and different
  questions 0.67-0.74), are one question; the first of each group is kept.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

import numpy as np

from icml25.common.llm import LLMClient
from icml25.common.text import embed

DEDUP_THRESHOLD = 0.85
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_IMAGE_WORDS = re.compile(
    r"\b(this|these|that|those|such|shown|pictured|depicted|here|visible|being)\b"
    r"|\bin the (image|picture|photo|photograph|scene)\b"
)


def normalise(text: str) -> str:
    """SQuAD-style normalisation: lower case, punctuation removed, articles removed.

    Parameters
    ----------
    text : str
        Any text.

    Returns
    -------
    str
        The normalised text, words separated by single spaces.
    """
    text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
    return " ".join(_ARTICLES.sub(" ", text).split())


def contains_words(part: str, whole: str) -> bool:
    """Whether normalised ``part`` is a run of whole words of normalised ``whole``."""
    a, c = normalise(part), normalise(whole)
    return bool(a) and f" {a} " in f" {c} "


def answer_in_context(answer: str, context: str) -> bool:
    """Whether the normalised answer occurs, whole words, in the normalised document.

    Parameters
    ----------
    answer : str
        The answer.
    context : str
        The context document.

    Returns
    -------
    bool
        True if the answer is non-empty after normalisation and occurs in the document.

    Raises
    ------
    TypeError
        If ``answer`` or ``context`` is not a string.
    """
    for name, value in (("answer", answer), ("context", context)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    return contains_words(answer, context)


def refers_to_image(question: str) -> bool:
    """Offline proxy: whether the question points at the image (see the module doc).

    Parameters
    ----------
    question : str
        The question.

    Returns
    -------
    bool
        True if it holds a word pointing at the image ("this", "shown", "in the photo"...).
    """
    return bool(_IMAGE_WORDS.search(question.lower()))


ANSWER_PROMPT = """Read the document and answer the question in a few words, using only the
document. If the document does not give the answer, reply exactly: unknown

Document: {context}
Question: {question}
Answer:"""


def answerable_without_image(
    client: LLMClient, contexts: Sequence[str], questions: Sequence[str], answers: Sequence[str]
) -> list[bool]:
    """With a model: whether it finds each answer from the document alone (no image).

    A reply counts as the answer when either normalised text contains the other as whole words
    ("1" is not "1937").

    Parameters
    ----------
    client : LLMClient
        The model, asked at temperature 0 with at most 30 tokens per reply.
    contexts : sequence of str
        The context documents.
    questions : sequence of str
        The questions, one per document.
    answers : sequence of str
        The gold answers, one per question.

    Returns
    -------
    list of bool
        Per pair, True if the model found the answer (a reply ``"unknown"`` never counts).

    Raises
    ------
    ValueError
        If the three sequences have different lengths.
    """
    requests = [
        {
            "messages": [{"role": "user", "content": ANSWER_PROMPT.format(context=c, question=q)}],
            "temperature": 0.0,
            "max_tokens": 30,
        }
        for c, q in zip(contexts, questions, strict=True)
    ]
    out = []
    for reply, gold in zip(client.chat_many(requests), answers, strict=True):
        said = normalise(reply.text)
        found = contains_words(gold, said) or contains_words(said, gold)
        out.append(said != "unknown" and found)
    return out


def same_question(
    first: Sequence[str], second: Sequence[str], threshold: float = DEDUP_THRESHOLD
) -> np.ndarray:
    """Whether each pair (first[i], second[i]) is one question (bool array).

    Parameters
    ----------
    first : sequence of str
        First questions.
    second : sequence of str
        Second questions, as many as ``first``.
    threshold : float, default 0.85
        Cosine similarity of the all-MiniLM-L6-v2 embeddings at or above which two questions
        are one.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        True where the two are equal after normalisation or similar enough.

    Raises
    ------
    ValueError
        If ``first`` and ``second`` have different lengths.
    """
    if len(first) != len(second):
        raise ValueError("first and second must have the same length")
    exact = np.array([normalise(a) == normalise(b) for a, b in zip(first, second, strict=True)])
    cosine = (embed(first) * embed(second)).sum(axis=1)
    return exact | (cosine >= threshold)


def duplicate_groups(questions: Sequence[str], threshold: float = DEDUP_THRESHOLD) -> np.ndarray:
    """A group id per question (the index of the first question of its group): questions
    linked by :func:`same_question`, transitively (connected components). (n,)

    Parameters
    ----------
    questions : sequence of str
        The questions about one image.
    threshold : float, default 0.85
        Cosine similarity at or above which two questions are linked.

    Returns
    -------
    numpy.ndarray of int, shape (n,)
        For each question, the index of the first question of its group; question ``i`` is
        kept as a non-duplicate when its id is ``i``.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    norm = [normalise(q) for q in questions]
    e = embed(questions)
    linked = (e @ e.T) >= threshold  # (n, n)
    linked |= np.equal.outer(np.array(norm, dtype=object), np.array(norm, dtype=object))
    _, labels = connected_components(csr_matrix(linked), directed=False)
    first = {}
    return np.array([first.setdefault(lab, i) for i, lab in enumerate(labels)])
