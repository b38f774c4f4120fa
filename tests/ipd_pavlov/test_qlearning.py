import numpy as np
import pytest

from icml25.ipd_pavlov import (
    ALWAYS_DEFECT,
    LOSE_SHIFT,
    PAVLOV,
    initial_q,
    pavlov_is_fixed_point,
    payoffs,
    policy,
    self_play,
)
from icml25.ipd_pavlov.qlearning import count_switches, time_in_policy

G, GAMMA = 1.8, 0.6


def reference_self_play(alpha, epsilon, steps, runs, q0, gamma, r, seed):
    """The update rule written out one run and one step at a time, from the same flips."""
    rng = np.random.default_rng(seed)
    flips = rng.random((steps, 2, runs)) < epsilon
    out = []
    for j in range(runs):
        q = q0.copy()
        a1 = a2 = 0
        for t in range(steps):
            s1, s2 = 2 * a1 + a2, 2 * a2 + a1
            b1 = int(q[s1, 1] > q[s1, 0]) ^ int(flips[t, 0, j])
            b2 = int(q[s2, 1] > q[s2, 0]) ^ int(flips[t, 1, j])
            target = r[b1, b2] + gamma * q[2 * b1 + b2].max()
            q[s1, b1] += alpha * (target - q[s1, b1])
            a1, a2 = b1, b2
        out.append(q)
    return np.stack(out)


def test_payoffs_are_a_prisoners_dilemma():
    r = payoffs(G)
    P, T, S, R = r[0, 0], r[0, 1], r[1, 0], r[1, 1]
    assert T > R > P > S
    np.testing.assert_allclose([P, T, S, R], [2.0, 3.8, 1.8, 3.6])


@pytest.mark.parametrize(
    "g, gamma, expected",
    [(1.8, 0.6, True), (1.1, 0.3, False), (1.5, 0.5, False), (1.5, 0.51, True)],
)
def test_pavlov_fixed_point_condition(g, gamma, expected):
    # gamma (R - P) > T - R  <=>  gamma (2g - 2) > 2 - g
    assert pavlov_is_fixed_point(g, gamma) is expected
    assert (gamma * (2 * g - 2) > 2 - g) is expected


def test_initial_q_closed_form():
    q0 = initial_q(G, GAMMA)
    assert q0.shape == (4, 2)
    np.testing.assert_allclose(q0[:, 0], (2 + 3.8) / (2 * 0.4))  # (P + T) / (2 (1 - gamma))
    np.testing.assert_allclose(q0[:, 1], (1.8 + 3.6) / 2 + 0.6 * (2 + 3.8) / (2 * 0.4))
    np.testing.assert_allclose(q0[:, 1] - q0[:, 0], G - 2)  # the gap is g - 2 in every state
    assert policy(q0) == ALWAYS_DEFECT


def test_one_update_by_hand():
    alpha = 0.1
    # epsilon = 0: both defect from DD; reward P = 2; next state DD with max Q0 = 7.25
    q = self_play(alpha, 0.0, 1, 1)[0]
    expected = initial_q()
    expected[0, 0] = 7.25 + alpha * (2.0 + 0.6 * 7.25 - 7.25)
    np.testing.assert_allclose(q, expected, rtol=0, atol=1e-12)
    # epsilon = 1: both flip to C; reward R = 3.6; next state CC with max Q0 = 7.25
    q = self_play(alpha, 1.0, 1, 1)[0]
    expected = initial_q()
    expected[0, 1] = 7.05 + alpha * (3.6 + 0.6 * 7.25 - 7.05)
    np.testing.assert_allclose(q, expected, rtol=0, atol=1e-12)


def test_vectorised_play_equals_the_plain_loop():
    rng = np.random.default_rng(3)
    q0 = initial_q() + rng.normal(scale=0.3, size=(4, 2))  # asymmetric: each player's view counts
    got = self_play(0.2, 0.3, 300, 7, q0=q0, seed=11)
    want = reference_self_play(0.2, 0.3, 300, 7, q0, GAMMA, payoffs(G), seed=11)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_same_seed_same_tables_other_seed_other_tables():
    a = self_play(0.05, 0.1, 500, 20, seed=4)
    np.testing.assert_array_equal(a, self_play(0.05, 0.1, 500, 20, seed=4))
    assert not np.array_equal(a, self_play(0.05, 0.1, 500, 20, seed=5))


