"""Every generated puzzle has exactly one answer, over thousands of puzzles of each format.

What an answer is, per format: a matrix's or an analogy's candidate that completes it so every
rule holds (``matrix_satisfies`` / ``analogy_satisfies``); an odd-one-out's panel that can be
replaced by some panel so every rule holds again. The checks run vectorised over puzzles,
grouped by the rule of each attribute (each rule reads one column of a panel).
"""

import json

import numpy as np
import pytest

from icml25.ucgs_avr import (
    analogy_satisfies,
    generate_analogies,
    generate_matrices,
    generate_odd_one_out,
    matrix_satisfies,
    odd_one_out_answers,
)
from icml25.ucgs_avr.rules import COLUMN

N = 3000
# every value of each panel column: type, size, colour, the mask of occupied cells
COLUMN_VALUES = (np.arange(3), np.arange(1, 4), np.arange(1, 4), np.arange(1, 16))
EVERY_PANEL = np.array(
    [[t, s, c, m] for t in range(3) for s in (1, 2, 3) for c in (1, 2, 3) for m in range(1, 16)]
)


def _by_rule(rules: list[list[dict]]):
    """(spec, puzzle indices) for each distinct rule of each attribute slot."""
    for k in range(len(rules[0])):
        keys = np.array([json.dumps(r[k], sort_keys=True) for r in rules])
        for key in np.unique(keys):
            yield json.loads(key), np.flatnonzero(keys == key)


def _each_satisfies(check, rules, panels):
    """``check([spec], x)`` with one rule list per puzzle: ``(n, ...)`` panels -> ``(n, ...)``."""
    ok = np.ones(panels.shape[:-2], dtype=bool)
    for spec, sel in _by_rule(rules):
        ok[sel] &= check([spec], panels[sel])
    return ok


def _replaceable(rules, panels):
    """``(n, 9)``: whether panel ``j`` of puzzle ``i`` can be replaced by some panel so that the
    matrix obeys every rule; column by column, since each rule reads one column."""
    ok = np.ones(panels.shape[:2], dtype=bool)
    at = np.eye(9, dtype=bool)[:, None, :]  # (replaced panel, 1, panel)
    for spec, sel in _by_rule(rules):
        column = COLUMN[spec["attribute"]]
        values = COLUMN_VALUES[column]
        alt = np.repeat(np.repeat(panels[sel][:, None, None], 9, 1), len(values), 2)
        alt[..., column] = np.where(at, values[:, None], alt[..., column])  # (g, 9, V, 9)
        ok[sel] &= matrix_satisfies([spec], alt).any(-1)
    return ok


def test_every_odd_one_out_has_exactly_one_answer():
    puzzles = generate_odd_one_out(N, seed=321)
    answers = _replaceable(puzzles.rules, puzzles.panels)  # (N, 9)
    assert answers[np.arange(N), puzzles.answer].all()
    several = np.flatnonzero(answers.sum(1) > 1)
    assert len(several) == 0, f"{len(several)} of {N} have more than one answer: {several[:10]}"
    assert set(puzzles.answer.tolist()) == set(range(9))


@pytest.mark.parametrize("style", ["iraven", "raven"])
def test_every_matrix_has_exactly_one_right_candidate(style):
    puzzles = generate_matrices(N, seed=322, style=style)
    full = np.repeat(puzzles.panels[:, None], 8, 1)  # (N, 8, 9, 4)
    full[:, :, 8] = puzzles.candidates
    ok = _each_satisfies(matrix_satisfies, puzzles.rules, full)  # (N, 8)
    assert (ok.sum(1) == 1).all() and ok[np.arange(N), puzzles.answer].all()


def test_every_analogy_has_exactly_one_right_candidate():
    puzzles = generate_analogies(N, seed=323)
    abc = puzzles.panels[:, [4, 5, 7]]
    quads = np.concatenate([np.repeat(abc[:, None], 8, 1), puzzles.candidates[:, :, None]], 2)
    ok = _each_satisfies(analogy_satisfies, puzzles.rules, quads)  # (N, 8)
    assert (ok.sum(1) == 1).all() and ok[np.arange(N), puzzles.answer].all()


def test_column_by_column_check_agrees_with_every_replacement_panel():
    """Both fast checks (this file's and ``odd_one_out_answers``) against the definition, on
    matrices with one value changed at random (some with two answers): replace each panel by
    each of the 405 panels."""
    rng = np.random.default_rng(324)
    puzzles = generate_matrices(150, seed=324)
    panels = puzzles.panels.copy()
    changed = zip(rng.integers(9, size=150), rng.integers(4, size=150), strict=True)
    for i, (odd, column) in enumerate(changed):
        values = COLUMN_VALUES[column]
        panels[i, odd, column] = rng.choice(values[values != panels[i, odd, column]])
    fast = _replaceable(puzzles.rules, panels)
    assert (fast.sum(1) > 1).any() and (fast.sum(1) == 1).any()
    for i in range(len(panels)):
        alt = np.broadcast_to(panels[i], (9, len(EVERY_PANEL), 9, 4)).copy()
        alt[np.arange(9), :, np.arange(9)] = EVERY_PANEL
        brute = matrix_satisfies(puzzles.rules[i], alt).any(1)
        assert np.array_equal(brute, fast[i]), i
        assert np.array_equal(brute, odd_one_out_answers(puzzles.rules[i], panels[i])), i


def test_odd_one_out_answers_finds_the_second_answer_of_an_arithmetic_row():
    """Number ``add`` with the count of panel 7 changed: in the row (1, 3, 2) either the 3 (to
    1) or the 2 (to 4) can be replaced, so panels 7 and 8 are both answers."""
    rules = [
        {"attribute": "type", "rule": "constant"},
        {"attribute": "size", "rule": "arithmetic", "op": "add"},
        {"attribute": "colour", "rule": "arithmetic", "op": "sub"},
        {"attribute": "number", "rule": "arithmetic", "op": "add"},
    ]
    panels = np.array(
        [
            [2, 2, 2, 4],
            [2, 1, 1, 4],
            [2, 3, 1, 12],
            [2, 2, 3, 8],
            [2, 1, 1, 10],
            [2, 3, 2, 7],
            [1, 2, 2, 1],
            [1, 1, 1, 13],
            [1, 3, 1, 12],
        ]
    )
    assert not matrix_satisfies(rules, panels)
    assert odd_one_out_answers(rules, panels).nonzero()[0].tolist() == [7, 8]
    assert odd_one_out_answers(rules, np.stack([panels, panels])).shape == (2, 9)
