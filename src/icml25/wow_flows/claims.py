"""The claims and checks of wow_flows, declared before any run.

The protocol is in ``icml25.lab.reproduction``.

Yardsticks. ``MMD`` is the square root of ``MMD_K^2`` (the distance, not its square), measured
on 500 directions fixed for the whole flow. ``W2(mu, nu) = sqrt(ot.emd2(a, b, M))`` with ``M`` the
squared Euclidean cost and uniform weights: the 2-Wasserstein distance (not its square) between
a flowed class and a ring, on the paper's ring scale (radius 0.3, centres 0.75 apart).
``WoW(P, Q) = sqrt(ot.emd2(1/C, 1/C, W))`` with ``W[c, c'] = W2(mu_c, nu_c')^2`` from POT: the
Wasserstein over Wasserstein distance, a kernel-independent yardstick for (d).

In the rings toy all three source classes are drawn from the same small Gaussian (official
notebook), so the objective is invariant to relabelling the classes and no ring is "ring c" a
priori: a flowed class's own ring is the ring the outer WoW coupling assigns it to (the official
``get_labels``); W2 to the ring with the same index is reported beside it.
"""

from icml25.lab.claims import DIAGNOSTIC, Claim

CLAIMS = (
    Claim(
        "a_mmd",
        "Rings, Riesz kernel (r = 1), official budget (501 steps, lr 0.1, no momentum): the MMD "
        "of the flowed dataset to the target falls by at least 95%: 1 - MMD(final) / MMD(init).",
        "a_riesz_mmd_drop",
        ">=",
        0.95,
        paper_value="source classes flow onto the three rings (loss decreases by orders of "
        "magnitude)",
        source="official rings notebook (MMD - SW based Kernel - Rings)",
    ),
    Claim(
        "a_w2",
        "Rings, Riesz kernel: every flowed class sits on one ring, not a mixture: the largest "
        "over classes of POT W2 between the flowed class and its ring (assigned by the outer OT "
        "coupling) is below 0.05.",
        "a_riesz_max_w2_to_own_ring",
        "<",
        0.05,
        paper_value="each class lands on a ring",
        source="official rings notebook; rings.gif in the official repository",
    ),
    Claim(
        "a_plateau",
        "Has the Riesz flow's MMD plateaued over the last stretch of steps? Rings, Riesz kernel: "
        "the range (max - min) of the MMD over the records of the last 10% of steps, over the "
        "initial MMD (small: a_mmd and a_w2 are judged at a plateau, not mid-descent).",
        "a_riesz_plateau_range",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "b",
        "Domain adaptation by flowing (the paper's transfer comparison): digits (source, "
        "unshifted) flowed toward k = 5 labelled stroke-thickened target images per class; "
        "logistic regression trained on the flowed source together with the shots beats the "
        "same classifier trained on the shots alone, on the thickened test set: accuracy "
        "difference in points, mean over 5 seeds.",
        "b_paper_gain_points_k5",
        ">=",
        3.0,
        paper_value="flowed data improves k-shot transfer (MNIST -> FMNIST, KMNIST, USPS)",
        source="transfer learning experiments (official xp_transfer_learning)",
        replicates="b_paper_gain_points_k5[rep=*]",
    ),
    Claim(
        "b_vs_unflowed",
        "How much of the flowed source's accuracy is the shift itself? Flowed minus unflowed "
        "source (no shots in either), k = 5, in points: training on the shots alone already "
        "beats the unflowed source by about as much.",
        "b_gain_points_k5",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "why_b_no_more_than_shots",
        "Does the flowed source carry more than the shots it was flowed to? Classifier on the "
        "flowed source alone minus classifier on the shots alone, k = 5, in points.",
        "b_flowed_minus_shots_only_points_k5",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "why_b_collapse",
        "Do the flowed images gather on the shots? Mean distance from each flowed image to the "
        "nearest shot of its class over that of the held-out target images, k = 5 (below 1: "
        "closer to the shots than real target digits are).",
        "b_nn_shot_distance_flowed_over_test_k5",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "c",
        "Distillation: 1 image per class flowed toward the digits training set (classes as "
        "distributions, Riesz kernel) trains a logistic regression better than 1 random real "
        "image per class (its own initialisation): test accuracy difference in points, mean over "
        "5 seeds.",
        "c_gain_points",
        ">=",
        5.0,
        paper_value="MMDSW distilled MNIST, 1 image/class, beats random real images",
        source="dataset distillation experiments (official xp_dataset_distillation)",
        replicates="c_gain_points[rep=*]",
    ),
    Claim(
        "c_vs_class_means",
        "Does the distilled image beat the plainest summary of its class? Classifier on the "
        "flowed images minus classifier on the 10 class-mean images of the training set, in "
        "points (beside claim c's gain over random real images).",
        "c_flowed_minus_class_means_points",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "d",
        "The kernel matters: at the same budget and step size (official rings: 501 steps, "
        "lr 0.1), the Riesz flow ends closer to the target than the Gaussian flow (h = 0.1, the "
        "official default) in the kernel-independent WoW distance: WoW(Riesz final, target) - "
        "WoW(Gaussian final, target) < 0.",
        "d_wow_riesz_minus_gaussian",
        "<",
        0.0,
        paper_value="Riesz SW kernel needs no bandwidth and flows well; Gaussian depends on h",
        source="abstract (MMD with SW kernels); official rings notebook h ablation",
    ),
)
