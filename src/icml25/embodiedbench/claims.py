"""The claims and checks of embodiedbench, declared before any run.

The protocol is in ``icml25.lab.reproduction``. The planners here are not language models:
what they can test is the benchmark (solvable, not trivial) and whether its long-horizon subset
is harder than its base subset for a planner that sees only images, the paper's finding for
MLLMs. The paper's model scores need a model endpoint and are not measured offline.
"""

from icml25.lab.claims import CHECK, Claim

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
)
