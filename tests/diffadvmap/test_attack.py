"""DiffAdvMAP's attack: its steps, its range, its mathematics on an exact prior, any user model,
and bad input."""

import math

import pytest
import torch
from torch import nn

from icml25.common.diffusion import NoiseSchedule, UNet, ddim_timesteps
from icml25.diffadvmap import SmallCNN, attack, margin

SCHEDULE = NoiseSchedule(50)


def _digits_like(n=6, seed=0):
    gen = torch.Generator().manual_seed(seed)
    x = torch.rand((n, 1, 8, 8), generator=gen) * 2 - 1  # (n, 1, 8, 8)
    return x, torch.arange(n) % 10


class CountingDenoiser:
    """A small untrained U-Net that records the steps it is called at."""

    def __init__(self, channels=1):
        self.net = UNet(channels, 8, seed=0).eval().requires_grad_(False)
        self.calls = []

    def __call__(self, x_t, t):
        self.calls.append(int(t[0]))
        return self.net(x_t, t)


def point_mass_denoiser(x0):
    """The exact eps of a prior that is a point mass at ``x0``: eps = (x_t - sqrt(abar) x0) /
    sqrt(1 - abar)."""

    def eps(x_t, t):
        ab = SCHEDULE.alpha_bar.float()[t].view(-1, 1, 1, 1)
        return (x_t - ab.sqrt() * x0) / (1 - ab).sqrt()

    return eps


def test_margin_is_true_logit_minus_best_other():
    logits = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 1.0]])
    assert torch.allclose(margin(logits, torch.tensor([0, 2])), torch.tensor([1.0, -4.0]))


def test_attack_stays_within_its_steps_and_returns_images_in_range():
    x, y = _digits_like()
    denoiser = CountingDenoiser()
    model = SmallCNN(1, 10, 4, seed=0).eval()
    out = attack(model, denoiser, x, y, t_star=12, steps=5, inner_steps=2, schedule=SCHEDULE)
    assert out.shape == x.shape and torch.isfinite(out).all()
    assert out.min() >= -1 and out.max() <= 1
    ts = ddim_timesteps(12 + 1, 5)
    assert ts[0] == 12 and ts[-1] == 0 and len(ts) == 5
    # per reverse step: inner_steps gradient evaluations, then one call for the DDIM update
    assert denoiser.calls == [t for t in ts for _ in range(3)]


def test_same_seed_same_images_other_seed_other_images():
    x, y = _digits_like()
    model = SmallCNN(1, 10, 4, seed=0).eval()
    run = lambda seed: attack(  # noqa: E731
        model, CountingDenoiser(), x, y, t_star=8, schedule=SCHEDULE, seed=seed
    )
    assert torch.equal(run(3), run(3))
    assert not torch.equal(run(3), run(4))


def test_exact_point_mass_prior_without_attack_returns_the_clean_image():
    """With c_adv = 0 the posterior of a point-mass prior is the point itself: the DDIM chain
    from any noised x_{t*} must land exactly on x_0."""
    x, y = _digits_like()
    x = x.clamp(-0.9, 0.9)
    model = SmallCNN(1, 10, 4, seed=0).eval()
    out = attack(
        model, point_mass_denoiser(x), x, y, t_star=30, c_adv=0.0, schedule=SCHEDULE, seed=1
    )
    assert torch.allclose(out, x, atol=1e-5)


def test_adversarial_term_lowers_the_margin():
    x, y = _digits_like(8)
    model = SmallCNN(1, 10, 4, seed=0).eval()
    denoiser = CountingDenoiser()
    kwargs = dict(t_star=15, lr=0.05, kappa=-5.0, schedule=SCHEDULE, seed=2)
    plain = attack(model, denoiser, x, y, c_adv=0.0, **kwargs)
    adv = attack(model, denoiser, x, y, c_adv=1.0, **kwargs)
    with torch.no_grad():
        assert margin(model(adv), y).mean() < margin(model(plain), y).mean()


def test_regional_attack_keeps_the_masked_pixels():
    x, y = _digits_like()
    mask = torch.zeros(1, 1, 8, 8)
    mask[..., :4, :] = 1  # keep the top half
    model = SmallCNN(1, 10, 4, seed=0).eval()
    out = attack(model, CountingDenoiser(), x, y, t_star=6, mask=mask, schedule=SCHEDULE)
    assert torch.equal(out[..., :4, :], x[..., :4, :])
    assert not torch.equal(out[..., 4:, :], x[..., 4:, :])


def test_works_on_a_user_model_with_other_shapes():
    """Three channels, 12 x 10 images, 5 classes, a linear classifier and a convolutional
    denoiser that is not the shared U-Net."""
    gen = torch.Generator().manual_seed(0)
    x = torch.rand((4, 3, 12, 10), generator=gen) * 2 - 1
    y = torch.tensor([0, 1, 2, 4])
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 12 * 10, 5))
        conv = nn.Conv2d(3, 3, 3, padding=1)

    def denoiser(x_t, t):
        return conv(x_t) * (1 + t.float().view(-1, 1, 1, 1) / 50)

    out = attack(model, denoiser, x, y, t_star=10, schedule=SCHEDULE, kappa=-3.0, lr=0.05)
    assert out.shape == x.shape and out.min() >= -1 and out.max() <= 1


def test_a_trained_ddpm_brings_its_schedule():
    from icml25.common.diffusion import TrainedDDPM

    x, y = _digits_like()
    trained = TrainedDDPM(UNet(1, 8, seed=0).eval(), SCHEDULE, torch.zeros(1).numpy(), 0.0)
    model = SmallCNN(1, 10, 4, seed=0).eval()
    attack(model, trained, x, y, t_star=49)  # T = 50: the last step is allowed
    with pytest.raises(ValueError, match="t_star"):
        attack(model, trained, x, y, t_star=50)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(t_star=50), "t_star"),
        (dict(t_star=-1), "t_star"),
        (dict(t_star=2.5), "t_star"),
        (dict(t_star=True), "t_star"),
        (dict(t_star=5, steps=7), "steps"),
        (dict(t_star=5, steps=0), "steps"),
        (dict(lr=0.0), "lr"),
        (dict(c_adv=-1.0), "c_adv"),
        (dict(c_rec=math.nan), "c_rec"),
        (dict(radius=0.0), "radius"),
        (dict(mask=torch.full((1, 1, 8, 8), 0.5)), "mask"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, match):
    x, y = _digits_like()
    model = SmallCNN(1, 10, 4, seed=0).eval()
    with pytest.raises(ValueError, match=match):
        attack(model, CountingDenoiser(), x, y, schedule=SCHEDULE, **{"t_star": 5, **kwargs})


def test_bad_images_and_labels():
    x, y = _digits_like()
    model = SmallCNN(1, 10, 4, seed=0).eval()
    den = CountingDenoiser()
    with pytest.raises(ValueError, match="x must"):
        attack(model, den, x * 3, y, t_star=5, schedule=SCHEDULE)
    with pytest.raises(ValueError, match="x must"):
        attack(model, den, x[0], y, t_star=5, schedule=SCHEDULE)
    with pytest.raises(ValueError, match="y must"):
        attack(model, den, x, y[:2], t_star=5, schedule=SCHEDULE)
    with pytest.raises(ValueError, match="y must"):
        attack(model, den, x, y.float(), t_star=5, schedule=SCHEDULE)
    with pytest.raises(TypeError, match="denoiser"):
        attack(model, "unet", x, y, t_star=5, schedule=SCHEDULE)
    with pytest.raises(TypeError, match="schedule"):
        attack(model, den, x, y, t_star=5, schedule=100)
