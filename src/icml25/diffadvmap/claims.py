"""The claims and checks of diffadvmap, declared before any run.

The protocol is in ``icml25.lab.reproduction``. "PGD at matched success" is PGD-Linf on the
surrogate at the smallest epsilon of the declared grid whose white-box success rate reaches
DiffAdvMAP's ("at the same white-box success").
"""

from icml25.lab.claims import DIAGNOSTIC, Claim

CLAIMS = (
    Claim(
        "a",
        "White-box: DiffAdvMAP's success rate against the undefended surrogate (the CNN), over "
        "test digits the surrogate classifies correctly.",
        "a_whitebox_success",
        ">=",
        0.90,
        paper_value="near 100% white-box success on ImageNet classifiers",
        source="Abstract; official code configs/imagenet_perturb.yaml",
        replicates="a_whitebox_success[replicate=*]",
    ),
    Claim(
        "b",
        "Transfer: success rate on the other classifier (the MLP) of DiffAdvMAP images crafted "
        "on the CNN, minus that of PGD at matched white-box success.",
        "b_transfer_gap",
        ">",
        0.0,
        paper_value="better transferability than baseline unrestricted attacks",
        source="Abstract",
        replicates="b_transfer_gap[replicate=*]",
    ),
    Claim(
        "c1",
        "Natural (detector), from the adversarial term: a real-versus-fake CNN trained on clean "
        "against PGD images (training digits) has a lower ROC AUC on held-out clean against "
        "DiffAdvMAP images than on held-out clean against the prior's own reconstruction from "
        "t* without the adversarial term (c_adv = 0): AUC(DiffAdvMAP) - AUC(reconstruction). "
        "Against PGD, the regeneration alone already passes (diagnostic c1_vs_pgd).",
        "c_auc_gap_vs_reconstruction",
        "<",
        0.0,
        paper_value="more natural UAEs than baselines",
        source="Abstract",
        replicates="c_auc_gap_vs_reconstruction[replicate=*]",
    ),
    Claim(
        "c1_vs_pgd",
        "Does a detector trained on PGD images miss DiffAdvMAP's images more than PGD's? "
        "AUC(DiffAdvMAP) - AUC(PGD), compared with the reconstruction's own AUC beside it.",
        "c_auc_gap",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "why_c1_off_manifold",
        "Does the adversarial term move the images away from the data? Mean nearest-neighbour "
        "feature distance to the training digits, DiffAdvMAP minus the reconstruction without "
        "the adversarial term (the clean test digits' own distance is beside it).",
        "c_nn_distance_gap_vs_reconstruction",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "c2",
        "Natural (features): the mean nearest-neighbour distance from the adversarial images to "
        "the training digits, in the features of an independently trained CNN, is lower for "
        "DiffAdvMAP than for PGD at matched success: distance(DiffAdvMAP) - distance(PGD).",
        "c_nn_distance_gap",
        "<",
        0.0,
        paper_value="better image quality (FID) than baselines",
        source="Abstract",
        replicates="c_nn_distance_gap[replicate=*]",
    ),
    Claim(
        "d",
        "Defences: success rate against a PGD-adversarially-trained CNN of images crafted on "
        "the surrogate, DiffAdvMAP minus PGD at matched white-box success.",
        "d_defended_gap",
        ">",
        0.0,
        paper_value="excellent defence robustness",
        source="Abstract",
        replicates="d_defended_gap[replicate=*]",
    ),
    Claim(
        "range",
        "Every DiffAdvMAP, pixel-space and PGD image lies in [-1, 1] and every PGD image within "
        "its epsilon ball: the largest violation (holds by construction: both are projected).",
        "check_max_violation",
        "<=",
        1e-6,
        kind="check",
    ),
)

TOLERANCES = {"ddpm_train_seconds": None, "attack_seconds_per_image": None}
