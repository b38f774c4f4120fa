"""A closed-form linear forecaster, the diagnostic of how much of a series' future is a linear
function of its own past, or of every series' past.

The series are standardised by the mean and standard deviation of the fitted data (as
``TimeBridgeForecaster`` does); each input window is then centred per series (its window mean
``mu`` (N,) subtracted; added back to the forecast); then ridge regression
``W = (X^T X + lam I)^-1 X^T Y`` on all training windows. ``cross=False`` maps one series' ``I``
centred inputs to its ``H`` outputs, one ``W`` (I, H) shared by all series (a DLinear without
the decomposition, solved exactly); ``cross=True`` maps the ``I N`` centred inputs of every
series to the ``H N`` outputs (a VAR-like map that can use any lead-lag or co-integration
relation among the series, if linear).
"""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_int, check_real
from icml25.timebridge.forecaster import _check_windows, check_history

__all__ = ["LinearForecaster"]


class LinearForecaster:
    """Closed-form ridge forecaster on centred input windows.

    ``fit(y)`` on a (T, N) history; ``predict_windows`` maps (B, I, N) input windows to
    (B, H, N) forecasts in the caller's units.

    Parameters
    ----------
    input_len : int
        Length I of each input window, ``>= 1``.
    horizon : int
        Length H of each forecast, ``>= 1``.
    cross : bool
        ``False``: one map (I, H) from a series' own centred past, shared by all series;
        ``True``: one map (I N, H N) from every series' centred past to every series' future.
    ridge : float, default 1.0
        Ridge penalty ``lam``, ``>= 0``.

    Notes
    -----
    After ``fit``: ``mean_``, ``scale_`` (N,) the standardisation of the fitted data (a
    constant series gets scale 1), ``coef_`` the ridge solution ``(I, H)`` or ``(I N, H N)``,
    and ``n_series_``.

    scikit-learn: not an estimator: ``fit`` takes one multivariate series ``y`` and no
    ``X``, as a forecaster does, so ``check_estimator`` does not apply
    (``TimeBridgeForecaster`` is the ``BaseEstimator`` of this package).
    """

    def __init__(self, input_len: int, horizon: int, *, cross: bool, ridge: float = 1.0):
        self.input_len = check_int("input_len", input_len, minimum=1)
        self.horizon = check_int("horizon", horizon, minimum=1)
        self.cross = bool(cross)
        self.ridge = check_real("ridge", ridge, low=0.0, high=np.inf)

    def _design(self, windows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Centred inputs (rows of the design) and their means (B, 1, N)."""
        mu = windows.mean(1, keepdims=True)
        x = windows - mu  # (B, I, N)
        if self.cross:
            return x.reshape(len(x), -1), mu  # (B, I N)
        return x.transpose(0, 2, 1).reshape(-1, self.input_len), mu  # (B N, I)

    def fit(self, y) -> LinearForecaster:
        span = self.input_len + self.horizon
        y = check_history("y", y, span)
        self.mean_ = y.mean(0)  # (N,)
        self.scale_ = np.where(y.std(0) > 0, y.std(0), 1.0)
        y = (y - self.mean_) / self.scale_
        windows = np.lib.stride_tricks.sliding_window_view(y, span, axis=0)  # (W, N, I + H)
        windows = windows.transpose(0, 2, 1)  # (W, I + H, N)
        X, mu = self._design(windows[:, : self.input_len])
        target = windows[:, self.input_len :] - mu  # (W, H, N)
        if self.cross:
            Y = target.reshape(len(target), -1)  # (W, H N)
        else:
            Y = target.transpose(0, 2, 1).reshape(-1, self.horizon)  # (W N, H)
        gram = X.T @ X + self.ridge * np.eye(X.shape[1])
        self.coef_ = np.linalg.solve(gram, X.T @ Y)
        self.n_series_ = y.shape[1]
        return self

    def predict_windows(self, windows) -> np.ndarray:
        if not hasattr(self, "coef_"):
            raise ValueError("this forecaster is not fitted: call fit(y) first")
        x = _check_windows(windows, self.input_len, self.n_series_)
        X, mu = self._design((x - self.mean_) / self.scale_)
        out = X @ self.coef_
        if self.cross:
            out = out.reshape(len(x), self.horizon, self.n_series_)
        else:
            out = out.reshape(len(x), self.n_series_, self.horizon).transpose(0, 2, 1)
        return (out + mu) * self.scale_ + self.mean_
