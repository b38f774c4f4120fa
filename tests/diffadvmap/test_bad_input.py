"""Bad input to the attacks, the classifiers and the naturalness measures is refused by name."""

import numpy as np
import pytest
import torch
from torch import nn

from icml25.diffadvmap import (
    MLP,
    SmallCNN,
    accuracy,
    attack,
    detection_auc,
    digits,
    frechet_distance,
    margin,
    nearest_neighbour_distance,
    pgd_linf,
    pixel_attack,
    train_classifier,
    train_discriminator,
)

X = torch.zeros(2, 1, 4, 4)
Y = torch.tensor([0, 1])
LOGITS = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
A = np.random.default_rng(0).normal(size=(6, 3))


def _linear():
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return nn.Sequential(nn.Flatten(), nn.Linear(16, 2))


def _zero(x_t, t):
    return torch.zeros_like(x_t)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: margin(LOGITS, torch.tensor([0, 2])), r"y must hold labels in \[0, 2\)"),
        (lambda: margin(LOGITS, torch.tensor([0, -1])), "y must hold labels >= 0"),
        (lambda: margin(LOGITS * np.nan, Y), "logits must be finite"),
        (lambda: margin(LOGITS[:, :1], Y), "at least 2 classes"),
        (lambda: margin(LOGITS, Y[:1]), r"y must be an integer tensor of shape \(2,\)"),
        (lambda: attack(_linear(), _zero, X[:0], Y[:0], t_star=1), "x must hold at least one"),
        (
            lambda: attack(_linear(), _zero, X, Y, t_star=1, mask=torch.ones(3, 1, 4, 4)),
            "mask must have shape",
        ),
        (lambda: pgd_linf(_linear(), X, Y - 1, epsilon=0.1, steps=1), "y must hold labels >= 0"),
        (lambda: pixel_attack(_linear(), X, Y, steps=1, c_adv=np.nan), "c_adv must be"),
        (lambda: pixel_attack(_linear(), X, Y, steps=1, c_rec=-1.0), "c_rec must be"),
        (lambda: pixel_attack(_linear(), X, Y, steps=1, kappa=np.inf), "kappa must be"),
        (lambda: digits(0, 1.5), "test_fraction must be"),
        (lambda: digits(-1), "seed must be"),
        (lambda: SmallCNN(channels=0), "channels must be"),
        (lambda: SmallCNN(classes=0), "classes must be"),
        (lambda: MLP(hidden=0), "hidden must be"),
        (lambda: train_classifier(_linear(), X * np.nan, Y, epochs=1), "x must be finite"),
        (lambda: train_classifier(_linear(), X[:0], Y[:0], epochs=1), "x must not be empty"),
        (lambda: train_classifier(_linear(), X, Y[:1], epochs=1), "y must be an integer tensor"),
        (lambda: accuracy(_linear(), X, Y + 5), r"y must hold labels in \[0, 2\)"),
        (lambda: accuracy(_linear(), X, Y[:, None]), "y must be an integer tensor"),
        (lambda: accuracy(_linear(), X[:0], Y[:0]), "x must not be empty"),
        (lambda: train_discriminator(X, X[:0], epochs=1), "fake must not be empty"),
        (lambda: train_discriminator(X, X * np.nan, epochs=1), "fake must be finite"),
        (lambda: train_discriminator(X, torch.zeros(2, 3, 4, 4), epochs=1), "one image shape"),
        (lambda: detection_auc(_linear(), X, X[:0]), "fake must not be empty"),
        (lambda: nearest_neighbour_distance(A * np.nan, A), "features must be finite"),
        (lambda: nearest_neighbour_distance(A, A[:0]), "reference must not be empty"),
        (lambda: nearest_neighbour_distance(A, A[:, :2]), "one number of columns"),
        (lambda: frechet_distance(A, A * np.inf), "b must be finite"),
        (lambda: frechet_distance(A[:1], A), "a must have at least 2 rows"),
        (lambda: frechet_distance(A[0], A), "a must have 2 dimensions"),
        (lambda: frechet_distance(A.astype(str), A), "a must be a numeric array"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
