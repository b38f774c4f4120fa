"""``STOPForecaster``: a ``fit(y)`` / ``predict(horizon)`` estimator on arrays (time, nodes).

Normalisation: one global z-score, ``(y - mean) / std`` with the mean and standard deviation
of the whole training array (all steps, all nodes), the official ``StandardScaler``; one pair
for all nodes, so that nodes unseen in training are normalised the same way. Forecasts come
back in the original units.

Time of day: step ``t`` of an array that starts at ``start`` has time-of-day index
``(start + t) mod steps_per_day``.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import torch
from sklearn.base import BaseEstimator

from icml25.common.validate import check_int, check_real
from icml25.stop_st.data import _check_integer, _real
from icml25.stop_st.model import MODELS, ModelConfig
from icml25.stop_st.training import TrainConfig, predict_windows, train_model


def _as_series(y, name: str, min_len: int) -> np.ndarray:
    arr = _real(name, y, 2)  # (time, nodes)
    if len(arr) < min_len:
        raise ValueError(f"{name} has {len(arr)} time steps; at least {min_len} are needed")
    return arr


class STOPForecaster(BaseEstimator):
    """Train and run STOP (``model="stop"``) or a baseline (``"gcn"``, ``"backbone"``).

    >>> f = STOPForecaster(input_len=12, horizon=12, steps_per_day=24, epochs=5)
    >>> f.fit(y_train)                          # (T, N)                  # doctest: +SKIP
    >>> f.predict(12)                           # next 12 steps, (12, N)  # doctest: +SKIP
    >>> f.predict(6, history=y_new_nodes)       # any node set, (6, N')   # doctest: +SKIP

    ``perturb`` and ``robust`` switch STOP's message perturbation and robust loss
    (:mod:`icml25.stop_st.training`); they default to on for STOP and must stay off for the
    baselines, which have no node-to-core messages. ``adjacency`` (N, N) is needed by the GCN.
    ``val_fraction`` of the end of the training array selects the best epoch (0: the last).

    scikit-learn conventions: every parameter is stored as given and checked again by ``fit``,
    so ``get_params``, ``set_params``, ``clone`` and pickling work; ``model_config`` and
    ``train_config`` are the :class:`~icml25.stop_st.model.ModelConfig` and
    :class:`~icml25.stop_st.training.TrainConfig` the parameters describe. ``check_estimator``'s
    regressor checks do not apply: ``fit(y)`` takes one (time, nodes) array with no target
    ``X``/``y`` pair, and ``predict(horizon)`` takes a step count, the forecasting convention.

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
    model_dim, tod_dim, num_layer, kernel_size, cores, heads, hid_dim : int
        Network sizes, defaults 32, 16, 2, 3, 8, 4, 64 (the official code's are 64, 32, 3,
        3, 8, 8, 256): feature width, time-of-day embedding width, encoder layers, the
        decomposition's moving-average kernel, context cores, attention heads, decoder width.
    dropout, cau_dropout : float
        Dropout of the encoder (0.15) and of the context units (0.3), in [0, 1).
    mix_heads_across_batch : bool, default False
        True reproduces the official code's reshape that mixes attention heads across the
        samples of a batch; False computes each sample's heads on their own.
    weight_decay, clip : float
        Adam weight decay (1e-5) and gradient-norm clip (5.0).
    envs : int, default 3
        Perturbed environments ``K_s`` of the robust loss.
    drop_rate, beta : float
        Fraction of node-to-core messages each environment drops (0.2) and the weight of the
        variance term of the robust loss (1.0).
    adversary_lr, adversary_penalty : float
        Step size (0.05) and the penalty (10.0) of the adversary that learns which messages
        to drop.
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
        model_dim: int = 32,
        tod_dim: int = 16,
        num_layer: int = 2,
        kernel_size: int = 3,
        cores: int = 8,
        heads: int = 4,
        hid_dim: int = 64,
        dropout: float = 0.15,
        cau_dropout: float = 0.3,
        mix_heads_across_batch: bool = False,
        weight_decay: float = 1e-5,
        clip: float = 5.0,
        envs: int = 3,
        drop_rate: float = 0.2,
        beta: float = 1.0,
        adversary_lr: float = 0.05,
        adversary_penalty: float = 10.0,
    ):
        self.model = model
        self.input_len = input_len
        self.horizon = horizon
        self.steps_per_day = steps_per_day
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.perturb = perturb
        self.robust = robust
        self.val_fraction = val_fraction
        self.seed = seed
        self.model_dim = model_dim
        self.tod_dim = tod_dim
        self.num_layer = num_layer
        self.kernel_size = kernel_size
        self.cores = cores
        self.heads = heads
        self.hid_dim = hid_dim
        self.dropout = dropout
        self.cau_dropout = cau_dropout
        self.mix_heads_across_batch = mix_heads_across_batch
        self.weight_decay = weight_decay
        self.clip = clip
        self.envs = envs
        self.drop_rate = drop_rate
        self.beta = beta
        self.adversary_lr = adversary_lr
        self.adversary_penalty = adversary_penalty
        self._check_params()

    def _check_params(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {sorted(MODELS)}, got {self.model!r}")
        check_real("val_fraction", self.val_fraction, low=0.0, high=1.0, high_open=True)
        _check_integer("seed", self.seed)
        if self.model != "stop" and (self.perturb or self.robust):
            raise ValueError(f"perturb and robust apply to model='stop' only, not {self.model!r}")
        # each config checks its own fields in its __post_init__
        ModelConfig(**self._fields(ModelConfig))
        TrainConfig(**self._fields(TrainConfig))

    def _fields(self, config: type) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(config)}

    @property
    def model_config(self) -> ModelConfig:
        """The network sizes these parameters describe."""
        return ModelConfig(**self._fields(ModelConfig))

    @property
    def train_config(self) -> TrainConfig:
        """The optimisation these parameters describe, ``perturb`` and ``robust`` resolved."""
        values = self._fields(TrainConfig)
        for name in ("perturb", "robust"):
            values[name] = (self.model == "stop") if values[name] is None else values[name]
        return TrainConfig(**values)

    def _scale(self, y: np.ndarray) -> torch.Tensor:
        return torch.as_tensor((y - self.mean_) / self.std_, dtype=torch.float32)

    def _adjacency(self, adjacency, n: int) -> torch.Tensor | None:
        if self.model != "gcn":
            return None
        if adjacency is None:
            raise ValueError("adjacency (nodes, nodes) is required by model='gcn'")
        adj = _real("adjacency", adjacency, 2)
        if adj.shape != (n, n) or (adj < 0).any():
            raise ValueError(f"adjacency must be a finite non-negative ({n}, {n}) array")
        return torch.as_tensor(adj, dtype=torch.float32)

    def fit(self, y, adjacency=None, start: int = 0) -> STOPForecaster:
        """Fit on ``y`` (T, N); ``start`` is the time-of-day offset of ``y[0]``."""
        self._check_params()
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
            self.module_ = MODELS[self.model](cfg)
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
