"""The filters, the statistics and the scripted generator: their arithmetic on small cases."""

import numpy as np
import pytest

from icml25.skvqa.filters import (
    answer_in_context,
    duplicate_groups,
    normalise,
    refers_to_image,
    same_question,
)
from icml25.skvqa.labelled import DUPLICATE_PAIRS, EXAMPLES
from icml25.skvqa.scripted import generate
from icml25.skvqa.stats import distinct_2, embedding_diversity, type_entropy, unique_share


def test_normalise_is_squad_style():
    assert normalise("The  Golden Gate, in 1937!") == "golden gate in 1937"


@pytest.mark.parametrize(
    "answer, found",
    [
        ("1937", True),
        ("the Pacific Ocean", True),
        ("193", False),
        ("orange colour", False),
        ("", False),
    ],
)
def test_answer_in_context_matches_whole_words(answer, found):
    context = "It opened in 1937 by the Pacific Ocean; its colour is international orange."
    assert answer_in_context(answer, context) is found


@pytest.mark.parametrize(
    "question, refers",
    [
        ("When was this bridge built?", True),
        ("What do the animals shown eat?", True),
        ("Who is the person in the photo?", True),
        ("When was the Golden Gate Bridge built?", False),
        ("What is the capital of France?", False),
    ],
)
def test_refers_to_image(question, refers):
    assert refers_to_image(question) is refers


def test_duplicates_are_grouped_transitively_and_first_is_kept():
    questions = [
        "When did this bridge open?",
        "What eats bamboo?",
        "when did this bridge open",
        "When did this bridge open?!",
    ]
    groups = duplicate_groups(questions)
    assert groups[0] == groups[2] == groups[3] == 0 and groups[1] == 1
    assert same_question(["a b c"], ["A, b c."]).tolist() == [True]
    with pytest.raises(ValueError, match="same length"):
        same_question(["a"], [])


def test_statistics_on_small_sets():
    assert unique_share(["A cat?", "a cat", "A dog?"]) == pytest.approx(2 / 3)
    assert type_entropy(["how many cats", "how many dogs", "what is it", "what is that"]) == 1.0
    assert type_entropy(["how many cats", "how many dogs"]) == 0.0
    assert distinct_2(["x y z", "x y w"]) == pytest.approx(3 / 4)  # xy, yz, xy, yw
    assert embedding_diversity(["Same question?", "Same question?"]) == pytest.approx(0, abs=1e-6)
    assert embedding_diversity(["What year did it open?", "Which fish live in rivers?"]) > 0.3
    with pytest.raises(ValueError, match="at least two"):
        unique_share(["one"])


def test_scripted_generator_is_seeded_and_injects_defects():
    a = generate(50, np.random.default_rng(3), defect_rate=0.5)
    b = generate(50, np.random.default_rng(3), defect_rate=0.5)
    assert a == b
    kinds = {it.defect for it in a}
    assert {"no_answer", "no_image_needed", "duplicate"} <= kinds
    for it in a:
        if it.defect == "":
            assert answer_in_context(it.answer, it.context) and refers_to_image(it.question)
        if it.defect == "no_answer":
            assert not answer_in_context(it.answer, it.context)
    with pytest.raises(ValueError, match="style"):
        generate(5, np.random.default_rng(0), style="fancy")
    with pytest.raises(ValueError, match="defect_rate"):
        generate(5, np.random.default_rng(0), defect_rate=2)


def test_labelled_halves_each_have_both_kinds_for_every_filter():
    for split in ("dev", "held_out"):
        ex = [e for e in EXAMPLES if e.split == split]
        pairs = [p for p in DUPLICATE_PAIRS if p[3] == split]
        assert {e.answer_in_context for e in ex} == {True, False}
        assert {e.needs_image for e in ex} == {True, False}
        assert {p[2] for p in pairs} == {True, False}


def test_the_explanation_variants_fix_the_wrong_removals_on_both_halves():
    from icml25.skvqa.explain import explain

    result = {split: explain(split) for split in ("dev", "held_out")}
    for split in ("dev", "held_out"):
        for name in ("answer_stemmed", "image_or_scene"):
            removed = result[split][f"{name}_removed"]
            assert (removed == result[split][f"{name}_defective"]).all(), (split, name)
    # no single cosine threshold separates both halves
    assert min(result["dev"]["cosine_same"]) < max(result["held_out"]["cosine_different"])
