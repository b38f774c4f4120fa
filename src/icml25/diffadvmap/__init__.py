"""DiffAdvMAP (ICML 2025): natural unrestricted adversarial examples sampled from a diffusion
posterior, with the PGD-Linf and pixel-space anchors, small classifiers and naturalness measures.

>>> import torch
>>> from icml25.diffadvmap import SmallCNN, attack
>>> classifier = SmallCNN(channels=1, classes=10, seed=0)  # any images -> logits model
>>> denoiser = lambda x_t, t: torch.zeros_like(x_t)  # eps = denoiser(x_t, t): use a trained DDPM
>>> x, y = torch.zeros(2, 1, 8, 8), torch.tensor([3, 7])  # images in [-1, 1], their labels
>>> x_adv = attack(classifier, denoiser, x, y, t_star=5, lr=0.01, c_adv=1.0, c_rec=1.0)
>>> x_adv.shape
torch.Size([2, 1, 8, 8])
"""

from icml25.diffadvmap.attack import attack, margin
from icml25.diffadvmap.baselines import pgd_linf, pixel_attack
from icml25.diffadvmap.data import digits
from icml25.diffadvmap.models import MLP, SmallCNN, accuracy, train_classifier
from icml25.diffadvmap.naturalness import (
    detection_auc,
    frechet_distance,
    nearest_neighbour_distance,
    train_discriminator,
)

__all__ = [
    "MLP",
    "SmallCNN",
    "accuracy",
    "attack",
    "detection_auc",
    "digits",
    "frechet_distance",
    "margin",
    "nearest_neighbour_distance",
    "pgd_linf",
    "pixel_attack",
    "train_classifier",
    "train_discriminator",
]
