"""``STOPForecaster``: a ``fit(y)`` / ``predict(horizon)`` estimator on arrays (time, nodes).

Normalisation: one global z-score, ``(y - mean) / std`` with the mean and standard deviation
of the whole training array (all steps, all nodes), the official ``StandardScaler``; one pair
for all nodes, so that nodes unseen in training are normalised the same way. Forecasts come
back in the original units.

Time of day: step ``t`` of an array that starts at ``start`` has time-of-day index
``(start + t) mod steps_per_day``.
"""

from __future__ import annotations

from dataclasses import asdict, replace

import numpy as np
import torch

from icml25.common.validate import check_int, check_real
from icml25.stop_st.data import _check_integer, _real
from icml25.stop_st.model import MODELS, ModelConfig
from icml25.stop_st.training import TrainConfig, predict_windows, train_model


def _as_series(y, name: str, min_len: int) -> np.ndarray:
    arr = _real(name, y, 2)  # (time, nodes)
    if len(arr) < min_len:
        raise ValueError(f"{name} has {len(arr)} time steps; at least {min_len} are needed")
    return arr


class STOPForecaster:
    """Train and run STOP (``model="stop"``) or a baseline (``"gcn"``, ``"backbone"``).

    >>> f = STOPForecaster(input_len=12, horizon=12, steps_per_day=24, epochs=5)
    >>> f.fit(y_train)                          # (T, N)                  # doctest: +SKIP
    >>> f.predict(12)                           # next 12 steps, (12, N)  # doctest: +SKIP
    >>> f.predict(6, history=y_new_nodes)       # any node set, (6, N')   # doctest: +SKIP

    ``perturb`` and ``robust`` switch STOP's message perturbation and robust loss
    (:mod:`icml25.stop_st.training`); they default to on for STOP and must stay off for the
    baselines, which have no node-to-core messages. ``adjacency`` (N, N) is needed by the GCN.
    ``val_fraction`` of the end of the training array selects the best epoch (0: the last).

    Parameters
    ----------
    model : {"stop", "gcn", "backbone"}, default "stop"
        The network: STOP (backbone plus Context-Aware Units), the GCN baseline (needs an
        ``adjacency`` in ``fit`` and ``predict``) or the plain per-node MLP backbone.
    input_len : int, default 12
        Number of past steps each forecast reads; at least 1.
    horizon : int, default 12
        Number of future steps the network predicts; ``predict`` may ask for 1 to
        ``horizon`` of them.
    steps_per_day : int, default 24
        Steps in one day, the period of the learned time-of-day embedding; at least 1.
    epochs : int, default 20
        Training epochs; at least 1.
    batch_size : int, default 32
        Windows per optimisation step; at least 1.
    lr : float, default 2e-3
        Adam learning rate, in (0, 1].
    perturb : bool or None, default None
        Message perturbation on or off; None means on for ``"stop"``, off otherwise. Must be
        off for the baselines.
    robust : bool or None, default None
        Robust (distributionally robust) loss on or off; None means on for ``"stop"``, off
        otherwise. Must be off for the baselines.
    val_fraction : float, default 0.0
        Fraction in [0, 1) of the end of the training array held out to pick the epoch with
        the lowest validation MAE; 0 keeps the last epoch.
    seed : int, default 0
        Seed of the weight initialisation, dropout, batch order and perturbation masks.
    **sizes
        Other :class:`~icml25.stop_st.model.ModelConfig` fields: ``model_dim`` (32),
        ``tod_dim`` (16), ``num_layer`` (2), ``kernel_size`` (3), ``cores`` (8), ``heads`` (4),
        ``hid_dim`` (64), ``dropout`` (0.15), ``cau_dropout`` (0.3),
        ``mix_heads_across_batch`` (False).
    """

    def __init__(
        self,
        model: str = "stop",
        *,
        input_len: int = 12,
        horizon: int = 12,
        steps_per_day: int = 24,
        epochs: int = 20,
        batch_size: int = 32,
        lr: float = 2e-3,
        perturb: bool | None = None,
        robust: bool | None = None,
        val_fraction: float = 0.0,
        seed: int = 0,
        **sizes,
    ):
        if model not in MODELS:
            raise ValueError(f"model must be one of {sorted(MODELS)}, got {model!r}")
        for name, value in (("input_len", input_len), ("horizon", horizon)):
            check_int(name, value, minimum=1)
        check_real("val_fraction", val_fraction, low=0.0, high=1.0, high_open=True)
        _check_integer("seed", seed)
        perturb = (model == "stop") if perturb is None else perturb
        robust = (model == "stop") if robust is None else robust
        if model != "stop" and (perturb or robust):
            raise ValueError(f"perturb and robust apply to model='stop' only, not {model!r}")
        self.model_name = model
        self.model_config = ModelConfig(
            input_len=input_len, horizon=horizon, steps_per_day=steps_per_day, **sizes
        )
        self.train_config = TrainConfig(
            epochs=epochs, batch_size=batch_size, lr=lr, perturb=perturb, robust=robust
        )
        self.val_fraction = val_fraction
        self.seed = seed

    def with_training(self, **changes) -> STOPForecaster:
        """A copy with other :class:`TrainConfig` fields (``envs``, ``drop_rate``, ``beta``...)."""
        new = STOPForecaster.__new__(STOPForecaster)
        new.__dict__.update(self.__dict__)
        new.train_config = replace(self.train_config, **changes)
        return new

    def _scale(self, y: np.ndarray) -> torch.Tensor:
        return torch.as_tensor((y - self.mean_) / self.std_, dtype=torch.float32)

    def _adjacency(self, adjacency, n: int) -> torch.Tensor | None:
        if self.model_name != "gcn":
            return None
        if adjacency is None:
            raise ValueError("adjacency (nodes, nodes) is required by model='gcn'")
        adj = _real("adjacency", adjacency, 2)
        if adj.shape != (n, n) or (adj < 0).any():
            raise ValueError(f"adjacency must be a finite non-negative ({n}, {n}) array")
        return torch.as_tensor(adj, dtype=torch.float32)

    def fit(self, y, adjacency=None, start: int = 0) -> STOPForecaster:
        """Fit on ``y`` (T, N); ``start`` is the time-of-day offset of ``y[0]``."""
        cfg = self.model_config
        y = _as_series(y, "y", cfg.input_len + cfg.horizon)
        _check_integer("start", start)
        self.mean_, self.std_ = float(y.mean()), float(y.std()) or 1.0
        adj = self._adjacency(adjacency, y.shape[1])
        n_val = int(len(y) * self.val_fraction)
        if n_val and n_val < cfg.input_len + cfg.horizon:
            raise ValueError(f"val_fraction={self.val_fraction} leaves too few validation steps")
        train, val = (y[:-n_val], y[-n_val:]) if n_val else (y, None)
        # initialisation and dropout draw from torch's global generator: seed it inside a
        # fork, which restores the caller's state afterwards
        with torch.random.fork_rng():
            torch.manual_seed(self.seed)
            self.module_ = MODELS[self.model_name](cfg)
            self.history_ = train_model(
                self.module_,
                self._scale(_as_series(train, "y", cfg.input_len + cfg.horizon)),
                self.train_config,
                self.seed,
                t0=start,
                adjacency=adj,
                val_series=None if val is None else self._scale(val),
                val_t0=start + len(train),
            )
        self.history_end_ = y[-cfg.input_len :]
        self.history_start_ = start + len(y) - cfg.input_len
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "module_"):
            raise ValueError("call fit(y) before predict")

    def predict(self, horizon: int, history=None, adjacency=None, start: int | None = None):
        """Forecast the ``horizon`` steps after ``history`` (T', N'), any node set, T' at least
        ``input_len`` (default: the end of the training array). ``start`` is the time-of-day
        offset of ``history[0]`` (default 0 for a given history). -> (horizon, N')."""
        self._check_fitted()
        cfg = self.model_config
        if (
            isinstance(horizon, bool)
            or not isinstance(horizon, int | np.integer)
            or not 1 <= horizon <= cfg.horizon
        ):
            raise ValueError(f"horizon must be an integer in [1, {cfg.horizon}], got {horizon}")
        if history is None and start is not None:
            raise ValueError("start is the offset of history[0]: give it with a history only")
        if start is not None:
            _check_integer("start", start)
        if history is None:
            hist, t0 = self.history_end_, self.history_start_
        else:
            hist = _as_series(history, "history", cfg.input_len)[-cfg.input_len :]
            t0 = (0 if start is None else start) + len(history) - cfg.input_len
        pad = np.zeros((cfg.horizon, hist.shape[1]))  # targets are not used
        pred, _ = predict_windows(
            self.module_,
            self._scale(np.concatenate([hist, pad])),
            torch.zeros(1, dtype=torch.long),
            t0,
            self._adjacency(adjacency, hist.shape[1]),
        )
        return pred[0, :horizon].numpy() * self.std_ + self.mean_

    def rolling(self, y, adjacency=None, start: int = 0, stride: int = 1):
        """Every window of ``y`` (T, N): forecasts and truths, both (W, H, N), original units."""
        self._check_fitted()
        cfg = self.model_config
        y = _as_series(y, "y", cfg.input_len + cfg.horizon)
        _check_integer("start", start)
        stride = check_int("stride", stride, minimum=1)
        starts = torch.arange(0, len(y) - cfg.input_len - cfg.horizon + 1, stride)
        pred, target = predict_windows(
            self.module_, self._scale(y), starts, start, self._adjacency(adjacency, y.shape[1])
        )
        return pred.numpy() * self.std_ + self.mean_, target.numpy() * self.std_ + self.mean_

    def get_params(self) -> dict:
        return {"model": self.model_name, **asdict(self.model_config), **asdict(self.train_config)}
