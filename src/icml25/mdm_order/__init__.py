"""Token ordering in masked diffusion models, on Sudoku (Kim et al., ICML 2025).

Kim, Shah, Kontonis, Kakade & Chen, *Train for the Worst, Plan for the Best: Understanding
Token Ordering in Masked Diffusions*, ICML 2025 (no official code; the model and the decoding
follow HKUNLP/diffusion-vs-ar, which the paper reuses).

>>> from icml25.mdm_order import accuracy, legal_candidates, make_puzzles, solve
>>> puzzles, solutions = make_puzzles(20, givens=(30, 36), kind="singles", seed=0, pool=4)
>>> accuracy(solve(puzzles, legal_candidates, "top_margin", steps=50, seed=0), solutions)
1.0
"""

from icml25.mdm_order.adaptive import (
    STRATEGIES,
    Decoding,
    adaptive_decode,
    planner_scores,
    unmask_counts,
)
from icml25.mdm_order.generate import augment, make_puzzles, random_solutions
from icml25.mdm_order.model import (
    MDMConfig,
    SudokuMDM,
    TrainLog,
    load_model,
    mdm_loss,
    state_dict_numpy,
    train_mdm,
)
from icml25.mdm_order.sampling import (
    accuracy,
    decode,
    digit_logits,
    legal_candidates,
    predictor,
    solve,
)
from icml25.mdm_order.sudoku import (
    check_grids,
    count_solutions,
    propagate,
    search_effort,
    singles_rounds,
    singles_solvable,
    solve_exact,
    to_candidates,
    to_grids,
)

__all__ = [
    "MDMConfig",
    "STRATEGIES",
    "Decoding",
    "SudokuMDM",
    "TrainLog",
    "accuracy",
    "adaptive_decode",
    "augment",
    "check_grids",
    "count_solutions",
    "decode",
    "digit_logits",
    "legal_candidates",
    "load_model",
    "make_puzzles",
    "mdm_loss",
    "planner_scores",
    "predictor",
    "propagate",
    "random_solutions",
    "search_effort",
    "singles_rounds",
    "singles_solvable",
    "solve",
    "solve_exact",
    "state_dict_numpy",
    "to_candidates",
    "to_grids",
    "train_mdm",
    "unmask_counts",
]
