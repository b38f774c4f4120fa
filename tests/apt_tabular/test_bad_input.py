"""Bad input to the classifier, the network, the prior and the pre-training configuration is
refused early, naming the argument."""

import numpy as np
import pytest
import torch

from icml25.apt_tabular import (
    APT,
    APTClassifier,
    DataMaker,
    ModelConfig,
    PretrainConfig,
    make_batch,
    pretrain,
    quantile_classes,
    save_weights,
    synthetic_task,
)

NAN = float("nan")
RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 4))
Y = (X[:, 0] > 0).astype(int)
TINY = ModelConfig(n_blocks=1, d_model=8, n_heads=2, d_ff=8, d_patch=4)
NET = APT(TINY)
ROWS = torch.randn(1, 10, 4)
LABELS = torch.randint(0, 2, (1, 6), generator=torch.Generator().manual_seed(0))


def gen():
    return torch.Generator().manual_seed(0)


def fitted(**params):
    return APTClassifier(**params).fit(X, Y)


CASES = [
    (lambda: fitted(categorical_features=[1.5]), "categorical_features must hold integer"),
    (lambda: fitted(categorical_features=["a"]), "categorical_features must hold integer"),
    (lambda: fitted(categorical_features=1), "categorical_features must be a list"),
    (lambda: fitted(categorical_features=[True, False, False, False]), "categorical_features"),
    (lambda: fitted(random_state=-1), "random_state must be"),
    (lambda: fitted(batch_size=0), "batch_size must be an integer >= 1"),
    (lambda: fitted().set_params(batch_size=-1).predict_proba(X[:3]), "batch_size must be"),
    (lambda: fitted().predict_proba(np.full((2, 4), 1e300)), "X has values too large"),
    (lambda: DataMaker(gen(), max_features=1), "max_features must be"),
    (lambda: DataMaker(gen(), max_features=10**9), "too large"),
    (lambda: DataMaker(gen(), min_classes=5, max_classes=2), "max_classes must be"),
    (lambda: DataMaker(gen(), n_classes=1), "n_classes must be an integer >= 2"),
    (lambda: DataMaker(gen(), n_classes=0), "n_classes must be an integer >= 2"),
    (lambda: DataMaker(gen()).sample(1, gen()), "n_rows must be an integer >= 2"),
    (lambda: quantile_classes(torch.randn(10), 0), "n_classes must be an integer >= 1"),
    (lambda: quantile_classes(torch.randn(10), 1.5), "n_classes must be an integer >= 1"),
    (lambda: quantile_classes(torch.tensor([NAN, 1.0, 2.0]), 2), "target must be finite"),
    (lambda: make_batch([DataMaker(gen())], 20, 1, gen()), "n_train must be an integer >= 2"),
    (lambda: make_batch([DataMaker(gen())], 20, 50, gen()), "n_train must be at most n_rows"),
    (lambda: make_batch([], 20, 10, gen()), "makers must be a non-empty list"),
    (lambda: synthetic_task(0, 1, 20), "n_classes must be an integer >= 2"),
    (lambda: synthetic_task(0, 0, 20), "n_classes must be an integer >= 2"),
    (lambda: synthetic_task(0, 2, 1), "n_rows must be an integer >= 2"),
    (lambda: synthetic_task(0, 2, 20, max_features=1), "max_features must be"),
    (lambda: NET(ROWS, LABELS + 5, n_classes=2), "y_train must hold labels below"),
    (lambda: NET(ROWS, LABELS - 3), "y_train must hold labels >= 0"),
    (lambda: NET(ROWS * NAN, LABELS), "x must be finite"),
    (lambda: NET(ROWS[:, :4], LABELS), "y_train must be"),
    (lambda: NET(ROWS.expand(2, -1, -1), LABELS), "y_train must be"),
    (lambda: ModelConfig(n_heads=0), "n_heads must be an integer >= 1"),
    (lambda: ModelConfig(d_model=-4, n_heads=2), "d_model must be"),
    (lambda: ModelConfig(temperature=NAN), "temperature must be"),
    (lambda: ModelConfig(gate_quantile=2.0), "gate_quantile must be"),
    (lambda: ModelConfig(d_patch=0), "d_patch must be"),
    (lambda: ModelConfig(n_blocks=-1), "n_blocks must be"),
    (lambda: PretrainConfig(train_fraction=2.0), "train_fraction must be"),
    (lambda: PretrainConfig(train_fraction=0.001), "train_fraction must leave"),
    (lambda: PretrainConfig(reset_every=0), "reset_every must be"),
    (lambda: PretrainConfig(max_classes=1), "max_classes must be"),
    (lambda: PretrainConfig(steps=1.5), "steps must be an integer"),
    (lambda: save_weights({"a": 1}, "unused.npz"), "weights must be a dict"),
]


@pytest.mark.parametrize(("call", "message"), CASES)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: DataMaker(0), "generator must be a torch.Generator"),
        (lambda: quantile_classes(np.random.randn(10), 2), "target must be a 1-d torch tensor"),
        (lambda: NET(ROWS, LABELS.float()), "y_train must be a .* torch int64 tensor"),
        (lambda: NET(ROWS[0], LABELS), "x must be a .* floating-point torch tensor"),
        (lambda: pretrain(3), "config must be a PretrainConfig"),
    ],
)
def test_a_wrong_type_is_refused_by_name(call, message):
    with pytest.raises(TypeError, match=message):
        call()
