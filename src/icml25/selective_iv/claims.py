"""The claims of the selective_iv reproduction, declared before any run.

This file imports nothing but the lab's ``Claim``: the lab reads it without importing the
paper's package, so that ``icml25 show`` needs no torch. It is not part of the cells'
computation, and the code fingerprint leaves it out: editing a claim re-judges cached cells.
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
