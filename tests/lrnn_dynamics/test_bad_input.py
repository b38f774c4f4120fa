"""Bad input to the task maps, the network and the reduced dynamics is refused, naming it."""

import numpy as np
import pytest

from icml25.lrnn_dynamics import (
    LinearRNN,
    cross_covariance_maps,
    exact_loss,
    exponential_profile,
    init_aligned,
    init_random,
    lag_maps,
    make_task,
    matched_initial_condition,
    mode_projections,
    ntk,
    random_orthogonal,
    reduced_flow,
    reduced_gd,
    reduced_gradient,
    reduced_loss,
    task_modes,
    train,
)

X = np.linspace(-1, 1, 24).reshape(4, 3, 2)  # (B, T, d_in)
Y = np.ones((4, 2))
U, V = np.eye(2), np.eye(2)
PROFILES = np.array([[0.25, 0.5, 1.0], [0.5, 0.7, 1.0]])  # (m, T)
S = make_task(U, V, PROFILES)  # (T, 2, 2)
NET = init_random(2, 2, hidden=4, scale=0.1, seed=0)
ONES = np.ones(2)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: cross_covariance_maps(X.astype(str), Y), "x must be a numeric array"),
        (lambda: cross_covariance_maps(np.zeros((2, 10**5, 1)), np.zeros((2, 1))), "x is too"),
        (lambda: task_modes(S.astype(str)), "S must be a numeric array"),
        (lambda: init_random(2, 2, 10**6, 0.1, 0), "hidden .* is too large"),
        (lambda: init_random(2, 2, 4, 0.1, -1), "seed must be a non-negative int"),
        (lambda: init_aligned(U * np.nan, V, 0.1, 0.5, 0.1, 4, 0), "U must be finite"),
        (lambda: init_aligned(U[0], V, 0.1, 0.5, 0.1, 4, 0), "U must have 2 dimensions"),
        (lambda: init_aligned(U, V, [0.1, 0.2, 0.3], 0.5, 0.1, 4, 0), "a must be a number or"),
        (lambda: LinearRNN(NET.W_x.astype(str), NET.W_h, NET.W_y), "W_x must be a non-empty real"),
        (lambda: LinearRNN(NET.W_x + 0j, NET.W_h, NET.W_y), "W_x must be a non-empty real"),
        (lambda: NET.forward(X * np.nan), "x must be finite"),
        (lambda: NET.forward(X.astype(str)), "x must be a numeric array"),
        (lambda: lag_maps(NET, 10**12), r"T \* hidden .* is too large"),
        (lambda: exact_loss(NET, S.astype(str)), "S must be a numeric array"),
        (lambda: train(NET, S, 0.01, 10**12), "steps is too large"),
        (lambda: ntk(NET, 10**4), "is too large"),
        (lambda: random_orthogonal(10**6, 0), r"d \* d is too large"),
        (lambda: exponential_profile(1.0, 0.5, 10**12), "T is too large"),
        (lambda: make_task(U * np.nan, V, PROFILES), "U must be finite"),
        (lambda: make_task(U, V, PROFILES.astype(str)), "s must be a numeric array"),
        (lambda: mode_projections(S * np.nan, U, V), "maps must be finite"),
        (lambda: mode_projections(S, U[:1], V), r"U must be \(d_out, m\)"),
        (lambda: mode_projections(S[0], U, V), r"maps must have shape \(..., T"),
        (lambda: reduced_loss([np.nan, 1.0], ONES, ONES, PROFILES), "a must be finite"),
        (lambda: reduced_loss(1.0, 0.5, 1.0, PROFILES), "a must be a 1-d array"),
        (lambda: reduced_gradient(np.ones(3), ONES, ONES, PROFILES), "a must be a 1-d array"),
        (lambda: reduced_flow(PROFILES, 0.1, 0.5, 0.1, [0.0, np.nan]), "times must be finite"),
        (lambda: reduced_flow(PROFILES, 0.1, 0.5, 0.1, [0.0, 1.0], rtol=-1.0), "rtol must be"),
        (lambda: reduced_flow(PROFILES, [0.1] * 3, 0.5, 0.1, [0.0, 1.0]), "a0 must be a number"),
        (lambda: matched_initial_condition(NET, U * np.nan, V), "U must be finite"),
        (lambda: reduced_gd(PROFILES, np.nan, 0.5, 0.1, 0.01, 3), "a0 must be finite"),
        (lambda: reduced_gd(PROFILES, 0.1, 0.5, 0.1, 0.01, 10**12), r"\(steps \+ 1\) .* too large"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: cross_covariance_maps(X, Y, center="yes"), "center must be True or False"),
        (lambda: init_random(2, 2, 4, 0.1, "a"), "seed must be a non-negative int"),
        (lambda: lag_maps(None, 3), "net must be a LinearRNN"),
        (lambda: train(None, S, 0.01, 3), "net must be a LinearRNN"),
        (lambda: matched_initial_condition(None, U, V), "net must be a LinearRNN"),
    ],
)
def test_wrong_types_are_refused_by_name(call, message):
    with pytest.raises(TypeError, match=message):
        call()
