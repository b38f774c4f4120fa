"""The claims and checks of steer_learners, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim


def _steer_claims(prefix: str, game: str, what: str, source: str) -> tuple[Claim, ...]:
    # (1)-(4) are checks: the per-epoch ratios are fixed by the schedule (steps halve,
    # epochs double, so every noise floor halves per epoch), constant steps sit at their
    # stationary floor from the first epoch on (T_0 contracts the transient by e^-5), and the
    # constant-step floor over the epoch schedule's is the ratio of their last steps, 2^(K-1).
    # All are measured on the default decision-maker, which estimates J online.
    return (
        Claim(
            f"{prefix}1",
            f"{what}: the epoch-based algorithm's tracking error |z - z*(theta)|^2 at each epoch "
            "end is at most 0.7x the previous epoch's (largest ratio over all epochs, >= 5); "
            "decision-maker estimating J.",
            f"{game}_tracking_max_ratio",
            "<=",
            0.7,
            kind="check",
            paper_value="finite-time tracking, epochs with geometric decay",
            source=source,
        ),
        Claim(
            f"{prefix}2",
            f"{what}: the decision-maker's suboptimality Phi(theta) - Phi* at each epoch end is "
            "at most 0.7x the previous epoch's (largest ratio over all epochs, >= 5); "
            "decision-maker estimating J.",
            f"{game}_suboptimality_max_ratio",
            "<=",
            0.7,
            kind="check",
            paper_value="finite-time convergence of the decision-maker",
            source=source,
        ),
        Claim(
            f"{prefix}3",
            f"{what}: constant steps stall at the agents' floor: their tracking error at the "
            "last epoch end over their tracking error at the end of epoch 1 (epochs counted from "
            "0) stays >= 0.7 (our threshold: the negation of geometric decrease).",
            f"{game}_constant_stall_ratio",
            ">=",
            0.7,
            kind="check",
        ),
        Claim(
            f"{prefix}4",
            f"{what}: the epoch-based algorithm ends an order of magnitude below the constant-step "
            "floor: constant-step over epoch-based final tracking error (our threshold).",
            f"{game}_constant_over_epoch_tracking",
            ">",
            10.0,
            kind="check",
        ),
        Claim(
            f"{prefix}5",
            f"{what}: a decision-maker that does not know the agents' objectives (estimates J "
            "online from their observed play) converges at the known-J decision-maker's rate: "
            "its final suboptimality is at most 2x the known-J one's (our threshold).",
            f"{game}_estimated_over_known_suboptimality",
            "<=",
            2.0,
            paper_value="finite-time rates when the decision-maker does not a priori know the "
            "agents' objectives",
            source="Abstract (i)",
        ),
        Claim(
            f"{prefix}6",
            f"{what}: the paper's epoch schedule against the 1/t Robbins-Monro schedule on the "
            "paper's own terms (same eta_0, alpha_0, T_0, drift cap, rounds and decision-maker): "
            "epoch-based over Robbins-Monro final tracking error <= 1 (the paper's schedule at "
            "least as good).",
            f"{game}_epoch_over_rm_tracking",
            "<=",
            1.0,
            paper_value="epoch-based drift-to-noise control with a geometric decay schedule",
            source="Algs. 1, 2, 4",
        ),
        Claim(
            f"{prefix}7",
            f"{what}: as ({prefix}6), final suboptimality: epoch-based over Robbins-Monro <= 1.",
            f"{game}_epoch_over_rm_suboptimality",
            "<=",
            1.0,
            paper_value="epoch-based drift-to-noise control with a geometric decay schedule",
            source="Algs. 1, 2, 4",
        ),
    )


CLAIMS = (
    Claim(
        "a1",
        "Fixed leader path, noise-dominated regime (noise term >= 20x drift term of the bound): "
        "log-log slope of the steady-state tracking error against eta is +1: largest |slope - 1| "
        "over path speeds.",
        "noise_slope_deviation",
        "<=",
        0.3,
        paper_value="noise term eta sigma^2 / mu (notes' reconstruction)",
    ),
    Claim(
        "a2",
        "Fixed leader path, drift-dominated regime (drift term >= 20x noise term): log-log slope "
        "against eta is -2: largest |slope + 2| over path speeds.",
        "drift_slope_deviation",
        "<=",
        0.3,
        paper_value="drift term Delta^2 / (mu eta)^2 (notes' reconstruction)",
    ),
    *_steer_claims("b", "synthetic", "Synthetic game", "Abstract; Algs. 1, 2, 4"),
    *_steer_claims(
        "c", "rideshare", "Ride-share game (semi-synthetic, App. D.3)", "App. D.3; Algs. 1, 2, 4"
    ),
)
