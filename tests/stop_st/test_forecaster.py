"""The estimator (normalisation, no look-ahead, bad input) and the generator's properties."""

import pickle

import numpy as np
import pytest
import torch
from sklearn.base import clone

from icml25.stop_st import (
    STOPForecaster,
    diffusion_matrix,
    generate,
    node_split,
    random_geometric_graph,
)

SMALL = dict(input_len=8, horizon=4, steps_per_day=6, model_dim=8, tod_dim=4, hid_dim=16)


@pytest.fixture(scope="module")
def data():
    periods = generate(30, 6, 2, np.random.default_rng(0), steps_per_day=6)
    return periods.base, periods.graph.adjacency


@pytest.fixture(scope="module")
def fitted(data):
    y, _ = data
    return STOPForecaster("stop", epochs=2, seed=0, **SMALL).fit(y[:, :25])


def test_predict_shapes_on_the_training_end_and_on_new_nodes(fitted, data):
    y, _ = data
    assert fitted.predict(4).shape == (4, 25)
    assert fitted.predict(2, history=y[:20, 25:]).shape == (2, 5)
    pred, truth = fitted.rolling(y[:, 25:], stride=3)
    n_windows = len(range(0, len(y) - 12 + 1, 3))
    assert pred.shape == truth.shape == (n_windows, 4, 5)
    np.testing.assert_allclose(truth[0], y[8:12, 25:], rtol=1e-5)


def test_normalisation_is_one_global_z_score_and_round_trips(fitted, data):
    y, _ = data
    train = y[:, :25]
    assert fitted.mean_ == pytest.approx(train.mean())
    assert fitted.std_ == pytest.approx(train.std())
    scaled = fitted._scale(train).double().numpy()
    np.testing.assert_allclose(scaled * fitted.std_ + fitted.mean_, train, rtol=1e-6)
    # forecasts come back in the original units: an affine change of the data is undone
    refit = STOPForecaster("stop", epochs=2, seed=0, **SMALL).fit(3.0 * train + 10.0)
    np.testing.assert_allclose(
        refit.predict(4), 3.0 * fitted.predict(4) + 10.0, rtol=1e-4, atol=1e-3
    )


def test_no_look_ahead_a_forecast_ignores_values_after_the_history(fitted, data):
    y, _ = data
    pred, _ = fitted.rolling(y[:, :25])
    future_changed = y[:, :25].copy()
    future_changed[8:] += 100.0  # everything after the first window's input
    pred2, _ = fitted.rolling(future_changed)
    np.testing.assert_allclose(pred2[0], pred[0], rtol=1e-5)
    np.testing.assert_allclose(fitted.predict(4, history=y[:8, :25]), pred[0], rtol=1e-5)


@pytest.mark.parametrize("model", ["stop", "gcn", "backbone"])
def test_training_is_seeded_and_lowers_the_loss(model, data):
    y, adj = data
    kw = dict(epochs=3, seed=1, **SMALL)
    a = STOPForecaster(model, **kw).fit(y[:, :25], adj[:25, :25])
    b = STOPForecaster(model, **kw).fit(y[:, :25], adj[:25, :25])
    np.testing.assert_array_equal(
        a.predict(4, adjacency=adj[:25, :25]), b.predict(4, adjacency=adj[:25, :25])
    )
    assert a.history_["train"][-1] < a.history_["train"][0]


def test_fit_leaves_the_callers_torch_generator_alone(data):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    STOPForecaster("backbone", epochs=1, **SMALL).fit(data[0][:, :10])
    torch.testing.assert_close(torch.rand(3), expected)


def test_bad_inputs_raise_value_errors_naming_them(fitted, data):
    y, _ = data
    with pytest.raises(ValueError, match="horizon"):
        fitted.predict(0)
    with pytest.raises(ValueError, match="horizon"):
        fitted.predict(5)  # beyond the trained horizon
    bad = y[:20, :25].copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="history contains NaN"):
        fitted.predict(2, history=bad)
    with pytest.raises(ValueError, match="y contains NaN"):
        STOPForecaster("stop", **SMALL).fit(np.where(np.isnan(bad), np.nan, bad))
    with pytest.raises(ValueError, match="history has 5 time steps"):
        fitted.predict(2, history=y[:5, :25])
    with pytest.raises(ValueError, match="y has 10 time steps"):
        STOPForecaster("stop", **SMALL).fit(y[:10])
    with pytest.raises(ValueError, match="2-D"):
        STOPForecaster("stop", **SMALL).fit(y[:, 0])
    with pytest.raises(ValueError, match="adjacency"):
        STOPForecaster("gcn", epochs=1, **SMALL).fit(y[:, :25])
    with pytest.raises(ValueError, match="adjacency"):
        STOPForecaster("gcn", epochs=1, **SMALL).fit(y[:, :25], np.ones((3, 3)))
    with pytest.raises(ValueError, match="model"):
        STOPForecaster("transformer")
    with pytest.raises(ValueError, match="perturb and robust"):
        STOPForecaster("gcn", robust=True)
    with pytest.raises(ValueError, match="input_len"):
        STOPForecaster("stop", input_len=0)
    with pytest.raises(ValueError, match="fit"):
        STOPForecaster("stop").predict(3)
    with pytest.raises(ValueError, match="horizon"):
        fitted.predict(True)
    for kwargs, name in (
        ({"epochs": 0}, "epochs"),
        ({"batch_size": 0}, "batch_size"),
        ({"steps_per_day": 0}, "steps_per_day"),
        ({"model_dim": 0}, "model_dim"),
        ({"dropout": 1.0}, "dropout"),
    ):
        with pytest.raises(ValueError, match=name):
            STOPForecaster("stop", **kwargs)


