"""Task maps from raw sequences, their shared modes, and the matched start of the ODEs."""

import numpy as np
import pytest

from icml25.lrnn_dynamics import (
    cross_covariance_maps,
    exponential_profile,
    init_aligned,
    init_random,
    make_task,
    matched_initial_condition,
    random_orthogonal,
    task_modes,
)

T = 5
PROFILES = np.stack([exponential_profile(2.0, 0.8, T), [0.2, 0.9, 0.1, 0.6, 0.3]])  # (2, T)


def _task(d_out=3, d_in=4):
    U, V = random_orthogonal(d_out, 0)[:, :2], random_orthogonal(d_in, 1)[:, :2]
    return U, V, make_task(U, V, PROFILES)  # (T, d_out, d_in)


def test_cross_covariance_maps_recover_the_task_from_white_sequences():
    _, _, S = _task()
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40_000, T, 4))  # (B, T, d_in), white
    y = np.einsum("toi,bti->bo", S, x) + 0.5 * rng.normal(size=(40_000, 3))  # (B, d_out)
    maps = cross_covariance_maps(x, y)
    # Monte Carlo error of each entry ~ sqrt(E y^2 / B) ~ 0.012
    assert np.max(np.abs(maps.S - S)) < 0.06
    assert maps.whiteness < 0.05 and maps.samples == 40_000


def test_whiteness_flags_correlated_inputs():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(20_000, T, 2))
    x[:, 1:] += x[:, :-1]  # correlated across time
    assert cross_covariance_maps(x, rng.normal(size=(20_000, 1))).whiteness > 0.5


def test_task_modes_recover_shared_singular_vectors_and_profiles():
    U, V, S = _task()
    modes = task_modes(S)
    assert modes.residual < 1e-10
    np.testing.assert_allclose(modes.s[:2], PROFILES, atol=1e-10)  # signs fixed: max positive
    np.testing.assert_allclose(np.abs(modes.U[:, :2].T @ U), np.eye(2), atol=1e-10)
    np.testing.assert_allclose(np.abs(modes.V[:, :2].T @ V), np.eye(2), atol=1e-10)
    np.testing.assert_allclose(modes.s[2:], 0.0, atol=1e-10)


def test_task_modes_residual_sees_maps_without_shared_vectors():
    rng = np.random.default_rng(5)
    assert task_modes(rng.normal(size=(T, 3, 3))).residual > 0.3


def test_matched_initial_condition_of_an_aligned_network_is_its_scalars():
    U, V, _ = _task()
    a, b, c = np.array([0.3, 0.2]), np.array([0.5, -0.4]), np.array([0.3, 0.2])
    net = init_aligned(U, V, a, b, c, hidden=6, seed=2)
    np.testing.assert_allclose(matched_initial_condition(net, U, V), [a, b, c], atol=1e-12)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: cross_covariance_maps(np.zeros((5, 3)), np.zeros((5, 2))), "x must"),
        (lambda: cross_covariance_maps(np.zeros((5, 3, 2)), np.zeros((4, 2))), "y must"),
        (lambda: cross_covariance_maps(np.full((5, 3, 2), np.nan), np.zeros((5, 2))), "finite"),
        (lambda: task_modes(np.zeros((3, 2))), "S must"),
        (lambda: task_modes(np.zeros((3, 2, 2))), "S is zero"),
        (
            lambda: matched_initial_condition(
                init_random(4, 3, 6, 0.1, 0), np.eye(4)[:, :2], np.eye(3)[:, :2]
            ),
            "U must",
        ),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(call, name):
    with pytest.raises(ValueError, match=name):
        call()
