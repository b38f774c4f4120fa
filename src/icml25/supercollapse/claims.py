"""The claims and checks of supercollapse, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a",
        "Supercollapse: under linear decay to zero, the collapse deviation Delta(x) of the "
        "normalized curves over sizes and seeds is below the seed noise floor averaged over "
        "sizes, mean_p sigma(x, p), for every recorded x in [0.8, 0.95]: the largest ratio "
        "Delta / mean sigma there.",
        "decay_max_ratio_08_095",
        "<",
        1.0,
        paper_value="Delta/sigma < 1 under decay (official MLP logs: 0.64 at x = 0.8)",
        source="Abstract; official code's logs",
    ),
    Claim(
        "b",
        "Decay tightens the collapse: Delta / mean sigma at x = 0.9 under a constant learning "
        "rate divided by the same ratio under linear decay.",
        "const_over_decay_ratio_09",
        ">",
        1.0,
        paper_value="learning-rate decay suppresses the variance and enables supercollapse",
        source="Abstract",
    ),
    Claim(
        "c1",
        "Breaking compute-optimal scaling (horizon exponent 1.2x the fitted one) at least "
        "doubles Delta at x = 0.5: Delta_broken(0.5) / Delta_decay(0.5).",
        "broken_horizon_delta_ratio_05",
        ">=",
        2.0,
        paper_value="collapse breaks down when hyperparameters are scaled suboptimally",
        source="Abstract",
    ),
    Claim(
        "c2",
        "Dropping muP (learning rates of the smallest width at every width) at least doubles "
        "Delta at x = 0.5: Delta_no_mup(0.5) / Delta_decay(0.5).",
        "no_mup_delta_ratio_05",
        ">=",
        2.0,
        paper_value="collapse breaks down when hyperparameters are scaled suboptimally",
        source="Abstract",
    ),
    Claim(
        "d",
        "For L = L0 + t^-mu + p^-nu trained compute-optimally the normalized curve equals "
        "(r x^-mu + 1)/(r + 1), r = nu/mu, for every size: largest absolute difference over "
        "sizes, x and (mu, nu).",
        "power_law_max_error",
        "<=",
        1e-9,
        kind="check",
        paper_value="l(x) = (r x^-mu + 1)/(r + 1), r = nu/mu, for every size",
    ),
    Claim(
        "e",
        "The horizons trained are those of our own compute-optimal frontier: the largest "
        "relative gap |t_used(p) / t_fit(p) - 1| over the widths, t_fit from c* = kappa "
        "p^(1 + gamma) fitted to the Pareto frontier of this run's constant-rate curves.",
        "horizon_max_rel_gap",
        "<=",
        0.1,
        kind="check",
        paper_value="t*(p) from the fitted compute-optimal frontier (official fit_optimal_horizon)",
    ),
)
