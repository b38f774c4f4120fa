"""The claims and checks of predator_rl, declared before any run.

The protocol is in ``icml25.lab.reproduction``. Thresholds are the issue's.
"""

from icml25.lab.claims import DIAGNOSTIC, Claim

SUCCESS_FLOOR = 0.5  # claim (d) is judged only above this share of the plain agent's success

CLAIMS = (
    Claim(
        "a",
        "Risk aversion lowers capture: the combined agent (variance-penalised target and "
        "amplified negative memories) is captured less than the plain agent during training: "
        "1 - (capture rate of combined) / (capture rate of plain), capture rates over all "
        "training episodes, mean over 5 seeds.",
        metric="a_capture_reduction",
        comparison=">=",
        threshold=0.30,
        paper_value="risk-averse agents avoid the predator like mice; plain agents risk death",
        source="Abstract; notes: capture lower by >= 30% relative",
    ),
    Claim(
        "b",
        "Without giving up the goal: the combined agent's final success rate (greedy "
        "evaluation from the start after training, mean over seeds) over the plain agent's.",
        metric="b_success_ratio",
        comparison=">=",
        threshold=0.5,
        paper_value="success >= 50% of plain",
        source="notes (issue 22)",
    ),
    Claim(
        "c",
        "Each mechanism alone moves capture the same way: the larger of (training capture "
        "rate of the variance-penalised agent) / (plain's) and (amplified-memory agent's) / "
        "(plain's), mean over seeds, is below 1.",
        metric="c_max_single_capture_ratio",
        comparison="<",
        threshold=1.0,
        source="Abstract (two mechanisms)",
    ),
    Claim(
        "d",
        "Mouse-like caution: the combined agent spends more steps in cover (or waiting there) "
        "before first setting foot on open ground than the plain agent: difference of the "
        "mean caution in the final greedy evaluation, over the episodes that do cross open "
        "ground, mean over the seeds that have any. Judged only for an agent that still "
        f"reaches the goal: when the combined agent's final success is below {SUCCESS_FLOOR} "
        "of the plain agent's (claim b's floor) the difference counts as 0, which fails (an "
        "agent frozen in cover is not cautious).",
        metric="d_caution_difference",
        comparison=">",
        threshold=0.0,
        paper_value="strategic environment assessment, peeking, cautious paths",
        source="Abstract",
    ),
    Claim(
        "d_unfloored",
        "How cautious is the combined agent, whatever its success? The caution difference of "
        "(d) without the success floor.",
        metric="d_caution_difference_unfloored",
        kind=DIAGNOSTIC,
    ),
    Claim(
        "why_c_vp",
        "Does the variance penalty alone lower capture? The variance-penalised agent's training "
        "capture rate over the plain agent's, mean over seeds (the penalty over heads and "
        "actions, as the official code takes it).",
        metric="vp_capture_ratio_to_plain",
        kind=DIAGNOSTIC,
    ),
)
