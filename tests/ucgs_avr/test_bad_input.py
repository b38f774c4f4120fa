"""Bad input to the puzzle generator, the renderer, the codebook and the solvers is refused by
name."""

import numpy as np
import pytest

from icml25.ucgs_avr import (
    AnswerOnlyModel,
    BaselineConfig,
    DiscriminativeSolver,
    GenerativeSolver,
    PatchCodebook,
    SolverConfig,
    analogy_satisfies,
    candidate_set,
    cell_library,
    generate_matrices,
    generate_odd_one_out,
    image_cells,
    matrix_from_rules,
    matrix_satisfies,
    odd_one_out_answers,
    panel_from_json,
    panel_to_json,
    sample_rules,
    satisfies,
)

RULES = sample_rules(np.random.default_rng(0))
PANELS = matrix_from_rules(RULES, np.random.default_rng(0))  # (9, 4)
PANEL = {"type": "square", "size": 2, "colour": 1, "cells": [0, 2]}
TOKENS = np.zeros((2, 9, 4), dtype=np.int64)
TINY = SolverConfig(n_layer=1, n_head=2, n_embd=8, steps=1, batch=2)
BASE = BaselineConfig(n_layer=1, n_head=2, n_embd=8, steps=1, batch=2)
SIZE = {"attribute": "size", "rule": "constant"}


def _rng():
    return np.random.default_rng(0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: generate_matrices(10**12), "n must be at most"),
        (
            lambda: generate_matrices(
                2, exclude=[("type", r) for r in ("constant", "progression", "distribute_three")]
            ),
            "exclude leaves attribute 'type' without a rule",
        ),
        (lambda: generate_odd_one_out(2, exclude="type"), "exclude must be a sequence of"),
        (lambda: sample_rules(_rng(), force=("shape", "constant")), "not an allowed"),
        (lambda: matrix_from_rules([], _rng()), "rules must hold one rule for each"),
        (lambda: matrix_from_rules(RULES[:3] * 2, _rng()), "rules must hold one rule for each"),
        (lambda: matrix_satisfies(RULES, PANELS[:8]), r"panels must have shape \(\.\.\., 9, 4\)"),
        (lambda: matrix_satisfies(RULES, PANELS + 0.5), "panels must be an integer array"),
        (lambda: matrix_satisfies(RULES, PANELS * -1), r"panels\[\.\.\., 0\] \(type\)"),
        (lambda: odd_one_out_answers(RULES, PANELS[:, :3]), "panels must have shape"),
        (lambda: analogy_satisfies(RULES, PANELS[:4] + 0.5), "quad must be an integer array"),
        (lambda: candidate_set(PANELS[8] + 0.5, RULES, _rng()), "answer must be an integer"),
        (lambda: candidate_set(PANELS[8], RULES[:3], _rng()), "number or a position rule"),
        (lambda: panel_to_json(np.array([-1, 1, 1, 3])), r"panel\[\.\.\., 0\] \(type\)"),
        (lambda: panel_to_json(np.array([0, 1, 1, 99])), r"panel\[\.\.\., 3\] \(slots\)"),
        (lambda: panel_from_json({**PANEL, "cells": [0, 0]}), "panel cells must be distinct"),
        (lambda: panel_from_json({**PANEL, "size": 9}), "panel size must be an integer"),
        (lambda: satisfies(SIZE, np.full((3, 3), 1.5)), "values must be an integer array"),
        (
            lambda: satisfies({"attribute": "size", "rule": "progression"}, np.ones((3, 3), int)),
            "needs step",
        ),
        (lambda: cell_library(0), "cell must be an integer >= 1"),
        (lambda: image_cells(np.zeros(24)), "images must be an array"),
        (lambda: PatchCodebook(8, seed=-1), "seed must be"),
        (lambda: PatchCodebook(8).fit(np.full((2, 4, 4), np.nan)), "images must be finite"),
        (lambda: PatchCodebook(8).fit(np.zeros((0, 4, 4))), "images must not be empty"),
        (lambda: PatchCodebook(8).decode(np.zeros((1, 4), int)), "not fitted"),
        (lambda: SolverConfig(batch=0), "batch must be"),
        (lambda: SolverConfig(max_extra_hidden=20), "max_extra_hidden must be at most 8"),
        (lambda: BaselineConfig(n_embd=10, n_head=3), "n_head must divide"),
        (lambda: GenerativeSolver(2, TINY).fit(TOKENS[:0]), "tokens must hold at least one"),
        (lambda: GenerativeSolver(2, TINY).fit(TOKENS + 0.5), "tokens must hold integers"),
        (
            lambda: GenerativeSolver(2, TINY).answer_matrix(TOKENS[:, :8], TOKENS[:, :8] + 2),
            "candidates must be <= 1",
        ),
        (
            lambda: GenerativeSolver(2, TINY).code_probabilities(TOKENS, np.full((2, 9), 0.5)),
            "hidden must be a bool array",
        ),
        (
            lambda: GenerativeSolver(2, TINY).code_probabilities(TOKENS, TOKENS[..., 0], chunk=0),
            "chunk must be",
        ),
        (
            lambda: GenerativeSolver(2, TINY).predictability(TOKENS, TOKENS[..., 0], 1.5, TOKENS),
            "target must be a panel index",
        ),
        (
            lambda: DiscriminativeSolver(2, BASE).fit(TOKENS[:, :8], TOKENS[:1, :8], [0, 1]),
            "candidates must hold one set per context",
        ),
        (
            lambda: AnswerOnlyModel(2, BASE).fit(TOKENS[:, :8], [0.5, 1.0]),
            "answer must hold integers",
        ),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
