"""Local better-response dynamics: invariants, a closed-form equilibrium, bad input."""

import numpy as np
import pytest

from icml25.creator_groups import (
    PAPER_USER_WEIGHTS,
    creator_rewards,
    equal_groups,
    local_better_response,
    sample_sphere,
)


def _env(seed=0):
    return sample_sphere(10, 5, [seed, 0]), sample_sphere(10, 5, [seed, 1])  # X, S0


def test_one_group_of_all_creators_never_moves_under_exposure_rewards():
    """The group's exposure sum_i u_i = sum_j p_j is the same in every profile: no proposal is a
    strict improvement, every proposal is refused, welfare stays at its start."""
    X, S0 = _env()
    run = local_better_response(S0, X, PAPER_USER_WEIGHTS, 3, 0.1, np.zeros(10, int), rounds=60)
    assert run.accepted.sum() == 0 and not run.converged
    np.testing.assert_array_equal(run.S, S0)
    np.testing.assert_array_equal(run.welfare, run.welfare[0])


def test_a_single_creator_climbs_to_the_weighted_mean_user():
    """n = 1, K = 1, engagement: u = <s, sum_j p_j x_j> = W, maximised by s* = the normalised
    weighted mean of the users; LBR only accepts gains, so W never decreases and ends within a
    step eta of s*."""
    X, _ = _env(1)
    p = PAPER_USER_WEIGHTS
    S0 = -(p @ X)[None] / np.linalg.norm(p @ X)  # start opposite the optimum
    eta = 0.05
    run = local_better_response(S0, X, p, 1, 0.1, [0], "engagement", eta, rounds=400, seed=3)
    assert np.all(np.diff(run.welfare) >= 0)
    s_star = p @ X / np.linalg.norm(p @ X)
    assert run.S[0] @ s_star > np.cos(eta)
    assert run.welfare[-1] == pytest.approx(
        creator_rewards(run.S @ X.T, p, 1, 0.1, "engagement")[0], abs=1e-14
    )


def test_one_group_only_accepts_gains_of_its_total_engagement():
    """A single group (all creators) under engagement rewards: its total utility never falls
    from round to round (the others cannot move), and contents stay unit vectors."""
    X, S = _env(2)
    p, groups = PAPER_USER_WEIGHTS, np.zeros(10, int)
    totals = [creator_rewards(S @ X.T, p, 2, 0.1, "engagement").sum()]
    for t in range(25):
        S = local_better_response(S, X, p, 2, 0.1, groups, "engagement", rounds=1, seed=t).S
        totals.append(creator_rewards(S @ X.T, p, 2, 0.1, "engagement").sum())
    assert np.all(np.diff(totals) >= 0) and totals[-1] > totals[0]
    np.testing.assert_allclose(np.linalg.norm(S, axis=1), 1.0, atol=1e-12)


def test_runs_are_reproducible_from_the_seed():
    X, S0 = _env(2)
    a, b = (
        local_better_response(
            S0, X, PAPER_USER_WEIGHTS, 2, 0.1, equal_groups(10, 5), seed=1, rounds=20
        )
        for _ in range(2)
    )
    np.testing.assert_array_equal(a.S, b.S)
    np.testing.assert_array_equal(a.welfare, b.welfare)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"S0": np.ones((10, 5))}, "S0 must have unit-norm"),
        ({"X": 2 * sample_sphere(10, 5, 0)}, "X must have unit-norm"),
        ({"S0": sample_sphere(10, 4, 0)}, "same d"),
        ({"p": np.ones(3)}, "p must"),
        ({"K": 11}, "K must be at most"),
        ({"beta": 0.0}, "beta"),
        ({"groups": np.zeros(9, int)}, "groups"),
        ({"reward": "views"}, "reward"),
        ({"eta": 0.0}, "eta"),
        ({"rounds": -1}, "rounds"),
        ({"tol": -1e-3}, "tol"),
        ({"eta_min": -1.0}, "eta_min"),
        ({"patience": 0}, "patience"),
        ({"X": np.stack([sample_sphere(10, 5, 0)] * 2)}, "X"),
    ],
)
def test_bad_arguments(kwargs, match):
    X, S0 = _env()
    args = dict(S0=S0, X=X, p=PAPER_USER_WEIGHTS, K=2, beta=0.1, groups=np.arange(10), rounds=1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        local_better_response(**args)


def test_stopping_rule_after_halving_to_eta_min():
    """One group of all creators under exposure never gains: every patience = 20 refusals halve
    the step, 0.1 * 2^-7 < 1e-3 after 7 halvings (140 rounds), and the run stops there (the 20
    quiet rounds are the last 20 of the seventh halving)."""
    X, S0 = _env()
    run = local_better_response(S0, X, PAPER_USER_WEIGHTS, 3, 0.1, np.zeros(10, int))
    assert run.stopped == 140 and run.converged and len(run.welfare) == 141
    assert run.eta[0] == pytest.approx(0.1 / 2**7)


def test_lbr_reaches_its_stopping_rule_at_a_local_equilibrium():
    """A single creator (engagement, K = 1) stops at the weighted mean user up to the final
    step: no proposal of step eta_min gains more than tol there."""
    X, _ = _env(1)
    p = PAPER_USER_WEIGHTS
    S0 = -(p @ X)[None] / np.linalg.norm(p @ X)
    run = local_better_response(S0, X, p, 1, 0.1, [0], "engagement", seed=3)
    assert run.converged and run.eta[0] < 1e-3
    s_star = p @ X / np.linalg.norm(p @ X)
    assert run.S[0] @ s_star > np.cos(0.01)


def test_a_fixed_step_does_not_stop():
    """With patience beyond the horizon the step never halves and the rule never holds."""
    X, S0 = _env(4)
    run = local_better_response(
        S0, X, PAPER_USER_WEIGHTS, 2, 0.1, np.arange(10), rounds=50, patience=10**6
    )
    assert not run.converged and np.all(run.eta == 0.1) and run.accepted[-10:].mean() > 0


def test_a_batch_runs_each_replicate_on_its_own():
    """Batched replicates: same shapes per replicate, each stops at its own round, and every
    replicate only ever accepts gains of the moving group (welfare of a one-creator game is its
    engagement, so it never falls)."""
    p = PAPER_USER_WEIGHTS
    X = np.stack([sample_sphere(10, 5, [r, 0]) for r in range(3)])
    S0 = np.stack([sample_sphere(1, 5, [r, 1]) for r in range(3)])
    run = local_better_response(S0, X, p, 1, 0.1, [0], "engagement", seed=0)
    assert run.S.shape == (3, 1, 5) and run.welfare.shape[1] == 3 and run.converged.all()
    assert np.all(np.diff(run.welfare, axis=0) >= 0)
    assert len(set(run.stopped.tolist())) > 1
