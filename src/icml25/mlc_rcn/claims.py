"""The claims and checks of mlc_rcn, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
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
