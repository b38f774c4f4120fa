import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import (
    check_get_params_invariance,
    check_no_attributes_set_in_init,
    check_parameters_default_constructible,
    check_set_params,
)
from statsmodels.tsa.stattools import adfuller
from statsmodels.tsa.vector_ar.vecm import coint_johansen

from icml25.timebridge import TimeBridgeForecaster, cointegrated_series, macrodata
from icml25.timebridge.linear import LinearForecaster

TINY = dict(patch_len=8, d_model=16, n_heads=2, d_ff=16, sampled_patches=2, steps=20)


def _johansen_rank(y: np.ndarray) -> int:
    """Trace test, constant term, 2 lagged differences, 1% critical values."""
    result = coint_johansen(y, 0, 2)
    return int(np.cumprod(result.lr1 > result.cvt[:, 2]).sum())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_johansen_finds_the_known_rank(seed):
    kw = dict(n_steps=3000, n_series=6, n_trends=2, season_amplitude=0.0, seed=seed)
    data = cointegrated_series(**kw)
    assert data.rank == 4
    assert _johansen_rank(data.y) == 4
    control = cointegrated_series(**kw, kind="independent")
    assert control.rank == 0
    assert _johansen_rank(control.y) == 0


def test_drifting_level_is_one_more_common_trend():
    data = cointegrated_series(3000, 8, 2, kind="drifting", seed=0)
    assert data.rank == 5 and data.loadings.shape == (8, 3) and data.trends.shape == (3000, 3)
    w = np.linalg.svd(data.loadings.T)[2][-1]  # w^T B = 0
    assert (
        adfuller(data.y @ w, autolag="AIC", result_object=False)[1] < 0.01
    )  # stationary combination
    assert (
        adfuller(data.y[:, 0], autolag="AIC", result_object=False)[1] > 0.05
    )  # a single series is not
    # the lead-lag: each follower is its loadings times the trends l_i steps earlier
    assert (data.lags[:2] == 0).all() and data.lags.max() <= 48


def test_generator_is_seeded_and_checks_its_arguments():
    a = cointegrated_series(500, seed=3).y
    assert np.array_equal(a, cointegrated_series(500, seed=3).y)
    assert not np.array_equal(a, cointegrated_series(500, seed=4).y)
    with pytest.raises(ValueError, match="kind"):
        cointegrated_series(500, kind="nope")
    with pytest.raises(ValueError, match="n_trends"):
        cointegrated_series(500, n_series=3, n_trends=3)
    with pytest.raises(ValueError, match="ar_coef"):
        cointegrated_series(500, ar_coef=1.0)


def test_macrodata_is_the_log_of_statsmodels_levels():
    y = macrodata()
    assert y.shape == (203, 8) and np.isfinite(y).all()
    assert y[0, 0] == pytest.approx(np.log(2710.349))  # realgdp, 1959Q1
    with pytest.raises(ValueError, match="columns"):
        macrodata(("realgdp", "nope"))


@pytest.fixture(scope="module")
def history():
    return cointegrated_series(400, 3, 1, seed=0).y  # (400, 3)


def test_fit_predict_shapes_and_normalisation_round_trip(history):
    f = TimeBridgeForecaster(48, 16, seed=0, **TINY).fit(history)
    assert np.allclose(f.mean_, history.mean(0)) and np.allclose(f.scale_, history.std(0))
    out = f.predict(10)
    assert out.shape == (10, 3)
    assert f.predict_windows(history[None, -48:]).shape == (1, 16, 3)
    # the same series in other units (a y + b, a > 0, per series) trains the same network on
    # the same standardised data, and its forecasts come back in those units
    a, b = np.array([100.0, 0.01, 3.0]), np.array([5.0, -2.0, 1e3])
    g = TimeBridgeForecaster(48, 16, seed=0, **TINY).fit(history * a + b)
    assert np.allclose(g.predict(10), out * a + b, rtol=1e-3, atol=1e-3 * a)


def test_dlinear_and_its_window_normalisation(history):
    for norm in (True, False):
        f = TimeBridgeForecaster(48, 16, "dlinear", instance_norm=norm, seed=0, **TINY)
        assert f.fit(history).predict(16).shape == (16, 3)


def test_no_look_ahead(history):
    f = TimeBridgeForecaster(48, 16, seed=0, **TINY).fit(history[:300])
    changed = history.copy()
    changed[250:] += 50 * np.random.default_rng(0).normal(size=(150, 3))  # a different future
    assert np.array_equal(f.predict(16, history[:250]), f.predict(16, changed[:250]))
    # and one window's forecast does not depend on the other windows of the batch
    windows = np.stack([history[i : i + 48] for i in (0, 100, 200)])
    alone = f.predict_windows(windows[1:2])
    windows[2] += 1e3
    assert np.allclose(f.predict_windows(windows)[1], alone[0], atol=1e-6)


