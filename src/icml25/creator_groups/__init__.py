"""Group strategies of content creators on top-K recommendation platforms.

Yu, Yao & Pan, *Beyond Self-Interest: How Group Strategies Reshape Content Creation in
Recommendation Platforms?*, ICML 2025 (OpenReview q0JaH6Ukqb). No official code.

>>> import numpy as np
>>> from icml25.creator_groups import (PAPER_USER_WEIGHTS, equal_groups,
...     local_better_response, sample_sphere)
>>> X = sample_sphere(10, 5, seed=0)  # (m, d) users
>>> S0 = sample_sphere(10, 5, seed=1)  # (n, d) creators' contents
>>> run = local_better_response(S0, X, PAPER_USER_WEIGHTS, K=3, beta=0.1,
...     groups=equal_groups(10, 10), reward="exposure", seed=2)
>>> bool(run.welfare[-1] == run.welfare[0])  # one group of all creators never moves
True
>>> int(run.stopped)  # its step halves every 20 refusals; below eta_min = 1e-3 it stops
140
"""

from icml25.creator_groups.discrete import (
    Equilibria,
    SelfGreedy,
    all_profiles,
    brute_force_equilibria,
    exposure_trap,
    self_greedy,
)
from icml25.creator_groups.dynamics import Dynamics, local_better_response
from icml25.creator_groups.game import (
    PAPER_USER_WEIGHTS,
    REWARDS,
    check_game,
    check_groups,
    creator_rewards,
    equal_groups,
    group_utilities,
    sample_sphere,
    top_k_matching,
    user_welfare,
)

__all__ = [
    "PAPER_USER_WEIGHTS",
    "REWARDS",
    "Dynamics",
    "Equilibria",
    "SelfGreedy",
    "all_profiles",
    "brute_force_equilibria",
    "check_game",
    "check_groups",
    "creator_rewards",
    "equal_groups",
    "exposure_trap",
    "group_utilities",
    "local_better_response",
    "sample_sphere",
    "self_greedy",
    "top_k_matching",
    "user_welfare",
]
