"""The claims and checks of maxmin_eig, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a1",
        "Rank one: the mean increase ratio of a rounding draw, (value - lambda_min(M)) / "
        "(bound - lambda_min(M)), rises with the margin gap / (R ln k): Spearman correlation "
        "across sweep points.",
        "spearman_rank1",
        ">=",
        0.8,
        paper_value="constant-factor approximation once OPT - lambda_min(M) = Omega(R ln k)",
        source="Abstract",
    ),
    Claim(
        "a2",
        "Rank one: at every sweep point with gap / (R ln k) >= 1.5 the mean increase "
        "ratio of a rounding draw is at least 1/2: the smallest such mean.",
        "min_regime_ratio_rank1",
        ">=",
        0.5,
        replicates="ratio_in_regime[rank1,point={group},replicate=*]",
        across="min",
        paper_value="constant-factor approximation once OPT - lambda_min(M) = Omega(R ln k)",
        source="Abstract",
    ),
    Claim(
        "b",
        "Against the optimum on 50 small instances (m <= 16, exact enumeration) in the "
        "regime: the fraction where rounding reaches half the optimal increase.",
        "small_half_opt_rate",
        ">=",
        0.9,
        replicates="half_opt[small,instance=*]",
        paper_value="constant-factor approximation once OPT - lambda_min(M) = Omega(R ln k)",
        source="Abstract",
    ),
    Claim(
        "c1",
        "Ranks 2 and 3: the Spearman correlation of (a1), the smaller of the two.",
        "spearman_rank23_min",
        ">=",
        0.8,
        paper_value="augmentation matrices of any rank, not only rank one",
        source="Abstract",
    ),
    Claim(
        "c2",
        "Ranks 2 and 3: the smallest mean increase ratio at sweep points with "
        "gap / (R ln k) >= 1.5, as in (a2).",
        "min_regime_ratio_rank23",
        ">=",
        0.5,
        replicates="ratio_in_regime[rank23,point={group},replicate=*]",
        across="min",
        paper_value="augmentation matrices of any rank, not only rank one",
        source="Abstract",
    ),
    Claim(
        "d",
        "Intrinsic dimension: with k, R and the margin fixed, the probability that a draw "
        "gets less than half the bound's increase does not grow from n = 30 to n = 120: "
        "max(p_120, 0.05) / max(p_30, 0.05) (so 'both <= 0.05' gives 1), while the "
        "classical matrix Chernoff bound's dimension factor grows 4x.",
        "failure_growth",
        "<=",
        1.5,
        paper_value="lower-tail matrix Chernoff with an intrinsic dimension, not n",
        source="Abstract",
    ),
)
