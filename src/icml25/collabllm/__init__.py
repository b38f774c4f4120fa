"""Multiturn-aware rewards for collaborative assistants (Wu, Galley, Peng et al., *CollabLLM:
From Passive Responders to Active Collaborators*, ICML 2025).

>>> import numpy as np
>>> from icml25.collabllm import (
...     BasePolicy, Conversation, ProgrammaticUser, draw_task, multiturn_aware_reward,
... )
>>> task = draw_task(family=1, ambiguity=2, rng=np.random.default_rng(0))
>>> conv, user, base = Conversation.open(task), ProgrammaticUser(), BasePolicy()
>>> rng = np.random.default_rng(1)
>>> [multiturn_aware_reward(conv, a, base, user, rng=rng) for a in range(4)]  # doctest: +SKIP
"""

from icml25.collabllm.agents import (
    ASSISTANT_PROMPT,
    USER_SIMULATOR_PROMPT,
    LLMPolicy,
    LLMUser,
    asked_slot,
    mentioned_option,
)
from icml25.collabllm.dialogue import (
    ANSWER,
    N_ACTIONS,
    TERMINATE,
    VAGUE,
    Conversation,
    ProgrammaticUser,
    assistant_text,
    decide,
    step,
)
from icml25.collabllm.policy import (
    BasePolicy,
    DPOResult,
    OraclePolicy,
    TabularPolicy,
    dpo_train,
    evaluate,
)
from icml25.collabllm.reward import (
    PreferencePairs,
    build_preference_pairs,
    conversation_metrics,
    conversation_reward,
    exact_multiturn_aware_reward,
    interactivity,
    multiturn_aware_reward,
    simulate,
    single_turn_reward,
)
from icml25.collabllm.tasks import (
    FAMILIES,
    FAMILY_NAMES,
    N_SLOTS,
    Family,
    Slot,
    Task,
    artefact,
    count_tokens,
    draw_task,
    draw_tasks,
    is_success,
    task_score,
)

__all__ = [
    "ANSWER",
    "ASSISTANT_PROMPT",
    "FAMILIES",
    "FAMILY_NAMES",
    "N_ACTIONS",
    "N_SLOTS",
    "TERMINATE",
    "USER_SIMULATOR_PROMPT",
    "VAGUE",
    "BasePolicy",
    "Conversation",
    "DPOResult",
    "Family",
    "LLMPolicy",
    "LLMUser",
    "OraclePolicy",
    "PreferencePairs",
    "ProgrammaticUser",
    "Slot",
    "TabularPolicy",
    "Task",
    "artefact",
    "asked_slot",
    "assistant_text",
    "build_preference_pairs",
    "conversation_metrics",
    "conversation_reward",
    "count_tokens",
    "decide",
    "dpo_train",
    "draw_task",
    "draw_tasks",
    "evaluate",
    "exact_multiturn_aware_reward",
    "interactivity",
    "is_success",
    "mentioned_option",
    "multiturn_aware_reward",
    "simulate",
    "single_turn_reward",
    "step",
    "task_score",
]
