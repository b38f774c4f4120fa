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
    """Give the analytic Sudoku model: uniform over each cell's legal digits.

    A digit is legal when it is not already in the cell's row, column or box, narrowed to the
    digit a hidden single forces (the two singles rules, one round on the current grid). A filled
    cell gets its own digit, and a cell with no legal digit gets the uniform distribution.

    Parameters
    ----------
    tokens : ndarray of int, shape (B, 81)
        Grids with entries ``0..9`` (0 = masked). Other shapes and dtypes are refused with
        ValueError.

    Returns
    -------
    probs : ndarray of float, shape (B, 81, 9)
        Probabilities of the digits ``1..9`` for every cell.
    """
    check_cells("tokens", tokens, 9)
    cand = eliminate(_to_candidates(np.asarray(tokens)))  # (B, 81)
    forced = hidden_singles(cand)
    cand = np.where(POPCOUNT[forced] == 1, forced, cand)
    bits = ((cand[..., None] >> np.arange(9, dtype=np.uint16)) & 1).astype(float)  # (B, 81, 9)
    bits[bits.sum(-1) == 0] = 1.0
    return bits / bits.sum(-1, keepdims=True)


def predictor(model, batch: int = 1024) -> Callable[[np.ndarray], np.ndarray]:
    """Wrap a model as a function from tokens to digit probabilities.

    Parameters
    ----------
    model : torch.nn.Module or callable
        A torch model mapping tokens ``(B, 81)`` to logits ``(B, 81, 9)`` (such as
        :class:`~icml25.mdm_order.model.SudokuMDM`), or a function already mapping tokens to
        probabilities ``(B, 81, 9)``, which is returned as it is.
    batch : int, default 1024
        Rows per forward pass of a torch model, ``>= 1``.

    Returns
    -------
    predict : callable
        ``predict(tokens)`` with tokens ``(B, 81)`` returning float64 probabilities
        ``(B, 81, 9)``; for a torch model a softmax of its logits, without gradients, on the
        model's device, in chunks of ``batch`` rows.
    """
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
    """Turn a Sudoku model into a logits function of the generic sampler.

    Parameters
    ----------
    model : torch.nn.Module or callable
        As in :func:`predictor`.

    Returns
    -------
    logits : callable
        ``logits(tokens)`` with tokens ``(B, 81)`` returning ``(B, 81, 10)`` log-probabilities
        over ``[MASK], 1..9``, the ``[MASK]`` entry at ``-inf``.
    """
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
    """Fill the blanks of Sudoku puzzles with the adaptive sampler.

    Runs :func:`~icml25.mdm_order.adaptive.adaptive_decode` on the puzzles with ``mask_id = 0``
    and the model's digit log-probabilities (:func:`digit_logits`). Clue cells are never changed.

    Parameters
    ----------
    puzzles : array_like of int
        Grids as accepted by :func:`~icml25.mdm_order.sudoku.check_grids`, ``(B, 81)``
        (0 = blank).
    model : torch.nn.Module or callable
        As in :func:`predictor`.
    strategy : {"top_margin", "top_prob", "vanilla"}, default "top_margin"
        The planner that picks which blanks to fill at each step.
    steps : int, default 50
        Number of reverse steps, ``>= 1``.
    seed : int, default 0
        Seed of the sampler, ``>= 0``.
    gumbel : float, default 0.0
        Scale of the annealed Gumbel noise on the planner's log-score, finite and ``>= 0``.
    answers : array_like of int, optional
        Solutions ``(B, 81)`` (digits ``1..9``, agreeing with the clues) for teacher forcing: the
        chosen cells get the answer, and ``Decoding.loss`` holds the model's loss on them.

    Returns
    -------
    Decoding
        The filled grids ``(B, 81)``, the per-cell loss and the step each cell was filled.
    """
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
    """Solve Sudoku puzzles with a masked diffusion model.

    Parameters
    ----------
    puzzles : array_like of int
        Grids as accepted by :func:`~icml25.mdm_order.sudoku.check_grids`, ``(N, 81)``
        (0 = blank).
    model : torch.nn.Module or callable
        As in :func:`predictor`; for example a trained
        :class:`~icml25.mdm_order.model.SudokuMDM` or :func:`legal_candidates`.
    strategy : {"top_margin", "top_prob", "vanilla"}, default "top_margin"
        The planner that picks which blanks to fill at each step.
    steps : int, default 50
        Number of reverse steps, ``>= 1``.
    seed : int, default 0
        Seed of the sampler, ``>= 0``.
    gumbel : float, default 0.0
        Scale of the annealed Gumbel noise on the planner's log-score, finite and ``>= 0``.

    Returns
    -------
    grids : ndarray of int64, shape (N, 81)
        The filled grids (see :func:`decode`).
    """
    return decode(puzzles, model, strategy, steps, seed, gumbel).grids


def accuracy(predicted, solutions) -> float:
    """Fraction of puzzles solved exactly, the paper's metric.

    Parameters
    ----------
    predicted : array_like of int
        Filled grids, ``N x 81`` entries ``0..9`` in any shape that reshapes to ``(N, 81)``
        (0 = left blank).
    solutions : array_like of int
        The solutions, as accepted by :func:`~icml25.mdm_order.sudoku.check_grids` with digits
        ``1..9``, ``(N, 81)``.

    Returns
    -------
    float
        Share of rows in which every cell equals the solution, in ``[0, 1]``.
    """
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
