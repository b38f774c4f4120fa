"""Bad input to the game, the dynamics and the discrete solvers is refused, naming the argument."""

import numpy as np
import pytest

from icml25.creator_groups import (
    all_profiles,
    brute_force_equilibria,
    check_game,
    equal_groups,
    exposure_trap,
    group_utilities,
    local_better_response,
    sample_sphere,
    self_greedy,
    top_k_matching,
)

X, S = sample_sphere(4, 3, 0), sample_sphere(5, 3, 1)
P, G = np.ones(4) / 4, np.zeros(5, int)
R, PW = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), np.ones(2) / 2
R_NAN = np.array([[1.0, 0.0], [np.nan, 1.0]])


def lbr(S0=S, X=X, **kwargs):
    return local_better_response(S0, X, P, 2, 0.1, G, **{"rounds": 2, **kwargs})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: check_game((S @ X.T).astype(str), P, 2, 0.1), "sigma must be a numeric array"),
        (lambda: top_k_matching([[1.0, 2.0], [3.0]], 1, 0.1), "sigma must be a numeric array"),
        (lambda: group_utilities(np.full(5, np.nan), G), "rewards must be finite"),
        (lambda: group_utilities(np.array(["1"] * 5), G), "rewards must be a numeric array"),
        (lambda: group_utilities(1.0, np.zeros(1, int)), "rewards must have shape"),
        (lambda: equal_groups(10**12, 1), "n is too large"),
        (lambda: sample_sphere(4, 3, -1), "seed must be a non-negative integer"),
        (lambda: sample_sphere(10**12, 3, 0), "count is too large"),
        (lambda: lbr(S0=S * np.nan), "S0 must be finite"),
        (lambda: lbr(S0=np.zeros((0, 5, 3)), X=np.zeros((0, 4, 3))), "S0 must not be empty"),
        (lambda: lbr(X=np.zeros((0, 3))), "X must not be empty"),
        (lambda: lbr(S0=S.astype(str)), "S0 must be a numeric array"),
        (lambda: lbr(seed=-1), "seed must be a non-negative integer"),
        (lambda: lbr(rounds=10**12, eta_min=0.0), "rounds is too large"),
        (lambda: brute_force_equilibria(R_NAN, PW, 2, 1, 0.1, [0, 1]), "R must be finite"),
        (lambda: brute_force_equilibria(R[:0], PW, 2, 1, 0.1, [0, 1]), "R must not be empty"),
        (lambda: brute_force_equilibria(R.astype(str), PW, 2, 1, 0.1, [0, 1]), "R must be a num"),
        (lambda: all_profiles(10**5, 2), r"q\^n must be at most 1048576 profiles, got 2\^100000$"),
        (lambda: self_greedy(R_NAN, PW, 2, 1, 0.1, [0, 1]), "R must be finite"),
        (lambda: self_greedy(R[:0], PW, 2, 1, 0.1, [0, 1]), "R must not be empty"),
        (lambda: self_greedy(R, PW, 10**12, 1, 0.1, [0, 1]), "groups must be"),
        (lambda: exposure_trap(10**7, 0.1), "K is too large"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
