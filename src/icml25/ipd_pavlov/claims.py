"""The claims and checks of ipd_pavlov, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a",
        "From the always-defect start, self-play Q-learning ends in Pavlov (win-stay, "
        "lose-shift): the smallest Pavlov rate over all cells with epsilon <= 0.05.",
        metric="min_pavlov_rate_small_epsilon",
        comparison=">=",
        threshold=0.9,
        paper_value="Pavlov with high probability for small alpha, epsilon",
        source="Theorem 3.3, Fig. 4",
    ),
    Claim(
        "b",
        "Control: with Q0 halved the learners do not reach Pavlov: the largest Pavlov rate "
        "over the alphas and epsilons <= 0.05.",
        metric="max_pavlov_rate_q0_halved",
        comparison="<=",
        threshold=0.2,
    ),
    Claim(
        "c",
        "Control: with g = 1.1 and gamma = 0.3 Pavlov is not a fixed point and is not learnt: "
        "the largest Pavlov rate over the alphas and epsilons <= 0.05.",
        metric="max_pavlov_rate_not_fixed_point",
        comparison="<=",
        threshold=0.2,
        paper_value="Pavlov is a fixed point iff gamma (R - P) > T - R",
        source="Theorems 3.2, 3.3 (condition)",
    ),
    Claim(
        "d",
        "Theorem 3.2 (epsilon = 0): every run goes always-defect -> lose-shift -> Pavlov and "
        "through no other policy: the fraction of epsilon = 0 runs whose path is exactly that.",
        metric="three_phase_rate_epsilon0",
        comparison=">=",
        threshold=1.0,
        paper_value="DDDD -> CDDD -> CDDC, deterministic",
        source="Theorem 3.2",
    ),
)
