"""The diagnostics behind the README's "why the claims are not reproduced": a variant of each
filter that tests the explanation of its wrong removals, on both halves of the labels, and the
cosines of the labelled question pairs. The reproduction's ``explain`` cell runs it and
``claims.py`` declares what it answers.

These variants are *not* the pipeline's filters: they were written after the held-out half
was scored, so adopting them would turn it into a second dev half.
"""

from __future__ import annotations

import re

import numpy as np

from icml25.common.text import embed
from icml25.skvqa.filters import normalise, refers_to_image
from icml25.skvqa.labelled import DUPLICATE_PAIRS, EXAMPLES

_SCENE = re.compile(r"\bthe \w+ (on|at|in) the \w+")
_SUFFIXES = ("ation", "ated", "ing", "ed", "es", "s")


def _stem(word: str) -> str:
    """Crude suffix stripping, enough to meet "automation" and "automated"."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def answer_in_context_stemmed(answer: str, context: str) -> bool:
    a = " ".join(_stem(w) for w in normalise(answer).split())
    c = " ".join(_stem(w) for w in normalise(context).split())
    return bool(a) and f" {a} " in f" {c} "


def refers_to_image_or_scene(question: str) -> bool:
    """The word list, or "the <noun> on/at/in the <noun>" (a place in the scene)."""
    return refers_to_image(question) or bool(_SCENE.search(question.lower()))


def explain(split: str) -> dict[str, np.ndarray]:
    """On one half of the labels: (removed, defective) of the two variants, as
    ``<variant>_removed`` / ``<variant>_defective`` int arrays, and the cosines of the labelled
    duplicate (``cosine_same``) and different (``cosine_different``) question pairs."""
    ex = [e for e in EXAMPLES if e.split == split]
    pairs = [p for p in DUPLICATE_PAIRS if p[3] == split]
    cosine = (embed([p[0] for p in pairs]) * embed([p[1] for p in pairs])).sum(axis=1)  # (P,)
    same = np.array([p[2] for p in pairs])
    variants = {
        "answer_stemmed": (
            [not answer_in_context_stemmed(e.answer, e.context) for e in ex],
            [not e.answer_in_context for e in ex],
        ),
        "image_or_scene": (
            [not refers_to_image_or_scene(e.question) for e in ex],
            [not e.needs_image for e in ex],
        ),
    }
    out = {
        f"{name}_{k}": np.asarray(v, dtype=np.int64)
        for name, pair in variants.items()
        for k, v in zip(("removed", "defective"), pair, strict=True)
    }
    return out | {"cosine_same": cosine[same], "cosine_different": cosine[~same]}
