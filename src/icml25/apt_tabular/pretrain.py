"""Adversarial pre-training of APT (Wu & Bergman, ICML 2025, Sec. 3.1, Alg. 1; official
``apt/train/train.py``).

Each step draws a batch of ``batch_size`` synthetic datasets: ``n_adversarial`` from trainable
data makers (their weights take an AdamW step of gradient *ascent* on the model's loss, lr
``adversary_lr``, and are redrawn every ``reset_every`` steps) and the rest from fixed random
makers drawn afresh. The model takes an AdamW descent step on the cross-entropy of the test rows
(the last ``n_rows - n_train`` rows of each dataset). ``n_adversarial = 0`` is plain
pre-training: the same number of datasets per batch, all fixed random draws.
"""

from __future__ import annotations

import io
import math
from dataclasses import asdict, dataclass, field

import numpy as np
import torch

from icml25.apt_tabular.model import APT, ModelConfig
from icml25.apt_tabular.prior import DataMaker, make_batch
from icml25.common.progress import report_progress
from icml25.common.validate import check_int, check_real


@dataclass(frozen=True)
class PretrainConfig:
    """Pre-training settings; ``seed`` fixes the model's initialisation and every draw.

    Parameters
    ----------
    model : ModelConfig, default ModelConfig()
        Sizes of the network.
    steps : int, default 1000
        Optimiser steps (at least 1).
    batch_size : int, default 8
        Synthetic datasets per step.
    n_adversarial : int, default 2
        Datasets per batch from trainable (adversarial) makers, in ``[0, batch_size]``.
    n_rows : int, default 200
        Rows per synthetic dataset (at least 4).
    train_fraction : float, default 0.75
        Share of the rows used as the labelled context; must leave 2 or more training rows
        and one test row.
    max_features : int, default 30
        Most features of a maker's dataset (at least 2).
    max_classes : int, default 10
        Most classes of a maker's dataset, and the model's ``n_classes`` in training.
    lr : float, default 1e-3
        AdamW learning rate of the model (cosine schedule with 5% warm-up), > 0.
    adversary_lr : float, default 1e-2
        AdamW learning rate of the adversarial makers' gradient ascent, > 0.
    reset_every : int, default 100
        Steps after which the adversarial makers are redrawn.
    seed : int, default 0
        Seed of the initialisation and every draw (non-negative).

    Raises
    ------
    ValueError
        If a setting is out of range or ``model`` is not a ModelConfig.
    """

    model: ModelConfig = field(default_factory=ModelConfig)
    steps: int = 1000
    batch_size: int = 8
    n_adversarial: int = 2
    n_rows: int = 200
    train_fraction: float = 0.75
    max_features: int = 30
    max_classes: int = 10
    lr: float = 1e-3
    adversary_lr: float = 1e-2
    reset_every: int = 100
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.n_adversarial <= self.batch_size:
            raise ValueError("n_adversarial must be in [0, batch_size]")
        if self.steps < 1 or self.n_rows < 4:
            raise ValueError("steps must be >= 1 and n_rows >= 4")
        if not isinstance(self.model, ModelConfig):
            raise ValueError(f"model must be a ModelConfig, got {type(self.model).__name__}")
        for name, low in (("steps", 1), ("batch_size", 1), ("n_adversarial", 0), ("n_rows", 4)):
            check_int(name, getattr(self, name), minimum=low)
        check_int("reset_every", self.reset_every, minimum=1)
        check_int("max_features", self.max_features, minimum=2)
        check_int("max_classes", self.max_classes, minimum=2)
        check_int("seed", self.seed, minimum=0)
        for name in ("lr", "adversary_lr"):
            value = getattr(self, name)
            check_real(name, value, low=0, high=math.inf, low_open=True, high_open=True)
        n_train = int(
            self.n_rows * check_real("train_fraction", self.train_fraction, low=0, high=1)
        )
        if not 2 <= n_train < self.n_rows:
            raise ValueError(
                f"train_fraction must leave 2 or more training rows and one test row of the "
                f"n_rows = {self.n_rows}, got {self.train_fraction} ({n_train} training rows)"
            )


def class_loss(probs: torch.Tensor, y_test: torch.Tensor, eps: float = 1e-4) -> torch.Tensor:
    """Mean ``-log(p(y_test) + eps)`` (the official ``classification_loss``); ``probs``
    ``(B, m, K)``, ``y_test`` ``(B, m)``."""
    return -torch.log(probs.gather(-1, y_test[..., None]) + eps).mean()


