"""political_neutrality: the proxy judge against the text classifier a user would try first.

The anchor is TF-IDF (word 1-2-grams) with the same logistic regression, scikit-learn's
standard text classifier; a majority-class rule is the floor. All three are trained on the
training half of the labelled replies and scored on the held-out half (other frames, other
topics). Time is fit + predict, one thread, best of 3, with the MiniLM model already loaded
(loading it takes a few seconds once per process); peak traced memory (Python allocations:
it undercounts torch's own buffers).

    python benchmarks/bench_political_neutrality.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import f1_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.common.optional import load_minilm  # noqa: E402
from icml25.political_neutrality.judge import ProxyJudge  # noqa: E402
from icml25.political_neutrality.replies import labelled_replies  # noqa: E402


def main() -> None:
    torch.set_num_threads(1)
    load_minilm()
    replies = labelled_replies()
    train = [r for r in replies if r.split == "train"]
    test = [r for r in replies if r.split == "test"]
    x_train, y_train = [r.text for r in train], [r.label for r in train]
    x_test, y_test = [r.text for r in test], [r.label for r in test]
    majority = max(set(y_train), key=y_train.count)

    def ours():
        return ProxyJudge().fit(x_train, y_train).predict(x_test)

    def tfidf():
        model = make_pipeline(
            TfidfVectorizer(ngram_range=(1, 2)), LogisticRegression(C=10.0, max_iter=2000)
        )
        return list(model.fit(x_train, y_train).predict(x_test))

    rows = []
    for name, fn in (
        ("MiniLM + logistic regression (ours)", ours),
        ("TF-IDF + logistic regression", tfidf),
    ):
        seconds, peak, guess = measure(fn)
        rows.append([name, f1_score(y_test, guess, average="macro"), seconds, peak])
    rows.append(
        ["majority class", f1_score(y_test, [majority] * len(y_test), average="macro"), 0.0, 0.0]
    )
    print(f"{len(train)} training and {len(test)} held-out replies, 1 thread\n")
    print(table(["judge", "held-out macro-F1", "fit + predict s", "peak MB"], rows))


if __name__ == "__main__":
    main()
