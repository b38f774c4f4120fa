"""The claims and checks of mdm_order, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

LOSS_FLOOR = 1e-3  # nats: a planner whose chosen cells cost 0 still gives a finite ratio
HIGH_RATIO = 0.5  # claim (f) is judged on the masking ratios at or above this (declared first)


CLAIMS = (
    Claim(
        "a",
        "Adaptive planning works: top_margin decoding (steps reverse steps) solves this fraction "
        "of held-out singles-solvable puzzles (paper: 89.49%).",
        "acc_top_margin",
        ">=",
        0.60,
        replicates="acc_top_margin[model=*]",
        paper_value="0.8949 (89.49%)",
        source="Table 2",
    ),
    Claim(
        "b",
        "Random order fails: vanilla MDM decoding solves this fraction (paper: 6.88%).",
        "acc_vanilla",
        "<=",
        0.20,
        replicates="acc_vanilla[model=*]",
        paper_value="0.0688 (6.88%)",
        source="Table 2",
    ),
    Claim(
        "c",
        "Adaptive is several times vanilla: top_margin accuracy over vanilla accuracy (vanilla "
        "floored at one puzzle of the test set, so that 0 gives a finite ratio).",
        "adaptive_over_vanilla",
        ">=",
        3.0,
        replicates="adaptive_over_vanilla[model=*]",
        paper_value="13 (89.49% / 6.88%)",
        source="Table 2",
    ),
    Claim(
        "d",
        "Margin beats top probability on hard puzzles: top_margin minus top_prob "
        "accuracy on the hard split (unique puzzles whose solver search needs at least "
        "min_guesses guesses), both with the official code's Gumbel noise (scale 0.5 on the "
        "log-score, annealed with the fraction still masked); paper: +40 points.",
        "margin_minus_prob_hard",
        ">=",
        0.10,
        replicates="margin_minus_prob_hard[model=*]",
        paper_value="0.404 (49.88% - 9.44%)",
        source="Table 5",
    ),
    Claim(
        "e",
        "The cells random order decodes cost more than those top_margin decodes (teacher-"
        f"forced, both floored at {LOSS_FLOOR} nats). A check: top_margin picks "
        "the cells the model is surest of, so any model better than chance passes it.",
        "loss_ratio_vanilla_over_margin",
        ">=",
        1.5,
        kind="check",
        paper_value="higher loss on the hard subproblems (qualitative)",
        source="Fig. 2",
    ),
    Claim(
        "f",
        "Training spends capacity on hard subproblems: the model's mean loss per "
        "cell on random-order masks (the training distribution) over its loss on the cells the "
        f"solver fills next at the same masking ratio, averaged over the ratios >= {HIGH_RATIO}; "
        "a model for which the subproblems random masking creates were no harder would give 1.",
        "loss_ratio_random_over_solver_high",
        ">=",
        2.0,
        replicates="loss_ratio_random_over_solver_high[model=*]",
        paper_value="much higher loss on hard subproblems (qualitative)",
        source="Sec. 3, Fig. 2",
    ),
)

# Wall-clock throughputs: `icml25 run mdm_order --compare` shows them, never compares them.
TOLERANCES = {
    "train_puzzles_per_second": None,
    "decode_puzzles_per_second_vanilla": None,
    "decode_puzzles_per_second_top_prob": None,
    "decode_puzzles_per_second_top_margin": None,
}
