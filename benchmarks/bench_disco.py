"""disco: the bootstrap of the detection AUC, vectorised, against a loop of sklearn calls.

The paper reports AUCs from resamples of the films (with replacement). The anchor is what a
user would write: for each resample, index the scores and call
``sklearn.metrics.roc_auc_score``. Ours (``icml25.disco.bootstrap_auc``) ranks the films of a
chunk of resamples at once (``scipy.stats.rankdata`` along the last axis; AUC from the rank sum
of the suspect films), for K score rows sharing the draws. Both use the same draws, so the AUCs
must be equal. A last line times the scoring of the whole release
(56,000 answers: matching, film scores and AUCs for 4 models x 2 frame types x image/caption).

    python benchmarks/bench_disco.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.disco import (  # noqa: E402
    bootstrap_auc,
    detection_auc,
    film_scores,
    frame_hits,
    load_release,
)

SIZES = [(100, 1, 500), (100, 4, 1000), (400, 4, 300)]  # (films F, score rows K, resamples B)


def anchor(scores, labels, n_resamples, rng):
    """One resample at a time with sklearn, the same draws as ``bootstrap_auc``. -> (B, K)."""
    pos, neg = scores[:, labels == 1], scores[:, labels == 0]
    i_pos = rng.integers(0, pos.shape[1], size=(n_resamples, pos.shape[1]))
    i_neg = rng.integers(0, neg.shape[1], size=(n_resamples, neg.shape[1]))
    y = np.r_[np.ones(pos.shape[1]), np.zeros(neg.shape[1])]
    out = np.empty((n_resamples, len(scores)))
    for b in range(n_resamples):
        for k in range(len(scores)):
            out[b, k] = roc_auc_score(y, np.r_[pos[k, i_pos[b]], neg[k, i_neg[b]]])
    return out


def score_release():
    release = load_release()
    labels = release.labels()
    aucs = []
    for model in release.models:
        for frame_type in ("main", "neutral"):
            rows = release.rows(model, frame_type)
            films = release.movie_index[rows]
            for answers in (release.image_answer[rows], release.caption_answer[rows]):
                hits = frame_hits(answers, films, release.accepted)
                aucs.append(detection_auc(film_scores(hits, films, len(release.movies)), labels))
    return aucs


def main() -> None:
    rows = []
    for F, K, B in SIZES:
        data = np.random.default_rng(0)
        labels = np.repeat([0, 1], F // 2)
        scores = np.round(data.random((K, F)) + 0.3 * labels, 2)  # (K, F), with ties
        t_anchor, _, a = measure(
            lambda s=scores, y=labels, n=B: anchor(s, y, n, np.random.default_rng(1)), repeat=1
        )
        t_ours, m_ours, o = measure(
            lambda s=scores, y=labels, n=B: bootstrap_auc(s, y, n, np.random.default_rng(1)),
            repeat=3,
        )
        rows.append(
            [F, K, B, t_anchor, t_ours, t_anchor / t_ours, m_ours, float(np.abs(a - o).max())]
        )
    print(
        table(
            [
                "films",
                "rows",
                "resamples",
                "sklearn loop s",
                "ours s",
                "speed-up",
                "ours peak MB",
                "max abs diff",
            ],
            rows,
        )
    )
    load_release()  # read once, as the reproduction does
    begin = time.perf_counter()
    score_release()
    print(
        f"\nscoring the whole release (16 AUCs from 56,000 answers): "
        f"{time.perf_counter() - begin:.2f} s, 1 thread"
    )


if __name__ == "__main__":
    main()
