"""Bad input to the generator, networks, training and forecaster is refused, naming it."""

import numpy as np
import pytest
import torch

from icml25.stop_st import (
    GCN,
    STOP,
    MessagePerturbation,
    ModelConfig,
    SeriesDecomp,
    STOPForecaster,
    TrainConfig,
    diffusion_matrix,
    generate,
    node_split,
    normalized_adjacency,
    random_geometric_graph,
    robust_loss,
    simulate,
    smooth_field,
    train_model,
    windows,
)

GRAPH = random_geometric_graph(6, np.random.default_rng(0))
ONES = np.ones(6)
SERIES = torch.randn(20, 3)
CFG = ModelConfig(input_len=4, horizon=4, model_dim=8, tod_dim=4, hid_dim=8, cores=2, heads=2)
TRAIN = TrainConfig(epochs=1)
Y = generate(8, 2, 1, np.random.default_rng(1)).base
FITTED = STOPForecaster("backbone", input_len=4, horizon=4, epochs=1, model_dim=8).fit(Y)


def rng():
    return np.random.default_rng(0)


def sim(**changes):
    kwargs = dict(steps_per_day=24, level=ONES, amplitude=ONES, phase=ONES) | changes
    return lambda: simulate(GRAPH, kwargs.pop("steps", 5), rng(), **kwargs)


