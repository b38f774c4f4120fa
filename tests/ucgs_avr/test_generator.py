import json

import numpy as np
import pytest

from icml25.ucgs_avr import (
    analogy_satisfies,
    generate_analogies,
    generate_matrices,
    generate_odd_one_out,
    matrix_satisfies,
    panel_from_json,
    row_values,
    sample_rules,
    satisfies,
)
from icml25.ucgs_avr.rules import ALLOWED, rotate, sample_rule


def _from_json(puzzle: dict):
    data = json.loads(json.dumps(puzzle))  # what a user would store and read back
    panels = np.stack([panel_from_json(p) for p in data["panels"]])
    cands = np.stack([panel_from_json(p) for p in data["candidates"]])
    return data["rules"], panels, cands, data["answer"]


@pytest.mark.parametrize("style", ["iraven", "raven"])
def test_every_matrix_satisfies_its_rules_and_exactly_one_candidate_does(style):
    puzzles = generate_matrices(300, seed=1, style=style)
    for i in range(len(puzzles)):
        rules, context, cands, answer = _from_json(puzzles.describe(i))
        full = np.concatenate([np.repeat(context[None], 8, 0), cands[:, None]], 1)  # (8, 9, 4)
        ok = matrix_satisfies(rules, full)
        assert ok.sum() == 1 and ok[answer], (i, rules)


def test_every_rule_on_every_attribute_is_generated_and_checked():
    rng = np.random.default_rng(0)
    for attribute, rules in ALLOWED.items():
        for rule in rules:
            for _ in range(30):
                spec = sample_rule(attribute, rule, rng)
                assert satisfies(spec, row_values(spec, rng))


def test_checker_rejects_broken_rows():
    prog = {"attribute": "size", "rule": "progression", "step": 1}
    assert satisfies(prog, np.array([[1, 2, 3]] * 3))
    assert not satisfies(prog, np.array([[1, 2, 3], [1, 2, 3], [1, 2, 2]]))
    add = {"attribute": "number", "rule": "arithmetic", "op": "add"}
    assert satisfies(add, np.array([[1, 2, 3], [2, 2, 4], [1, 1, 2]]))
    assert not satisfies(add, np.array([[1, 2, 3], [2, 2, 4], [1, 1, 3]]))
    d3 = {"attribute": "type", "rule": "distribute_three", "shift": 1}
    assert satisfies(d3, np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]]))
    assert not satisfies(d3, np.array([[0, 1, 2], [0, 1, 2], [2, 0, 1]]))  # columns repeat
    pos = {"attribute": "position", "rule": "progression", "step": 1}
    row = [3, int(rotate(3, 1)), int(rotate(3, 2))]
    assert row == [3, 6, 12] and satisfies(pos, np.array([row] * 3))
    union = {"attribute": "position", "rule": "arithmetic", "op": "add"}
    assert satisfies(union, np.array([[1, 2, 3], [4, 8, 12], [1, 3, 3]]))


def test_iraven_candidates_balance_every_value():
    puzzles = generate_matrices(200, seed=2)
    for cands in puzzles.candidates:  # (8, 4)
        for col in range(4):
            _, counts = np.unique(cands[:, col], return_counts=True)
            assert set(counts) <= {4, 8}


def test_held_out_pair_is_excluded_and_forced():
    pair = ("colour", "progression")
    train = generate_matrices(200, seed=3, exclude=[pair])
    assert all(
        s["rule"] != "progression" for r in train.rules for s in r if s["attribute"] == "colour"
    )
    novel = generate_matrices(50, seed=4, force=pair)
    assert all(
        any(s["attribute"] == "colour" and s["rule"] == "progression" for s in r)
        for r in novel.rules
    )


def test_odd_one_out_breaks_exactly_at_its_odd_panel():
    puzzles = generate_odd_one_out(200, seed=5)
    assert len(set(puzzles.answer.tolist())) == 9  # every position is used
    for i in range(len(puzzles)):
        data = json.loads(json.dumps(puzzles.describe(i)))
        panels = np.stack([panel_from_json(p) for p in data["panels"]])
        assert not matrix_satisfies(data["rules"], panels)


def test_analogy_has_exactly_one_right_candidate():
    puzzles = generate_analogies(300, seed=6)
    for i in range(len(puzzles)):
        rules, abc, cands, answer = _from_json(puzzles.describe(i))
        quads = np.concatenate([np.repeat(abc[None], 8, 0), cands[:, None]], 1)  # (8, 4, 4)
        ok = analogy_satisfies(rules, quads)
        assert ok.sum() == 1 and ok[answer], (i, rules)


def test_same_seed_same_puzzles():
    a, b = generate_matrices(20, seed=7), generate_matrices(20, seed=7)
    assert np.array_equal(a.panels, b.panels) and a.rules == b.rules
    assert not np.array_equal(a.panels, generate_matrices(20, seed=8).panels)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: generate_matrices(0), "n must"),
        (lambda: generate_matrices(5, seed=-1), "seed must"),
        (lambda: generate_matrices(5, style="pgm"), "style must"),
        (lambda: generate_matrices(5, exclude=[("type", "arithmetic")]), "not an allowed"),
        (lambda: generate_odd_one_out(2.5), "n must"),
        (lambda: sample_rule("shape", "constant", np.random.default_rng(0)), "not allowed"),
        (lambda: satisfies({"attribute": "size", "rule": "constant"}, np.zeros((3, 2))), "shape"),
        (lambda: generate_matrices(3).describe(5), "i must"),
        (lambda: panel_from_json({"type": "star", "size": 1, "colour": 1, "cells": [0]}), "type"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_sample_rules_gives_one_rule_per_attribute():
    rules = sample_rules(np.random.default_rng(0))
    assert [s["attribute"] for s in rules][:3] == ["type", "size", "colour"]
    assert rules[3]["attribute"] in ("number", "position")