def test_halved_q0_stays_always_defect_at_its_value():
    # epsilon = 0, Q0/2: Q(DD, C) = 3.525 < P / (1 - gamma) = 5, so defection is never left and
    # Q(DD, D) converges to the value of mutual defection, P / (1 - gamma).
    q = self_play(0.1, 0.0, 2000, 3, q0=initial_q() / 2)
    assert set(policy(q)) == {ALWAYS_DEFECT}
    np.testing.assert_allclose(q[:, 0, 0], 2.0 / (1 - GAMMA), atol=1e-9)


def test_three_phases_then_mutual_cooperation_value():
    # Theorem 3.2: with epsilon = 0, DDDD -> CDDD -> CDDC, then C,C for ever,
    # so Q(CC, C) -> R / (1 - gamma)
    q, trajectory = self_play(0.1, 0.0, 5000, 4, record_every=100)
    assert trajectory["policy_path"] == [[ALWAYS_DEFECT, LOSE_SHIFT, PAVLOV]] * 4
    np.testing.assert_allclose(q[:, 3, 1], 3.6 / (1 - GAMMA), atol=1e-6)


def test_trajectory_shapes_and_policy_path_matches_every_step():
    q, trajectory = self_play(0.1, 0.2, 200, 6, seed=2, record_every=1)
    assert trajectory["step"].shape == (201,)
    assert trajectory["q"].shape == (201, 6, 4, 2)
    np.testing.assert_array_equal(trajectory["q"][-1], q)
    words = policy(trajectory["q"])  # (201, 6)
    for j, path in enumerate(trajectory["policy_path"]):
        distinct = [w for i, w in enumerate(words[:, j]) if i == 0 or w != words[i - 1, j]]
        assert path == distinct


def test_time_in_policy_and_switches_match_the_policy_at_every_step():
    # g = 1.5, gamma = 0.4 (Pavlov not a fixed point): many switches to count
    steps, start = 3000, 2400
    q, trajectory = self_play(0.1, 0.05, steps, 8, g=1.5, gamma=0.4, seed=1, record_every=1)
    words = policy(trajectory["q"])  # (steps + 1, 8); row t is the policy after step t
    for word in (PAVLOV, LOSE_SHIFT):
        share = time_in_policy(trajectory, word, steps, start)
        np.testing.assert_allclose(share, np.mean(words[start + 1 :] == word, axis=0))
    moves = list(zip(words[start:-1], words[start + 1 :], strict=True))  # steps start+1 .. steps
    want = [
        sum({a[j], b[j]} == {PAVLOV, LOSE_SHIFT} for a, b in moves) for j in range(words.shape[1])
    ]
    got = count_switches(trajectory, LOSE_SHIFT, PAVLOV, start)
    np.testing.assert_array_equal(got, want)
    assert got.sum() > 0
    for j, began in enumerate(trajectory["path_step"]):
        assert began[0] == 0 and np.all(np.diff(began) > 0)
        assert words[began[-1], j] == trajectory["policy_path"][j][-1]
    with pytest.raises(ValueError, match="^start must"):
        time_in_policy(trajectory, PAVLOV, steps, steps)


def test_policy_shapes_and_ties():
    q = np.zeros((4, 2))
    assert policy(q) == "DDDD"  # ties go to D
    q[[0, 3], 1] = 1.0
    assert policy(q) == PAVLOV
    batch = np.stack([q, np.zeros((4, 2))])  # (2, 4, 2)
    assert policy(batch).tolist() == [PAVLOV, "DDDD"]
    with pytest.raises(ValueError, match="q"):
        policy(np.zeros((3, 2)))


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": 1.5}, "alpha"),
        ({"alpha": float("nan")}, "alpha"),
        ({"epsilon": -0.1}, "epsilon"),
        ({"epsilon": 1.1}, "epsilon"),
        ({"steps": 0}, "steps"),
        ({"steps": 2.5}, "steps"),
        ({"runs": 0}, "runs"),
        ({"q0": np.zeros((4, 3))}, "q0"),
        ({"q0": np.full((4, 2), np.nan)}, "q0"),
        ({"g": 2.5}, "g"),
        ({"gamma": 1.0}, "gamma"),
        ({"record_every": 0}, "record_every"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, word):
    args = {"alpha": 0.1, "epsilon": 0.1, "steps": 10, "runs": 2, **kwargs}
    with pytest.raises(ValueError, match=f"^{word} must"):
        self_play(**args)
