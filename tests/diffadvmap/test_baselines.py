"""PGD-Linf, the pixel-space attack, the classifiers and the naturalness measures."""

import numpy as np
import pytest
import torch
from torch import nn

from icml25.diffadvmap import (
    MLP,
    SmallCNN,
    accuracy,
    detection_auc,
    frechet_distance,
    margin,
    nearest_neighbour_distance,
    pgd_linf,
    pixel_attack,
    train_classifier,
    train_discriminator,
)


def _blobs(n=64, seed=0):
    """Two classes of 1 x 4 x 4 images: bright or dark top half, with noise."""
    gen = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % 2
    x = 0.3 * torch.randn((n, 1, 4, 4), generator=gen)
    x[:, :, :2] += (2 * y - 1).float().view(-1, 1, 1, 1) * 0.5
    return x.clamp(-1, 1), y


def _linear():
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return nn.Sequential(nn.Flatten(), nn.Linear(16, 2))


@pytest.mark.parametrize("epsilon", [0.05, 0.3])
def test_pgd_stays_in_its_epsilon_ball_and_in_range(epsilon):
    x, y = _blobs()
    x_adv = pgd_linf(_linear(), x, y, epsilon=epsilon, steps=10, seed=1)
    assert (x_adv - x).abs().max() <= epsilon + 1e-6
    assert x_adv.min() >= -1 and x_adv.max() <= 1


def test_pgd_fools_a_trained_model_and_a_larger_ball_fools_more():
    x, y = _blobs(128)
    model = train_classifier(_linear(), x, y, epochs=20, seed=0)
    assert accuracy(model, x, y) > 0.9
    rates = [accuracy(model, pgd_linf(model, x, y, epsilon=e, steps=20), y) for e in (0.2, 0.8)]
    assert rates[1] < rates[0] and rates[1] < 0.5


def test_pixel_attack_lowers_the_margin_and_stays_in_range():
    x, y = _blobs()
    model = train_classifier(_linear(), x, y, epochs=10, seed=0)
    x_adv = pixel_attack(model, x, y, steps=20, lr=0.01, kappa=-5.0)
    assert x_adv.min() >= -1 and x_adv.max() <= 1
    with torch.no_grad():
        assert margin(model(x_adv), y).mean() < margin(model(x), y).mean()


def test_adversarial_training_makes_pgd_weaker():
    x, y = _blobs(128)
    plain = train_classifier(_linear(), x, y, epochs=15, seed=0)
    robust = train_classifier(_linear(), x, y, epochs=15, pgd_epsilon=0.3, seed=0)
    attacked = [accuracy(m, pgd_linf(m, x, y, epsilon=0.3, steps=10), y) for m in (plain, robust)]
    assert attacked[1] > attacked[0]


def test_classifiers_take_any_image_size():
    x = torch.zeros(2, 3, 13, 9)
    assert SmallCNN(3, 7, 4).forward(x).shape == (2, 7)
    assert SmallCNN(3, 7, 4).features(x).shape == (2, 8)
    assert MLP(3 * 13 * 9, 7, 8).forward(x).shape == (2, 7)


def test_training_is_deterministic_for_its_seed():
    x, y = _blobs()
    a = train_classifier(SmallCNN(1, 2, 4, seed=0), x, y, epochs=2, seed=5)
    b = train_classifier(SmallCNN(1, 2, 4, seed=0), x, y, epochs=2, seed=5)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))


def test_nearest_neighbour_distance_matches_brute_force():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(7, 3)), rng.normal(size=(11, 3))
    brute = np.mean([min(np.linalg.norm(u - v) for v in b) for u in a])
    assert nearest_neighbour_distance(a, b) == pytest.approx(brute, rel=1e-9)
    assert nearest_neighbour_distance(b, b) == pytest.approx(0.0, abs=1e-6)


def test_frechet_distance_of_shifted_gaussians():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(20000, 2))
    assert frechet_distance(a, a) == pytest.approx(0.0, abs=1e-6)
    # same covariance, mean shifted by (3, 4): distance 25
    assert frechet_distance(a, a + [3.0, 4.0]) == pytest.approx(25.0, rel=1e-6)
    # b = 2a: covariances S and 4S, so tr(S + 4S - 2 (4 S^2)^(1/2)) = tr(S), plus |mean(a)|^2;
    # about d = 2, nearly all of it from the covariance term a mean-only distance would miss
    want = (a.mean(0) ** 2).sum() + np.trace(np.cov(a, rowvar=False))
    assert want == pytest.approx(2.0, rel=0.02)
    assert frechet_distance(a, 2.0 * a) == pytest.approx(want, rel=1e-6)


def test_discriminator_separates_noise_from_clean():
    x, _ = _blobs(512)
    gen = torch.Generator().manual_seed(1)
    noisy = (x + 0.5 * torch.randn(x.shape, generator=gen).sign()).clamp(-1, 1)
    disc = train_discriminator(x[:256], noisy[:256], epochs=20, width=8, seed=0)
    assert detection_auc(disc, x[256:], noisy[256:]) > 0.85
    assert detection_auc(disc, x[256:384], x[384:]) < 0.7  # clean against clean: no signal


def test_pgd_bad_epsilon():
    x, y = _blobs()
    with pytest.raises(ValueError, match="epsilon"):
        pgd_linf(_linear(), x, y, epsilon=-0.1)
    with pytest.raises(ValueError, match="steps"):
        pgd_linf(_linear(), x, y, epsilon=0.1, steps=0)
