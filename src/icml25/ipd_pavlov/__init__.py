"""Self-play Q-learners in the iterated prisoner's dilemma learn Pavlov (Bertrand et al. 2025).

Tabular self-play (``self_play``, Theorems 3.2 and 3.3) with its measurements over time
(``time_in_policy``, ``count_switches``), and the paper's deep Q-learning (``deep_self_play``).

>>> from icml25.ipd_pavlov import self_play, policy
>>> q = self_play(alpha=0.01, epsilon=0.01, steps=2000, runs=100, seed=0)  # (100, 4, 2)
>>> float((policy(q) == "CDDC").mean())  # doctest: +SKIP
1.0
"""

from icml25.ipd_pavlov.deep import DQN_PAYOFFS, deep_self_play
from icml25.ipd_pavlov.qlearning import (
    ACTIONS,
    ALWAYS_DEFECT,
    LOSE_SHIFT,
    PAVLOV,
    STATES,
    count_switches,
    initial_q,
    pavlov_is_fixed_point,
    payoffs,
    policy,
    self_play,
    time_in_policy,
)

__all__ = [
    "ACTIONS",
    "ALWAYS_DEFECT",
    "DQN_PAYOFFS",
    "LOSE_SHIFT",
    "PAVLOV",
    "STATES",
    "count_switches",
    "deep_self_play",
    "initial_q",
    "pavlov_is_fixed_point",
    "payoffs",
    "policy",
    "self_play",
    "time_in_policy",
]
