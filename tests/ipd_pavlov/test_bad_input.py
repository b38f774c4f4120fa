"""Bad input to the self-play learners and their measurements is refused, naming the argument."""

import numpy as np
import pytest

from icml25.ipd_pavlov import (
    DQN_PAYOFFS,
    count_switches,
    deep_self_play,
    initial_q,
    policy,
    self_play,
    time_in_policy,
)

Q0 = initial_q()
_, TRAJECTORY = self_play(0.1, 0.1, 20, 2, seed=0, record_every=5)
DEEP = {"iterations": 2, "pretrain_iterations": 0, "games": 4, "capacity": 8}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: self_play(0.1, 0.1, 5, 2, q0=Q0.astype(str)), "q0 must be a numeric array"),
        (lambda: self_play(0.1, 0.1, 5, 2, q0=[[1, 2], [3]]), "q0 must be a numeric array"),
        (lambda: self_play(0.1, 0.1, 5, 2, seed=-1), "seed must be an integer >= 0"),
        (lambda: self_play(0.1, 0.1, 5, 10**12), "runs is too large"),
        (lambda: self_play(0.1, 0.0, 10**9, 10**3, record_every=1), "record_every is too large"),
        (lambda: time_in_policy(TRAJECTORY, "XYZ", 20), "word must be a policy of 4 letters"),
        (lambda: time_in_policy(TRAJECTORY, "DDDD", 500), "steps must be the run's number"),
        (lambda: time_in_policy({"q": 0}, "DDDD", 20), "trajectory must hold the keys"),
        (lambda: count_switches(TRAJECTORY, "XX", "CDDC"), "first must be a policy"),
        (lambda: count_switches(TRAJECTORY, "CDDD", "cddc"), "second must be a policy"),
        (lambda: policy(Q0 * np.nan), "q must be finite"),
        (lambda: policy(Q0.astype(str)), "q must be a numeric array"),
        (lambda: deep_self_play(**DEEP, payoff=DQN_PAYOFFS.astype(str)), "payoff must be a num"),
        (lambda: deep_self_play(**{**DEEP, "iterations": 10**12}), "iterations is too large"),
        (lambda: deep_self_play(**DEEP, hidden=10**12), "hidden is too large"),
        (
            lambda: deep_self_play(**{**DEEP, "games": 10**15, "capacity": 10**16}),
            "games is too large",
        ),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_a_trajectory_that_is_not_a_dict_is_refused():
    with pytest.raises(TypeError, match="trajectory must be the dict"):
        count_switches(None, "CDDD", "CDDC")
