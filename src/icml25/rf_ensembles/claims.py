"""The claims and checks of rf_ensembles, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a1",
        "Gaussian mode: the ensemble mean equals the kernel predictor h_inf(x) = k(x)^T K^-1 y "
        "within 3 standard errors: max |z| over widths {20, 50, 200} and the test inputs, "
        "z = (mean of members - h_inf) / (sd of members / sqrt(members)).",
        "a_max_abs_z_mean",
        "<=",
        3.0,
        paper_value="infinite ensemble = infinite-width RF regressor, pointwise",
        source="Abstract; Fig. 1",
    ),
    Claim(
        "a2",
        "Gaussian mode: the members' variance matches r_perp^2(x) y^T K^-1 y / (D - N - 1) "
        "within 3 standard errors: max |z| over the same widths and inputs, the standard error "
        "of the sample variance being sqrt((m4 - s^4) / members).",
        "a_max_abs_z_variance",
        "<=",
        3.0,
        paper_value="Var = r_perp^2 y^T K^-1 y / (D - N - 1)",
    ),
    Claim(
        "b",
        "Equal budget, Gaussian mode: the test-MSE gap, ensemble of M models of width D minus "
        "one model of width M D, matches the closed form mean_x r_perp^2 y^T K^-1 y "
        "[1/(M(D-N-1)) - 1/(MD-N-1)]: max |z| over M (the issue fixes no number; we use the "
        "3 standard errors of claim a).",
        "b_max_abs_z_gap",
        "<=",
        3.0,
        paper_value="finite ensembles rapidly converge to one model of the same budget",
        source="Abstract; Fig. 3",
    ),
    Claim(
        "c",
        "ReLU mode: the mean |ensemble - h_inf| over test inputs shrinks as the width grows: "
        "the longest run of consecutive widths of the declared grid (all > N) along which it "
        "strictly decreases.",
        "c_decreasing_run",
        ">=",
        4.0,
        paper_value="|ensemble - kernel predictor| shrinks as D grows",
        source="Fig. 2",
    ),
    Claim(
        "d",
        "ReLU mode: the members' predictive variance over a grid of inputs correlates with "
        "r_perp^2(x): Pearson correlation, mean over the training sets.",
        "d_mean_correlation",
        ">=",
        0.95,
        paper_value="members' variance tracks r_perp^2(x)",
        source="Fig. 4",
        replicates="d_correlation_set*",
    ),
)
