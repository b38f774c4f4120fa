"""``TimeBridgeForecaster``: fit(y) / predict(horizon) on arrays shaped (time, series), the
convention of Darts, sktime and statsforecast, around :class:`~icml25.timebridge.model.TimeBridge`
(Liu et al., ICML 2025) or the DLinear baseline.

Normalisation, in two stages:
1. ``fit`` standardises each series by the mean and standard deviation of the data it is given
   (``mean_``, ``scale_``, shape (N,)); the network is trained and evaluated on that scale, and
   every forecast is mapped back to the caller's units (``y = z scale_ + mean_``);
2. inside the network each input window is normalised again per series (TimeBridge's step 1;
   DLinear gets the same window normalisation here, see ``instance_norm``), which is what lets a
   model trained on one stretch of a random walk forecast at levels it has never seen.

Training: the last ``val_fraction`` of the fitted series is held out for validation (its
windows' targets; their inputs may reach back into the rest), as the official code's 7:1:2
train/validation/test split does; every window of ``input_len + horizon`` consecutive steps of
the rest is a training sample. Up to ``steps`` Adam updates on batches drawn by a
``numpy.random.Generator`` seeded by ``seed``, with a cosine-decayed learning rate; loss: the
time-frequency loss for TimeBridge, MSE for DLinear (each model's own; ``loss`` overrides).
Every ``eval_every`` updates the validation MSE is measured; the weights with the lowest one are
kept. The convergence rule is the official early stopping: training has converged when
``patience`` consecutive evaluations bring no new lowest validation MSE, and stops there
(``converged_ = True``); a run that reaches the cap of ``steps`` updates before that is recorded
as not converged (``converged_ = False``), as is a run without a validation split.
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.base import BaseEstimator
from torch.nn import functional as F

from icml25.common.progress import report_progress
from icml25.common.validate import check_int, check_real
from icml25.timebridge.loss import time_frequency_loss
from icml25.timebridge.model import DLinear, TimeBridge, TimeBridgeConfig

__all__ = ["MODELS", "TimeBridgeForecaster", "check_history"]

MODELS = ("timebridge", "dlinear")
LOSSES = ("time_frequency", "mse")
MAX_FLOATS = 2**30  # an array of more floats (4 GiB in float32) is refused as a size typo


def _as_numbers(name: str, value, shape: str = "(time, series)") -> np.ndarray:
    """``value`` as a float array, or TypeError naming ``name`` when it is ragged or holds
    anything but numbers (strings, objects)."""
    try:
        arr = np.asarray(value)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"dtype {arr.dtype}")
        return np.asarray(arr, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be an array of numbers shaped {shape}") from err


def check_history(name: str, y, min_steps: int) -> np.ndarray:
    """Check a history and return it as a float array (T, N).

    Parameters
    ----------
    name : str
        Name of the argument, used in the error messages.
    y : array_like, shape (T, N) or (T,)
        The history; a 1-D array is one series.
    min_steps : int
        Least number of time steps T.

    Returns
    -------
    ndarray of float, shape (T, N)
        ``y`` with ``T >= min_steps``, ``N >= 1`` and no NaN or inf.

    Raises
    ------
    TypeError
        When ``y`` is ragged or does not hold numbers.
    ValueError
        When it has the wrong shape, too few steps, or a NaN or inf.
    """
    arr = _as_numbers(name, y)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must have shape (time, series), got {arr.shape}")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must hold at least one series, got shape {arr.shape}")
    if arr.shape[0] < min_steps:
        raise ValueError(
            f"{name} must have at least {min_steps} time steps (the input length), "
            f"got {arr.shape[0]}"
        )
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must not contain NaN or inf")
    return arr


def _check_windows(windows, input_len: int, n_series: int) -> np.ndarray:
    """``windows`` as a float array (B, input_len, n_series) with ``B >= 1`` and no NaN or inf,
    or ValueError (TypeError when it does not hold numbers)."""
    x = _as_numbers("windows", windows, "(batch, input_len, series)")
    if x.ndim != 3 or x.shape[1:] != (input_len, n_series):
        raise ValueError(f"windows must have shape (batch, {input_len}, {n_series}), got {x.shape}")
    if x.shape[0] == 0:
        raise ValueError(f"windows must hold at least one window, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("windows must not contain NaN or inf")
    return x


class _WindowNorm(torch.nn.Module):
    """Per-window, per-series normalisation around a network (the DLinear side of stage 2)."""

    def __init__(self, net: torch.nn.Module):
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mu = x.mean(1, keepdim=True).detach()  # (B, 1, N)
        sigma = x.std(1, keepdim=True).detach() + 1e-5
        return self.net((x - mu) / sigma) * sigma + mu


class TimeBridgeForecaster(BaseEstimator):
    """Forecast several series at once with TimeBridge or the DLinear baseline.

    Multivariate forecaster: ``fit(y)`` on a (T, N) history, ``predict(horizon)`` the next
    ``horizon <= self.horizon`` steps (horizon, N) after the history (or after a new ``y``).

    ``model="timebridge"`` (``ca_layers = 0``: the ablation without Cointegrated Attention;
    ``period_norm=False``: queries and keys from raw tokens) or ``"dlinear"``. ``instance_norm``
    applies to DLinear only (TimeBridge always normalises its windows). ``loss=None`` trains
    each model with its own loss (time-frequency for TimeBridge, MSE for DLinear);
    ``"time_frequency"`` or ``"mse"`` overrides it.

    A scikit-learn ``BaseEstimator``: the parameters are stored as given (``get_params``,
    ``set_params``, ``clone`` and pickling work; ``fit`` checks them again). ``check_estimator``
    as a whole does not apply: its checks call ``fit(X, y)`` with a feature matrix and a target
    and compare ``predict(X)`` with ``y``, where a forecaster fits one history ``y`` (T, N) and
    predicts a horizon. The checks that do not fit (default construction, nothing set in
    ``__init__`` but the parameters, ``get_params`` and ``set_params``) pass and are tested.

    Parameters
    ----------
    input_len : int, default 192
        Length I of each input window, ``>= 1``; for TimeBridge a multiple of ``patch_len``.
    horizon : int, default 96
        Length H of the forecast the network is trained for, ``>= 1``; ``predict`` can ask for
        any ``horizon`` up to it.
    model : {"timebridge", "dlinear"}, default "timebridge"
        The network: TimeBridge, or the DLinear baseline.
    patch_len : int, default 24
        Length of each patch (token) of an input window (TimeBridge only).
    d_model : int, default 64
        Width of the tokens, a multiple of ``n_heads`` (TimeBridge only).
    n_heads : int, default 4
        Number of attention heads (TimeBridge only).
    d_ff : int, default 128
        Hidden width of each block's feed-forward layer (TimeBridge only).
    ia_layers : int, default 1
        Number of Integrated Attention layers (within each series), ``>= 0``.
    ps_layers : int, default 1
        Number of patch-sampling layers (``input_len / patch_len`` patches down to
        ``sampled_patches``), ``>= 0``.
    sampled_patches : int, default 4
        Number of patches after patch sampling, ``>= 1``.
    ca_layers : int, default 1
        Number of Cointegrated Attention layers (across series), ``>= 0``; ``0`` is the
        ablation without it.
    stable_len : int, default 6
        Window of the causal moving average that period normalisation subtracts, at most
        ``d_model``.
    period_norm : bool, default True
        Compute Integrated Attention's queries and keys from period-normalised tokens;
        ``False`` uses the raw tokens.
    period_norm_axis : {"feature", "patch"}, default "feature"
        Axis of the moving average: each token's features (the official code) or the same
        feature over the last ``stable_len`` patches.
    instance_norm : bool, default True
        Normalise each input window per series around DLinear (DLinear only; TimeBridge always
        does).
    alpha : float, default 0.35
        Weight in ``[0, 1]`` of the frequency term of the time-frequency loss.
    loss : {None, "time_frequency", "mse"}, default None
        Training loss; ``None`` takes the model's own (time-frequency for TimeBridge, MSE
        for DLinear).
    steps : int, default 1000
        Cap on the number of Adam updates, ``>= 1``.
    batch_size : int, default 32
        Number of training windows per update, ``>= 1``.
    val_fraction : float, default 0.125
        Fraction in ``[0, 0.5]`` of the end of the series held out for validation and early
        stopping; ``0`` trains without validation.
    eval_every : int, default 50
        Updates between two validation evaluations, ``>= 1``.
    patience : int, default 5
        Evaluations without a new lowest validation MSE after which training stops, ``>= 1``.
    lr : float, default 1e-3
        Initial Adam learning rate in ``(0, 1]``, decayed by a cosine schedule.
    seed : int, default 0
        Seed of the network's initial weights and of the batch draws, ``>= 0``.
    """

    def __init__(
        self,
        input_len: int = 192,
        horizon: int = 96,
        model: str = "timebridge",
        *,
        patch_len: int = 24,
        d_model: int = 64,
        n_heads: int = 4,
        d_ff: int = 128,
        ia_layers: int = 1,
        ps_layers: int = 1,
        sampled_patches: int = 4,
        ca_layers: int = 1,
        stable_len: int = 6,
        period_norm: bool = True,
        period_norm_axis: str = "feature",
        instance_norm: bool = True,
        alpha: float = 0.35,
        loss: str | None = None,
        steps: int = 1000,
        batch_size: int = 32,
        val_fraction: float = 0.125,
        eval_every: int = 50,
        patience: int = 5,
        lr: float = 1e-3,
        seed: int = 0,
    ):
        self.input_len = input_len
        self.horizon = horizon
        self.model = model
        self.patch_len = patch_len
        self.d_model = d_model
        self.n_heads = n_heads
        self.d_ff = d_ff
        self.ia_layers = ia_layers
        self.ps_layers = ps_layers
        self.sampled_patches = sampled_patches
        self.ca_layers = ca_layers
        self.stable_len = stable_len
        self.period_norm = period_norm
        self.period_norm_axis = period_norm_axis
        self.instance_norm = instance_norm
        self.alpha = alpha
        self.loss = loss
        self.steps = steps
        self.batch_size = batch_size
        self.val_fraction = val_fraction
        self.eval_every = eval_every
        self.patience = patience
        self.lr = lr
        self.seed = seed
        self._check_params()  # fail on bad values now; fit checks again after set_params

    def _check_params(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, got {self.model!r}")
        check_int("input_len", self.input_len, minimum=1)
        check_int("horizon", self.horizon, minimum=1)
        check_real("alpha", self.alpha, low=0.0, high=1.0)
        if self.loss is not None and self.loss not in LOSSES:
            raise ValueError(f"loss must be None or one of {LOSSES}, got {self.loss!r}")
        check_int("steps", self.steps, minimum=1)
        check_int("batch_size", self.batch_size, minimum=1)
        check_real("val_fraction", self.val_fraction, low=0.0, high=0.5)
        check_int("eval_every", self.eval_every, minimum=1)
        check_int("patience", self.patience, minimum=1)
        check_real("lr", self.lr, low=0.0, high=1.0, low_open=True)
        check_int("seed", self.seed, minimum=0)
        if self.model == "timebridge":  # the architecture's sizes
            TimeBridgeConfig(
                n_series=1, input_len=self.input_len, horizon=self.horizon, **self.arch
            )

    @property
    def arch(self) -> dict:
        """The ``TimeBridgeConfig`` fields of the architecture, from the parameters."""
        return dict(
            patch_len=self.patch_len,
            d_model=self.d_model,
            n_heads=self.n_heads,
            d_ff=self.d_ff,
            ia_layers=self.ia_layers,
            ps_layers=self.ps_layers,
            sampled_patches=self.sampled_patches,
            ca_layers=self.ca_layers,
            stable_len=self.stable_len,
            period_norm=bool(self.period_norm),
            period_norm_axis=self.period_norm_axis,
        )

    @property
    def loss_name(self) -> str:
        """The training loss: ``loss``, or the model's own when ``loss`` is None."""
        if self.loss is not None:
            return self.loss
        return "time_frequency" if self.model == "timebridge" else "mse"

    def _network(self, n_series: int) -> torch.nn.Module:
        if self.model == "timebridge":
            config = TimeBridgeConfig(
                n_series=n_series, input_len=self.input_len, horizon=self.horizon, **self.arch
            )
            return TimeBridge(config, seed=self.seed)
        net = DLinear(self.input_len, self.horizon, seed=self.seed)
        return _WindowNorm(net) if bool(self.instance_norm) else net

    def _loss(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        if self.loss_name == "time_frequency":
            return time_frequency_loss(pred, target, float(self.alpha))
        return F.mse_loss(pred, target)

    def fit(self, y) -> TimeBridgeForecaster:
        """Train on the windows of the history ``y`` (T, N); its training part (all but the
        last ``val_fraction``) must hold at least ``input_len + horizon`` steps.

        Sets ``mean_``, ``scale_`` (N,) (from all of ``y``), ``network_``, ``losses_`` (the
        training loss at each update), ``val_mse_`` (validation MSE at each evaluation, empty
        without validation), ``best_step_`` and ``converged_`` (whether the early-stopping rule
        ended training before the cap); returns ``self``."""
        self._check_params()
        span = self.input_len + self.horizon
        y = check_history("y", y, span)
        if self.batch_size * span * y.shape[1] > MAX_FLOATS:
            raise ValueError(
                f"batch_size is too large: a batch of {self.batch_size} windows of "
                f"{span} x {y.shape[1]} floats (at most 2**30)"
            )
        n_val = int(round(self.val_fraction * len(y)))
        if len(y) - n_val < span or (n_val and n_val < self.horizon):
            raise ValueError(
                f"y must have at least {span} time steps before its last {n_val} validation "
                f"steps (val_fraction={self.val_fraction}), which must hold >= {self.horizon} "
                f"steps when val_fraction > 0; got {len(y)} steps"
            )
        self.mean_ = y.mean(0)  # (N,)
        self.scale_ = np.where(y.std(0) > 0, y.std(0), 1.0)  # (N,)
        self.history_ = y
        z = torch.as_tensor((y - self.mean_) / self.scale_, dtype=torch.float32)  # (T, N)
        windows = z[: len(y) - n_val].unfold(0, span, 1).transpose(1, 2)  # (W, I + H, N), view
        if n_val:  # the validation windows: their targets in the last n_val steps
            val = z[len(y) - n_val - self.input_len :].unfold(0, span, 1).transpose(1, 2)
            val = val[:: max(1, len(val) // 64)]  # at most ~64 validation windows
        net = self._network(y.shape[1])
        opt = torch.optim.Adam(net.parameters(), lr=self.lr)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: 0.5 * (1 + np.cos(np.pi * s / self.steps))
        )
        rng = np.random.default_rng(self.seed)
        losses, val_mse = [], []
        best, best_state, best_step, waited = np.inf, None, self.steps, 0
        converged = False
        net.train()
        for step in range(self.steps):
            report_progress(step, self.steps)
            batch = windows[torch.as_tensor(rng.integers(len(windows), size=self.batch_size))]
            pred = net(batch[:, : self.input_len])  # (B, H, N)
            loss = self._loss(pred, batch[:, self.input_len :])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
            if n_val and ((step + 1) % self.eval_every == 0 or step + 1 == self.steps):
                net.eval()
                with torch.no_grad():
                    mse = F.mse_loss(net(val[:, : self.input_len]), val[:, self.input_len :])
                net.train()
                val_mse.append(mse.item())
                if val_mse[-1] < best:
                    best, best_step, waited = val_mse[-1], step + 1, 0
                    best_state = {k: v.clone() for k, v in net.state_dict().items()}
                else:
                    waited += 1
                    if waited >= self.patience:
                        converged = True
                        break
        if best_state is not None:
            net.load_state_dict(best_state)
        net.eval()
        self.network_, self.losses_ = net, np.array(losses)
        self.val_mse_, self.best_step_ = np.array(val_mse), best_step
        self.converged_ = converged
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "network_"):
            raise ValueError("this forecaster is not fitted: call fit(y) first")

    def predict(self, horizon: int, y=None) -> np.ndarray:
        """The next ``horizon`` steps (horizon, N) after the last ``input_len`` steps of ``y``
        (default: the history given to ``fit``), in the caller's units."""
        self._check_fitted()
        if isinstance(horizon, bool) or not isinstance(horizon, int | np.integer) or horizon < 1:
            raise ValueError(f"horizon must be an integer >= 1, got {horizon!r}")
        if horizon > self.horizon:
            raise ValueError(
                f"horizon must be <= {self.horizon}, the horizon the model was fitted for, "
                f"got {horizon}"
            )
        y = self.history_ if y is None else check_history("y", y, self.input_len)
        if y.shape[1] != len(self.mean_):
            raise ValueError(f"y must have {len(self.mean_)} series, got {y.shape[1]}")
        return self.predict_windows(y[None, -self.input_len :])[0, :horizon]

    def predict_windows(self, windows) -> np.ndarray:
        """Forecasts (B, horizon, N) of a batch of input windows (B, input_len, N), in the
        caller's units; one forward pass, no training."""
        self._check_fitted()
        x = _check_windows(windows, self.input_len, len(self.mean_))
        z = torch.as_tensor((x - self.mean_) / self.scale_, dtype=torch.float32)
        with torch.no_grad():
            out = self.network_(z).double().numpy()  # (B, H, N)
        return out * self.scale_ + self.mean_
