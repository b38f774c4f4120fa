"""The claims and checks of fhbi, declared before any run.

The protocol is in ``icml25.lab.reproduction``. FHBI's rho is chosen per dataset from the
declared grid by the validation NLL (never the test set); SVGD is FHBI with rho = 0 and the same
initial particles, mini-batches, learning rate, steps and kernel.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a1",
        "Algebra: with rho = 0 the vectorised FHBI step equals a plain, loop-by-loop SVGD step "
        "(autograd on each particle's nn.Module, the RBF kernel and its gradient written pair by "
        "pair, median bandwidth): max abs difference of the updated particles, 10 particles of "
        "the MLP on a batch of two-moons.",
        "a_rho0_vs_svgd_max_abs_diff",
        "<=",
        1e-6,
        kind="check",
        paper_value="rho = 0 recovers SVGD",
        source="Sec. 4, Algorithm 1",
    ),
    Claim(
        "a2",
        "Algebra: with one particle the FHBI step equals a plain SAM step on one nn.Module "
        "(torch.autograd): max abs difference of the updated parameters.",
        "a_m1_vs_sam_max_abs_diff",
        "<=",
        1e-6,
        kind="check",
        paper_value="one particle recovers SAM",
        source="Sec. 4",
    ),
    Claim(
        "b1",
        "Better posteriors: number of datasets (two-moons with 20% label noise, breast_cancer, "
        "digits) where FHBI's test NLL of the particle average (mean over 5 seeds) is below "
        "SVGD's; 10 particles of a one-hidden-layer MLP.",
        "b_datasets_fhbi_nll_below_svgd",
        ">=",
        2,
        paper_value="FHBI improves NLL and accuracy over SVGD",
        source="issue 17 (CPU version of Table 1)",
    ),
    Claim(
        "b2",
        "Accuracy not lost: the largest over the 3 datasets of (mean accuracy SVGD - mean "
        "accuracy FHBI), 5 seeds.",
        "b_max_accuracy_drop",
        "<=",
        0.01,
        paper_value="FHBI accuracy above SVGD",
        source="issue 17 (CPU version of Table 1)",
        replicates="accuracy_drop_svgd_minus_fhbi[dataset={group},seed=*]",
        across="max",
    ),
    Claim(
        "c",
        "Flatter: number of datasets where the largest Hessian eigenvalue of the training loss "
        "(power iteration, relative tolerance 1e-3), averaged over particles and seeds, is lower "
        "for FHBI than for SVGD.",
        "c_datasets_fhbi_sharpness_below_svgd",
        ">=",
        3,
        paper_value="FHBI particles have lower sharpness",
        source="Fig. 3 (sharpness per particle)",
    ),
    Claim(
        "d",
        "Diversity kept: the smallest over datasets of FHBI's particle diversity (mean pairwise "
        "total-variation distance of the predicted class probabilities on test inputs, mean "
        "over seeds) divided by SVGD's.",
        "d_min_diversity_ratio_fhbi_over_svgd",
        ">=",
        0.8,
        paper_value="FHBI keeps the particles' diversity",
        source="Fig. 4 (gradient diversity)",
    ),
)
