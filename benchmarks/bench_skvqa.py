"""skvqa: the near-duplicate question filter against the libraries a researcher would use.

No official code is released (IntelLabs/multimodal_cognitive_ai, ``SK-VQA/README.md`` at
commit d1f2acc says "Coming soon"), so the anchors are libraries, on the same questions:

- sentence-transformers' own near-duplicate search, ``util.paraphrase_mining`` (the same
  all-MiniLM-L6-v2 model, its default top-100 neighbours per question), pairs with cosine
  >= 0.85 joined transitively (scipy's connected components), as ours joins them; the two must
  find the same groups. Ours embeds once and thresholds the full cosine matrix; it also joins
  questions equal after normalisation;
- sentence-transformers' ``util.community_detection`` (threshold 0.85, communities of any
  size), its clustering for the same task: not transitive (a question joins the community of a
  centre it is close to), so its groups may differ;
- scikit-learn's TF-IDF character 3-5-grams with cosine >= 0.8, the usual cheap detector, and
  exact match after normalisation (what most pipelines do).

Each is timed grouping 2,000 scripted questions (one thread, MiniLM loaded, interleaved, best
of 3) and scored on the 16 hand-labelled question pairs (precision and recall of "same
question"). Result ratio: groups found by ours / by the anchor, and the adjusted Rand index of
the two partitions.

    python benchmarks/bench_skvqa.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import sentence_transformers  # noqa: E402
import sklearn  # noqa: E402
import torch  # noqa: E402
from scipy.sparse import csr_matrix  # noqa: E402
from scipy.sparse.csgraph import connected_components  # noqa: E402
from sentence_transformers import util  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.common.optional import load_minilm  # noqa: E402
from icml25.skvqa.filters import DEDUP_THRESHOLD, duplicate_groups, normalise  # noqa: E402
from icml25.skvqa.labelled import DUPLICATE_PAIRS  # noqa: E402
from icml25.skvqa.scripted import generate  # noqa: E402


def first_of(labels) -> np.ndarray:
    """Group labels as the index of each group's first member, as ``duplicate_groups``."""
    first = {}
    return np.array([first.setdefault(lab, i) for i, lab in enumerate(labels)])


def mining_groups(questions, threshold=DEDUP_THRESHOLD):
    """sentence-transformers' paraphrase mining, pairs >= threshold joined transitively."""
    pairs = util.paraphrase_mining(load_minilm(), list(questions), show_progress_bar=False)
    kept = np.array([(i, j) for s, i, j in pairs if s >= threshold], dtype=int).reshape(-1, 2)
    n = len(questions)
    graph = csr_matrix((np.ones(len(kept)), (kept[:, 0], kept[:, 1])), shape=(n, n))
    return first_of(connected_components(graph, directed=False)[1])


def community_groups(questions, threshold=DEDUP_THRESHOLD):
    """sentence-transformers' community detection (communities of any size)."""
    e = load_minilm().encode(list(questions), normalize_embeddings=True, convert_to_tensor=True)
    labels = np.empty(len(questions), dtype=int)
    for c, members in enumerate(util.community_detection(e, threshold, min_community_size=1)):
        labels[members] = c
    return first_of(labels)


def tfidf_groups(questions, threshold=0.8):
    x = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5)).fit_transform(questions)
    return first_of(connected_components((x @ x.T) >= threshold, directed=False)[1])


def exact_groups(questions):
    first = {}
    return np.array([first.setdefault(normalise(q), i) for i, q in enumerate(questions)])


def pair_scores(grouping) -> tuple[float, float]:
    """Precision and recall of "same question" on the labelled pairs: a pair is flagged when
    the grouping puts its two questions in one group (grouped alone, as a two-question set)."""
    truth = np.array([p[2] for p in DUPLICATE_PAIRS])
    flagged = np.array([len(set(grouping([a, b]).tolist())) == 1 for a, b, *_ in DUPLICATE_PAIRS])
    hits = (flagged & truth).sum()
    return hits / max(flagged.sum(), 1), hits / truth.sum()


def main() -> None:
    torch.set_num_threads(1)
    load_minilm()
    questions = [it.question for it in generate(2000, np.random.default_rng(0))]
    anchors = {
        "sentence-transformers paraphrase_mining, cos >= 0.85, transitive": mining_groups,
        "sentence-transformers community_detection, cos >= 0.85": community_groups,
        "scikit-learn TF-IDF char 3-5-grams, cos >= 0.8, transitive": tfidf_groups,
        "exact after normalisation": exact_groups,
    }
    best = {name: float("inf") for name in [*anchors, "ours"]}
    result = {}
    for _ in range(3):  # interleaved, best of 3
        for name, fn in [("ours", duplicate_groups), *anchors.items()]:
            begin = time.perf_counter()
            result[name] = fn(questions)
            best[name] = min(best[name], time.perf_counter() - begin)
    p_ours, r_ours = pair_scores(duplicate_groups)
    n_ours = len(set(result["ours"].tolist()))
    rows = []
    for name, fn in anchors.items():
        p, r = pair_scores(fn)
        n = len(set(result[name].tolist()))
        rows.append(
            [
                name,
                best["ours"],
                best[name],
                best[name] / best["ours"],
                n_ours,
                n,
                n_ours / n,
                adjusted_rand_score(result[name], result["ours"]),
                f"{p_ours:.2f} / {r_ours:.2f}",
                f"{p:.2f} / {r:.2f}",
            ]
        )
    print(
        f"2,000 scripted questions; ours: MiniLM, cos >= {DEDUP_THRESHOLD} or equal after "
        f"normalisation, transitive; sentence-transformers {sentence_transformers.__version__}, "
        f"scikit-learn {sklearn.__version__}; 1 thread\n"
    )
    header = [
        "anchor",
        "ours s",
        "anchor s",
        "time ratio anchor/ours",
        "groups ours",
        "groups anchor",
        "groups ratio ours/anchor",
        "adjusted Rand index",
        "ours P / R (16 pairs)",
        "anchor P / R",
    ]
    print(table(header, rows))


if __name__ == "__main__":
    main()
