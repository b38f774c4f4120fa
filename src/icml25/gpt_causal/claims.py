"""The claims and checks of gpt_causal, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import DIAGNOSTIC, Claim

B_FOLDS = 10  # claim b_spearman: disjoint folds of the OOD games, its replicates

CLAIMS = (
    Claim(
        "a",
        "The GPT learns the game: on in-distribution prefixes (held-out games of the greedy "
        "'intent to win' generator, one prefix of random length per game), its top-1 next "
        "move is legal in at least 90% of them.",
        "a_id_legal_rate",
        ">=",
        0.90,
        paper_value="about 0.95 (95% legal moves), 8x8 (from a summary of the paper, not its text)",
        source="Sec. 5 (Othello experiments)",
    ),
    Claim(
        "b_spearman",
        "Out of distribution (prefixes of uniformly random legal games), the legal-move rate "
        "rises with the structural confidence: the Spearman correlation between a prefix's "
        "confidence and whether the GPT's top-1 move is legal, over all OOD prefixes, is > 0; "
        f"its interval is the t-interval over {B_FOLDS} disjoint folds of the games. The "
        "confidence is our STAND-IN (the paper's exact score was not recovered): the mean over "
        "the CI tests of the ordered causal search on the attention correlation of "
        "|log p - log alpha|.",
        "b_spearman",
        ">",
        0.0,
        paper_value="legal-move rate increases with the structural confidence",
        source="Abstract; Sec. 5 (legal-move rate against confidence)",
        replicates="b_spearman[fold=*]",
    ),
    Claim(
        "b_gap",
        "Out of distribution, the legal-move rate of the top confidence quintile minus that of "
        "the bottom quintile is at least 5 points (stand-in confidence, as in b_spearman).",
        "b_gap",
        ">=",
        0.05,
        paper_value="illegal moves come with low structural confidence",
        source="Abstract; Sec. 5",
    ),
    Claim(
        "c",
        "Out of distribution, the (stand-in) structural confidence predicts a legal move at "
        "least as well as the model's own top probability: AUC(confidence) - AUC(top "
        "probability) >= 0 (the attention entropy's AUC is reported beside them).",
        "c_auc_gap",
        ">=",
        0.0,
        paper_value="not stated; the issue's comparison with simple signals",
        source="issue 18",
    ),
    Claim(
        "train_plateau",
        "Had the validation loss stopped falling in the last quarter of training? Its relative "
        "change over that quarter, |first - last| / last.",
        "val_loss_rel_change_last_quarter",
        kind=DIAGNOSTIC,
    ),
)


# wall-clock measurements (default scale only): shown beside the committed ones by --compare,
# never compared
TOLERANCES = {"train_seconds": None, "discovery_ms_per_prefix": None}