def pretrain(config: PretrainConfig) -> dict:
    """Pre-train a model; returns weights for :class:`~icml25.apt_tabular.APTClassifier`.

    Parameters
    ----------
    config : PretrainConfig
        The pre-training settings.

    Returns
    -------
    dict
        Weights ``{"config": dict, "state": {name: float32 array}, "losses": per-step
        losses}``; ``losses`` is a float array of shape (steps,).

    Raises
    ------
    TypeError
        If ``config`` is not a PretrainConfig.
    """
    if not isinstance(config, PretrainConfig):
        raise TypeError(f"config must be a PretrainConfig, got {type(config).__name__}")
    c = config
    g = torch.Generator().manual_seed(c.seed)
    model = APT(c.model, seed=c.seed)
    opt = torch.optim.AdamW(model.parameters(), lr=c.lr)
    warmup = max(1, c.steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * s / c.steps))
    )
    n_train = int(c.n_rows * c.train_fraction)
    adversaries, adv_opt = [], None
    losses = np.empty(c.steps)
    model.train()
    for step in range(c.steps):
        report_progress(step, c.steps)
        if c.n_adversarial and step % c.reset_every == 0:
            adversaries = [_maker(c, g) for _ in range(c.n_adversarial)]
            params = [p for a in adversaries for p in a.parameters()]
            adv_opt = torch.optim.AdamW(params, lr=c.adversary_lr)
        # fixed makers take no step: no gradient through them (the same numbers, less backward)
        fixed = [_maker(c, g).requires_grad_(False) for _ in range(c.batch_size - c.n_adversarial)]
        x, y = make_batch(adversaries + fixed, c.n_rows, n_train, g)
        probs = model(x, y[:, :n_train], n_classes=c.max_classes, generator=g)
        loss = class_loss(probs, y[:, n_train:])
        opt.zero_grad()
        if adv_opt is not None:
            adv_opt.zero_grad()
        loss.backward()
        if adv_opt is not None:
            for a in adversaries:  # ascent: negate the makers' gradients
                for p in a.parameters():
                    p.grad.neg_()
            adv_opt.step()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses[step] = loss.item()
    model.eval()
    return {"config": asdict(c.model), "state": _state(model), "losses": losses}


def _maker(c: PretrainConfig, g: torch.Generator) -> DataMaker:
    return DataMaker(g, max_features=c.max_features, max_classes=c.max_classes)


def _state(model: APT) -> dict[str, np.ndarray]:
    return {k: v.detach().float().numpy().copy() for k, v in model.state_dict().items()}


def load_model(weights: dict) -> APT:
    """The :class:`APT` network of ``weights`` (as returned by :func:`pretrain`), in eval mode.

    Parameters
    ----------
    weights : dict
        A dict with ``"config"`` (ModelConfig fields) and ``"state"`` (parameter arrays).

    Returns
    -------
    APT
        The network with these parameters, in eval mode.

    Raises
    ------
    ValueError
        If ``weights`` is not a dict with ``"config"`` and ``"state"``.
    """
    if not isinstance(weights, dict) or "config" not in weights or "state" not in weights:
        raise ValueError("weights must be a dict with 'config' and 'state', as pretrain returns")
    model = APT(ModelConfig(**weights["config"]))
    model.load_state_dict({k: torch.as_tensor(np.asarray(v)) for k, v in weights["state"].items()})
    return model.eval()


def save_weights(weights: dict, path) -> None:
    """Write ``weights`` to ``path`` as a ``.npz`` (float32 arrays, the config as JSON text).

    Parameters
    ----------
    weights : dict
        A dict with ``"config"`` and ``"state"``, as :func:`pretrain` returns (other keys,
        such as ``"losses"``, are not written).
    path : str, pathlib.Path or file-like
        Destination, as ``numpy.savez_compressed`` takes it.

    Raises
    ------
    ValueError
        If ``weights`` is not a dict with ``"config"`` and ``"state"``.
    """
    import json

    if not isinstance(weights, dict) or "config" not in weights or "state" not in weights:
        raise ValueError("weights must be a dict with 'config' and 'state', as pretrain returns")
    arrays = {f"state/{k}": np.asarray(v, np.float32) for k, v in weights["state"].items()}
    np.savez_compressed(path, config=np.array(json.dumps(weights["config"])), **arrays)


def read_weights(source) -> dict:
    """Read weights written by :func:`save_weights` (a path or bytes).

    Parameters
    ----------
    source : str, pathlib.Path, file-like or bytes
        The ``.npz`` file, or its contents.

    Returns
    -------
    dict
        ``{"config": dict, "state": {name: float32 array}}``.
    """
    import json

    if isinstance(source, bytes):
        source = io.BytesIO(source)
    with np.load(source) as f:
        config = json.loads(str(f["config"]))
        state = {k[len("state/") :]: f[k] for k in f.files if k.startswith("state/")}
    return {"config": config, "state": state}
