"""A causal world model underlying next-token prediction (Rohekar, Gurwicz, Yu, Aflalo and Lal,
ICML 2025, arXiv 2412.07446): a GPT's attention read as a structural causal model over the
input tokens, zero-shot causal discovery from it, and a structural confidence score; tested on
a small GPT trained on 6x6 Othello.

Public API:

- ``attention_correlation(A)``: the tokens' correlation matrix from attention (``A A^T``);
- ``ordered_causal_discovery(R, n, alpha, max_cond_size)``: an ordered constraint-based search
  with partial-correlation (Fisher z) CI tests;
- ``structural_confidence(structure, alpha)``: the (stand-in) confidence of a learned structure;
- ``partial_correlation``, ``fisher_z_log_pvalues``: the CI test itself, batched;
- ``play_games``, ``legal_moves``, ``flips``: the batched bitboard 6x6 Othello engine;
- ``train_gpt``, ``prefix_readouts``: the GPT on move sequences and its per-prefix read-outs.
"""

from icml25.gpt_causal.causal_discovery import (
    OrderedStructure,
    attention_correlation,
    fisher_z_log_pvalues,
    ordered_causal_discovery,
    partial_correlation,
    structural_confidence,
)
from icml25.gpt_causal.gpt import prefix_readouts, train_gpt
from icml25.gpt_causal.othello import flips, legal_moves, play_games

__all__ = [
    "OrderedStructure",
    "attention_correlation",
    "fisher_z_log_pvalues",
    "flips",
    "legal_moves",
    "ordered_causal_discovery",
    "partial_correlation",
    "play_games",
    "prefix_readouts",
    "structural_confidence",
    "train_gpt",
]