def test_random_geometric_graph_links_exactly_the_close_pairs():
    graph = random_geometric_graph(50, np.random.default_rng(1), radius=0.2, sigma=0.1)
    d = np.linalg.norm(graph.positions[:, None] - graph.positions[None], axis=-1)
    linked = graph.adjacency > 0
    np.testing.assert_array_equal(linked, (d < 0.2) & ~np.eye(50, dtype=bool))
    np.testing.assert_allclose(graph.adjacency[linked], np.exp(-(d[linked] ** 2) / 0.01))
    np.testing.assert_allclose(diffusion_matrix(graph.adjacency).sum(1), 1.0)


def test_generator_has_daily_periodicity_diffusion_and_a_shift():
    periods = generate(60, 30, 30, np.random.default_rng(2), steps_per_day=24)
    base, shifted, adj = periods.base, periods.shifted, periods.graph.adjacency
    assert base.shape == (720, 60) and shifted.shape == (720, 60)
    # daily periodicity: the spectrum's largest non-zero peak is at 30 cycles (one a day)
    spectrum = np.abs(np.fft.rfft(base - base.mean(0), axis=0)).mean(1)
    assert np.argmax(spectrum[1:]) + 1 == 30
    # diffusion: after removing each node's daily profile, linked sensors co-move more than
    # unlinked ones
    resid = base - base.reshape(30, 24, 60).mean(0).repeat(30, 0).reshape(720, 60)
    corr = np.corrcoef(resid.T)
    off = ~np.eye(60, dtype=bool)
    assert corr[(adj > 0.3) & off].mean() > corr[(adj == 0) & off].mean() + 0.1
    # the later period is a shift: the daily profiles move
    profile = lambda s: s.reshape(30, 24, 60).mean(0)  # noqa: E731
    assert np.abs(profile(shifted) - profile(base)).mean() > 0.3


def test_node_split_follows_the_official_proportions():
    split = node_split(130, np.random.default_rng(0))
    assert len(split.train) == 100 and len(split.removed) == 10 and len(split.new) == 10
    assert not set(split.new) & set(split.train)
    assert set(split.removed) <= set(split.train)
    test = split.test
    assert len(test) == 100 and not set(test) & set(split.removed)
    np.testing.assert_array_equal(test[-10:], split.new)
    with pytest.raises(ValueError, match="n="):
        node_split(10, np.random.default_rng(0), max_increase=0.0)
    with pytest.raises(ValueError, match="base_days"):
        generate(10, 0, 1, np.random.default_rng(0))


def test_the_forecaster_follows_scikit_learns_parameter_conventions(data):
    """The checks of ``check_estimator`` that do not call ``fit(X, y)`` on a feature matrix
    (the forecaster fits one history ``y`` (T, N) and predicts a horizon), and clone/pickle."""
    from sklearn.utils.estimator_checks import (
        check_get_params_invariance,
        check_no_attributes_set_in_init,
        check_parameters_default_constructible,
        check_set_params,
    )

    for est in (STOPForecaster(), STOPForecaster("gcn", epochs=3, **SMALL)):
        check_parameters_default_constructible("STOPForecaster", est)
        check_no_attributes_set_in_init("STOPForecaster", est)
        check_get_params_invariance("STOPForecaster", est)
        check_set_params("STOPForecaster", est)
    y = data[0][:, :10]
    f = STOPForecaster("stop", epochs=1, seed=3, **SMALL)
    assert f.get_params()["perturb"] is None and f.train_config.perturb
    assert STOPForecaster("backbone").train_config.perturb is False
    assert f.model_config.model_dim == SMALL["model_dim"]
    first = f.fit(y).predict(4)
    np.testing.assert_array_equal(clone(f).fit(y).predict(4), first)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(f)).predict(4), first)
    assert not hasattr(clone(f), "module_")
    f.set_params(model="backbone", perturb=False, robust=False, drop_rate=0.5)
    assert f.train_config.drop_rate == 0.5 and f.fit(y).predict(2).shape == (2, 10)
    with pytest.raises(ValueError, match="dropout"):
        STOPForecaster("backbone", **SMALL).set_params(dropout=1.5).fit(y)
    with pytest.raises(ValueError, match="perturb and robust"):
        STOPForecaster("stop", perturb=True, **SMALL).set_params(model="gcn").fit(y)
