"""The claims of the mlc_rcn reproduction, declared before any run.

This file imports nothing but the lab's ``Claim``: the lab reads it without importing the
paper's package, so that ``icml25 show`` needs no torch. It is not part of the cells'
computation, and the code fingerprint leaves it out: editing a claim re-judges cached cells.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a",
        "Two labels: the noise-corrected SQ perceptron's 0-1 error approaches the optimum: "
        "err(h) - opt at n = 20000, the largest over noise matrices, marginals and seeds.",
        "binary_excess_max_n20000",
        "<=",
        0.02,
        paper_value="optimal error in polynomial time for two labels (prior work)",
        source="Abstract",
    ),
    Claim(
        "b",
        "The Bayes classifier of the noisy labels equals the clean linear classifier when "
        "H_ii > H_ij (sigma > 0): fraction of points where the Monte Carlo noisy-label Bayes "
        "classifier equals f(x), the smallest over random instances with sigma > 0.",
        "bayes_agreement_min_positive_sigma",
        ">=",
        1.0,
        kind="check",
    ),
)
