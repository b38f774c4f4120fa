"""The task families' solvers and metrics against direct computations, and bad input."""

import numpy as np
import pytest

from icml25.collabllm import (
    FAMILIES,
    N_SLOTS,
    Task,
    artefact,
    draw_task,
    draw_tasks,
    is_success,
    task_score,
)
from icml25.collabllm.tasks import compiled


def test_number_family_computes_the_statistic_it_names():
    data = (4.0, 1.0, 10.0, 2.5, 7.0)
    task = Task(0, data, (0, 0, 0), (True,) * 3)
    assert artefact(task, (0, 0, 0)) == round(np.mean(data), 2)
    assert artefact(task, (1, 1, 1)) == round(float(np.median([1.0, 2.5, 4.0, 7.0])))
    assert artefact(task, (2, 2, 2)) == round((2.5 + 10.0) / 2, 1)


def test_ranking_family_sorts_by_key_order_and_cut():
    task = Task(1, ("pear", "fig", "banana", "kiwi"), (0, 0, 0), (True,) * 3)
    assert artefact(task, (0, 0, 0)) == ("banana", "fig", "kiwi", "pear")
    assert artefact(task, (1, 1, 2)) == ("banana", "pear", "kiwi")  # longest first, top 3
    assert artefact(task, (2, 0, 0))[0] == "fig"  # fewest vowels (1; ties alphabetical)


def test_code_family_source_runs_and_behaves_as_chosen():
    fn = compiled(artefact(Task(2, (), (0, 0, 0), (True,) * 3), (2, 1, 1)))
    assert fn([3, -3, 1, -2]) == [1, 2, 3]  # absolute values, deduplicated, sorted
    fn = compiled(artefact(Task(2, (), (0, 0, 0), (True,) * 3), (1, 0, 2)))
    assert fn([3, -3, 1, 1]) == [1, 1, 3]  # negatives dropped, duplicates kept, reversed


def test_task_metric_is_one_for_the_intent_and_lower_for_other_choices():
    rng = np.random.default_rng(0)
    for family in range(len(FAMILIES)):
        task = draw_task(family, 3, rng)
        assert task_score(task, artefact(task, task.intent)) == 1.0
        assert is_success(task, artefact(task, task.intent))
        scores = [
            task_score(task, artefact(task, c))
            for c in np.ndindex(*(len(s.options) for s in task.spec.slots))
        ]
        assert min(scores) < 1.0 and all(0.0 <= s <= 1.0 for s in scores)


def test_ranking_metric_gives_partial_credit():
    task = Task(1, ("pear", "fig", "banana", "kiwi"), (0, 0, 0), (True,) * 3)
    reversed_list = artefact(task, (0, 1, 0))
    assert 0.0 < task_score(task, reversed_list) < 1.0  # same words, no adjacent pair kept
    assert task_score(task, reversed_list) == pytest.approx(0.5)


def test_draw_task_states_all_but_ambiguity_slots():
    rng = np.random.default_rng(1)
    tasks = draw_tasks(5, range(N_SLOTS + 1), rng)
    assert len(tasks) == 5 * (N_SLOTS + 1) * len(FAMILIES)
    for t in tasks:
        assert t.stated.count(False) == t.ambiguity
        stated = [t.spec.slots[j].options[t.intent[j]] for j in range(N_SLOTS) if t.stated[j]]
        assert all(words in t.opening() for words in stated)


def test_bad_arguments_raise_value_errors_naming_them():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="ambiguity"):
        draw_task(0, 4, rng)
    with pytest.raises(ValueError, match="family"):
        draw_task(3, 0, rng)
    with pytest.raises(ValueError, match="family"):
        draw_task(True, 0, rng)
