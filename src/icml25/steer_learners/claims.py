"""The claims and checks of steer_learners, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim


def _steer_claims(prefix: str, game: str, what: str, source: str) -> tuple[Claim, ...]:
    # (3) is a check: constant-step stochastic gradient play with persistent noise settles at
    # its stationary (Lyapunov) floor within the first epoch, by the schedule's construction
    # (T_0 contracts the transient by e^-5) and whatever the paper's algorithm achieves.
    return (
        Claim(
            f"{prefix}1",
            f"{what}: the epoch-based algorithm's tracking error |z - z*(theta)|^2 at each epoch "
            "end is at most 0.7x the previous epoch's (largest ratio over all epochs, >= 5).",
            f"{game}_tracking_max_ratio",
            "<=",
            0.7,
            paper_value="finite-time tracking, epochs with geometric decay",
            source=source,
        ),
        Claim(
            f"{prefix}2",
            f"{what}: the decision-maker's suboptimality Phi(theta) - Phi* at each epoch end is "
            "at most 0.7x the previous epoch's (largest ratio over all epochs, >= 5).",
            f"{game}_suboptimality_max_ratio",
            "<=",
            0.7,
            paper_value="finite-time convergence of the decision-maker",
            source=source,
        ),
        Claim(
            f"{prefix}3",
            f"{what}: constant steps stall at a floor: their error at the last epoch end over "
            "their error at the end of epoch 1 (epochs counted from 0; the smaller ratio of "
            "tracking and suboptimality) stays "
            ">= 0.7 (our threshold: the negation of geometric decrease).",
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