def fit(y=Y, **kwargs):
    return lambda: STOPForecaster("backbone", input_len=4, horizon=4, epochs=1).fit(y, **kwargs)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: random_geometric_graph(5, rng(), radius=np.nan), ValueError, "radius must be"),
        (lambda: random_geometric_graph(5, rng(), sigma=np.inf), ValueError, "sigma must be"),
        (lambda: random_geometric_graph(2.5, rng()), ValueError, "n must be an integer >= 2"),
        (lambda: random_geometric_graph(10**6, rng()), ValueError, "n is too large"),
        (lambda: random_geometric_graph(5, 0), TypeError, "rng must be a numpy"),
        (lambda: smooth_field(np.full((3, 2), np.nan), rng()), ValueError, "pos contains NaN"),
        (lambda: smooth_field(np.ones((3, 3)), rng()), ValueError, r"pos must have shape \(n, 2\)"),
        (lambda: smooth_field(np.ones((3, 2)), rng(), terms=0), ValueError, "terms must be"),
        (lambda: smooth_field(np.ones((3, 2)), rng(), freq=np.nan), ValueError, "freq must be"),
        (lambda: diffusion_matrix(np.full((3, 3), np.nan)), ValueError, "adjacency contains NaN"),
        (lambda: diffusion_matrix(-np.ones((3, 3))), ValueError, "adjacency must be a square"),
        (lambda: diffusion_matrix(np.ones((3, 4))), ValueError, "adjacency must be a square"),
        (lambda: diffusion_matrix(np.ones(3)), ValueError, "adjacency must be a non-empty 2-D"),
        (sim(steps=0), ValueError, "steps must be an integer >= 1"),
        (sim(steps=10**12), ValueError, "steps is too large"),
        (sim(steps_per_day=0), ValueError, "steps_per_day must be an integer >= 1"),
        (sim(level=np.ones(4)), ValueError, r"level must have shape \(6,\)"),
        (sim(amplitude=ONES * np.nan), ValueError, "amplitude contains NaN"),
        (sim(rho=np.nan), ValueError, "rho must be"),
        (sim(alpha=5.0), ValueError, "alpha must be"),
        (sim(pulse_rate=2.0), ValueError, "pulse_rate must be"),
        (sim(noise=-1.0), ValueError, "noise must be"),
        (sim(burn_in=-5), ValueError, "burn_in must be an integer >= 0"),
        (
            lambda: simulate(
                np.eye(6), 5, rng(), steps_per_day=24, level=ONES, amplitude=ONES, phase=ONES
            ),
            TypeError,
            "graph must be a SensorGraph",
        ),
        (lambda: generate(5, 1.5, 1, rng()), ValueError, "base_days must be an integer"),
        (lambda: generate(5, 2, 1, rng(), steps_per_day=0), ValueError, "steps_per_day must"),
        (lambda: generate(5, 2, 1, rng(), phase_shift=np.nan), ValueError, "phase_shift must"),
        (lambda: generate(5, 2, 1, rng(), alpha_shift=5.0), ValueError, "alpha_shift must"),
        (lambda: generate(5, 10**12, 1, rng()), ValueError, "n is too large"),
        (lambda: node_split(10.5, rng()), ValueError, "n must be an integer >= 2"),
        (lambda: node_split(100, rng(), change=-1.0), ValueError, "change must be"),
        (lambda: node_split(10, rng(), max_increase=-1), ValueError, "max_increase must be"),
        (lambda: normalized_adjacency(-torch.ones(3, 3)), ValueError, "adjacency must be finite"),
        (lambda: normalized_adjacency(torch.ones(3, 4)), ValueError, "adjacency must have shape"),
        (lambda: normalized_adjacency(np.ones((3, 3))), TypeError, "adjacency must be a float"),
        (lambda: robust_loss(torch.zeros(0), 1.0), ValueError, "losses must have shape"),
        (lambda: robust_loss(torch.ones(2, 3), 1.0), ValueError, "losses must have shape"),
        (lambda: robust_loss(torch.ones(3), float("nan")), ValueError, "beta must be"),
        (lambda: robust_loss(np.ones(3), 1.0), TypeError, "losses must be a floating-point"),
        (lambda: windows(SERIES, torch.tensor([-3]), 4, 4), ValueError, r"starts must lie in"),
        (lambda: windows(SERIES, torch.tensor([13]), 4, 4), ValueError, r"starts must lie in"),
        (lambda: windows(SERIES, torch.tensor([1.0]), 4, 4), TypeError, "starts must be a 1-D"),
        (lambda: windows(SERIES, torch.tensor([1]), 0, 4), ValueError, "input_len must be"),
        (lambda: MessagePerturbation(-1, 0.2, False), ValueError, "n must be an integer >= 1"),
        (lambda: SeriesDecomp(3.0), ValueError, "kernel_size must be a positive odd integer"),
        (lambda: STOP({"a": 1}), TypeError, "cfg must be a ModelConfig"),
        (
            lambda: train_model(STOP(CFG), SERIES * np.nan, TRAIN, 0),
            ValueError,
            "series contains NaN",
        ),
        (
            lambda: train_model(STOP(CFG), SERIES.numpy(), TRAIN, 0),
            TypeError,
            "series must be a floating-point torch.Tensor",
        ),
        (
            lambda: train_model(STOP(CFG), SERIES.double(), TRAIN, 0),
            TypeError,
            "series must have the model's dtype",
        ),
        (
            lambda: train_model(STOP(CFG), torch.zeros(20, 0), TRAIN, 0),
            ValueError,
            r"series must have shape \(T, N\)",
        ),
        (
            lambda: train_model(STOP(CFG), SERIES, {"epochs": 1}, 0),
            TypeError,
            "cfg must be a TrainConfig",
        ),
        (
            lambda: train_model(STOP(CFG), SERIES, TRAIN, 0, t0=1.5),
            ValueError,
            "t0 must be an integer",
        ),
        (
            lambda: train_model(STOP(CFG), SERIES, TRAIN, 0, val_series=SERIES[:3]),
            ValueError,
            "val_series has 3 steps",
        ),
        (
            lambda: train_model(STOP(CFG), SERIES, TRAIN, 0, val_series=SERIES * np.nan),
            ValueError,
            "val_series contains NaN",
        ),
        (
            lambda: train_model(GCN(CFG), SERIES, TRAIN, 0, adjacency=-torch.ones(3, 3)),
            ValueError,
            "adjacency must be finite and non-negative",
        ),
        (lambda: STOPForecaster(input_len="4"), ValueError, "input_len must be an integer"),
        (lambda: STOPForecaster(seed="a"), ValueError, "seed must be an integer"),
        (fit(Y.astype(str)), ValueError, "y must be a numeric array"),
        (fit(Y.astype(object)), ValueError, "y must be a numeric array"),
        (fit([[1.0, 2.0], [1.0]]), ValueError, "y must be a numeric array"),
        (fit(np.zeros((40, 0))), ValueError, "y must be a non-empty 2-D array"),
        (fit(start=1.5), ValueError, "start must be an integer"),
        (
            lambda: STOPForecaster("gcn", input_len=4, horizon=4, epochs=1).fit(
                Y, adjacency=np.full((8, 8), "a")
            ),
            ValueError,
            "adjacency must be a numeric array",
        ),
        (
            lambda: FITTED.predict(2, history=np.zeros((10, 0))),
            ValueError,
            "history must be a non-empty 2-D array",
        ),
        (lambda: FITTED.predict(2, history=Y, start=1.5), ValueError, "start must be an integer"),
        (lambda: FITTED.predict(2, start=5), ValueError, "start is the offset of history"),
        (lambda: FITTED.rolling(Y, stride=0), ValueError, "stride must be an integer >= 1"),
        (lambda: FITTED.rolling(Y, stride=1.5), ValueError, "stride must be an integer >= 1"),
        (lambda: FITTED.rolling(Y, start=1.5), ValueError, "start must be an integer"),
    ],
)
def test_bad_input_is_refused_by_name(call, error, message):
    with pytest.raises(error, match=message):
        call()
