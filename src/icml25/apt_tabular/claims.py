"""The claims and checks of apt_tabular, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import DIAGNOSTIC, Claim

CLAIMS = (
    Claim(
        "a",
        "Many classes, zero-shot: on held-out synthetic tasks from the prior (a seed never used "
        "in pre-training) with 15, 20 and 25 classes (pre-training saw at most 10), the test "
        "accuracy of the adversarially pre-trained model divided by chance (1/K), mean over "
        "tasks, class counts and pre-training seeds.",
        "a_acc_over_chance",
        ">=",
        3.0,
        paper_value="mixture block handles any number of classes (> 10)",
        source="Abstract; Sec. 3.2",
        replicates="a_acc_over_chance[seed=*]",
    ),
    Claim(
        "b",
        "Adversarial pre-training helps: mean over 3 pre-training seeds, the 4 real data sets "
        "(iris, wine, breast_cancer, digits; at most 500 rows) and 5 splits of ROC AUC "
        "(one-vs-rest) of the adversarial model minus that of the plain one (same steps, lr, "
        "seeds and datasets per batch, all fixed random draws).",
        "b_auc_gap_adversarial_minus_plain",
        ">=",
        0.0,
        paper_value="adversarial agents improve over plain synthetic pre-training",
        source="Abstract; Sec. 4 ablation",
        replicates="b_gap_*",
    ),
    Claim(
        "c",
        "Competitive without training: number of the 4 small data sets (n <= 500: iris, wine, "
        "breast_cancer and digits subsampled to 500 rows) on which the mean AUC of APT "
        "(adversarial, over seeds and splits) is at least the best scikit-learn baseline's "
        "(logistic regression, random forest, HistGradientBoosting; defaults, same splits) "
        "minus 0.05; all 4 must pass.",
        "c_datasets_within_0.05",
        ">=",
        4.0,
        paper_value="on par with state-of-the-art GBDTs on small data sets",
        source="Abstract; Sec. 4",
    ),
    Claim(
        "d",
        "The mixture block matters: on held-out synthetic tasks with 12, 15, 20 and 25 classes, "
        "accuracy of the mixture model minus that of the same transformer with a fixed 10-class "
        "softmax head, pre-trained identically (adversarial, same prior of 2-10 classes), mean "
        "over the paired pre-training seeds; the head still gets partial credit on the rows of "
        "its first 10 classes, so it can win if the mixture read-out is poor.",
        "d_acc_gap_mixture_minus_head",
        ">",
        0.0,
        paper_value="no fixed output head: any number of classes",
        source="Sec. 3.2",
        replicates="d_acc_gap[seed=*]",
    ),
    Claim(
        "why_c_width",
        "Is digits' width (64 features, pre-training saw at most 30) why (c) fails there? APT "
        "(adversarial) AUC on digits projected on 30 principal components of the training "
        "split, minus its AUC on the raw pixels (mean over seeds and splits).",
        "c_digits_pca30_minus_raw",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "why_c_integer",
        "Are digits' integer pixels (0-16) why (c) fails there? APT (adversarial) AUC on digits "
        "with U(0, 1) noise added to every pixel (continuous, same width), minus its AUC on the "
        "raw pixels (mean over seeds and splits).",
        "c_digits_dequantised_minus_raw",
        kind=DIAGNOSTIC,
    ),
)

# AUC and accuracy are sums of deterministic single-thread forward passes; times are wall clock
TOLERANCES = {"pretrain_seconds_mean": None}
