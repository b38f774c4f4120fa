"""``fit``'s defaults are the settings the reproduction validated, and a model FHBI cannot
evaluate per particle (batch statistics, dropout masks) is refused, naming the layer."""

import inspect

import pytest
import torch

from icml25.fhbi import ParticleEnsemble, fit
from icml25.fhbi.reproduce import SCALES


def test_fit_defaults_are_the_reproduction_settings():
    defaults = {k: p.default for k, p in inspect.signature(fit).parameters.items()}
    config = SCALES["default"]
    assert defaults["particles"] == config.particles
    assert defaults["lr"] == config.lr
    assert defaults["steps"] == config.steps
    assert defaults["batch_size"] == config.batch_size
    assert defaults["rho"] in config.rho_grid  # the value validation chose on every data set


@pytest.mark.parametrize(
    "layer, name",
    [
        (torch.nn.BatchNorm1d(8), "BatchNorm1d"),
        (torch.nn.Dropout(0.1), "Dropout"),
        (torch.nn.AlphaDropout(0.1), "AlphaDropout"),
    ],
)
def test_a_stateful_layer_is_refused_by_name(layer, name):
    def model_fn():
        return torch.nn.Sequential(torch.nn.Linear(2, 8), layer, torch.nn.Linear(8, 2))

    with pytest.raises(ValueError, match=rf"{name} layer \('1'\)"):
        ParticleEnsemble(model_fn, particles=2)
    with pytest.raises(ValueError, match=name):
        fit(model_fn, torch.zeros(4, 2), torch.tensor([0, 1, 0, 1]), steps=1)


def test_a_model_fn_that_builds_no_module_is_refused():
    with pytest.raises(ValueError, match="model_fn must build a torch.nn.Module"):
        ParticleEnsemble(lambda: "mlp", particles=1)


def test_layer_norm_is_accepted():
    def model_fn():
        return torch.nn.Sequential(
            torch.nn.Linear(2, 8), torch.nn.LayerNorm(8), torch.nn.Linear(8, 2)
        )

    assert ParticleEnsemble(model_fn, particles=3).theta.shape[0] == 3
