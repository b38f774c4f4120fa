"""Bad input to the collapse statistics, the task and the MLP is refused, naming it."""

import numpy as np
import pytest
import torch

from icml25.supercollapse import (
    collapse_deviation,
    compute_frontier,
    fit_frontier_exponent,
    fit_irreducible_loss,
    fourier_targets,
    fourier_task,
    init_mlp,
    lr_schedule,
    mlp_forward,
    noise_floor,
    normalized_curves,
    optimal_horizon,
    parameter_count,
    power_law_collapse,
    power_law_loss,
    power_law_optimal_horizon,
    sample_inputs,
    train_members,
)

LOSS = 1.0 + np.arange(30.0).reshape(2, 3, 5) / 30  # (P, W, X)
C = np.array([1.0, 10, 100, 1000])
TASK = fourier_task(2, 5)
GEN = torch.Generator().manual_seed(0)


def train(**changes):
    kwargs = dict(task=TASK, width=4, seeds=[0], schedules=["constant"], total_steps=2) | changes
    return lambda: train_members(depth=1, batch=4, eval_size=4, **kwargs)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: normalized_curves(LOSS * np.nan, 0.5), "loss must be finite"),
        (lambda: normalized_curves(LOSS.astype(str), 0.5), "loss must be a numeric array"),
        (lambda: normalized_curves(np.empty((0, 5)), 0.5), "loss must not be empty"),
        (lambda: collapse_deviation(LOSS * np.inf), "l must be finite"),
        (lambda: collapse_deviation(np.zeros((2, 3, 5))), "l must have a nonzero mean"),
        (lambda: noise_floor(LOSS, np.nan), "L0 must be a number"),
        (lambda: noise_floor(LOSS, 5.0), "L0 must lie below the mean loss"),
        (lambda: fit_irreducible_loss(np.r_[C[:3], np.inf], 1 + C**-0.3), "compute must be finite"),
        (lambda: fit_irreducible_loss(C, 1 + C**-0.3, delta=-1.0), "delta must be a number"),
        (lambda: fit_irreducible_loss(C, 1 + C**-0.3, starts=10**6), "starts must be at most"),
        (lambda: compute_frontier([C], [C * np.nan]), r"loss\[0\] must be finite"),
        (lambda: compute_frontier([C], [C[:3]]), r"compute\[0\] and loss\[0\] must be equally"),
        (lambda: compute_frontier([C[::-1]], [C]), r"compute\[0\] must be increasing"),
        (lambda: compute_frontier([C], [-C]), r"loss\[0\] must be positive"),
        (lambda: compute_frontier([C], [C], n_points=0), "n_points must be an integer >= 1"),
        (lambda: compute_frontier([C], [C], n_points=10**12), "n_points .* at most"),
        (lambda: fit_frontier_exponent(C, C * np.nan), "compute must be finite"),
        (lambda: fit_frontier_exponent(C, 0 * C), "params and compute must be positive"),
        (lambda: optimal_horizon(C * np.nan, 0.5, 1.0, 1.0), "params must be finite"),
        (lambda: power_law_loss(0.0, 10.0, 0.5, 0.3), "t must be positive"),
        (lambda: power_law_loss(10.0, 10.0, -1.0, 0.3), "mu must be a number"),
        (lambda: power_law_loss(np.ones(3), np.ones(4), 0.5, 0.3), "t and p must broadcast"),
        (lambda: power_law_optimal_horizon(-C, 0.5, 0.3), "p must be positive"),
        (lambda: power_law_collapse([np.nan], 0.5, 0.3), "x must be finite"),
        (lambda: fourier_task(8, 10**12), "n_modes \\* dim is too large"),
        (lambda: fourier_targets(TASK, np.full((3, 2), np.nan)), "x must be finite"),
        (lambda: fourier_targets(TASK, torch.zeros(3, 4)), "x must be a float tensor of shape"),
        (lambda: fourier_targets(TASK, torch.full((3, 2), np.nan)), "x must be finite"),
        (lambda: sample_inputs(0, 2, GEN), "n must be an integer >= 1"),
        (lambda: sample_inputs(10**12, 2, GEN), "n \\* dim is too large"),
        (lambda: parameter_count(-16, 3), "width must be an integer >= 1"),
        (lambda: init_mlp(4, 1, [0], dim=0), "dim must be an integer >= 1"),
        (lambda: init_mlp(4, 1, [0.5]), r"seeds\[0\] must be an integer seed"),
        (lambda: init_mlp(10**6, 1, [0]), "len\\(seeds\\) \\* parameter_count is too large"),
        (lambda: mlp_forward(init_mlp(4, 1, [0]), torch.zeros(2, 3, 8)), "x must be a tensor of"),
        (lambda: mlp_forward(init_mlp(4, 1, [0]), torch.full((3, 8), np.nan)), "x must be finite"),
        (lambda: lr_schedule("linear", [np.nan], 5), "steps must be finite"),
        (lambda: lr_schedule("linear", ["1"], 5), "steps must be a numeric array"),
        (train(eval_steps=[1.5]), "eval_steps must hold integers"),
        (train(data_seed=1.5), "data_seed must be an integer seed"),
        (train(total_steps=10**12), "total_steps \\* len\\(seeds\\) is too large"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: fourier_targets(None, np.zeros((3, 2))), "task must be a FourierTask"),
        (lambda: sample_inputs(3, 2, 0), "generator must be a torch.Generator"),
        (train(task=None), "task must be a FourierTask"),
    ],
)
def test_wrong_types_are_refused_by_name(call, message):
    with pytest.raises(TypeError, match=message):
        call()
