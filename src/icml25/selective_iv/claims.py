"""The claims and checks of selective_iv, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a_point",
        "nucem setting: mean test accuracy of point-identification UCL minus that of "
        "selected-sample ERM (means over confounding strengths and seeds).",
        "nucem_point_minus_selected",
        ">=",
        0.02,
        paper_value="UCL's efficacy validated numerically",
        source="Abstract",
    ),
    Claim(
        "a_partial",
        "nucem setting: mean test accuracy of partial-identification UCL minus that of "
        "selected-sample ERM.",
        "nucem_partial_minus_selected",
        ">=",
        0.02,
        paper_value="UCL's efficacy validated numerically",
        source="Abstract",
    ),
    Claim(
        "b",
        "uc setting (point identification fails): mean accuracy of partial UCL minus point UCL.",
        "uc_partial_minus_point",
        ">=",
        0.0,
        paper_value="partial-identification bounds when exact identification fails",
        source="Abstract",
    ),
    Claim(
        "c",
        "Neither UCL variant beats the full-label oracle by more than noise: the largest, over "
        "both settings and both variants, of mean accuracy minus the oracle's.",
        "ucl_minus_oracle_max",
        "<=",
        0.01,
    ),
)
