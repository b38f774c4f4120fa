"""The Fourier task, the schedules and the stacked muP MLP with its Adam."""

import numpy as np
import pytest
import torch

from icml25.supercollapse import (
    fourier_targets,
    fourier_task,
    init_mlp,
    lr_schedule,
    mlp_forward,
    mup_learning_rates,
    parameter_count,
    sample_inputs,
    train_members,
)
from icml25.supercollapse.mlp import BETA1, BETA2, EPS


def test_fourier_second_moment_matches_the_closed_form():
    """E[y^2] over the cube = sum_ij w_i w_j [cos(b_i - b_j) 1{k_i = k_j} + cos(b_i + b_j)
    1{k_i = -k_j}] (orthogonality of integer frequencies); Monte Carlo within 3%."""
    task = fourier_task(dim=3, n_modes=60, seed=1)
    same = np.all(task.k[:, None] == task.k[None], axis=2)
    opposite = np.all(task.k[:, None] == -task.k[None], axis=2)
    b_minus, b_plus = task.b[:, None] - task.b[None], task.b[:, None] + task.b[None]
    exact = task.w @ (np.cos(b_minus) * same + np.cos(b_plus) * opposite) @ task.w
    x = np.random.default_rng(2).uniform(-0.5, 0.5, size=(200_000, 3))
    assert np.mean(fourier_targets(task, x) ** 2) == pytest.approx(exact, rel=0.03)


def test_fourier_task_shapes_and_backends_agree():
    task = fourier_task(dim=8, n_modes=50, alpha=2.0, seed=0)
    assert task.k.shape == (50, 8) and task.w.shape == (50,) and task.b.shape == (50,)
    assert np.linalg.norm(task.w) == pytest.approx(1.0)
    assert np.all(np.isin(task.b, [0.0, np.pi / 2]))
    assert np.all(task.k == np.round(task.k))
    x = sample_inputs(7, 8, torch.Generator().manual_seed(0))
    assert x.shape == (7, 8) and x.abs().max() <= 0.5
    np.testing.assert_allclose(
        fourier_targets(task, x.double()).numpy(), fourier_targets(task, x.double().numpy())
    )


def test_frequency_magnitudes_follow_the_power_law():
    """The magnitudes are s = (1 - u)^(-1/alpha), P(s > S) = S^-alpha; in dim 1, |k| = round(s),
    so P(|k| >= 5) = P(s >= 4.5) = 4.5^-2 (binomial sd 0.0015 at 20,000 modes)."""
    task = fourier_task(dim=1, n_modes=20_000, alpha=2.0, seed=3)
    s = np.abs(task.k[:, 0])
    assert np.mean(s >= 4.5) == pytest.approx(4.5**-2, abs=0.01)


def test_schedules():
    t = np.array([0, 25, 50, 75, 100])
    np.testing.assert_allclose(lr_schedule("constant", t, 100), 1.0)
    np.testing.assert_allclose(lr_schedule("linear", t, 100), [1, 0.75, 0.5, 0.25, 0])
    np.testing.assert_allclose(
        lr_schedule("cosine", t, 100), [1, 0.853553, 0.5, 0.146447, 0], atol=1e-6
    )
    np.testing.assert_allclose(lr_schedule("linear", t, 100, decay_frac=0.5), [1, 1, 1, 0.5, 0])


def test_mlp_shapes_zero_output_at_init_and_independent_members():
    params = init_mlp(12, 2, [3, 4, 5])
    assert params["W_in"].shape == (3, 8, 12) and params["W1"].shape == (3, 2, 12, 12)
    assert sum(p[0].numel() for p in params.values()) == parameter_count(12, 2)
    x = torch.rand(9, 8) - 0.5
    assert torch.all(mlp_forward(params, x) == 0)  # zero-initialised readout
    for p in params.values():
        p.normal_(generator=torch.Generator().manual_seed(0))
    out = mlp_forward(params, x)  # (M, B)
    alone = mlp_forward({k: v[1:2] for k, v in params.items()}, x)
    assert out.shape == (3, 9)
    torch.testing.assert_close(out[1:2], alone)


