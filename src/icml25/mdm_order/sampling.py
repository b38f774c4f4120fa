"""Sudoku as one use of the generic adaptive sampler (:mod:`icml25.mdm_order.adaptive`).

Kim et al. (ICML 2025), Sec. 5: a masked diffusion model fills a Sudoku's blanks in ``steps``
reverse steps, unmasking the cells its planner (``vanilla``, ``top_prob``, ``top_margin``)
picks. Here the sequence is the 81 cells, the vocabulary ``0..9`` with ``0 = [MASK]`` (a
blank) and the digits ``1..9``, and ``model`` is either a
:class:`~icml25.mdm_order.model.SudokuMDM` or any function mapping tokens ``(B, 81)`` to digit
probabilities ``(B, 81, 9)``, such as :func:`legal_candidates`, the analytic model of the smoke
test. Clue cells are never changed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from icml25.common.arrays import int_array
from icml25.common.validate import check_int
from icml25.mdm_order._checks import check_cells
from icml25.mdm_order.adaptive import Decoding, adaptive_decode
from icml25.mdm_order.sudoku import (
    POPCOUNT,
    _to_candidates,
    check_grids,
    eliminate,
    hidden_singles,
)


def legal_candidates(tokens: np.ndarray) -> np.ndarray:
    """The analytic model: uniform over each cell's legal digits. ``(B, 81)`` to ``(B, 81, 9)``.

    Legal = not already in the cell's row, column or box, narrowed to the digit a hidden single
    forces (the two singles rules, one round on the current grid). A filled cell gets its digit;
    a cell with no legal digit gets the uniform distribution. Anything but an integer ``(B, 81)``
    array of entries ``0..9`` is refused.
    """
    check_cells("tokens", tokens, 9)
    cand = eliminate(_to_candidates(np.asarray(tokens)))  # (B, 81)
    forced = hidden_singles(cand)
    cand = np.where(POPCOUNT[forced] == 1, forced, cand)
    bits = ((cand[..., None] >> np.arange(9, dtype=np.uint16)) & 1).astype(float)  # (B, 81, 9)
    bits[bits.sum(-1) == 0] = 1.0
    return bits / bits.sum(-1, keepdims=True)


def predictor(model, batch: int = 1024) -> Callable[[np.ndarray], np.ndarray]:
    """``tokens (B, 81) -> probs (B, 81, 9)`` for a torch model (no grad, in chunks) or a
    function already of that form."""
    import torch

    check_int("batch", batch, minimum=1)

    if not isinstance(model, torch.nn.Module):
        if not callable(model):
            raise ValueError(f"model must be a torch module or a function, got {type(model)}")
        return model
    device = next(model.parameters()).device

    def predict(tokens: np.ndarray) -> np.ndarray:
        out = []
        with torch.no_grad():
            for start in range(0, len(tokens), batch):
                x = torch.as_tensor(tokens[start : start + batch], device=device)
                out.append(torch.softmax(model(x).float(), -1).cpu().numpy())
        return np.concatenate(out).astype(np.float64)

    return predict


def digit_logits(model) -> Callable[[np.ndarray], np.ndarray]:
    """The Sudoku model as a logits function of the generic sampler: tokens ``(B, 81)`` to
    ``(B, 81, 10)`` log-probabilities over ``[MASK], 1..9`` (``[MASK]`` at ``-inf``)."""
    predict = predictor(model)

    def logits(tokens: np.ndarray) -> np.ndarray:
        probs = predict(tokens)  # (B, 81, 9)
        with np.errstate(divide="ignore"):
            return np.concatenate([np.full((*probs.shape[:2], 1), -np.inf), np.log(probs)], -1)

    return logits


def decode(
    puzzles,
    model,
    strategy: str = "top_margin",
    steps: int = 50,
    seed: int = 0,
    gumbel: float = 0.0,
    answers=None,
) -> Decoding:
    """Fill the blanks of ``puzzles`` ``(B, 81)`` with :func:`~icml25.mdm_order.adaptive.
    adaptive_decode` (``mask_id = 0``); ``answers`` ``(B, 81)`` for teacher forcing."""
    tokens = check_grids("puzzles", puzzles)
    if answers is not None:
        answers = check_grids("answers", answers, blanks=False)
        if answers.shape != tokens.shape or ((tokens > 0) & (tokens != answers)).any():
            raise ValueError("answers must have the shape of puzzles and agree with their clues")
    logits = digit_logits(model)
    return adaptive_decode(tokens, logits, 0, strategy, steps, seed, gumbel, answers)


def solve(
    puzzles,
    model,
    strategy: str = "top_margin",
    steps: int = 50,
    seed: int = 0,
    gumbel: float = 0.0,
) -> np.ndarray:
    """Fill ``puzzles`` ``(N, 81)`` (0 = blank) with the masked diffusion ``model``; ``(N, 81)``."""
    return decode(puzzles, model, strategy, steps, seed, gumbel).grids


def accuracy(predicted, solutions) -> float:
    """Fraction of puzzles whose every cell equals the solution (the paper's metric).
    ``predicted`` must hold ``N x 81`` digits ``0..9`` (0 = left blank)."""
    size = int_array("predicted", predicted, low=0, high=9).size
    if size % 81:
        raise ValueError(f"predicted must hold 81 cells per puzzle, got {size} cells")
    predicted = np.asarray(predicted).reshape(-1, 81)
    solutions = check_grids("solutions", solutions, blanks=False)
    if predicted.shape != solutions.shape:
        raise ValueError(
            f"predicted must have the shape of solutions {solutions.shape}, got {predicted.shape}"
        )
    return float((predicted == solutions).all(1).mean())
