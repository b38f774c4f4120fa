"""Closed forms of Dong et al. (ICML 2025) against independent computations at small size."""

import numpy as np
import pytest

from icml25.w2s_intrinsic import simulate_w2s, subspace_pair, w2s_risks

D_S, D_W, D_SW, SIGMA = 3, 6, 2, 0.7


def naive_trial(rng, Vs, Vw, beta, n, N, sigma):
    """One W2S pipeline in the ambient space, fit by np.linalg.lstsq, one model at a time."""
    D = Vs.shape[0]
    X = rng.standard_normal((n, D))
    y = X @ beta + sigma * rng.standard_normal(n)
    theta_w = np.linalg.lstsq(X @ Vw, y, rcond=None)[0]
    theta_s = np.linalg.lstsq(X @ Vs, y, rcond=None)[0]
    Z = rng.standard_normal((N, D))
    pseudo = Z @ Vw @ theta_w
    truth = Z @ beta + sigma * rng.standard_normal(N)
    theta_w2s = np.linalg.lstsq(Z @ Vs, pseudo, rcond=None)[0]
    theta_c = np.linalg.lstsq(np.vstack([X, Z]) @ Vs, np.concatenate([y, truth]), rcond=None)[0]
    # x ~ N(0, I): the excess risk is the squared distance of coefficient vectors in R^D
    return [
        float(np.sum((V @ t - beta) ** 2))
        for V, t in ((Vw, theta_w), (Vs, theta_s), (Vs, theta_w2s), (Vs, theta_c))
    ]


def test_closed_form_matches_a_naive_ambient_monte_carlo():
    rng = np.random.default_rng(0)
    n, N, D, trials = 14, 12, 15, 2500
    Vs, Vw, Q = subspace_pair(D, D_S, D_W, D_SW, seed=1)
    beta = Q[:, D_S - D_SW : D_S] @ np.array([0.6, -0.8])  # a unit vector of the intersection
    risks = np.array([naive_trial(rng, Vs, Vw, beta, n, N, SIGMA) for _ in range(trials)])
    mean, se = risks.mean(0), risks.std(0, ddof=1) / np.sqrt(trials)
    th = w2s_risks(D_S, D_W, D_SW, n, N, SIGMA)
    expected = [th.weak, th.strong, th.w2s, th.ceiling]
    for m, s, e in zip(mean, se, expected, strict=True):
        assert abs(m - float(e)) < 4 * s, (m, s, float(e))


def conditional_w2s_risk(X, Z, Vs, Vw, sigma):
    """E over the label noise of ER_w2s given the inputs, exactly (a trace formula)."""
    Xw, Zs, Zw = X @ Vw, Z @ Vs, Z @ Vw
    A = np.linalg.pinv(Zs) @ Zw @ np.linalg.pinv(Xw)  # (d_s, n): noise -> student's error
    return sigma**2 * float(np.sum(A**2))


def test_closed_form_matches_the_exact_noise_average_over_random_designs():
    rng = np.random.default_rng(3)
    n, N, D = 12, 9, 10
    Vs, Vw, _ = subspace_pair(D, D_S, D_W, D_SW, seed=4)
    values = np.array(
        [
            conditional_w2s_risk(
                rng.standard_normal((n, D)), rng.standard_normal((N, D)), Vs, Vw, SIGMA
            )
            for _ in range(4000)
        ]
    )
    th = float(w2s_risks(D_S, D_W, D_SW, n, N, SIGMA).w2s)
    assert abs(values.mean() - th) < 4 * values.std(ddof=1) / np.sqrt(values.size)


def test_vectorised_simulator_matches_closed_forms_and_the_ambient_path():
    Ns = [10, 20, 60]
    th = w2s_risks(D_S, D_W, D_SW, 12, np.array(Ns), SIGMA)
    for ambient in (None, 11):
        sim = simulate_w2s(D_S, D_W, D_SW, 12, Ns, SIGMA, trials=6000, ambient_dim=ambient, seed=5)
        assert sim.w2s.shape == (6000, 3) and sim.weak.shape == (6000,)
        for q in ("weak", "strong", "w2s", "ceiling", "w2s_limit"):
            z = np.abs(sim.mean(q) - getattr(th, q)) / sim.se(q)
            assert np.all(z < 4.5), (ambient, q, z)
        assert np.all(np.abs(sim.pgr - th.pgr) < 4.5 * sim.pgr_se)
        assert np.all(np.abs(sim.opr - th.opr) < 4.5 * sim.opr_se)


