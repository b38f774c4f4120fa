"""The claims and checks of ucgs_avr, declared before any run.

Every claim is judged on the worst of the seeds (three at default scale): each seed's model must
pass, a mean over seeds would let one good seed carry a bad one. Chance: 1/8 with 8 candidates,
1/9 for odd-one-out among the 9 panels of a matrix.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a",
        "Matrix completion: the generative solver (trained only to predict hidden panels) "
        "picks the right one of 8 I-RAVEN candidates by the highest predictability, on "
        "held-out generated matrices; accuracy, minimum over seeds, at least 3x chance (1/8).",
        "a_matrix_accuracy_min",
        ">=",
        0.375,
        paper_value="RAVEN / I-RAVEN / PGM accuracy well above chance with one model",
        source="Abstract; Sec. 5 (Table 1)",
    ),
    Claim(
        "b1",
        "Zero-shot odd-one-out: the same model, never trained on the format, names the panel "
        "with the lowest predictability (each of the 9 panels hidden in turn); accuracy, "
        "minimum over seeds, at least 2x chance (2/9).",
        "b_odd_one_out_accuracy_min",
        ">=",
        0.2222,
        paper_value="zero-shot odd-one-out (O3) above chance",
        source="Abstract; Sec. 5 (zero-shot reasoning)",
    ),
    Claim(
        "b2",
        "Zero-shot analogy A : B :: C : ?: the same model, never trained on the format, picks "
        "the candidate with the highest predictability given A, B, C alone; accuracy, minimum "
        "over seeds, at least chance + 15 points (0.125 + 0.15).",
        "b_analogy_accuracy_min",
        ">=",
        0.275,
        paper_value="zero-shot visual analogy (VAP) above chance",
        source="Abstract; Sec. 5 (zero-shot reasoning)",
    ),
    Claim(
        "c",
        "No shortcut in the generated I-RAVEN candidate sets (a check of our generator): a "
        "model trained on the 8 candidates alone, without the context, stays within 5 points "
        "of chance; max over seeds of |accuracy - 1/8|.",
        "c_answer_only_gap_max",
        "<=",
        0.05,
        kind="check",
        paper_value="I-RAVEN candidate sets have no answer-only shortcut",
    ),
    Claim(
        "c_power",
        "The answer-only model can find a leak where there is one (so that check c can fail): "
        "on RAVEN-style candidate sets (each distractor changes one attribute of the answer) "
        "its accuracy, minimum over seeds, is at least 2x chance.",
        "c_answer_only_raven_accuracy_min",
        ">=",
        0.25,
        kind="check",
        paper_value="RAVEN's candidate sets leak the answer (the reason for I-RAVEN)",
    ),
    Claim(
        "d",
        "Held-out rule (type progression, never in training): the generative solver's "
        "accuracy drops less than the discriminative solver's, both trained on the same "
        "matrices; max over seeds of (drop generative - drop discriminative), drop = "
        "in-distribution accuracy - held-out accuracy, below 0.",
        "d_drop_difference_max",
        "<",
        0.0,
        paper_value="generative solver generalises to new rule-attribute pairs better",
        source="Sec. 5 (generalisation)",
    ),
)

TOLERANCES = {
    "generative_train_seconds": None,
    "discriminative_train_seconds": None,
    "generative_matrix_puzzles_per_second": None,
}
