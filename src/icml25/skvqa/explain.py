"""The experiments behind the README's "why the claims are not reproduced": each filter's
wrong removals on the held-out half, and a variant that tests the explanation on both halves.

These variants are *not* the pipeline's filters: they were written after the held-out half
was scored, so adopting them would turn it into a second dev half.

    python -m icml25.skvqa.explain
"""

from __future__ import annotations

import re

import numpy as np

from icml25.common.text import embed
from icml25.skvqa.filters import normalise, refers_to_image
from icml25.skvqa.labelled import DUPLICATE_PAIRS, EXAMPLES
from icml25.skvqa.summary import precision_recall

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


def _scored(removed, defective) -> tuple[float, float, int]:
    removed, defective = np.asarray(removed), np.asarray(defective)
    return (*precision_recall(removed, defective), int(removed.sum()))


def explain() -> dict[str, dict]:
    """Per half: (precision, recall, removals) of the two variants, and the cosines of the
    labelled duplicate and different question pairs."""
    out: dict[str, dict] = {}
    for split in ("dev", "held_out"):
        ex = [e for e in EXAMPLES if e.split == split]
        pairs = [p for p in DUPLICATE_PAIRS if p[3] == split]
        cosine = (embed([p[0] for p in pairs]) * embed([p[1] for p in pairs])).sum(axis=1)
        same = np.array([p[2] for p in pairs])
        out[split] = {
            "answer_stemmed": _scored(
                [not answer_in_context_stemmed(e.answer, e.context) for e in ex],
                [not e.answer_in_context for e in ex],
            ),
            "image_or_scene": _scored(
                [not refers_to_image_or_scene(e.question) for e in ex],
                [not e.needs_image for e in ex],
            ),
            "cosine_same": np.sort(cosine[same]).round(3).tolist(),
            "cosine_different": np.sort(cosine[~same]).round(3).tolist(),
        }
    return out


if __name__ == "__main__":
    for split, rows in explain().items():
        print(split)
        for name, value in rows.items():
            print(f"  {name}: {value}")
