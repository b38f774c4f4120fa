"""The claims and checks of omnibal, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import CHECK, DIAGNOSTIC, Claim

CLAIMS = (
    Claim(
        "a_vision",
        "Data balance at scale: 50,000 synthetic samples (images in {1, 3, 4, 5} with "
        "frequencies {.45, .30, .05, .20}, tokens = 256 per image + LogNormal(5, 0.7) text), 8 "
        "data-parallel ranks: ISF with searched arguments divides the vision imbalance of random "
        "mini-batches of 4 samples by this factor (the smallest over the replicate draws).",
        "a_vision_reduction",
        ">=",
        5.0,
        paper_value="ISF balances vision and language loads across devices",
        source="Abstract; Sec. data balance",
    ),
    Claim(
        "a_language",
        "Same setting: the factor by which ISF divides the language imbalance (tokens computed, "
        "padding included) of random mini-batches (the smallest over the replicate draws).",
        "a_language_reduction",
        ">=",
        5.0,
        paper_value="ISF balances vision and language loads across devices",
        source="Abstract; Sec. data balance",
    ),
    Claim(
        "a_pad",
        "Same setting: ISF's pad ratio, every packed group padded to the token budget T_max "
        "(fixed-length sequences; the official within-group pad ratio is 0 for packed groups by "
        "construction); the largest over the replicate draws.",
        "a_fixed_length_pad_ratio",
        "<=",
        0.10,
        paper_value="low pad ratio",
    ),
    Claim(
        "a_placed",
        "Every sample is placed in exactly one ISF group (fraction of samples placed once, "
        "smallest over the draws): a property of the construction.",
        "a_placed_once_fraction",
        ">=",
        1.0,
        kind=CHECK,
    ),
    Claim(
        "b",
        "Model partition: on per-layer costs profiled from a small ViT + decoder built in torch "
        "here (12 ViT layers of width 192 on 64 patches per image, 12 decoder layers of width "
        "384), the searched partition's simulated 1F1B iteration time (4 stages, 8 "
        "micro-batches) is this fraction below that of the parameter-balanced split (cuts at "
        "p / 4 of the parameters), the strongest simple baseline we have. Threshold 0.10, the one "
        "declared for the equal-layer comparison before any run, kept: the issue gave none for "
        "this comparison, and any new one would be chosen with the committed 0.020 in view.",
        "b_time_reduction_vs_param_balanced",
        ">=",
        0.10,
        paper_value="search-based partition balances stages better than simple splits",
        source="Abstract; Sec. model balance",
    ),
    Claim(
        "b_vs_equal_layer",
        "How much shorter is the searched partition's simulated 1F1B time than that of the "
        "equal-layer split (same layer count per stage), 1 - searched / equal-layer? The "
        "comparison (b) was judged on before: a split that ignores the ViT's and decoder's "
        "different layer costs.",
        "b_time_reduction_vs_equal_layer",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "b_optimal",
        "The local search's time equals the brute-force optimum over all contiguous partitions "
        "on the profiled costs (ratio searched / optimum): a property of the search on this "
        "instance, the search being exact only on small cases.",
        "b_search_over_optimum",
        "<=",
        1.0 + 1e-9,
        kind=CHECK,
    ),
    Claim(
        "c_budget",
        "Adaptive recompute: the largest ratio of a stage's peak memory to its budget under the "
        "adaptive plan (on the searched partition); the knapsack rounds savings down, so it fits "
        "by construction when a plan exists.",
        "c_max_memory_over_budget",
        "<=",
        1.0,
        kind=CHECK,
    ),
    Claim(
        "c_time",
        "Adaptive recompute: recompute seconds of the adaptive plan over those of full "
        "recomputation (every layer), summed over stages. Full recomputation is a feasible plan "
        "of the same knapsack, so the ratio is <= 1 by construction and < 1 whenever the budget "
        "leaves any slack.",
        "c_recompute_ratio_adaptive_over_full",
        "<",
        1.0,
        kind=CHECK,
        paper_value="adaptive recompute uses the available memory fully",
    ),
    Claim(
        "d_idle",
        "Real ranks: a torch.distributed (gloo) job, 2 CPU processes training the small ViT + "
        "decoder on the same samples: the mean idle time at the gradient all-reduce (max over "
        "ranks of the backward's end minus the rank's own) falls by this factor with ISF "
        "batches against random mini-batches of 4. Per repeat (the two layouts alternate within "
        "a repeat) the ratio random / ISF; the metric is its mean over the repeats, judged on "
        "its 95% t-interval.",
        "d_idle_reduction",
        ">=",
        2.0,
        paper_value="balanced batches remove the wait for the slowest rank",
        replicates="d_idle_reduction[rep=*]",
    ),
    Claim(
        "d_throughput",
        "Real ranks, same job: samples per second with ISF batches over those with random "
        "batches, per repeat; the metric is the mean over the repeats, judged on its 95% "
        "t-interval. Threshold, the paper's figure scaled to 2 ranks: a speed-up S means the "
        "fraction 1 - 1/S of the baseline's time was waste that balance removed (1.8x: 44%, at "
        "InternVL's scale with data, pipeline and memory imbalance). On our job the waste that "
        "batch balance can remove is random batching's wait at the all-reduce above the noise "
        "floor (identical batches on both ranks): 27.0 - 6.0 ms of a 309 ms step in the "
        "committed run 5, a share of 0.068 (d_random_balanceable_idle_fraction). Removing it, "
        "as the paper's balance removes its own, gives 1 / (1 - 0.068) = 1.073; ISF's packing "
        "also removes padding, so the paper's claim, scaled, is a speed-up of at least that.",
        "d_measured_speedup",
        ">=",
        1.073,
        paper_value="about 1.8x end-to-end on InternVL-Chat-1.5 (all three balances)",
        source="Abstract",
        replicates="d_measured_speedup[rep=*]",
    ),
    Claim(
        "d_wait_bound",
        "What speed-up would removing all of random batching's wait above the noise floor give "
        "in this run, 1 / (1 - d_random_balanceable_idle_fraction)? The figure d_throughput's "
        "threshold was derived from (1.073 in the committed run 5); far from it, the derivation "
        "should be revisited for the next run, not this one.",
        "d_speedup_if_balanceable_wait_removed",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "d_model",
        "A check of our own instrument, not a statement of the paper: the cost model (per-rank "
        "compute fitted on single-process timings, step = slowest rank + measured all-reduce + "
        "optimizer step) predicts the measured speed-up (mean over repeats) within 25%: "
        "|predicted / measured - 1|.",
        "d_model_relative_error",
        "<=",
        0.25,
        kind=CHECK,
    ),
)

# wall-clock measurements (profiled seconds, the gloo job's clocks): shown, never compared
_WALL_CLOCK = (
    "b_time_reduction_vs_equal_layer",
    "b_time_reduction_vs_param_balanced",
    "b_bubble_fraction_equal_layer",
    "b_bubble_fraction_param_balanced",
    "b_bubble_fraction_searched",
    "c_max_memory_over_budget",
    "c_recompute_ratio_adaptive_over_full",
    "c_time_reduction_adaptive_vs_full",
    "d_random_mean_idle",
    "d_random_predicted_mean_idle",
    "d_random_mean_wait_with_transfer",
    "d_random_samples_per_second",
    "d_random_predicted_samples_per_second",
    "d_isf_mean_idle",
    "d_isf_predicted_mean_idle",
    "d_isf_mean_wait_with_transfer",
    "d_isf_samples_per_second",
    "d_isf_predicted_samples_per_second",
    "d_identical_mean_idle",
    "d_idle_reduction",
    "d_idle_reduction_median",
    "d_idle_reduction_min",
    "d_idle_reduction_max",
    "d_predicted_idle_reduction",
    "d_idle_reduction_above_noise_floor",
    "d_measured_speedup",
    "d_measured_speedup_median",
    "d_measured_speedup_min",
    "d_measured_speedup_max",
    "d_predicted_speedup",
    "d_model_relative_error",
    "d_cost_fit_relative_residual",
    "d_allreduce_seconds",
    "d_cost_coef_intercept",
    "d_cost_coef_per_image",
    "d_cost_coef_per_token",
    "d_cost_coef_per_area",
    "d_random_step_time",
    "d_random_balanceable_idle_fraction",
    "d_speedup_if_balanceable_wait_removed",
    # the replicates of d_idle and d_throughput, one per repeat of the default scale (5)
    *(f"d_idle_reduction[rep={r}]" for r in range(5)),
    *(f"d_measured_speedup[rep={r}]" for r in range(5)),
)
TOLERANCES = dict.fromkeys(_WALL_CLOCK)
