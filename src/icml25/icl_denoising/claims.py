"""The claims and checks of icl_denoising, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

_PAPER_MODEL = {"linear": "linear", "sphere": "softmax", "gmm": "softmax"}

CLAIMS = (
    *(
        Claim(
            f"a_{task}",
            f"{task} task: the trained layer ({_PAPER_MODEL[task]} attention) denoises almost "
            "optimally: test MSE over the Bayes-optimal (oracle posterior-mean) MSE on the same "
            "test prompts, mean over seeds.",
            f"mse_ratio_{task}",
            "<=",
            1.1,
            paper_value="about the Bayes-optimal MSE",
            source="Abstract",
            replicates=f"mse_ratio[{task},seed=*]",
        )
        for task in _PAPER_MODEL
    ),
    Claim(
        "b",
        "Linear task, linear attention: the learned scalars (W_PV ~ alpha I, W_KQ ~ beta I) "
        "satisfy alpha beta = 1 / (sigma_0^2 + sigma_Z^2): largest relative error over seeds.",
        "alpha_beta_rel_error",
        "<",
        0.15,
        paper_value="alpha beta = 0.327 (1/3)",
    ),
    Claim(
        "c",
        "The learned W_KQ and W_PV are scaled identities: mean |off-diagonal| / |mean diagonal|, "
        "the largest over both matrices, every trained model, task and seed.",
        "offdiag_ratio_max",
        "<",
        0.1,
        paper_value="W_KQ = beta I, W_PV = alpha I",
    ),
    Claim(
        "d1",
        "One gradient step on the DAM energy from s(0) = x~ with step alpha equals the softmax "
        "attention output (W_PV = alpha I, W_KQ = beta I, the trained scalars): largest absolute "
        "difference over test prompts, coordinates, tasks and seeds.",
        "energy_step_max_abs_diff",
        "<",
        1e-6,
        kind="check",
        paper_value="the layer is one gradient step on the DAM energy",
        source="Abstract",
    ),
    *(
        Claim(
            f"se_{task}",
            f"{task} task: the standard error of the mean ratio in (a_{task}) (seed-to-seed "
            "standard deviation over sqrt(seeds), test-prompt noise included) is small enough "
            "to judge it: a property of our experiment's size, not of the paper.",
            f"mse_ratio_{task}_se",
            "<",
            0.01,
            kind="check",
        )
        for task in _PAPER_MODEL
    ),
    *(
        Claim(
            f"d3_{task}",
            f"{task} task: the trained softmax layer itself (full W_KQ, W_PV) is close to one "
            "gradient step (step alpha) on the DAM energy with its fitted scalars: relative L2 "
            "distance ||layer(x~) - s(1)|| / ||s(1)|| over the test prompts, mean over seeds.",
            f"trained_vs_one_step_rel_{task}",
            "<",
            0.1,
            paper_value="the trained layer is one gradient step on the DAM energy",
            source="Abstract",
            replicates=f"trained_vs_one_step_rel[{task},seed=*]",
        )
        for task in ("sphere", "gmm")
    ),
    Claim(
        "d2",
        "Further descent steps on the energy degrade the estimate: MSE after k >= 2 steps over "
        "MSE after one step, the smallest over k, tasks and seeds (> 1: every further step is "
        "worse).",
        "further_steps_min_ratio",
        ">",
        1.0,
        paper_value="one step beats retrieval of a context token or a spurious minimum",
        source="Abstract",
    ),
)
