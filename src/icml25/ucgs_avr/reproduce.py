"""Reproduction: one conditional generative solver answers matrices, odd-one-out and analogies.

Cells: per seed index, three models on the same generated data (the data come from
``Config.data_seed`` and the seed index, so the three models of a seed see the same puzzles;
the cell's own seed initialises and trains its model):

- ``generative``: the UCGS solver trained by hiding panels of training matrices; evaluated on
  held-out matrices (claim a), odd-one-out and analogies (claims b1, b2, zero-shot) and matrices
  whose colour rule is progression, a pair never in training (claim d);
- ``discriminative``: the baseline trained on the matrices' I-RAVEN candidate sets, evaluated on
  the same matrices and held-out-rule matrices (claim d);
- ``answer_only``: candidates without context, trained and tested on I-RAVEN sets (check c)
  and, as its control, on RAVEN-style sets (check c_power).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from icml25.ucgs_avr.baselines import AnswerOnlyModel, BaselineConfig, DiscriminativeSolver
from icml25.ucgs_avr.generator import (
    ANALOGY_PANELS,
    generate_analogies,
    generate_matrices,
    generate_odd_one_out,
)
from icml25.ucgs_avr.render import render
from icml25.ucgs_avr.rules import ATTRIBUTES, RULES
from icml25.ucgs_avr.solver import GenerativeSolver, SolverConfig
from icml25.ucgs_avr.tokenizer import PatchCodebook

CELL_THREADS = 1
MODELS = ("generative", "discriminative", "answer_only")
N_EXAMPLES = 2


@dataclass(frozen=True)
class Config:
    seeds: int = 3
    data_seed: int = 0
    n_train: int = 10000
    n_test: int = 400
    # a pair none of whose matrices obeys another rule of the attribute (colour progression over
    # three values is always also colour arithmetic, so it holds nothing out)
    held_out: tuple[str, str] = ("type", "progression")
    codebook_size: int = 128
    codebook_fit_panels: int = 2000  # matrices whose panels fit the k-means codebook
    # generative solver (batch in matrices, each of 9 panel vectors)
    steps: int = 3500
    batch: int = 64
    lr: float = 3e-3
    n_embd: int = 64
    n_layer: int = 2
    max_extra_hidden: int = 3
    # discriminative baseline (batch in puzzles, each of 8 sequences of 9 panel vectors: half
    # the steps of the generative solver is the same number of panel vectors processed)
    disc_steps: int = 1750
    disc_batch: int = 16
    disc_lr: float = 1e-3
    # answer-only model
    answer_steps: int = 400
    answer_batch: int = 64
    answer_n_test: int = 4000  # the check's accuracy needs a standard error well below 5 points
    # wall-clock measurements in the summary (off at smoke scale, where two runs must agree)
    timing: bool = True


SCALES = {
    "smoke": Config(
        seeds=1,
        n_train=300,
        n_test=40,
        codebook_fit_panels=100,
        steps=30,
        batch=32,
        disc_steps=10,
        disc_batch=8,
        answer_steps=15,
        answer_batch=32,
        answer_n_test=40,
        timing=False,
    ),
    "default": Config(),
    "paper": Config(  # the sizes we would use with hours of CPU (the paper trains on a GPU)
        n_train=50000,
        n_test=2000,
        steps=30000,
        batch=128,
        n_embd=128,
        n_layer=4,
        disc_steps=20000,
        disc_batch=32,
        answer_steps=3000,
    ),
}


def cells(config: Config) -> list[dict]:
    return [{"seed_index": s, "model": m} for s in range(config.seeds) for m in MODELS]


def _seeds(config: Config, seed_index: int) -> list[int]:
    """Independent data seeds for the sets of one seed index."""
    ss = np.random.SeedSequence([config.data_seed, seed_index])
    return [int(s.generate_state(1)[0]) for s in ss.spawn(7)]


@lru_cache(maxsize=4)
def _train_and_codebook(config: Config, seed_index: int):
    seeds = _seeds(config, seed_index)
    train = generate_matrices(config.n_train, seeds[0], exclude=[config.held_out])
    codebook = PatchCodebook(config.codebook_size, seed=seed_index)
    codebook.fit(render(train.panels[: config.codebook_fit_panels]))
    return train, codebook


def _tokens(codebook: PatchCodebook, panels: np.ndarray) -> np.ndarray:
    return codebook.encode(render(panels))


def _rule_codes(rules: list[list[dict]]) -> np.ndarray:
    """Per puzzle, the rule index of each attribute, -1 where absent: ``(n, 5)``."""
    out = np.full((len(rules), len(ATTRIBUTES)), -1, dtype=np.int64)
    for i, specs in enumerate(rules):
        for spec in specs:
            out[i, ATTRIBUTES.index(spec["attribute"])] = RULES.index(spec["rule"])
    return out


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    seed_index, model = cell["seed_index"], cell["model"]
    seeds = _seeds(config, seed_index)
    train, codebook = _train_and_codebook(config, seed_index)
    held = [config.held_out]
    if model == "answer_only":
        return _run_answer_only(config, seeds, train, codebook, seed)
    test = generate_matrices(config.n_test, seeds[1], exclude=held)
    novel = generate_matrices(config.n_test, seeds[2], force=config.held_out)
    ctx, cands = _tokens(codebook, test.panels[:, :8]), _tokens(codebook, test.candidates)
    nctx, ncands = _tokens(codebook, novel.panels[:, :8]), _tokens(codebook, novel.candidates)
    out = {
        "n_codes": codebook.n_codes,
        "rules_matrix": _rule_codes(test.rules),
        "rules_novel": _rule_codes(novel.rules),
    }
    if model == "discriminative":
        disc = DiscriminativeSolver(
            codebook.n_codes,
            BaselineConfig(steps=config.disc_steps, batch=config.disc_batch, lr=config.disc_lr),
            seed=seed % 2**31,
        )
        disc.fit(
            _tokens(codebook, train.panels[:, :8]),
            _tokens(codebook, train.candidates),
            train.answer,
        )
        out["correct_matrix"] = disc.score(ctx, cands).argmax(1) == test.answer
        out["correct_novel"] = disc.score(nctx, ncands).argmax(1) == novel.answer
        out["train_seconds"] = disc.train_seconds
        out["losses"] = np.array(disc.losses)
        return out
    solver = GenerativeSolver(
        codebook.n_codes,
        SolverConfig(
            n_layer=config.n_layer,
            n_embd=config.n_embd,
            steps=config.steps,
            batch=config.batch,
            lr=config.lr,
            max_extra_hidden=config.max_extra_hidden,
        ),
        seed=seed % 2**31,
    )
    solver.fit(_tokens(codebook, train.panels))
    odd = generate_odd_one_out(config.n_test, seeds[3], exclude=held)
    analogy = generate_analogies(config.n_test, seeds[4], exclude=held)
    odd_tok = _tokens(codebook, odd.panels)
    abc = _tokens(codebook, analogy.panels[:, list(ANALOGY_PANELS[:3])])
    acands = _tokens(codebook, analogy.candidates)
    begin = time.perf_counter()
    s_matrix = solver.answer_matrix(ctx, cands)  # (n, 8)
    matrix_seconds = time.perf_counter() - begin
    s_novel = solver.answer_matrix(nctx, ncands)
    s_odd = solver.answer_odd_one_out(odd_tok)  # (n, 9)
    s_analogy = solver.answer_analogy(abc, acands)
    solver.score = "mean_probability"  # the official code's score, for comparison
    out.update(
        correct_matrix=s_matrix.argmax(1) == test.answer,
        correct_novel=s_novel.argmax(1) == novel.answer,
        correct_odd=s_odd.argmin(1) == odd.answer,
        correct_analogy=s_analogy.argmax(1) == analogy.answer,
        rules_odd=_rule_codes(odd.rules),
        rules_analogy=_rule_codes(analogy.rules),
        meanprob_matrix=float(np.mean(solver.answer_matrix(ctx, cands).argmax(1) == test.answer)),
        meanprob_odd=float(np.mean(solver.answer_odd_one_out(odd_tok).argmin(1) == odd.answer)),
        meanprob_analogy=float(
            np.mean(solver.answer_analogy(abc, acands).argmax(1) == analogy.answer)
        ),
        train_seconds=solver.train_seconds,
        matrix_puzzles_per_second=len(ctx) / matrix_seconds,
        losses=np.array(solver.losses),
        examples={
            "matrix_panels": render(test.panels[:N_EXAMPLES]),
            "matrix_candidates": render(test.candidates[:N_EXAMPLES]),
            "matrix_answer": test.answer[:N_EXAMPLES],
            "matrix_scores": s_matrix[:N_EXAMPLES],
            "odd_panels": render(odd.panels[:N_EXAMPLES]),
            "odd_answer": odd.answer[:N_EXAMPLES],
            "odd_scores": s_odd[:N_EXAMPLES],
            "analogy_panels": render(analogy.panels[:N_EXAMPLES, list(ANALOGY_PANELS[:3])]),
            "analogy_candidates": render(analogy.candidates[:N_EXAMPLES]),
            "analogy_answer": analogy.answer[:N_EXAMPLES],
            "analogy_scores": s_analogy[:N_EXAMPLES],
        },
    )
    return out


def _run_answer_only(config, seeds, train, codebook, seed) -> dict:
    held = [config.held_out]
    bc = BaselineConfig(steps=config.answer_steps, batch=config.answer_batch, lr=1e-3)
    test = generate_matrices(config.answer_n_test, seeds[1], exclude=held)
    out = {}
    model = AnswerOnlyModel(codebook.n_codes, bc, seed=seed % 2**31)
    model.fit(_tokens(codebook, train.candidates), train.answer)
    scores = model.score(_tokens(codebook, test.candidates))
    out["correct_iraven"] = scores.argmax(1) == test.answer
    raven_train = generate_matrices(config.n_train, seeds[5], exclude=held, style="raven")
    raven_test = generate_matrices(config.answer_n_test, seeds[6], exclude=held, style="raven")
    control = AnswerOnlyModel(codebook.n_codes, bc, seed=seed % 2**31)
    control.fit(_tokens(codebook, raven_train.candidates), raven_train.answer)
    scores = control.score(_tokens(codebook, raven_test.candidates))
    out["correct_raven"] = scores.argmax(1) == raven_test.answer
    return out
