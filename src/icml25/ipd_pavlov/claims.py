"""The claims and checks of ipd_pavlov, declared before any run.

The protocol is in ``icml25.lab.reproduction``. Every claim is measured over a final window of
steps (the last ``window`` share of a run whose horizon follows the learning dynamics), not on a
final snapshot; the fixed-point control is ``g = 1.5, gamma = 0.4`` (phases 1 and 2 still end,
Pavlov is not a fixed point). Claims (a), (b), (c) are judged on the 95% t-intervals of the
per-cell means of the runs' Pavlov shares, (e) and (f) on the 95% Wilson intervals of the
per-cell fractions of the runs' 0/1 outcomes (min or max over the cells), claim (g) on the
t-interval of its mean over the deep Q-learning seeds.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a",
        "From the always-defect start, self-play Q-learning ends in Pavlov (win-stay, "
        "lose-shift): the share of the final window spent in Pavlov (mean over runs), smallest "
        "over all cells with epsilon <= 0.05.",
        metric="min_pavlov_share_small_epsilon",
        comparison=">=",
        threshold=0.9,
        paper_value="Pavlov with high probability for small alpha, epsilon",
        source="Theorem 3.3, Fig. 4",
        replicates="pavlov_share[small_epsilon,cell={group},run=*]",
        across="min",
    ),
    Claim(
        "b",
        "Control: with Q0 halved the learners do not reach Pavlov: the share of the final window "
        "in Pavlov, largest over the alphas and epsilons <= 0.05.",
        metric="max_pavlov_share_q0_halved",
        comparison="<=",
        threshold=0.2,
        replicates="pavlov_share[q0_halved,cell={group},run=*]",
        across="max",
    ),
    Claim(
        "c",
        "Control: with g = 1.5 and gamma = 0.4, phases 1 and 2 still end but Pavlov is not a "
        "fixed point (gamma (R - P) = 0.4 <= T - R = 0.5), and Pavlov is not learnt: the share "
        "of the final window in Pavlov, largest over the alphas and 0 < epsilon <= 0.05.",
        metric="max_pavlov_share_not_fixed_point",
        comparison="<=",
        threshold=0.2,
        paper_value="Pavlov is learnt iff it is a fixed point, gamma (R - P) > T - R",
        source="Theorems 3.2, 3.3 (condition)",
        replicates="pavlov_share[not_fixed_point,cell={group},run=*]",
        across="max",
    ),
    Claim(
        "d",
        "Theorem 3.2 (epsilon = 0): every run goes always-defect -> lose-shift -> Pavlov and "
        "through no other policy: the fraction of epsilon = 0 runs whose path is exactly that, "
        "smallest over the cells (every run: a worst case over the runs, not a mean, so it "
        "takes no interval).",
        metric="three_phase_rate_epsilon0",
        comparison=">=",
        threshold=1.0,
        paper_value="DDDD -> CDDD -> CDDC, deterministic",
        source="Theorem 3.2",
    ),
    Claim(
        "e",
        "Without the fixed point (g = 1.5, gamma = 0.4) Pavlov is unstable: the fraction of runs "
        "whose greedy policy switches between lose-shift and Pavlov inside the final window, "
        "smallest over the alphas and 0 < epsilon <= 0.05.",
        metric="min_switching_rate_not_fixed_point",
        comparison=">=",
        threshold=0.9,
        replicates="switching[not_fixed_point,cell={group},run=*]",
        across="min",
        ci="wilson",
        paper_value="Pavlov is a fixed point iff gamma (R - P) > T - R",
        source="Theorems 3.2, 3.3 (condition)",
    ),
    Claim(
        "f",
        "With the fixed point (g = 1.8, gamma = 0.6) Pavlov is stable: the same fraction of runs "
        "switching between lose-shift and Pavlov inside the final window, largest over the "
        "alphas and 0 < epsilon <= 0.05.",
        metric="max_switching_rate_fixed_point",
        comparison="<=",
        threshold=0.1,
        replicates="switching[fixed_point,cell={group},run=*]",
        across="max",
        ci="wilson",
        paper_value="Pavlov is a fixed point iff gamma (R - P) > T - R",
        source="Theorem 3.3",
    ),
    Claim(
        "g",
        "Deep Q-learning self-play (the official code's network, games, schedule and payoffs "
        "T, R, P, S = 1, 0, -2, -3, gamma = 0.8), pretrained against a random opponent, learns "
        "Pavlov: the share of the last 20% of self-play iterations whose greedy policy is "
        "Pavlov, mean over seeds.",
        metric="mean_pavlov_share_dqn",
        comparison=">=",
        threshold=0.9,
        replicates="pavlov_share[dqn,replicate=*]",
        paper_value="the deep Q-network learns Pavlov (5 runs shown)",
        source="Section 5, Fig. 5",
    ),
)
