"""The framework, the suite and the labelled replies: the data the evaluation rests on."""

import pytest

from icml25.political_neutrality.framework import JUDGE_LABELS, LEVELS, TECHNIQUES
from icml25.political_neutrality.replies import (
    FRAMES_TEST,
    FRAMES_TRAIN,
    TOPICS_TEST,
    TOPICS_TRAIN,
    labelled_replies,
)
from icml25.political_neutrality.suite import build_suite, families


def test_eight_techniques_at_three_levels():
    assert len(TECHNIQUES) == 8
    by_level = {lev: [t.name for t in TECHNIQUES if t.level == lev] for lev in LEVELS}
    assert [len(by_level[lev]) for lev in LEVELS] == [4, 3, 1]
    assert set(by_level["output"]) < set(JUDGE_LABELS)


def test_the_suite_expects_valid_labels_and_has_no_duplicates():
    suite = build_suite()
    assert {p.expected for p in suite} <= set(JUDGE_LABELS) - {"bias"}
    assert {p.family for p in suite} == set(families())
    assert len({p.text for p in suite}) == len(suite)
    assert all(p.expected == families()[p.family] for p in suite)


def test_held_out_replies_share_no_frame_topic_or_text_with_training():
    assert not {t.subject for t in TOPICS_TRAIN} & {t.subject for t in TOPICS_TEST}
    for label in JUDGE_LABELS:
        assert not set(FRAMES_TRAIN[label]) & set(FRAMES_TEST[label])
    replies = labelled_replies()
    train = {r.text for r in replies if r.split == "train"}
    test = {r.text for r in replies if r.split == "test"}
    assert not train & test
    for split in ("train", "test"):
        assert {r.label for r in replies if r.split == split} == set(JUDGE_LABELS)


def test_every_frame_is_filled_and_fewer_topics_give_fewer_replies():
    replies = labelled_replies()
    assert not any("{" in r.text or "}" in r.text for r in replies)
    assert len(labelled_replies(2)) < len(replies)
    for bad in (0, 9, 2.0, True):
        with pytest.raises(ValueError, match="topics_per_half"):
            labelled_replies(bad)
