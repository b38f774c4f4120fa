"""Self-play Q-learners in the iterated prisoner's dilemma learn Pavlov (Bertrand et al. 2025).

>>> from icml25.ipd_pavlov import self_play, policy
>>> q = self_play(alpha=0.01, epsilon=0.01, steps=2000, runs=100, seed=0)  # (100, 4, 2)
>>> float((policy(q) == "CDDC").mean())  # doctest: +SKIP
1.0
"""

from icml25.ipd_pavlov.qlearning import (
    ACTIONS,
    ALWAYS_DEFECT,
    LOSE_SHIFT,
    PAVLOV,
    STATES,
    initial_q,
    pavlov_is_fixed_point,
    payoffs,
    policy,
    self_play,
)

__all__ = [
    "ACTIONS",
    "ALWAYS_DEFECT",
    "LOSE_SHIFT",
    "PAVLOV",
    "STATES",
    "initial_q",
    "pavlov_is_fixed_point",
    "payoffs",
    "policy",
    "self_play",
]
