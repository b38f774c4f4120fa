import numpy as np
import pytest
import torch

from icml25.ucgs_avr import (
    AnswerOnlyModel,
    BaselineConfig,
    DiscriminativeSolver,
    GenerativeSolver,
    PatchCodebook,
    SolverConfig,
    matrix_from_rules,
    render,
    sample_rules,
)

CONSTANT = {a: ("constant",) for a in ("type", "size", "colour", "number", "position")}


@pytest.fixture(scope="module")
def trained():
    """A solver trained on matrices whose every rule is constant (rows of equal panels)."""
    rng = np.random.default_rng(0)
    panels = np.stack(
        [
            matrix_from_rules(
                sample_rules(rng, force=("position", "constant"), allowed=CONSTANT), rng
            )
            for _ in range(600)
        ]
    )
    codebook = PatchCodebook(64, seed=0).fit(render(panels))
    config = SolverConfig(n_layer=1, n_embd=32, steps=300, batch=32, lr=3e-3, warmup=20)
    solver = GenerativeSolver(codebook.n_codes, config, seed=0).fit(codebook.encode(render(panels)))
    return codebook, solver


def _hand_made():
    rows = np.array([[0, 1, 1, 1], [1, 3, 2, 5], [2, 2, 3, 12]])  # one panel per row
    matrix = np.repeat(rows, 3, axis=0)  # (9, 4): constant rows
    answer = matrix[8]
    cands = [answer] + [
        answer + d
        for d in (
            [0, -1, 0, 0],
            [0, 0, -1, 0],
            [-2, 0, 0, 0],
            [0, 1, 0, 0],
            [-1, -1, 0, 0],
            [0, 0, 0, -8],
            [0, -1, -1, 0],
        )
    ]
    return matrix, np.stack(cands)


def test_true_panel_is_the_most_predictable_on_a_trivial_rule(trained):
    codebook, solver = trained
    assert solver.losses[-1] < solver.losses[0] / 2
    matrix, cands = _hand_made()
    scores = solver.answer_matrix(
        codebook.encode(render(matrix[None, :8])), codebook.encode(render(cands[None]))
    )
    assert scores.shape == (1, 8) and scores[0].argmax() == 0
    solver.score = "mean_probability"
    assert (
        solver.answer_matrix(
            codebook.encode(render(matrix[None, :8])), codebook.encode(render(cands[None]))
        )[0].argmax()
        == 0
    )
    solver.score = "log_likelihood"


def test_odd_panel_is_the_least_predictable(trained):
    codebook, solver = trained
    matrix, cands = _hand_made()
    odd = matrix.copy()
    odd[4] = cands[3]  # the middle panel changes type
    scores = solver.answer_odd_one_out(codebook.encode(render(odd[None])))
    assert scores.shape == (1, 9) and scores[0].argmin() == 4


def test_training_is_reproducible_for_a_seed():
    tokens = np.random.default_rng(0).integers(0, 5, size=(40, 9, 4))
    config = SolverConfig(n_layer=1, n_embd=16, n_head=2, steps=5, batch=8, warmup=2)
    a = GenerativeSolver(5, config, seed=3).fit(tokens)
    b = GenerativeSolver(5, config, seed=3).fit(tokens)
    assert a.losses == b.losses
    state = torch.random.get_rng_state()
    GenerativeSolver(5, config, seed=4)
    assert torch.equal(state, torch.random.get_rng_state())  # global state untouched


def test_baselines_fit_and_score_shapes():
    rng = np.random.default_rng(1)
    ctx, cands = rng.integers(0, 6, (30, 8, 4)), rng.integers(0, 6, (30, 8, 4))
    answer = rng.integers(0, 8, 30)
    config = BaselineConfig(n_layer=1, n_embd=16, n_head=2, steps=4, batch=4, warmup=2)
    assert DiscriminativeSolver(6, config).fit(ctx, cands, answer).score(ctx, cands).shape == (
        30,
        8,
    )
    assert AnswerOnlyModel(6, config).fit(cands, answer).score(cands).shape == (30, 8)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda s: GenerativeSolver(1), "n_codes"),
        (lambda s: GenerativeSolver(5, score="max"), "score"),
        (lambda s: s.fit(np.zeros((4, 8, 4), int)), "tokens must have shape"),
        (lambda s: s.fit(np.full((4, 9, 4), 99)), r"codes in \[0, 5\)"),
        (
            lambda s: s.answer_matrix(np.zeros((2, 8, 4), int), np.zeros((2, 8, 3), int)),
            "candidates",
        ),
        (lambda s: s.answer_odd_one_out(np.zeros((2, 8, 4), int)), "panels must"),
        (
            lambda s: s.predictability(
                np.zeros((1, 9, 4), int), np.zeros((1, 9)), 9, np.zeros((1, 2, 4), int)
            ),
            "target",
        ),
        (
            lambda s: DiscriminativeSolver(5).fit(
                np.zeros((2, 8, 4), int), np.zeros((2, 8, 4), int), [0, 8]
            ),
            "answer",
        ),
    ],
)
def test_bad_inputs(call, match):
    solver = GenerativeSolver(5, SolverConfig(n_layer=1, n_embd=16, n_head=2, steps=1))
    with pytest.raises(ValueError, match=match):
        call(solver)
