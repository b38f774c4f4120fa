"""Bad input to the rank measures, the Effort layers, the ViT and fine-tuning is refused by name."""

import numpy as np
import pytest
import torch
from torch import nn

from icml25.effort_aigi import (
    ConvergenceRule,
    SVDResidualLinear,
    TinyViT,
    apply_effort,
    effective_rank,
    effort_regularizer,
    entropy_effective_rank,
    feature_spectrum,
    fine_tune,
    pca_rank,
    quantise,
)

FEATURES = np.random.default_rng(0).normal(size=(6, 3))
IMAGES = np.zeros((4, 1, 4, 4), dtype=np.float32)


def _model():
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 2))


def _nan_weight():
    model = _model()
    with torch.no_grad():
        model[0].weight[0, 0] = float("nan")
    return model


def _detector():
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return nn.Sequential(nn.Flatten(), nn.Linear(16, 1), nn.Flatten(0))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: feature_spectrum(FEATURES.astype(str)), "features must be a numeric array"),
        (lambda: pca_rank(FEATURES.astype(object)), "features must be a numeric array"),
        (lambda: entropy_effective_rank(FEATURES + 1j), "features must be a numeric array"),
        (lambda: effective_rank(FEATURES > 0), "features must be a numeric array"),
        (lambda: effective_rank([[1.0, 2.0], [3.0]]), "features must be a numeric array"),
        (lambda: quantise(np.array([np.nan, 0.2])), "x must be finite"),
        (lambda: quantise(np.array([np.inf])), "x must be finite"),
        (lambda: ConvergenceRule(window=1).met(["a", "b"]), "losses must be a 1-d sequence"),
        (lambda: SVDResidualLinear(_nan_weight()[0]), "linear's weight must be finite"),
        (lambda: apply_effort(_nan_weight(), "0"), "weight of layer '0' must be finite"),
        (
            lambda: effort_regularizer(apply_effort(_model(), "0"), orthogonality=np.nan),
            "orthogonality must be",
        ),
        (
            lambda: effort_regularizer(apply_effort(_model(), "0"), keep_norm=-1.0),
            "keep_norm must be",
        ),
        (lambda: TinyViT(channels=0), "channels must be"),
        (lambda: TinyViT(depth=0), "depth must be"),
        (lambda: TinyViT(mlp_ratio=0), "mlp_ratio must be"),
        (lambda: TinyViT(classes=-1), "classes must be"),
        (
            lambda: fine_tune(_detector(), IMAGES * np.nan, IMAGES, lr=0.1, seed=0, steps=1),
            "real must be finite",
        ),
        (
            lambda: fine_tune(_detector(), IMAGES, IMAGES[:0], lr=0.1, seed=0, steps=1),
            "fake must not be empty",
        ),
        (
            lambda: fine_tune(_detector(), IMAGES, IMAGES[:, :, :2], lr=0.1, seed=0, steps=1),
            "one image shape",
        ),
        (
            lambda: fine_tune(_detector(), IMAGES[:, 0], IMAGES, lr=0.1, seed=0, steps=1),
            "real must have 4 dimensions",
        ),
        (
            lambda: fine_tune(_detector(), IMAGES, IMAGES, lr=np.inf, seed=0, steps=1),
            "lr must be",
        ),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
