"""The base and oracle policies, DPO on tabular policies, and the evaluation loop."""

import numpy as np
import pytest

from icml25.collabllm import (
    ANSWER,
    BasePolicy,
    OraclePolicy,
    PreferencePairs,
    ProgrammaticUser,
    dpo_train,
    draw_tasks,
    evaluate,
)

TASKS = draw_tasks(10, range(4), np.random.default_rng(0))


def test_base_policy_is_a_distribution_that_mostly_answers():
    base = BasePolicy(answer_prob=0.8, redundant=0.02)
    np.testing.assert_allclose(base.table.sum(-1), 1.0)
    assert (base.table[..., ANSWER] > 0.7).all()
    # with every slot known, questions are only the redundant ones
    np.testing.assert_allclose(base.table[:, 7, :ANSWER], 0.02 / (0.8 + 3 * 0.02))


def test_oracle_succeeds_with_exactly_the_needed_questions():
    ev = evaluate(OraclePolicy(), TASKS, ProgrammaticUser(), rng=np.random.default_rng(0))
    assert ev["success"].all()
    np.testing.assert_array_equal(ev["questions"], ev["ambiguity"])
    np.testing.assert_array_equal(ev["turns"], ev["ambiguity"] + 1)
    np.testing.assert_array_equal(ev["asked_first"], ev["ambiguity"] > 0)


def _pairs(rows):
    cols = np.array(rows).T
    return PreferencePairs(cols[0], cols[1], cols[2], cols[3], np.ones(len(rows)))


def test_dpo_moves_probability_to_the_chosen_action_only_where_there_are_pairs():
    base = BasePolicy()
    # family 0, nothing known: "ask slot 1" preferred to answering, 9 times out of 10
    pairs = _pairs([(0, 0, 1, ANSWER)] * 9 + [(0, 0, ANSWER, 1)])
    result = dpo_train(pairs, base, lr=0.1, max_steps=5000, tol=1e-7)
    p = result.policy.table
    assert p[0, 0, 1] > 0.9 > base.table[0, 0, 1]
    np.testing.assert_allclose(p[1:], base.table[1:])  # untouched states stay at the reference
    assert result.converged and result.losses[-1] < result.losses[0]
    # the Bradley-Terry optimum: beta * (log-ratio margin) = logit(0.9)
    margin = np.log(p[0, 0, 1] / p[0, 0, ANSWER]) - np.log(
        base.table[0, 0, 1] / base.table[0, 0, ANSWER]
    )
    assert 0.1 * margin == pytest.approx(np.log(9), rel=0.01)


def test_dpo_without_pairs_returns_the_reference():
    base = BasePolicy()
    result = dpo_train(_empty(), base)
    np.testing.assert_allclose(result.policy.table, base.table)


def _empty():
    z = np.zeros(0, dtype=int)
    return PreferencePairs(z, z, z, z, np.zeros(0))


def test_evaluation_is_seeded_and_shaped():
    a = evaluate(BasePolicy(), TASKS, ProgrammaticUser(), rng=np.random.default_rng(3))
    b = evaluate(BasePolicy(), TASKS, ProgrammaticUser(), rng=np.random.default_rng(3))
    assert a.pop("errors") == b.pop("errors") == []
    for key in a:
        assert a[key].shape == (len(TASKS),)
        np.testing.assert_array_equal(a[key], b[key])
    assert not a["model_error"].any()


def test_bad_arguments_raise_value_errors_naming_them():
    with pytest.raises(ValueError, match="answer_prob"):
        BasePolicy(answer_prob=0.0)
    with pytest.raises(ValueError, match="beta"):
        dpo_train(_empty(), BasePolicy(), beta=0.0)
    with pytest.raises(ValueError, match="max_turns"):
        evaluate(
            OraclePolicy(), TASKS, ProgrammaticUser(), max_turns=0, rng=np.random.default_rng()
        )
