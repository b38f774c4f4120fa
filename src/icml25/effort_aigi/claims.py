"""The claims and checks of effort_aigi, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a",
        "Generalisation: trained on one generator, Effort's AUC on the unseen generators (mean "
        "over the two unseen ones and over 3 seeds) is >= that of full fine-tuning and of LoRA of "
        "(nearly) the same parameter count. Judged per training generator (DDPM, VAE, "
        "PCA-Gaussian): the metric is the smallest, over the three, of Effort's unseen AUC minus "
        "the better of full fine-tuning and LoRA.",
        "a_min_margin",
        ">=",
        0.0,
        paper_value="Effort beats full FT and LoRA on unseen generators (e.g. GenImage mean "
        "acc. 91.1 trained on SDv1.4)",
        source="Abstract; Tables 1-3",
        replicates="a_margin[vs={group},seed=*]",
        across="min",
    ),
    Claim(
        "b",
        "Mechanism: the feature space after Effort keeps a higher effective rank than after full "
        "fine-tuning: number of principal components explaining 90% of the variance of the "
        "test-set features (as the official pca_rank.py), mean over 3 seeds, Effort minus full "
        "fine-tuning; the smallest over the three training generators.",
        "b_min_erank_gap",
        ">",
        0.0,
        paper_value="naive fine-tuning collapses the feature space to a few principal "
        "components; Effort keeps it high-ranked",
        source="Abstract; Section 2 (PCA of features)",
        replicates="b_erank_gap[train={group},seed=*]",
        across="min",
    ),
    Claim(
        "c1",
        "Check: at initialisation the Effort-adapted backbone's features equal the original's "
        "(max abs difference over the test set, largest over seeds) within 1e-5.",
        "c_init_max_abs_diff",
        "<=",
        1e-5,
        kind="check",
        source="construction (W = W_p + U_r S_r V_r^T)",
    ),
    Claim(
        "c2",
        "Check: only the residual parameters train: the largest absolute change of any frozen "
        "(non-residual) backbone parameter during Effort's fine-tuning is 0.",
        "c_frozen_max_change",
        "<=",
        0.0,
        kind="check",
        source="construction (apply_effort freezes everything else)",
    ),
)

TOLERANCES = {
    "ddpm_train_seconds": None,
    "pretrain_seconds": None,
    "finetune_seconds_full": None,
    "finetune_seconds_lora": None,
    "finetune_seconds_effort": None,
}
