"""The claims and checks of embodiedbench, declared before any run.

The protocol is in ``icml25.lab.reproduction``. The planners here are not language models:
what they can test is the benchmark (solvable, not trivial) and whether its long-horizon subset
is harder than its base subset for a planner that sees only images, the paper's finding for
MLLMs. The paper's model scores need a model endpoint and are not measured offline.
"""

from icml25.lab.claims import CHECK, DIAGNOSTIC, Claim

CLAIMS = (
    Claim(
        "a_oracle",
        "The environment is solvable: the oracle planner (privileged state, shortest lattice "
        "path) succeeds on at least 95% of the tasks of every capability subset; the minimum "
        "over the five subsets. A check: our task generator keeps only tasks whose shortest "
        "path fits the step limit.",
        "oracle_min_success",
        ">=",
        0.95,
        kind=CHECK,
        source="issue: the environment is solvable",
    ),
    Claim(
        "a_random",
        "The environment is not trivial: the uniformly random planner succeeds on at most 15% "
        "of the tasks of every subset; the maximum over the five subsets. A check: it is a "
        "property of our start distances (2-4.5 m) and of the 20-step limit.",
        "random_max_success",
        "<=",
        0.15,
        kind=CHECK,
        source="issue: the environment is not trivial",
    ),
    Claim(
        "b",
        "Long-horizon tasks are harder than base tasks for a planner that sees only the "
        "first-person image: success of the perception-limited heuristic on the base subset "
        "minus its success on the long-horizon subset (the same tasks, agent turned 180 "
        "degrees), pooled over all tasks.",
        "heuristic_base_minus_long_horizon",
        ">=",
        0.10,
        paper_value="long horizon is the hardest subset for the MLLMs evaluated",
        source="Sec. 5 (results by capability subset)",
        replicates="heuristic_base_minus_long_horizon[batch=*]",
    ),
    Claim(
        "why_b_budget",
        "Does a tighter step budget open the gap of (b)? Base minus long-horizon success of "
        "the heuristic with a step limit of 16, 14 or 12 instead of 20 (the committed planner "
        "otherwise): the smallest of the three.",
        "gap_tight_step_limit_min",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "why_b_explore",
        "Does less exploration open the gap of (b)? Base minus long-horizon success of the "
        "heuristic turning once, instead of three times, when the target is not in view.",
        "gap_one_scan_turn",
        kind=DIAGNOSTIC,
    ),
)
