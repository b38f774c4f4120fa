"""The claims and checks of zigzag_layers, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

# (a) and (b) are checks: (a) compares two implementations of one barcode (dionysus' FastZigzag
# cone and its plain zigzag algorithm), (b) the zigzag barcode's Betti numbers with static
# homology, equal by algebra (a bar alive at a layer is a class of that layer's homology). Both
# validate our pipeline; neither could fail if the paper's findings were false.
CLAIMS = (
    Claim(
        "a",
        "Correctness: on random small zigzag filtrations, the FastZigzag barcode (dionysus cone) "
        "equals the plain zigzag algorithm's bar for bar: number of filtrations where they "
        "differ.",
        "fast_plain_mismatches",
        "<=",
        0.0,
        kind="check",
    ),
    Claim(
        "b",
        "Consistency: the Betti numbers read off the zigzag barcode equal GUDHI's static "
        "homology of each layer's complex in H0 and H1: number of (filtration, layer, "
        "dimension) disagreements over the random filtrations and every layer of the model's.",
        "betti_mismatches",
        "<=",
        0.0,
        kind="check",
    ),
    Claim(
        "c",
        "Sensitivity: the descriptor distance (||PHSim_1(A) - PHSim_1(B)||_F / |A|) between "
        "halves of two prompt families over the distance between the two random halves of one "
        "family (mean over family pairs / mean over families, over random splits), at the "
        "largest family size of the scale.",
        "sensitivity_ratio",
        ">",
        3.0,
        paper_value="descriptors sensitive to models and data sets",
        source="Abstract",
    ),
    Claim(
        "d1",
        "Pruning keeps the linear probe (family from the final embedding) at least as well as "
        "a random choice of as many blocks: zigzag accuracy minus the mean over all choices, in "
        "points, the smallest over the numbers of removed blocks.",
        "probe_margin_vs_random",
        ">=",
        0.0,
    ),
    Claim(
        "d2",
        "... and the cosine agreement with the full model's embedding: zigzag minus the mean "
        "over all choices, in points (x100), the smallest over the numbers of removed blocks.",
        "cosine_margin_vs_random",
        ">=",
        0.0,
    ),
    Claim(
        "d3",
        "Within 5 points of the angular-distance rule on the probe: angular accuracy minus "
        "zigzag accuracy, in points, the largest over the numbers of removed blocks.",
        "probe_gap_to_angular",
        "<=",
        5.0,
        paper_value="comparable to state-of-the-art pruning",
        source="Abstract",
    ),
    Claim(
        "d4",
        "... and on cosine agreement: angular minus zigzag, in points (x100), the largest over "
        "the numbers of removed blocks.",
        "cosine_gap_to_angular",
        "<=",
        5.0,
        paper_value="comparable to state-of-the-art pruning",
        source="Abstract",
    ),
)