def test_training_stops_early_on_the_validation_split(history):
    f = TimeBridgeForecaster(48, 16, seed=0, **{**TINY, "steps": 400}, eval_every=10, patience=2)
    f.fit(history)
    assert len(f.val_mse_) >= 1 and f.best_step_ <= len(f.losses_)
    assert f.val_mse_[(f.best_step_ // 10) - 1] == f.val_mse_.min()


def test_convergence_is_recorded_by_the_rule_not_the_cap(history):
    stopped = TimeBridgeForecaster(
        48, 16, seed=0, **{**TINY, "steps": 400}, eval_every=10, patience=2
    ).fit(history)
    # the rule ended it: the last `patience` validations brought no new best
    assert stopped.converged_ and len(stopped.losses_) < 400
    assert (stopped.val_mse_[-2:] >= stopped.val_mse_[:-2].min()).all()
    capped = TimeBridgeForecaster(48, 16, seed=0, **TINY, eval_every=10, patience=50)
    capped.fit(history)
    assert not capped.converged_ and len(capped.losses_) == TINY["steps"]


def test_fit_without_a_validation_split(history):
    # val_fraction=0 is accepted: it trains to the cap on all of y, with no validation
    f = TimeBridgeForecaster(48, 16, seed=0, **TINY, val_fraction=0.0).fit(history)
    assert len(f.val_mse_) == 0 and len(f.losses_) == TINY["steps"] and not f.converged_
    assert f.predict(16).shape == (16, history.shape[1])


def test_bad_inputs_are_named(history):
    f = TimeBridgeForecaster(48, 16, seed=0, **TINY)
    with pytest.raises(ValueError, match="not fitted"):
        f.predict(4)
    bad = history.copy()
    bad[5, 1] = np.nan
    with pytest.raises(ValueError, match="y must not contain NaN"):
        f.fit(bad)
    with pytest.raises(ValueError, match="at least 64 time steps"):
        f.fit(history[:60])
    f.fit(history)
    with pytest.raises(ValueError, match="horizon must be an integer >= 1"):
        f.predict(0)
    with pytest.raises(ValueError, match="horizon must be <= 16"):
        f.predict(17)
    with pytest.raises(ValueError, match="at least 48 time steps"):
        f.predict(4, history[:40])
    with pytest.raises(ValueError, match="y must not contain NaN"):
        f.predict(4, bad)
    with pytest.raises(ValueError, match="3 series"):
        f.predict(4, history[:, :2])
    with pytest.raises(ValueError, match="model"):
        TimeBridgeForecaster(model="arima")
    with pytest.raises(ValueError, match="input_len must be a multiple of patch_len"):
        TimeBridgeForecaster(50, 16, patch_len=24)
    with pytest.raises(TypeError, match="y must be an array"):
        f.fit([["a", "b"]])


def test_linear_forecaster_recovers_a_lead_lag_that_only_the_cross_map_can_see():
    rng = np.random.default_rng(0)
    lead = np.cumsum(rng.normal(size=2000))
    y = np.column_stack([lead, np.roll(lead, 8)])[8:]  # series 1 = series 0, 8 steps late
    windows = np.stack([y[i : i + 40] for i in range(1500, 1900, 7)])
    truth = windows[:, 32:]
    own = LinearForecaster(32, 8, cross=False, ridge=1e-3).fit(y[:1500])
    cross = LinearForecaster(32, 8, cross=True, ridge=1e-3).fit(y[:1500])
    err_own = ((own.predict_windows(windows[:, :32]) - truth)[..., 1] ** 2).mean()
    err_cross = ((cross.predict_windows(windows[:, :32]) - truth)[..., 1] ** 2).mean()
    assert err_cross < 1e-3 * err_own  # the follower's next 8 steps are the leader's last 8


def test_loss_and_period_norm_axis_options(history):
    f = TimeBridgeForecaster(48, 16, "dlinear", loss="time_frequency", seed=0, **TINY)
    assert f.loss == "time_frequency" and f.fit(history).predict(4).shape == (4, 3)
    g = TimeBridgeForecaster(48, 16, period_norm_axis="patch", seed=0, **TINY)
    assert g.fit(history).predict(4).shape == (4, 3)
    with pytest.raises(ValueError, match="loss"):
        TimeBridgeForecaster(loss="mae")
    with pytest.raises(ValueError, match="period_norm_axis"):
        TimeBridgeForecaster(period_norm_axis="time")


def test_the_forecaster_follows_scikit_learns_parameter_conventions(history):
    """The checks of ``check_estimator`` that do not call ``fit(X, y)`` on a feature matrix
    (the forecaster fits one history ``y`` (T, N) and predicts a horizon), and clone/pickle."""
    name = "TimeBridgeForecaster"
    for est in (TimeBridgeForecaster(), TimeBridgeForecaster(48, 16, "dlinear", loss="mse")):
        check_parameters_default_constructible(name, est)
        check_no_attributes_set_in_init(name, est)
        check_get_params_invariance(name, est)
        check_set_params(name, est)
    f = TimeBridgeForecaster(48, 16, seed=0, **TINY)
    assert f.get_params()["loss"] is None and f.loss_name == "time_frequency"
    first = f.fit(history).predict(4)
    np.testing.assert_array_equal(clone(f).fit(history).predict(4), first)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(f)).predict(4), first)
    assert not hasattr(clone(f), "network_")
    f.set_params(model="dlinear")
    assert f.loss_name == "mse" and f.fit(history).predict(4).shape == (4, 3)
    with pytest.raises(ValueError, match="patch_len"):
        TimeBridgeForecaster(48, 16, patch_len=16).set_params(patch_len=20).fit(history)
