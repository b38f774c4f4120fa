"""The claims and checks of relu_threshold, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import DIAGNOSTIC, Claim

CLAIMS = (
    Claim(
        "a1",
        "Above the threshold (n >= 256), every seed: train loss / OLS train loss >= 0.9 "
        "(the network does not interpolate): the smallest ratio.",
        "min_train_ratio_large_n",
        ">=",
        0.9,
        paper_value="above n*: interpolation is not reached",
        source="Abstract",
    ),
    Claim(
        "a2",
        "Above the threshold, every seed: train loss / OLS train loss <= 1.05: the largest ratio.",
        "max_train_ratio_large_n",
        "<=",
        1.05,
        paper_value="approximates the ground truth, not a global minimum",
        source="Abstract",
    ),
    Claim(
        "a3",
        "Above the threshold (n >= 256), from the vanishing start the paper's result is about "
        "(lambda = 1e-6), every seed: test excess risk < 2 x sigma^2 d / (2n), twice the "
        "expected excess of OLS, the rate of the paper's estimator (judged in absolute excess "
        "risk, not against each seed's own OLS excess): the largest ratio.",
        "max_excess_over_rate_tiny_large_n",
        "<",
        2.0,
        paper_value="drastic improvement on the test loss; OLS-like, excess ~ sigma^2 d / n",
        source="Abstract; the rate from our notes on its theorem (not checked on the PDF)",
    ),
    Claim(
        "b",
        "Below it (n <= 24): in at least half the seeds the network fits the training data "
        "better than OLS (train / OLS train < 0.8), which no seed does above it (a1): the "
        "smallest, over n <= 24, fraction of seeds doing so, with its Wilson interval (the "
        "test loss is not part of it: 'test >= 3x OLS' holds on both sides of the threshold).",
        "min_fit_below_ols_fraction_small_n",
        ">=",
        0.5,
        replicates="fits_below_ols[n={group},seed=*]",
        across="min",
        ci="wilson",
        paper_value="below n*: global minima of the training loss",
        source="Abstract",
    ),
    Claim(
        "c",
        "Lazy control (lambda = 1) does not match OLS at large n: the fraction of its "
        "runs at n = 256 meeting (a1)-(a3)'s criteria (train / OLS train in [0.9, 1.05], test "
        "excess < 2 sigma^2 d / (2n)), with its Wilson interval (threshold ours: the issue "
        "gives none).",
        "lazy_match_fraction",
        "<=",
        0.2,
        replicates="lazy_match[n=*,seed=*]",
        ci="wilson",
    ),
    Claim(
        "d",
        "Early alignment: at the end of the alignment phase the top-2 neuron directions "
        "hold >= 80% of the output weight mass: the median over small-init runs.",
        "median_top2_mass_after_alignment",
        ">=",
        0.8,
        paper_value="neurons align toward few directions",
        source="Abstract",
    ),
    Claim(
        "why_a3_tinier",
        "Does a 10^6 times smaller start (lambda = 1e-12) stay at OLS's point for the whole "
        "horizon? The fraction of its runs at n = 256 whose train loss falls below 0.999 x "
        "OLS's (leaves OLS's point).",
        "escaped_fraction[tinier,n=256]",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "why_a3_tinier_excess",
        "And its test excess: the largest over its runs at n = 256 of test excess / "
        "(sigma^2 d / 2n), (a3)'s metric from lambda = 1e-12.",
        "max_excess_over_rate[tinier,n=256]",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "why_a3_ols",
        "Does OLS itself meet (a3)'s bound in every seed? The largest over the (a3) cell's seeds "
        "of OLS's own test excess / (sigma^2 d / 2n) on the same data (bound: < 2).",
        "max_ols_excess_over_rate[tiny,n=256]",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "why_a3_stepsize",
        "Is the step size the cause of leaving OLS's point? The stepsize cell trains the "
        "lambda = 1e-3, n = 256 setting with step 0.05 and with a 4x smaller step to the same "
        "gradient-flow time: half the mean squared difference of the two networks' test "
        "predictions over sigma^2 d / 2n, the largest over seeds.",
        "max_prediction_gap_over_rate[stepsize,n=256]",
        kind=DIAGNOSTIC,
    ),
)
