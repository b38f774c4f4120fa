"""Reverse sampling of a masked diffusion model with a choice of which cells to unmask.

Kim et al. (ICML 2025), Sec. 4 and Algorithm 1: at each of ``steps`` reverse steps from
``t`` to ``s < t`` the sampler unmasks ``K = M (alpha_s - alpha_t) / (1 - alpha_t)`` of the
``M`` masked cells (linear schedule ``alpha_t = 1 - t``), and *which* ones is the planner's
choice ``F(theta, x_t)``:

- ``vanilla``: uniformly random masked cells (the MDM's own reverse process);
- ``top_prob``: the cells with the largest ``max_j p_theta(x^i = j | x_t)``;
- ``top_margin``: the largest margin ``p(j_1) - p(j_2)`` between the two likeliest digits.

With ``gumbel > 0`` the adaptive scores are perturbed by ``gumbel * G``, ``G`` standard Gumbel
(the paper's stochastic top-K; HKUNLP uses 0.5). The digit of an unmasked cell is sampled from
``p_theta(x^i | x_t)``; clue cells are never changed. Integer ``K``: after step ``i`` of
``steps``, ``round(M_0 (i + 1) / steps)`` of the ``M_0`` initially masked cells are unmasked.

``model`` anywhere here is either a :class:`~icml25.mdm_order.model.SudokuMDM` or any function
mapping tokens ``(B, 81)`` (0 = mask) to digit probabilities ``(B, 81, 9)``, such as
:func:`legal_candidates`, the analytic model of the smoke test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real
from icml25.mdm_order.sudoku import (
    POPCOUNT,
    check_grids,
    eliminate,
    hidden_singles,
    to_candidates,
)

STRATEGIES = ("vanilla", "top_prob", "top_margin")


def unmask_counts(masked: np.ndarray, steps: int) -> np.ndarray:
    """``(steps, B)`` number of cells unmasked at each step from ``masked`` ``(B,)`` masked
    cells: the integer form of ``K = M (alpha_s - alpha_t) / (1 - alpha_t)``, linear schedule."""
    steps = check_int("steps", steps, minimum=1)
    done = np.rint(np.asarray(masked)[None, :] * np.arange(steps + 1)[:, None] / steps)
    return np.diff(done, axis=0).astype(np.int64)


def legal_candidates(tokens: np.ndarray) -> np.ndarray:
    """The analytic model: uniform over each cell's legal digits. ``(B, 81)`` to ``(B, 81, 9)``.

    Legal = not already in the cell's row, column or box, narrowed to the digit a hidden single
    forces (the two singles rules, one round on the current grid). A filled cell gets its digit;
    a cell with no legal digit gets the uniform distribution.
    """
    cand = eliminate(to_candidates(np.asarray(tokens)))  # (B, 81)
    forced = hidden_singles(cand)
    cand = np.where(POPCOUNT[forced] == 1, forced, cand)
    bits = ((cand[..., None] >> np.arange(9, dtype=np.uint16)) & 1).astype(float)  # (B, 81, 9)
    bits[bits.sum(-1) == 0] = 1.0
    return bits / bits.sum(-1, keepdims=True)


def predictor(model, batch: int = 1024) -> Callable[[np.ndarray], np.ndarray]:
    """``tokens (B, 81) -> probs (B, 81, 9)`` for a torch model (no grad, in chunks) or a
    function already of that form."""
    import torch

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


@dataclass
class Decoding:
    """``grids`` ``(B, 81)`` the filled grids; ``loss`` ``(B, 81)`` the cross-entropy
    ``-log p_theta(x^i = answer | x_t)`` of each cell at the step it was unmasked (nan for the
    clues, and everywhere when no answer was given); ``step`` ``(B, 81)`` that step (-1 for
    clues)."""

    grids: np.ndarray
    loss: np.ndarray
    step: np.ndarray


def decode(
    puzzles,
    model,
    strategy: str = "top_margin",
    steps: int = 50,
    seed: int = 0,
    gumbel: float = 0.0,
    answers=None,
) -> Decoding:
    """Run the reverse process on ``puzzles`` ``(B, 81)`` (module docstring).

    With ``answers`` ``(B, 81)`` the planner's chosen cells are filled with the answer instead
    of a sampled digit (teacher forcing): the masking patterns are those the planner meets when
    it decodes correctly, and ``Decoding.loss`` is the model's loss on each cell it chose.
    """
    tokens = check_grids("puzzles", puzzles)
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    steps = check_int("steps", steps, minimum=1)
    gumbel = check_real("gumbel", gumbel, low=0.0, high=np.inf, high_open=True)
    if answers is not None:
        answers = check_grids("answers", answers, blanks=False)
        if answers.shape != tokens.shape or ((tokens > 0) & (tokens != answers)).any():
            raise ValueError("answers must have the shape of puzzles and agree with their clues")
    predict = predictor(model)
    rng = np.random.default_rng(seed)
    B = len(tokens)
    rows = np.arange(B)[:, None]
    loss = np.full((B, 81), np.nan)
    when = np.full((B, 81), -1)
    counts = unmask_counts((tokens == 0).sum(1), steps)  # (steps, B)
    for i, k in enumerate(counts):
        if not k.any():
            continue
        probs = predict(tokens)  # (B, 81, 9)
        masked = tokens == 0
        if strategy == "vanilla":
            score = rng.random((B, 81))
        else:
            top2 = np.sort(probs, axis=-1)[..., -2:]  # (B, 81, 2)
            score = top2[..., 1] if strategy == "top_prob" else top2[..., 1] - top2[..., 0]
            if gumbel > 0:
                score = score + gumbel * rng.gumbel(size=(B, 81))
        score = np.where(masked, score, -np.inf)
        order = np.lexsort((rng.random((B, 81)), -score), axis=-1)  # ties: random
        rank = np.empty_like(order)
        rank[rows, order] = np.arange(81)
        chosen = rank < k[:, None]  # (B, 81)
        if answers is None:
            cum = probs.cumsum(-1)  # (B, 81, 9)
            u = rng.random((B, 81, 1)) * cum[..., -1:]
            value = np.minimum((cum < u).sum(-1), 8) + 1
        else:
            value = answers
            picked = np.take_along_axis(probs, (answers - 1)[..., None], -1)[..., 0]
            loss[chosen] = -np.log(np.maximum(picked[chosen], 1e-12))
        tokens = np.where(chosen, value, tokens)
        when[chosen] = i
    return Decoding(tokens, loss, when)


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
    """Fraction of puzzles whose every cell equals the solution (the paper's metric)."""
    predicted = np.asarray(predicted).reshape(-1, 81)
    solutions = check_grids("solutions", solutions, blanks=False)
    if predicted.shape != solutions.shape:
        raise ValueError(
            f"predicted must have the shape of solutions {solutions.shape}, got {predicted.shape}"
        )
    return float((predicted == solutions).all(1).mean())
