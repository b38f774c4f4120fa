"""The claims and checks of collabllm, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from icml25.lab.claims import Claim

CLAIMS = (
    Claim(
        "a",
        "Task success of the policy trained (DPO, offline pairs) on the multiturn-aware reward "
        "minus that of the policy trained on the single-turn reward (the next reply only), over "
        "all test requests of the three families and four ambiguity levels, programmatic user, "
        "mean over replicates.",
        "a_success_gap",
        ">=",
        0.15,
        paper_value="task performance up 18.5% on average over three tasks (against baselines)",
        source="Abstract; Table 1",
        replicates="a_success_gap[replicate=*]",
    ),
    Claim(
        "b",
        "The MR-trained policy asks when the request is ambiguous and answers at once when it is "
        "not: share of chats whose first reply is a clarifying question, ambiguous requests over "
        "unambiguous ones (the latter floored at one request), minimum over the three families.",
        "b_min_clarify_ratio",
        ">=",
        2.0,
        paper_value="CollabLLM asks clarifying questions on ambiguous requests (Fig. 2, Sec. 5)",
        source="Fig. 2; Sec. 5 case studies",
    ),
    Claim(
        "c",
        "Its conversations are not longer than needed: mean assistant turns of the MR-trained "
        "policy over those of an oracle that asks exactly the unstated slots then answers, "
        "maximum over the three families.",
        "c_max_turns_ratio",
        "<=",
        1.5,
        paper_value="fewer tokens and less user time than baselines (-10.4% time)",
        source="Abstract; Table 1 (#tokens), user study",
        replicates="c_turns_ratio[family={group},replicate=*]",
        across="max",
    ),
    Claim(
        "oracle",
        "Check of the environment: the oracle (asks every unstated slot, then answers) succeeds "
        "on every test request, i.e. the programmatic user is truthful and the solvers agree.",
        "check_oracle_success",
        ">=",
        1.0,
        kind="check",
    ),
    Claim(
        "window0",
        "Check of the reward: MR with a window of 0 messages is the single-turn reward "
        "(max |difference| over every action in the opening states of the training requests).",
        "check_window0_identity_max_abs",
        "<=",
        1e-12,
        kind="check",
    ),
)
