"""The multiturn-aware reward, the single-turn reward and the preference pairs."""

import numpy as np
import pytest

from icml25.collabllm import (
    ANSWER,
    BasePolicy,
    Conversation,
    OraclePolicy,
    ProgrammaticUser,
    Task,
    build_preference_pairs,
    conversation_reward,
    draw_tasks,
    exact_multiturn_aware_reward,
    interactivity,
    multiturn_aware_reward,
    simulate,
    single_turn_reward,
    step,
)

USER, BASE = ProgrammaticUser(), BasePolicy()
# ranking request, key and cut unstated; the user wants "by length", which is not the guess
TASK = Task(1, ("pear", "fig", "banana", "kiwi", "plum", "lime"), (1, 0, 0), (False, True, False))


def test_window_zero_is_the_single_turn_reward():
    rng = np.random.default_rng(0)
    for task in draw_tasks(3, range(4), np.random.default_rng(1)):
        for a in range(4):
            conv = Conversation.open(task)
            mr = multiturn_aware_reward(conv, a, BASE, USER, max_new_turns=0, rng=rng)
            assert mr == single_turn_reward(conv, a, USER)


def test_a_question_earns_no_task_credit_in_the_single_turn_reward():
    conv = Conversation.open(TASK)
    fam = TASK.spec
    st_ask = single_turn_reward(conv, 0, USER)
    asked = step(conv.copy(), 0, USER)
    assert st_ask == pytest.approx(fam.weight_tokens * asked.tokens / 1000)
    assert single_turn_reward(conv, ANSWER, USER) > st_ask  # partial credit of a wrong list


def test_mr_credits_the_question_with_the_answer_it_makes_possible():
    rng = np.random.default_rng(0)
    conv = Conversation.open(TASK)
    # the oracle as rollout assistant: after "key?", it asks "cut?" then answers correctly
    mr_ask = multiturn_aware_reward(conv, 0, OraclePolicy(), USER, max_new_turns=4, rng=rng)
    finished = simulate(step(conv.copy(), 0, USER), OraclePolicy(), USER, 2, rng)
    assert finished.answer is not None and mr_ask == conversation_reward(finished)
    assert mr_ask > multiturn_aware_reward(conv, ANSWER, OraclePolicy(), USER, rng=rng)
    # with a user who never says what it wants, the question buys nothing
    silent = ProgrammaticUser(informative=False)
    mr_silent = multiturn_aware_reward(conv, 0, OraclePolicy(), silent, rng=rng)
    assert mr_silent < multiturn_aware_reward(conv, ANSWER, OraclePolicy(), silent, rng=rng)


def test_mr_is_the_mean_over_continuations():
    conv = Conversation.open(TASK)
    mr = multiturn_aware_reward(conv, 0, BASE, USER, num_samples=4, rng=np.random.default_rng(5))
    rng = np.random.default_rng(5)
    first = step(conv.copy(), 0, USER)
    by_hand = [conversation_reward(simulate(first.copy(), BASE, USER, 2, rng)) for _ in range(4)]
    assert mr == pytest.approx(np.mean(by_hand))


def test_interactivity_rubric():
    conv = Conversation.open(TASK)  # two unstated slots
    assert interactivity(conv) == 0.0
    step(conv, 0, USER)
    assert interactivity(conv) == 0.5
    step(conv, 0, USER)  # asked again: irrelevant
    assert interactivity(conv) == 0.0
    clear = Conversation.open(Task(1, TASK.data, (1, 0, 0), (True,) * 3))
    assert interactivity(clear) == 1.0
    assert interactivity(step(clear, 1, USER)) == 0.0


def test_preference_pairs_have_chosen_above_rejected_by_the_gap():
    tasks = draw_tasks(4, range(4), np.random.default_rng(2))
    pairs = build_preference_pairs(
        tasks, BASE, BASE, USER, window=4, minimum_gap=0.05, rng=np.random.default_rng(3)
    )
    assert len(pairs) > 0
    assert (pairs.gap >= 0.05).all()
    assert (pairs.chosen != pairs.rejected).all()
    assert set(pairs.mask.tolist()) <= set(range(8))


def test_bad_arguments_raise_value_errors_naming_them():
    conv, rng = Conversation.open(TASK), np.random.default_rng(0)
    with pytest.raises(ValueError, match="num_samples"):
        multiturn_aware_reward(conv, 0, BASE, USER, num_samples=0, rng=rng)
    with pytest.raises(ValueError, match="max_new_turns"):
        multiturn_aware_reward(conv, 0, BASE, USER, max_new_turns=-1, rng=rng)
    with pytest.raises(ValueError, match="minimum_gap"):
        build_preference_pairs([TASK], BASE, BASE, USER, window=4, minimum_gap=-1, rng=rng)
    with pytest.raises(ValueError, match="num_candidates"):
        build_preference_pairs([TASK], BASE, BASE, USER, window=4, num_candidates=1, rng=rng)


def test_sampled_mr_converges_to_the_exact_expectation():
    conv, rng = Conversation.open(TASK), np.random.default_rng(7)
    for action in (0, 2, ANSWER):
        exact = exact_multiturn_aware_reward(conv, action, BASE, USER, max_new_turns=4)
        sampled = [
            multiturn_aware_reward(conv, action, BASE, USER, num_samples=1, rng=rng)
            for _ in range(3000)
        ]
        se = np.std(sampled) / np.sqrt(len(sampled)) + 1e-12
        assert abs(np.mean(sampled) - exact) < 4 * se + 1e-12
    assert exact_multiturn_aware_reward(conv, 0, BASE, USER, max_new_turns=0) == (
        single_turn_reward(conv, 0, USER)
    )
