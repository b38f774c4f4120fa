"""A unified conditional generative solver for abstract visual reasoning, and a RAVEN-family
puzzle generator (Shi, Li & Xue, *Beyond Task-Specific Reasoning: A Unified Conditional
Generative Framework for Abstract Visual Reasoning*, ICML 2025).

>>> from icml25.ucgs_avr import GenerativeSolver, PatchCodebook, SolverConfig
>>> from icml25.ucgs_avr import generate_matrices, render
>>> train = generate_matrices(200, seed=0)  # the reproduction trains on thousands
>>> codebook = PatchCodebook(seed=0).fit(render(train.panels[:50]))
>>> quick = SolverConfig(steps=50)  # the default trains for 2000 steps
>>> solver = GenerativeSolver(codebook.n_codes, quick, seed=0)
>>> solver = solver.fit(codebook.encode(render(train.panels)))
>>> test = generate_matrices(10, seed=1)
>>> scores = solver.answer_matrix(codebook.encode(render(test.panels[:, :8])),
...                               codebook.encode(render(test.candidates)))
>>> scores.shape  # a score per candidate; the answer is scores.argmax(1)
(10, 8)
"""

from icml25.ucgs_avr.baselines import AnswerOnlyModel, BaselineConfig, DiscriminativeSolver
from icml25.ucgs_avr.generator import (
    ANALOGY_PANELS,
    FORMATS,
    PuzzleSet,
    analogy_satisfies,
    candidate_set,
    generate_analogies,
    generate_matrices,
    generate_odd_one_out,
    matrix_from_rules,
    matrix_satisfies,
    odd_one_out_answers,
    panel_from_json,
    panel_to_json,
    sample_rules,
)
from icml25.ucgs_avr.render import cell_library, image_cells, render
from icml25.ucgs_avr.rules import ALLOWED, ATTRIBUTES, DOMAIN, RULES, TYPES, row_values, satisfies
from icml25.ucgs_avr.solver import GenerativeSolver, SolverConfig
from icml25.ucgs_avr.tokenizer import PatchCodebook

__all__ = [
    "ALLOWED",
    "ANALOGY_PANELS",
    "ATTRIBUTES",
    "AnswerOnlyModel",
    "BaselineConfig",
    "DOMAIN",
    "DiscriminativeSolver",
    "FORMATS",
    "GenerativeSolver",
    "PatchCodebook",
    "PuzzleSet",
    "RULES",
    "SolverConfig",
    "TYPES",
    "analogy_satisfies",
    "candidate_set",
    "cell_library",
    "generate_analogies",
    "generate_matrices",
    "generate_odd_one_out",
    "image_cells",
    "matrix_from_rules",
    "matrix_satisfies",
    "odd_one_out_answers",
    "panel_from_json",
    "panel_to_json",
    "render",
    "row_values",
    "sample_rules",
    "satisfies",
]
