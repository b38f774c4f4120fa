"""The claims and checks of social_choice, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a",
        "With beta-accurate Disc and (gamma, delta, mu)-accurate Gen, no group deviates beyond "
        "the theorem's guarantee (slack c > 2 beta + delta with ratio d >= 1 / (gamma mu); the "
        "constants as in the official synthetic code): number of (setting, instance) pairs, over "
        "the four error settings, whose slate has such a group.",
        "guarantee_violations",
        "<=",
        0.0,
        paper_value="no group deviates with slack c > 2 beta + delta and ratio d > 1/(gamma mu)",
        source="Abstract; constants from the official code",
    ),
    Claim(
        "b",
        "With exact queries the slate satisfies cBJR: number of instances with a group of "
        "d >= 1 at slack c = 0.",
        "exact_cbjr_violations",
        "<=",
        0.0,
        paper_value="cBJR holds with exact queries",
    ),
    Claim(
        "c",
        "On opinion texts, the slate's mean utility (ground-truth utility of the template "
        "model, not the oracle's) beats the k-means medoid baseline at the same word budget: "
        "mean over instances of (ours - baseline).",
        "text_mean_gain",
        ">",
        0.0,
        paper_value="Bowling Green mean utility: PROSE 3.54 vs clustering 2.79",
        replicates="text_gain[replicate=*]",
    ),
)