def test_mup_rates():
    small, big = mup_learning_rates(16, 16, 0.01), mup_learning_rates(64, 16, 0.01)
    assert small == {"W_in": 0.01, "W1": 0.01, "W2": 0.01, "w_out": 0.01}
    assert big["W_in"] == 0.01 and big["W1"] == big["w_out"] == pytest.approx(0.0025)
    assert mup_learning_rates(64, 16, 0.01, lr_width=16) == small


def test_training_equals_torch_adam_with_the_same_data():
    """One member, constant schedule: our stacked Adam = torch.optim.Adam, per-layer rates."""
    task = fourier_task(dim=8, n_modes=30, seed=0)
    run = train_members(
        task,
        8,
        [7],
        ["constant"],
        20,
        depth=2,
        batch=32,
        base_width=4,
        base_lr=0.01,
        eval_steps=[10],
        eval_size=64,
        data_seed=5,
    )
    params = {k: v.clone().requires_grad_(True) for k, v in init_mlp(8, 2, [7]).items()}
    rates = mup_learning_rates(8, 4, 0.01)
    opt = torch.optim.Adam(
        [{"params": [params[k]], "lr": rates[k]} for k in params], betas=(BETA1, BETA2), eps=EPS
    )
    gen = torch.Generator().manual_seed(5)
    x_test = sample_inputs(64, 8, gen)
    y_test = fourier_targets(task, x_test)
    for _ in range(20):
        x = sample_inputs(32, 8, gen)
        loss = 0.5 * (mlp_forward(params, x)[0] - fourier_targets(task, x)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        final = 0.5 * (mlp_forward(params, x_test)[0] - y_test).pow(2).mean().item()
    assert run.loss.shape == (1, 3) and list(run.steps) == [0, 10, 20]
    assert run.loss[0, -1] == pytest.approx(final, rel=1e-4)
    assert run.loss[0, -1] < run.loss[0, 0]


def test_members_differ_only_by_their_rates():
    """Same seed: muP and 'no muP at the base width' are the same member; at twice the base width
    the no-muP member (base-width rates) trains differently."""
    task = fourier_task(dim=8, n_modes=30, seed=0)
    kw = dict(depth=1, batch=16, base_width=8, eval_steps=[3], eval_size=32)
    same = train_members(task, 8, [1, 1], ["linear"] * 2, 6, lr_widths=[None, 8], **kw)
    np.testing.assert_array_equal(same.loss[0], same.loss[1])
    wide = train_members(task, 16, [1, 1], ["linear"] * 2, 6, lr_widths=[None, 8], **kw)
    assert wide.loss[0, 0] == wide.loss[1, 0] and wide.loss[0, -1] != wide.loss[1, -1]


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: fourier_task(dim=0), "dim"),
        (lambda: fourier_task(n_modes=0), "n_modes"),
        (lambda: fourier_task(alpha=0.0), "alpha"),
        (lambda: fourier_targets(fourier_task(4, 5), np.zeros((3, 5))), "x must"),
        (lambda: lr_schedule("step", [0], 10), "name"),
        (lambda: lr_schedule("linear", [11], 10), "steps"),
        (lambda: lr_schedule("linear", [0], 0), "total"),
        (lambda: lr_schedule("linear", [0], 10, decay_frac=0.0), "decay_frac"),
        (lambda: init_mlp(0, 1, [0]), "width"),
        (lambda: init_mlp(4, 0, [0]), "depth"),
        (lambda: init_mlp(4, 1, []), "seeds"),
        (lambda: mup_learning_rates(4, 4, -1.0), "base_lr"),
        (lambda: mup_learning_rates(4, 0, 1.0), "base_width"),
        (lambda: mup_learning_rates(4, 4, 1.0, lr_width=0), "lr_width"),
        (lambda: train_members(fourier_task(8, 5), 4, [0], ["step"], 3), "schedules"),
        (lambda: train_members(fourier_task(8, 5), 4, [0], ["linear"], 0), "total_steps"),
        (lambda: train_members(fourier_task(8, 5), 4, [0], ["linear"], 3, batch=0), "batch"),
        (lambda: train_members(fourier_task(8, 5), 4, [0], ["linear"], 3, eval_steps=[9]), "eval"),
        (
            lambda: train_members(fourier_task(8, 5), 4, [0], ["linear"], 3, lr_widths=[1, 2]),
            "lr_w",
        ),
    ],
)
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()
