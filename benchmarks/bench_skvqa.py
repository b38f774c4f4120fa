"""skvqa: near-duplicate questions by MiniLM embeddings against what a user would use instead.

Anchors: exact match after normalisation (what most pipelines do), and TF-IDF character
3-5-grams with cosine >= 0.8 (scikit-learn), the usual cheap near-duplicate detector. Each is
scored on all 16 hand-labelled question pairs (precision and recall of "same question"), and
timed on grouping 2,000 scripted questions (all pairs), one thread, best of 3, with MiniLM
already loaded; peak traced memory (Python allocations: torch's own buffers are not counted).

    python benchmarks/bench_skvqa.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.common.optional import load_minilm  # noqa: E402
from icml25.skvqa.filters import duplicate_groups, normalise, same_question  # noqa: E402
from icml25.skvqa.labelled import DUPLICATE_PAIRS  # noqa: E402
from icml25.skvqa.scripted import generate  # noqa: E402


def exact_pairs(a, b):
    return np.array([normalise(x) == normalise(y) for x, y in zip(a, b, strict=True)])


def tfidf_pairs(a, b, threshold=0.8):
    vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5)).fit(list(a) + list(b))
    x, y = vec.transform(a), vec.transform(b)
    return np.asarray(x.multiply(y).sum(axis=1)).ravel() >= threshold


def exact_groups(questions):
    first = {}
    return np.array([first.setdefault(normalise(q), i) for i, q in enumerate(questions)])


def tfidf_groups(questions, threshold=0.8):
    from scipy.sparse.csgraph import connected_components

    x = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5)).fit_transform(questions)
    _, labels = connected_components((x @ x.T) >= threshold, directed=False)
    first = {}
    return np.array([first.setdefault(lab, i) for i, lab in enumerate(labels)])


def main() -> None:
    torch.set_num_threads(1)
    load_minilm()
    a, b = [p[0] for p in DUPLICATE_PAIRS], [p[1] for p in DUPLICATE_PAIRS]
    truth = np.array([p[2] for p in DUPLICATE_PAIRS])
    questions = [it.question for it in generate(2000, np.random.default_rng(0))]
    rows = []
    for name, pairs, groups in (
        ("exact after normalisation", exact_pairs, exact_groups),
        ("TF-IDF char 3-5-grams, cos >= 0.8", tfidf_pairs, tfidf_groups),
        ("MiniLM, cos >= 0.85 (ours)", same_question, duplicate_groups),
    ):
        flagged = np.asarray(pairs(a, b))
        hits = (flagged & truth).sum()
        seconds, peak, g = measure(lambda groups=groups: groups(questions))
        rows.append(
            [
                name,
                hits / max(flagged.sum(), 1),
                hits / truth.sum(),
                seconds,
                peak,
                len(set(g.tolist())),
            ]
        )
    print(
        table(
            ["method", "precision (16 pairs)", "recall", "2,000 questions s", "peak MB", "groups"],
            rows,
        )
    )


if __name__ == "__main__":
    main()
