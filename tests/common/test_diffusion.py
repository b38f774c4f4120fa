"""The diffusion model's mathematics: the DDIM step against its closed form for Gaussian data,
the sampler's marginal, the U-Net on any image size, training, the cache, bad inputs."""

import math

import numpy as np
import pytest
import torch
from sklearn.datasets import load_digits

from icml25.common.diffusion import (
    NoiseSchedule,
    UNet,
    cached_ddpm,
    ddim_sample,
    ddim_timesteps,
    train_ddpm,
)

MU, S = 0.7, 0.4  # the Gaussian toy: x0 ~ N(MU, S^2) in every pixel


def exact_eps(schedule: NoiseSchedule):
    """E[eps | x_t] for Gaussian data: sqrt(1 - ab) (x_t - sqrt(ab) MU) / (ab S^2 + 1 - ab)."""

    def denoiser(x, t):
        ab = schedule.alpha_bar[t].to(x.dtype).view(-1, 1, 1, 1)
        return (1 - ab).sqrt() * (x - ab.sqrt() * MU) / (ab * S**2 + 1 - ab)

    return denoiser


def test_ddim_step_matches_the_gaussian_closed_form():
    sch = NoiseSchedule(100)
    x = torch.randn(5, 1, 3, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    t, s = 60, 40
    eps = exact_eps(sch)(x, torch.full((5,), t))
    got = sch.ddim_step(x, t, s, eps)
    a, b = sch.abar(t), sch.abar(s)
    v = a * S**2 + 1 - a
    gain = (math.sqrt(a * b) * S**2 + math.sqrt((1 - a) * (1 - b))) / v
    want = math.sqrt(b) * MU + gain * (x - math.sqrt(a) * MU)
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_ddim_step_with_eta_one_is_the_ddpm_posterior_step():
    sch = NoiseSchedule(50)
    g = torch.Generator().manual_seed(1)
    x, eps, z = (torch.randn(4, 1, 2, 2, dtype=torch.float64, generator=g) for _ in range(3))
    t = 30
    got = sch.ddim_step(x, t, t - 1, eps, eta=1.0, noise=z)
    beta, a, b = float(sch.betas[t]), sch.abar(t), sch.abar(t - 1)
    x0 = (x - math.sqrt(1 - a) * eps) / math.sqrt(a)
    mean = math.sqrt(b) * beta / (1 - a) * x0 + math.sqrt(1 - beta) * (1 - b) / (1 - a) * x
    want = mean + math.sqrt((1 - b) / (1 - a) * beta) * z
    torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)


def test_deterministic_sampler_reaches_the_gaussian_data_distribution():
    sch = NoiseSchedule(1000)
    x = ddim_sample(exact_eps(sch), sch, (4000, 1, 1, 1), steps=1000, seed=0, clip=None)
    # each step with the exact eps shrinks the spread a little (Cauchy-Schwarz on the closed
    # form): sd/S is 0.83 at 20 steps, 0.99 at 1000; the mean's sampling error is 0.006
    assert abs(x.mean().item() - MU) < 0.03
    assert abs(x.std().item() / S - 1) < 0.03


def test_timesteps_and_bad_steps():
    assert ddim_timesteps(100, 5) == [99, 74, 50, 25, 0]
    with pytest.raises(ValueError, match="steps"):
        ddim_timesteps(10, 11)
    sch = NoiseSchedule(10 * 3)
    with pytest.raises(ValueError, match="t must be"):
        sch.abar(30)
    with pytest.raises(ValueError, match="t_prev"):
        sch.ddim_step(torch.zeros(1), 3, 5, torch.zeros(1))
    with pytest.raises(ValueError, match="noise"):
        sch.ddim_step(torch.zeros(1), 5, 3, torch.zeros(1), eta=0.5)
    with pytest.raises(ValueError, match="T must be at least 21"):
        NoiseSchedule(20)


@pytest.mark.parametrize("shape", [(2, 1, 8, 8), (3, 3, 17, 10), (1, 2, 28, 28)])
def test_unet_keeps_any_image_shape(shape):
    net = UNet(shape[1], width=8, seed=0)
    out = net(torch.randn(shape), torch.zeros(shape[0], dtype=torch.long))
    assert out.shape == shape


def test_unet_is_seeded_without_touching_the_global_stream():
    before = torch.random.get_rng_state()
    a, b, c = UNet(1, 8, seed=3), UNet(1, 8, seed=3), UNet(1, 8, seed=4)
    assert torch.equal(torch.random.get_rng_state(), before)
    pa, pb, pc = (torch.cat([p.flatten() for p in m.parameters()]) for m in (a, b, c))
    assert torch.equal(pa, pb) and not torch.equal(pa, pc)


def digits(n=256):
    return load_digits().images[:n, None].astype(np.float32) / 8 - 1  # (n, 1, 8, 8) in [-1, 1]


def test_training_lowers_the_noise_prediction_loss():
    trained = train_ddpm(digits(), T=50, width=8, steps=150, batch_size=64, seed=0)
    first, last = trained.losses[:20].mean(), trained.losses[-20:].mean()
    assert last < 0.7 * first  # about 1 (predicting 0) at the start
    x = ddim_sample(trained.model, trained.schedule, (3, 1, 8, 8), steps=10, seed=1)
    assert x.shape == (3, 1, 8, 8) and x.abs().max() <= 1 + 1e-6


def test_cache_trains_once_and_loads_the_same_weights(tmp_path):
    kw = dict(T=30, width=8, steps=5, batch_size=16, seed=2)
    first = cached_ddpm(digits(32), directory=tmp_path, **kw)
    second = cached_ddpm(digits(32), directory=tmp_path, **kw)
    other = cached_ddpm(digits(32), directory=tmp_path, **(kw | {"seed": 3}))
    assert not first.from_cache and second.from_cache and not other.from_cache
    assert second.train_seconds == first.train_seconds
    np.testing.assert_array_equal(second.losses, first.losses)
    for p, q in zip(first.model.parameters(), second.model.parameters(), strict=True):
        assert torch.equal(p, q)
    assert len(list((tmp_path / "ddpm").glob("*.pt"))) == 2


def test_bad_images():
    with pytest.raises(ValueError, match="images must be an array"):
        train_ddpm(np.zeros((4, 8, 8)))
    with pytest.raises(ValueError, match="finite"):
        train_ddpm(np.full((4, 1, 8, 8), np.nan))
