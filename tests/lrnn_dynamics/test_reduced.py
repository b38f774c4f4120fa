"""The mode-wise reduced dynamics against the full network, and their derivation."""

import numpy as np
import pytest

from icml25.lrnn_dynamics import (
    exact_gradients,
    exact_loss,
    exponential_profile,
    init_aligned,
    make_task,
    mode_projections,
    random_orthogonal,
    reduced_flow,
    reduced_gd,
    reduced_gradient,
    reduced_loss,
    train,
)

T = 4
S_PROFILES = np.stack([exponential_profile(1.0, 0.7, T), [0.1, 0.6, 0.2, 0.5]])  # (2, T)


def _setup(a=(0.3, 0.2), b=(0.5, -0.4), c=(0.7, 0.4)):
    U, V = random_orthogonal(3, 0)[:, :2], random_orthogonal(4, 1)[:, :2]
    net = init_aligned(U, V, np.array(a), np.array(b), np.array(c), hidden=6, seed=2)
    return U, V, net, make_task(U, V, S_PROFILES)


def test_aligned_network_maps_are_a_b_to_the_k_c():
    U, V, net, S = _setup()
    assert exact_loss(net, S) == pytest.approx(
        reduced_loss((0.3, 0.2), (0.5, -0.4), (0.7, 0.4), S_PROFILES)
    )


def test_reduced_gradient_is_minus_the_gradient_of_the_mode_loss():
    """The scalar ODE right-hand side against central finite differences of sum_a L_a."""
    theta = np.array([[0.3, 0.2], [0.5, -0.4], [0.7, 0.4]])  # (a, b, c) x modes
    rhs = reduced_gradient(*theta, S_PROFILES)
    h = 1e-6
    for p in range(3):
        for m in range(2):
            e = np.zeros_like(theta)
            e[p, m] = h
            fd = (
                reduced_loss(*(theta + e), S_PROFILES) - reduced_loss(*(theta - e), S_PROFILES)
            ) / (2 * h)
            assert -fd == pytest.approx(rhs[p, m], abs=1e-8)


def test_full_gradient_projects_on_the_reduced_gradient():
    """At an aligned point the full gradient stays aligned: its (a, b, c) components are the
    scalar gradients (dL/dW_y = U diag(dL/da) R^T, etc.)."""
    U, V, net, S = _setup()
    _, g = exact_gradients(net, S)
    rhs = reduced_gradient((0.3, 0.2), (0.5, -0.4), (0.7, 0.4), S_PROFILES)
    # dL/da_m = u_m^T dL/dW_y r_m with r_m = W_x v_m / c_m, etc.
    r = net.W_x @ V / np.array([0.7, 0.4])  # (N, m) the hidden directions
    np.testing.assert_allclose(np.einsum("om,on,nm->m", U, g.W_y, r), -rhs[0], atol=1e-12)
    np.testing.assert_allclose(np.einsum("nm,nk,km->m", r, g.W_h, r), -rhs[1], atol=1e-12)
    np.testing.assert_allclose(np.einsum("nm,ni,im->m", r, g.W_x, V), -rhs[2], atol=1e-12)


def test_full_network_follows_the_reduced_dynamics():
    eps = np.full(2, 0.05)
    U, V, net, S = _setup(eps, eps, eps)
    run = train(net, S, lr=0.002, steps=6000, record_every=50)
    full = mode_projections(run.maps, U, V)  # (R, m, T)
    flow = reduced_flow(S_PROFILES, eps, eps, eps, 0.002 * run.steps).maps
    gd = reduced_gd(S_PROFILES, eps, eps, eps, 0.002, 6000).maps[run.steps]
    np.testing.assert_allclose(full, gd, atol=1e-10)  # the decoupling is exact
    assert np.linalg.norm(full - flow) / np.linalg.norm(flow) < 0.01  # GD ~ gradient flow
    assert run.loss[-1] < 0.5 * run.loss[0]


def test_exponential_task_is_learned_with_b_equal_lambda():
    s = exponential_profile(1.5, 0.6, 5)[None]  # (1, T)
    traj = reduced_flow(s, 0.1, 0.1, 0.1, [0.0, 200.0])
    assert traj.b[-1, 0] == pytest.approx(0.6, abs=1e-6)
    assert traj.a[-1, 0] * traj.c[-1, 0] == pytest.approx(1.5, abs=1e-6)


def test_bad_arguments_raise_value_error_naming_them():
    with pytest.raises(ValueError, match="s must"):
        reduced_loss(1, 1, 1, np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="times"):
        reduced_flow(S_PROFILES, 0.1, 0.1, 0.1, [1.0, 0.5])
    with pytest.raises(ValueError, match="U and V"):
        make_task(np.eye(3), np.eye(3), np.ones((2, 4)))
    with pytest.raises(ValueError, match="T"):
        exponential_profile(1.0, 0.5, 0)
    with pytest.raises(ValueError, match="hidden"):
        init_aligned(np.eye(3), np.eye(3), 1, 1, 1, hidden=2, seed=0)
