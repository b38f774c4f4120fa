"""The claims and checks of lrnn_dynamics, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a1",
        "From a small random initialisation (entries N(0, 1e-6 / fan_in)), the full network's "
        "trajectory comes close to the reduced dynamics on the exponential task: relative L2 "
        "distance between the network's maps W_y W_h^{T-i} W_x and U diag(a b^{T-i} c) V^T "
        "from the scalar ODEs (all recorded steps, all entries, so cross-mode leakage counts), "
        "the ODE started from the network's initial weights projected on the modes; largest "
        "over seeds.",
        "random_rel_error_exponential",
        "<",
        0.05,
        paper_value="modes learn independently along scalar dynamics (a, b, c)",
    ),
    Claim(
        "a2",
        "The same distance on the non-exponential (ramp) task of the same size, largest over "
        "seeds.",
        "random_rel_error_ramp",
        "<",
        0.05,
        paper_value="modes learn independently along scalar dynamics (a, b, c)",
    ),
    Claim(
        "a_aligned",
        "Aligned initialisation a = b = c = 1e-3 (the paper's assumption): the mode projections "
        "u_a^T W_y W_h^{T-i} W_x v_a follow the scalar gradient-flow ODE; relative L2 error over "
        "training, largest over tasks and seeds. The aligned manifold is invariant under the "
        "gradient, so this holds up to discretisation until rounding noise leaves it: a check.",
        "reduced_max_rel_error",
        "<",
        0.05,
        kind="check",
        paper_value="aligned modes learn independently along scalar dynamics (a, b, c)",
    ),
    Claim(
        "b1",
        "Ordering by size: of two modes at the same time step, the one with the larger singular "
        "value reaches half its final value first: fraction of tested (pair, seed) where it does.",
        "order_size_fraction",
        ">=",
        1.0,
        paper_value="larger singular values are learned faster",
        source="Abstract, property (1)",
    ),
    Claim(
        "b2",
        "Ordering by time: of two modes of equal size, the one occurring later in the sequence "
        "reaches half its final value first: fraction of tested (pair, seed) where it does.",
        "order_time_fraction",
        ">=",
        1.0,
        paper_value="singular values occurring later are learned faster",
        source="Abstract, property (1)",
    ),
    Claim(
        "c1",
        "Exponential task dynamics extrapolate: relative error of the trained network on "
        "sequences twice as long (all 2T lags), the largest over seeds.",
        "extrap_error_exponential",
        "<",
        0.1,
        paper_value="exponential task dynamics (b -> lambda) extrapolate",
        source="Abstract, property (2)",
    ),
    Claim(
        "c2",
        "A non-exponential profile of the same size does not: the smallest ramp-task "
        "extrapolation error divided by the largest exponential-task error.",
        "extrap_error_ratio",
        ">",
        3.0,
        paper_value="task dynamics impact extrapolation ability",
        source="Abstract, property (2)",
    ),
    Claim(
        "c3",
        "... and the exponential task is learned stably: largest spectral radius of the learned "
        "W_h over seeds (stable means < 1).",
        "spectral_radius_exponential",
        "<",
        1.0,
        paper_value="task dynamics impact solution stability",
        source="Abstract, property (2)",
    ),
    Claim(
        "d",
        "Recurrence makes the kernel move: relative change of the empirical NTK during training, "
        "recurrent over matched feedforward, the smallest over init scales and seeds (the issue "
        "gives no number; 'larger' is a ratio > 1).",
        "ntk_change_ratio_min",
        ">",
        1.0,
        paper_value="recurrence encourages feature learning (finite-width NTK)",
        source="Abstract, property (4)",
    ),
)