def test_special_cases_of_the_closed_form():
    # identical subspaces: the student inherits all of the teacher's variance, for any N
    same = w2s_risks(5, 5, 5, 50, np.array([10, 100, 1000]))
    np.testing.assert_allclose(same.w2s, same.weak)
    np.testing.assert_allclose(same.pgr, 0.0, atol=1e-12)
    # orthogonal subspaces: all the variance sits in the discrepancy, shrunk by d_s/(N-d_s-1)
    orth = w2s_risks(4, 6, 0, 30, 25)
    assert float(orth.w2s) == pytest.approx(6 / 23 * 4 / 20)
    assert float(orth.w2s_limit) == 0.0
    # the paper's leading-order form is the large-sample limit of the exact one
    big = dict(d_s=4, d_w=6, d_sw=2.5, n=10**7, N=10**7)
    exact, asym = w2s_risks(**big), w2s_risks(**big, form="asymptotic")
    assert float(exact.w2s) == pytest.approx(float(asym.w2s), rel=1e-5)
    paper = w2s_risks(4, 6, 2.5, n=1000, N=10, form="asymptotic")  # (s^2/n)[d_sw + d_s/N ...]
    assert float(paper.w2s) == pytest.approx((2.5 + 0.4 * 3.5) / 1000)


def test_monotone_in_N_and_in_d_sw():
    th = w2s_risks(20, 40, 10, 100, np.arange(22, 5000))
    assert np.all(np.diff(th.w2s) < 0) and np.all(th.w2s > th.w2s_limit)
    by_dsw = [float(w2s_risks(20, 40, d, 100, 400).w2s) for d in (0, 5, 10, 20)]
    assert np.all(np.diff(by_dsw) > 0)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(n=41), "n"),  # n <= d_w + 1
        (dict(n=100, N=21), "N"),  # N <= d_s + 1
        (dict(n=np.array([100, 30])), "n"),
        (dict(d_sw=25), "d_sw"),  # more shared directions than d_s
        (dict(d_sw=-1), "d_sw"),
        (dict(d_s=0), "d_s"),
        (dict(d_w=2.5), "d_w"),
        (dict(sigma=0.0), "sigma"),
        (dict(n=100.5), "n"),
        (dict(form="bogus"), "form"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, name):
    args = dict(d_s=20, d_w=40, d_sw=10, n=100, N=400)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        w2s_risks(**args)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(n=9), "n"),  # n <= d_w + 1
        (dict(N=[30, 4]), "N"),  # below d_s + 1
        (dict(N=[40, 30]), "N"),  # not increasing
        (dict(d_sw=1.5), "d_sw"),  # a fractional number of shared directions
        (dict(trials=1), "trials"),
        (dict(ambient_dim=10), "ambient_dim"),  # smaller than d_s + d_w - d_sw = 12
    ],
)
def test_simulator_bad_arguments(kwargs, name):
    args = dict(d_s=5, d_w=8, d_sw=1, n=20, N=30, trials=10)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        simulate_w2s(**args)


def test_simulator_is_reproducible_from_its_seed():
    a = simulate_w2s(3, 4, 1, 10, [8, 16], trials=20, seed=7)
    b = simulate_w2s(3, 4, 1, 10, [8, 16], trials=20, seed=np.random.default_rng(7))
    np.testing.assert_array_equal(a.w2s, b.w2s)
    # chunking (a memory bound) changes the draw order but not the law: same shapes
    c = simulate_w2s(3, 4, 1, 10, [8, 16], trials=20, seed=7, max_elements=100)
    assert c.w2s.shape == a.w2s.shape and np.all(c.w2s > 0)


def test_closed_form_holds_for_a_fractional_correlation_dimension():
    # V_s = span(e0, e1, e2); V_w = span(e0, cos t e1 + sin t e3, e4, e5): the subspaces share
    # e0 and meet at angle t in a second direction, so d_sw = 1 + cos(t)^2 (not an integer)
    t, D, n, N, trials = 1.0, 8, 14, 10, 3000
    E = np.eye(D)
    Vs = E[:, [0, 1, 2]]
    Vw = np.column_stack([E[:, 0], np.cos(t) * E[:, 1] + np.sin(t) * E[:, 3], E[:, 4], E[:, 5]])
    rng = np.random.default_rng(11)
    risks = np.array([naive_trial(rng, Vs, Vw, E[:, 0], n, N, SIGMA) for _ in range(trials)])
    th = w2s_risks(3, 4, 1 + np.cos(t) ** 2, n, N, SIGMA)
    se = risks[:, 2].std(ddof=1) / np.sqrt(trials)
    assert abs(risks[:, 2].mean() - float(th.w2s)) < 4 * se
