"""Bad input to the generator, forecasters, loss and network parts is refused, naming it."""

import numpy as np
import pytest
import torch

from icml25.timebridge import (
    DLinear,
    LinearForecaster,
    PatchSampling,
    TimeBridge,
    TimeBridgeConfig,
    TimeBridgeForecaster,
    check_history,
    cointegrated_series,
    frequency_term,
    period_norm,
    seeded_init,
    time_frequency_loss,
)

Y = cointegrated_series(80, n_series=3, n_trends=1, seed=0).y
CONFIG = TimeBridgeConfig(
    n_series=3, input_len=24, horizon=12, patch_len=12, d_model=8, n_heads=2, d_ff=8, stable_len=2
)
LINEAR = LinearForecaster(24, 12, cross=True).fit(Y)
DLINEAR = TimeBridgeForecaster(24, 12, model="dlinear", steps=1, val_fraction=0.0).fit(Y)
Z = torch.zeros(2, 12, 3)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: cointegrated_series(10**12), ValueError, r"n_steps \+ max_lag is too large"),
        (lambda: cointegrated_series(100, max_lag=10**12), ValueError, r"n_steps \+ max_lag is"),
        (lambda: cointegrated_series(100, n_series=10**7), ValueError, r"n_steps \* n_series is"),
        (lambda: cointegrated_series(100, seed=-1), ValueError, "seed must be an integer >= 0"),
        (lambda: check_history("y", Y.astype(str), 3), TypeError, "y must be an array of num"),
        (lambda: check_history("y", Y.astype(object), 3), TypeError, "y must be an array of num"),
        (lambda: check_history("y", np.zeros((30, 0)), 3), ValueError, "y must hold at least one"),
        (
            lambda: LinearForecaster(4, 2, cross=True).fit(np.zeros((30, 0))),
            ValueError,
            "y must hold at least one series",
        ),
        (
            lambda: LinearForecaster(4, 2, cross=False).predict_windows(np.zeros((1, 4, 1))),
            ValueError,
            "not fitted",
        ),
        (
            lambda: LINEAR.predict_windows(np.full((2, 24, 3), np.nan)),
            ValueError,
            "windows must not contain NaN",
        ),
        (
            lambda: LINEAR.predict_windows(np.full((1, 24, 3), "1.5")),
            TypeError,
            "windows must be an array of numbers",
        ),
        (
            lambda: LINEAR.predict_windows(np.zeros((0, 24, 3))),
            ValueError,
            "windows must hold at least one window",
        ),
        (
            lambda: DLINEAR.predict_windows(np.full((2, 24, 3), "a")),
            TypeError,
            "windows must be an array of numbers",
        ),
        (
            lambda: DLINEAR.predict_windows([[[1.0]], [[1.0, 2.0]]]),
            TypeError,
            "windows must be an array of numbers",
        ),
        (
            lambda: DLINEAR.predict_windows(np.zeros((0, 24, 3))),
            ValueError,
            "windows must hold at least one window",
        ),
        (
            lambda: TimeBridgeForecaster(24, 12, model="dlinear", batch_size=10**12).fit(Y),
            ValueError,
            "batch_size is too large",
        ),
        (
            lambda: time_frequency_loss(torch.zeros(12, 3), torch.zeros(12, 3)),
            ValueError,
            r"pred must have shape \(batch, time, series\)",
        ),
        (
            lambda: frequency_term(torch.zeros(0, 12, 3), torch.zeros(0, 12, 3)),
            ValueError,
            "pred must not be empty",
        ),
        (lambda: time_frequency_loss(np.zeros((2, 12, 3)), Z), TypeError, "pred must be a torch"),
        (lambda: period_norm(torch.randn(4, 8), 0), ValueError, "stable_len must be an integer"),
        (lambda: period_norm(torch.randn(4, 8), 9), ValueError, "stable_len must be <= 8"),
        (
            lambda: period_norm(torch.ones(4, 8, dtype=torch.long), 2),
            TypeError,
            "z must be a floating-point tensor",
        ),
        (lambda: period_norm(np.zeros((4, 8)), 2), TypeError, "z must be a floating-point"),
        (lambda: TimeBridge(CONFIG)(np.zeros((1, 24, 3))), TypeError, "x must be a torch"),
        (lambda: DLinear(24, 12)(np.zeros((1, 24, 3))), TypeError, "x must be a torch"),
        (lambda: TimeBridge({"n_series": 3}), TypeError, "config must be a TimeBridgeConfig"),
        (lambda: PatchSampling(CONFIG, 0), ValueError, "in_patches must be an integer >= 1"),
        (lambda: seeded_init(DLinear(24, 12), -1), ValueError, "seed must be an integer >= 0"),
        (lambda: seeded_init([1], 0), TypeError, "module must be a torch.nn.Module"),
    ],
)
def test_bad_input_is_refused_by_name(call, error, message):
    with pytest.raises(error, match=message):
        call()
