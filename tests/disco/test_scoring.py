"""Film scores, the floor variant and the detection AUC against hand computations."""

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from icml25.disco.scoring import (
    bootstrap_auc,
    detection_auc,
    film_scores,
    floor_hits,
    frame_hits,
)

ACCEPTED = (("Frozen",), ("Twisters",))


def test_frame_hits_and_film_scores_by_hand():
    answers = np.array(["Frozen", "frozen", "Tangled", "Twister", "Twisters", ""], dtype=object)
    films = np.array([0, 0, 0, 1, 1, 1])
    hits = frame_hits(answers, films, ACCEPTED)
    assert hits.tolist() == [True, True, False, False, True, False]
    np.testing.assert_allclose(film_scores(hits, films, 3)[:2], [2 / 3, 1 / 3])
    assert np.isnan(film_scores(hits, films, 3)[2])  # a film with no frames has no score


def test_floor_keeps_the_frames_in_the_denominator_and_only_lowers_scores():
    image = np.array([True, True, False, True])
    caption = np.array([True, False, True, False])
    floor = floor_hits(image, caption)
    assert floor.tolist() == [False, True, False, True]
    films = np.zeros(4, dtype=int)
    assert film_scores(floor, films, 1)[0] == 0.5 <= film_scores(image, films, 1)[0]


def test_official_floor_rule_compares_the_two_answers():
    image = np.array([True, True, False])
    caption = np.array([True, False, False])
    answers_image = np.array(["Star Wars", "Frozen", "Up"], dtype=object)
    answers_caption = np.array(["Star Wars: A New Hope", "Frozen", "Up"], dtype=object)
    # ours drops frame 0 (the caption names the film too); the official rule drops frame 1
    # (same answer) but not frame 0 (another spelling of the same film)
    assert floor_hits(image, caption).tolist() == [False, True, False]
    official = floor_hits(image, caption, answers_image, answers_caption, rule="same_answer")
    assert official.tolist() == [True, False, False]
    with pytest.raises(ValueError, match="rule"):
        floor_hits(image, caption, rule="nope")
    with pytest.raises(ValueError, match="needs"):
        floor_hits(image, caption, rule="same_answer")


def test_auc_is_the_mann_whitney_statistic_with_half_ties():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 5, size=40) / 4  # many ties
    labels = np.repeat([0, 1], 20)
    pos, neg = scores[labels == 1], scores[labels == 0]
    pairs = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    assert detection_auc(scores, labels) == pytest.approx(pairs.mean())
    assert detection_auc(scores, labels) == pytest.approx(roc_auc_score(labels, scores))
    assert detection_auc(np.array([0.1, 0.9]), np.array([0, 1])) == 1.0
    assert detection_auc(np.array([0.9, 0.1]), np.array([0, 1])) == 0.0


def test_bootstrap_resamples_within_classes_and_pairs_rows():
    rng = np.random.default_rng(1)
    labels = np.repeat([0, 1], 10)
    scores = np.concatenate([rng.random(10), rng.random(10) + 0.3])
    boot = bootstrap_auc(np.stack([scores, scores, -scores]), labels, 300, rng, chunk=64)
    assert boot.shape == (300, 3)
    np.testing.assert_array_equal(boot[:, 0], boot[:, 1])  # same draws for every row
    np.testing.assert_allclose(boot[:, 2], 1 - boot[:, 0])
    assert ((boot >= 0) & (boot <= 1)).all()
    assert abs(boot[:, 0].mean() - detection_auc(scores, labels)) < 0.05
    one = bootstrap_auc(scores, labels, 5, np.random.default_rng(2))
    assert one.shape == (5,)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="labels"):
        detection_auc(np.array([0.1, 0.2]), np.array([1, 1]))
    with pytest.raises(ValueError, match="scores"):
        detection_auc(np.array([0.1, np.nan]), np.array([0, 1]))
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_auc(np.array([0.1, 0.2]), np.array([0, 1]), 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="movie_index"):
        frame_hits(np.array(["Frozen"], dtype=object), np.array([5]), ACCEPTED)
    with pytest.raises(ValueError, match="n_films"):
        film_scores(np.array([True]), np.array([0]), 0)
