"""TimeBridge (Liu, Wu, Hu, Li, Dai, Bao & Xia, *TimeBridge: Non-Stationarity Matters for
Long-term Time Series Forecasting*, ICML 2025): Integrated Attention on period-normalised
queries and keys within each series, Cointegrated Attention on raw tokens across series.

>>> from icml25.timebridge import TimeBridgeForecaster, cointegrated_series
>>> data = cointegrated_series(600, n_series=8, n_trends=2, seed=0)
>>> model = TimeBridgeForecaster(input_len=96, horizon=48, steps=20).fit(data.y[:500])
>>> model.predict(48).shape  # a toy fit: the reproduction trains for thousands of steps
(48, 8)
"""

from icml25.timebridge.data import KINDS, MACRO_COLUMNS, Series, cointegrated_series, macrodata
from icml25.timebridge.forecaster import LOSSES, MODELS, TimeBridgeForecaster, check_history
from icml25.timebridge.linear import LinearForecaster
from icml25.timebridge.loss import frequency_term, time_frequency_loss
from icml25.timebridge.model import (
    CointegratedAttention,
    DLinear,
    IntegratedAttention,
    PatchSampling,
    TimeBridge,
    TimeBridgeConfig,
    period_norm,
    seeded_init,
)

__all__ = [
    "KINDS",
    "LOSSES",
    "MACRO_COLUMNS",
    "MODELS",
    "CointegratedAttention",
    "DLinear",
    "IntegratedAttention",
    "LinearForecaster",
    "PatchSampling",
    "Series",
    "TimeBridge",
    "TimeBridgeConfig",
    "TimeBridgeForecaster",
    "check_history",
    "cointegrated_series",
    "frequency_term",
    "macrodata",
    "period_norm",
    "seeded_init",
    "time_frequency_loss",
]
