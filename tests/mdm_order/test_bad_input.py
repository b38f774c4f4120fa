"""Bad input to the Sudoku tools, the sampler and the loss is refused early, naming the argument."""

import numpy as np
import pytest
import torch

from icml25.mdm_order import (
    MDMConfig,
    SudokuMDM,
    accuracy,
    adaptive_decode,
    augment,
    check_grids,
    count_solutions,
    decode,
    legal_candidates,
    make_puzzles,
    mdm_loss,
    planner_scores,
    predictor,
    propagate,
    random_solutions,
    to_candidates,
    to_grids,
    train_mdm,
    unmask_counts,
)

NAN = float("nan")
GRID = np.zeros((1, 81), dtype=int)
SOLUTION = np.array([[(3 * (r % 3) + r // 3 + c) % 9 + 1 for r in range(9) for c in range(9)]])
PROBS = np.full((1, 81, 9), 1 / 9)
TOKENS = np.array([[0, 1, 0, 2]])
RNG = np.random.default_rng(0)
TINY = MDMConfig(d_model=8, n_layer=1, n_head=2, d_ff=8)
T_GRID, T_SOLUTION = torch.as_tensor(GRID), torch.as_tensor(SOLUTION)
GEN = torch.Generator().manual_seed(0)


def uniform_logits(tokens):
    return np.zeros(tokens.shape + (3,))


def nan_logits(tokens):
    return np.full(tokens.shape + (3,), NAN)


CASES = [
    (lambda: check_grids("grids", [[1, 2], [3]]), "grids must be a rectangular array"),
    (lambda: to_candidates(GRID + 10), "grids must be <= 9"),
    (lambda: to_candidates(GRID - 1), "grids must be >= 0"),
    (lambda: to_candidates(GRID * 1.0), "grids must be an integer array"),
    (lambda: to_candidates(np.zeros(5, int)), "grids must have 2 dimensions"),
    (lambda: to_grids(GRID + 600), "cand must be <= 511"),
    (lambda: to_grids(GRID - 1), "cand must be >= 0"),
    (lambda: propagate(np.full(81, 511)), "cand must have 2 dimensions"),
    (lambda: propagate(np.full((1, 80), 511)), r"cand must have shape \(N, 81\)"),
    (lambda: propagate(np.full((1, 81), NAN)), "cand must hold integers"),
    (lambda: count_solutions(SOLUTION, seed=-1), "seed must be an integer >= 0"),
    (lambda: random_solutions(2, -1), "seed must be an integer >= 0"),
    (lambda: random_solutions(10**12, 0), "too large"),
    (lambda: make_puzzles(2, 30, "singles", 0), r"givens must be a pair"),
    (lambda: make_puzzles(2, (30, 31, 32), "singles", 0), r"givens must be a pair"),
    (lambda: augment(GRID, np.vstack([SOLUTION] * 2), RNG), "solutions must have the shape"),
    (lambda: augment(GRID - 1, SOLUTION, RNG), "puzzles must be >= 0"),
    (lambda: augment(GRID + 12, SOLUTION, RNG), "puzzles must be <= 9"),
    (lambda: unmask_counts(np.array([-3, 5]), 4), "masked must be >= 0"),
    (lambda: unmask_counts(np.array([NAN, 5]), 4), "masked must hold integers"),
    (lambda: unmask_counts(np.array([2.5, 5]), 4), "masked must hold integers"),
    (lambda: unmask_counts(np.array([3, 4]), 10**12), "too large"),
    (lambda: planner_scores(PROBS, "vanilla"), "strategy must be 'top_prob' or 'top_margin'"),
    (lambda: planner_scores(PROBS * NAN, "top_prob"), "probs must be finite"),
    (lambda: planner_scores(PROBS[0], "top_prob"), "probs must have 3 dimensions"),
    (lambda: planner_scores(PROBS[..., :1] * 9, "top_margin"), "probs must have at least 2"),
    (lambda: planner_scores(PROBS * 2, "top_prob"), "probs rows must sum to 1"),
    (lambda: adaptive_decode(TOKENS, nan_logits, 0), "logits_fn returned NaN"),
    (lambda: adaptive_decode(TOKENS, uniform_logits, 0, seed=-1), "seed must be"),
    (
        lambda: adaptive_decode(TOKENS, uniform_logits, 0, answers=np.array([[5, 1, 2, 2]])),
        "answers must lie in the vocabulary",
    ),
    (
        lambda: adaptive_decode(TOKENS, uniform_logits, 0, answers=np.array([[1.5, 1, 2, 2]])),
        "answers must be an integer array",
    ),
    (lambda: decode(GRID, legal_candidates, steps=10**12), "too large"),
    (lambda: accuracy(np.full((1, 81), NAN), SOLUTION), "predicted must hold integers"),
    (lambda: accuracy(np.full((1, 81), "a"), SOLUTION), "predicted must be a numeric array"),
    (lambda: accuracy(SOLUTION + 10, SOLUTION), "predicted must be <= 9"),
    (lambda: accuracy(np.zeros((1, 80), int), SOLUTION), "predicted must hold 81 cells"),
    (lambda: legal_candidates(GRID + 10), "tokens must be <= 9"),
    (lambda: legal_candidates(GRID - 1), "tokens must be >= 0"),
    (lambda: legal_candidates(np.zeros((1, 80), int)), r"tokens must have shape \(N, 81\)"),
    (lambda: predictor(SudokuMDM(TINY), batch=0), "batch must be an integer >= 1"),
    (lambda: mdm_loss(SudokuMDM(TINY), T_GRID, T_GRID, GEN), "solutions must hold digits 1-9"),
    (lambda: mdm_loss(SudokuMDM(TINY), T_GRID, T_SOLUTION, GEN, T=0), "T must be an integer"),
    (lambda: mdm_loss(SudokuMDM(TINY), T_GRID, T_SOLUTION, GEN, alpha=NAN), "alpha must be"),
    (lambda: mdm_loss(SudokuMDM(TINY), T_GRID, T_SOLUTION, GEN, gamma=NAN), "gamma must be"),
    (lambda: mdm_loss(SudokuMDM(TINY), T_GRID[:, :80], T_SOLUTION, GEN), "puzzles must be"),
    (lambda: train_mdm(GRID, SOLUTION, steps=1, batch=1, seed=-1, config=TINY), "seed must"),
    (lambda: train_mdm(GRID, SOLUTION, steps=10**12, config=TINY), "steps = .* too large"),
    (lambda: train_mdm(GRID, SOLUTION, steps=1, batch=10**10, config=TINY), "batch x 81"),
    (lambda: SudokuMDM(None), "config must be an MDMConfig"),
]


@pytest.mark.parametrize(("call", "message"), CASES)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: augment(GRID, SOLUTION, 0), "rng must be a numpy.random.Generator"),
        (lambda: mdm_loss(SudokuMDM(TINY), GRID, SOLUTION, GEN), "puzzles must be a torch int64"),
    ],
)
def test_a_wrong_type_is_refused_by_name(call, message):
    with pytest.raises(TypeError, match=message):
        call()
