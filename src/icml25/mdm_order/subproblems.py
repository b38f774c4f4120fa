"""Which infilling subproblems cost a masked diffusion model: random masks against the solver's.

Kim et al. (ICML 2025), Sec. 3: an MDM is trained on every masking pattern ``x_t`` of the
forward process (each blank masked independently), so it must also learn subproblems that are
computationally hard, which an autoregressive model trained in a good order never meets; the
paper finds the trained model's loss much higher on them (its Fig. 2, on other data).

On Sudoku the easy order is the solver's: the cells in the order naked and hidden singles fix
them (:func:`~icml25.mdm_order.sudoku.singles_rounds`), each deducible from those before it. At
a masking ratio ``r`` (the fraction of the blanks masked, clues always visible) we build, for
each puzzle with its solution, two inputs with the same number ``m = round(r * blanks)`` of
masked cells:

- *random order*: ``m`` blanks masked uniformly at random (the training distribution); the
  loss is the mean cross-entropy ``-log p_theta(x^i = answer | x_t)`` over the masked cells;
- *solver's order*: the last ``m`` blanks of the solver's order masked (ties within a round in
  random order); the loss is over the masked cells of the round the solver fills next, each
  deducible from the visible cells by one round of singles (the next-token subproblems an
  autoregressive model trained in the solver's order learns).
"""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_int
from icml25.mdm_order.sampling import predictor
from icml25.mdm_order.sudoku import check_grids, singles_rounds


def order_losses(model, puzzles, solutions, ratios, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Mean cross-entropy per cell ``(R,)`` on random-order masks and ``(R,)`` on the solver's
    order, at each masking ratio of ``ratios`` ``(R,)`` in ``(0, 1]`` (module docstring).

    ``puzzles`` must be solved by singles (every blank has a round); ``model`` as in
    :func:`~icml25.mdm_order.sampling.predictor`.
    """
    puzzles = check_grids("puzzles", puzzles)
    solutions = check_grids("solutions", solutions, blanks=False)
    if puzzles.shape != solutions.shape or ((puzzles > 0) & (puzzles != solutions)).any():
        raise ValueError("solutions must have the shape of puzzles and agree with their clues")
    ratios = np.asarray(ratios, dtype=float).ravel()
    if ratios.size == 0 or (ratios <= 0).any() or (ratios > 1).any():
        raise ValueError(f"ratios must be fractions in (0, 1], got {ratios}")
    rounds = singles_rounds(puzzles)  # (N, 81)
    if (rounds < 0).any():
        raise ValueError("puzzles must be solved by naked and hidden singles")
    check_int("seed", seed, minimum=0)
    rng = np.random.default_rng(seed)
    predict = predictor(model)
    blank = puzzles == 0  # (N, 81)
    n_blank = blank.sum(1)  # (N,)
    rows = np.arange(len(puzzles))
    # ranks of the blanks (clues first, rank < 0 never masked): random, and the solver's order
    tie = rng.random(blank.shape)
    random_key = np.where(blank, rng.random(blank.shape), -1.0)
    solver_key = np.where(blank, rounds + tie, -1.0)
    out = np.zeros((2, ratios.size))
    for j, r in enumerate(ratios):
        m = np.maximum(np.rint(r * n_blank).astype(np.int64), 1)  # (N,) cells masked
        for k, key in enumerate((random_key, solver_key)):
            rank = key.argsort(1).argsort(1) - (81 - n_blank)[:, None]  # blanks: 0..n_blank-1
            masked = rank >= (n_blank - m)[:, None]  # (N, 81)
            if k == 0:
                target = masked
            else:  # the solver's next round: that of the first masked cell
                first = np.where(masked, rank, 81).argmin(1)  # (N,)
                target = masked & (rounds == rounds[rows, first][:, None])
            probs = predict(np.where(masked, 0, solutions))  # (N, 81, 9)
            p = np.take_along_axis(probs, (solutions - 1)[..., None], -1)[..., 0]
            out[k, j] = (-np.log(np.maximum(p, 1e-12)) * target).sum() / target.sum()
    return out[0], out[1]
