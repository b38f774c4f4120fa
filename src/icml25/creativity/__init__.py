"""Algorithmic creativity (Nagarajan, Wu, Ding & Raghunathan, *Roll the dice & look before you
leap: Going beyond the creative limits of next-token prediction*, ICML 2025): open-ended
algorithmic tasks, next-token / teacherless / masked-diffusion training on one small transformer,
greedy, temperature and seed-conditioned decoding, and the creativity score.

>>> import numpy as np
>>> from icml25.creativity import construction_task, strip_hash, train, generate, creativity_score
>>> task = construction_task("line", 8, 7, 2000, 128, 4, np.random.default_rng(0))
>>> ntp = train(task, "ntp", seed=0)  # doctest: +SKIP
>>> out = generate(ntp.model, task.test_prompts, task.answer_len)  # doctest: +SKIP
>>> creativity_score(out, task)  # doctest: +SKIP
"""

from icml25.creativity.decoding import generate, mdm_generate
from icml25.creativity.metrics import (
    answer_tokens,
    canonical_form,
    creativity_score,
    is_valid,
    training_canonical_forms,
)
from icml25.creativity.tasks import (
    END,
    ENTITY0,
    HASH0,
    MASK,
    PAD,
    SEP,
    TASKS,
    Q,
    TaskData,
    construction_task,
    draw_hashes,
    generate_triangle_graph,
    sibling_task,
    strip_hash,
    triangle_task,
)
from icml25.creativity.training import (
    IGNORE,
    OBJECTIVES,
    TrainConfig,
    Trained,
    mdm_loss,
    ntp_loss,
    ntp_pairs,
    teacherless_pairs,
    train,
)

__all__ = [
    "END",
    "ENTITY0",
    "HASH0",
    "IGNORE",
    "MASK",
    "OBJECTIVES",
    "PAD",
    "Q",
    "SEP",
    "TASKS",
    "TaskData",
    "TrainConfig",
    "Trained",
    "answer_tokens",
    "canonical_form",
    "construction_task",
    "creativity_score",
    "draw_hashes",
    "generate",
    "generate_triangle_graph",
    "is_valid",
    "mdm_generate",
    "mdm_loss",
    "ntp_loss",
    "ntp_pairs",
    "sibling_task",
    "strip_hash",
    "teacherless_pairs",
    "train",
    "training_canonical_forms",
    "triangle_task",
]
