"""Training with STOP's message perturbation and spatiotemporal robust loss.

The public code leaves both out (its engine has them commented out: a learnable spatial mask
``s_mask`` with its own optimiser and ``log_p``, ``K_s = 3`` masks dropping
``s_sample_ratio = 0.2``, and ``beta * var + mean`` of the per-environment losses). We implement
that reading of the paper:

- **message perturbation** (``perturb``): each step builds ``K`` environments; in environment
  ``k`` every training node's messages to the cores are dropped with probability ``p_i``
  (mask ``m_k``, the same for the whole batch), by ``-inf`` affinities in the node-to-core
  softmax (:class:`~icml25.stop_st.model.ContextUnits`); the loss of environment ``k`` is
  ``L_k = MAE(f(x; m_k), y)``.
- **robust loss** (``robust``): ``L = mean_k L_k + beta Var_k L_k`` (the variance-penalised
  risk, a standard surrogate of distributionally robust optimisation over the environments),
  and the drop probabilities are *adversarial*: ``p_i = sigmoid(phi_i)``, ``phi`` ascends the
  environments' losses by REINFORCE, ``grad = sum_k (L_k - mean L) grad log P(m_k)``, with a
  penalty ``lambda (mean_i p_i - p_0)^2`` holding the mean drop rate at ``p_0``; so training
  sees the hardest environments. Without ``robust``, ``p_i = p_0`` and ``L = mean_k L_k``.
  Without ``perturb``, ``K = 1`` and no message is dropped.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from icml25.common.validate import check_int, check_real
from icml25.stop_st.data import _check_integer
from icml25.stop_st.model import _check_tensor_adjacency, _kind


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation (the official Adam, lr 2e-3, weight decay 1e-5, clip 5, MAE loss) and the
    perturbation / robust-loss switches (``K_s = 3``, drop 0.2, ``beta = 1``).

    Parameters
    ----------
    epochs : int, default 20
        Passes over the training windows, ``>= 1``.
    batch_size : int, default 32
        Windows per step, ``>= 1``.
    lr : float, default 2e-3
        Adam learning rate, in ``(0, 1]``.
    weight_decay : float, default 1e-5
        Adam weight decay, ``>= 0``.
    clip : float, default 5.0
        Largest global gradient norm, ``>= 0``.
    perturb : bool, default False
        Message perturbation: ``envs`` masked environments per step (STOP only).
    robust : bool, default False
        Robust loss ``mean + beta Var`` over the environments and adversarial drop
        probabilities.
    envs : int, default 3
        Number of environments ``K`` of the perturbation, ``>= 1``.
    drop_rate : float, default 0.2
        Mean drop probability ``p_0`` of a node's messages, in ``(0, 1)`` (the check here
        lets 0 through, but :func:`train_model` refuses it).
    beta : float, default 1.0
        Weight of the variance in the robust loss, ``>= 0``.
    adversary_lr : float, default 0.05
        Adam learning rate of the drop logits ``phi``, ``>= 0``.
    adversary_penalty : float, default 10.0
        Weight ``lambda`` of ``(mean_i p_i - p_0)^2``, ``>= 0``.
    """

    epochs: int = 20
    batch_size: int = 32
    lr: float = 2e-3
    weight_decay: float = 1e-5
    clip: float = 5.0
    perturb: bool = False
    robust: bool = False
    envs: int = 3
    drop_rate: float = 0.2
    beta: float = 1.0
    adversary_lr: float = 0.05
    adversary_penalty: float = 10.0

    def __post_init__(self) -> None:
        for name in ("epochs", "batch_size", "envs"):
            check_int(name, getattr(self, name), minimum=1)
        check_real("lr", self.lr, low=0.0, high=1.0, low_open=True)
        check_real("drop_rate", self.drop_rate, low=0.0, high=1.0, high_open=True)
        for name in ("weight_decay", "clip", "beta", "adversary_lr", "adversary_penalty"):
            check_real(name, getattr(self, name), low=0.0, high=float("inf"))


def windows(series: torch.Tensor, starts: torch.Tensor, input_len: int, horizon: int):
    """Cut input and target windows out of a series.

    Parameters
    ----------
    series : torch.Tensor
        Series (T, N), floating point and finite, ``N >= 1``.
    starts : torch.Tensor
        First step (W,) of each window, ``torch.long``, in ``[0, T - input_len - horizon]``.
    input_len : int
        Input length ``L``, ``>= 1``.
    horizon : int
        Target length ``H``, ``>= 1``.

    Returns
    -------
    inputs : torch.Tensor
        Inputs (W, L, N), steps ``start .. start + L - 1``.
    targets : torch.Tensor
        Targets (W, H, N), the ``H`` steps after the inputs.
    """
    _check_series("series", series)
    input_len = check_int("input_len", input_len, minimum=1)
    horizon = check_int("horizon", horizon, minimum=1)
    last = len(series) - input_len - horizon
    if not isinstance(starts, torch.Tensor) or starts.dtype != torch.long or starts.ndim != 1:
        raise TypeError(f"starts must be a 1-D torch.long tensor, got {_kind(starts)}")
    if len(starts) and (starts.min() < 0 or starts.max() > last):
        raise ValueError(f"starts must lie in [0, {last}] (len(series) - input_len - horizon)")
    return _windows(series, starts, input_len, horizon)


def _check_series(name: str, series, dtype: torch.dtype | None = None) -> None:
    if not isinstance(series, torch.Tensor) or not series.is_floating_point():
        raise TypeError(f"{name} must be a floating-point torch.Tensor (T, N), got {_kind(series)}")
    if dtype is not None and series.dtype != dtype:
        raise TypeError(f"{name} must have the model's dtype {dtype}, got {series.dtype}")
    if series.ndim != 2 or series.shape[1] == 0:
        raise ValueError(f"{name} must have shape (T, N) with N >= 1, got {tuple(series.shape)}")
    if not torch.isfinite(series).all():
        raise ValueError(f"{name} contains NaN or infinite values")


def _windows(series: torch.Tensor, starts: torch.Tensor, input_len: int, horizon: int):
    idx = starts[:, None] + torch.arange(input_len + horizon)  # (W, L + H)
    block = series[idx]  # (W, L + H, N)
    return block[:, :input_len], block[:, input_len:]


def time_of_day(starts: torch.Tensor, t0: int, input_len: int, steps_per_day: int):
    """Index of the time of day of each window's last input step: (W,)."""
    return (t0 + starts + input_len - 1) % steps_per_day


def robust_loss(losses: torch.Tensor, beta: float) -> torch.Tensor:
    """Variance-penalised risk ``mean_k L_k + beta Var_k L_k`` over the environments.

    Parameters
    ----------
    losses : torch.Tensor
        Losses ``L_k`` (K,) of the environments, floating point, ``K >= 1``.
    beta : float
        Weight of the variance (ddof 1), ``>= 0`` and finite.

    Returns
    -------
    torch.Tensor
        The scalar risk; ``L_0`` itself when ``K = 1``.
    """
    if not isinstance(losses, torch.Tensor) or not losses.is_floating_point():
        raise TypeError(f"losses must be a floating-point torch.Tensor (K,), got {_kind(losses)}")
    if losses.ndim != 1 or len(losses) == 0:
        raise ValueError(f"losses must have shape (K,) with K >= 1, got {tuple(losses.shape)}")
    return _robust_loss(losses, check_real("beta", beta, low=0.0, high=float("inf")))


def _robust_loss(losses: torch.Tensor, beta: float) -> torch.Tensor:
    if len(losses) == 1:
        return losses[0]
    var, mean = torch.var_mean(losses)
    return mean + beta * var


class MessagePerturbation(nn.Module):
    """Drop probabilities of the ``n`` training nodes' messages to the cores; adversarial
    when ``adversarial`` (``phi`` is then trained by :meth:`adversary_loss`).

    Parameters
    ----------
    n : int
        Number of training nodes, ``>= 1``.
    drop_rate : float
        Starting and target mean drop probability ``p_0``, in ``(0, 1)``; every logit ``phi_i``
        starts at ``logit(p_0)``.
    adversarial : bool
        Whether ``phi`` (n,) takes gradients.

    Notes
    -----
    ``sample(envs, gen)`` draws masks (K, n), True = dropped (a mask that would drop every node
    drops none); ``adversary_loss(drop, losses, penalty)`` is the REINFORCE loss that raises
    the environments' losses, plus ``penalty (mean_i p_i - p_0)^2``.
    """

    def __init__(self, n: int, drop_rate: float, adversarial: bool):
        super().__init__()
        check_int("n", n, minimum=1)
        if not 0 < drop_rate < 1:
            raise ValueError(f"drop_rate must be in (0, 1), got {drop_rate}")
        logit = float(np.log(drop_rate / (1 - drop_rate)))
        self.phi = nn.Parameter(torch.full((n,), logit), requires_grad=adversarial)
        self.drop_rate = drop_rate

    def sample(self, envs: int, gen: torch.Generator) -> torch.Tensor:
        """``envs`` masks (K, n), True = dropped; a mask that would drop every node drops none."""
        p = torch.sigmoid(self.phi.detach())
        drop = torch.rand(envs, len(p), generator=gen) < p
        return drop & ~drop.all(1, keepdim=True)

    def adversary_loss(self, drop: torch.Tensor, losses: torch.Tensor, penalty: float):
        """REINFORCE for ``phi`` to *raise* the environments' losses (minimise the negative)."""
        p = torch.sigmoid(self.phi).clamp(1e-4, 1 - 1e-4)
        log_prob = torch.where(drop, p.log(), (1 - p).log()).sum(1)  # (K,)
        advantage = (losses - losses.mean()).detach()
        return -(advantage * log_prob).sum() + penalty * (p.mean() - self.drop_rate) ** 2


def mae(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return (pred - target).abs().mean()


@torch.no_grad()
def predict_windows(model, series, starts, t0, adjacency=None, batch: int = 256):
    """Forecasts (W, H, N) and targets (W, H, N) of the windows at ``starts``, eval mode."""
    cfg = model.cfg
    model.eval()
    preds, targets = [], []
    for b in range(0, len(starts), batch):
        s = starts[b : b + batch]
        x, y = _windows(series, s, cfg.input_len, cfg.horizon)
        tod = time_of_day(s, t0, cfg.input_len, cfg.steps_per_day)
        preds.append(model(x, tod, adjacency=adjacency))
        targets.append(y)
    return torch.cat(preds), torch.cat(targets)


def train_model(
    model: nn.Module,
    series: torch.Tensor,
    cfg: TrainConfig,
    seed: int,
    *,
    t0: int = 0,
    adjacency: torch.Tensor | None = None,
    val_series: torch.Tensor | None = None,
    val_t0: int = 0,
) -> dict:
    """Train ``model`` on the normalised ``series`` (T, N) by Adam on the MAE over windows;
    keep the parameters of the epoch with the lowest validation MAE (the official model
    selection) when ``val_series`` is given.

    Parameters
    ----------
    model : torch.nn.Module
        One of the package's networks (with a ``cfg``); trained in place and left in eval
        mode.
    series : torch.Tensor
        Normalised training series (T, N), finite, in the model's dtype, with at least
        ``input_len + horizon`` steps.
    cfg : TrainConfig
        Optimisation and the perturbation / robust-loss switches.
    seed : int
        Seed of the torch generator of the window order and the masks.
    t0 : int, default 0
        Time index of ``series[0]``, for the time of day.
    adjacency : torch.Tensor or None, default None
        Raw edge weights (N, N), finite and non-negative; needed by :class:`GCN`.
    val_series : torch.Tensor or None, default None
        Validation series (T', N) with at least ``input_len + horizon`` steps; None trains
        without model selection.
    val_t0 : int, default 0
        Time index of ``val_series[0]``.

    Returns
    -------
    dict
        ``"train"``: the mean training MAE of each epoch; ``"val"``: the validation MAE of each
        epoch (empty without ``val_series``); ``"drop_prob"``: the final drop probabilities
        (N,) as a numpy array.
    """
    if not isinstance(model, nn.Module) or not hasattr(model, "cfg"):
        raise TypeError(f"model must be one of the package's networks, got {type(model).__name__}")
    if not isinstance(cfg, TrainConfig):
        raise TypeError(f"cfg must be a TrainConfig, got {type(cfg).__name__}")
    dtype = next(model.parameters()).dtype
    _check_series("series", series, dtype)
    _check_integer("seed", seed)
    _check_integer("t0", t0)
    _check_integer("val_t0", val_t0)
    if adjacency is not None:
        _check_tensor_adjacency(adjacency, series.shape[1])
    if val_series is not None:
        _check_series("val_series", val_series, dtype)
        span = model.cfg.input_len + model.cfg.horizon
        if len(val_series) < span:
            raise ValueError(f"val_series has {len(val_series)} steps; need at least {span}")
    mcfg = model.cfg
    gen = torch.Generator().manual_seed(seed)
    n_windows = len(series) - mcfg.input_len - mcfg.horizon + 1
    if n_windows < 1:
        raise ValueError(f"series has {len(series)} steps; need input_len + horizon at least")
    perturb = cfg.perturb and hasattr(model, "context")
    envs = cfg.envs if perturb else 1
    masks = MessagePerturbation(series.shape[1], cfg.drop_rate, perturb and cfg.robust)
    optim = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    adv_optim = (
        torch.optim.Adam([masks.phi], lr=cfg.adversary_lr) if masks.phi.requires_grad else None
    )
    history = {"train": [], "val": []}
    best, best_state = float("inf"), None
    for _ in range(cfg.epochs):
        model.train()
        order = torch.randperm(n_windows, generator=gen)
        total = 0.0
        for b in range(0, n_windows, cfg.batch_size):
            s = order[b : b + cfg.batch_size]
            x, y = _windows(series, s, mcfg.input_len, mcfg.horizon)  # (B, L, N), (B, H, N)
            tod = time_of_day(s, t0, mcfg.input_len, mcfg.steps_per_day)
            drop = masks.sample(envs, gen) if perturb else None  # (K, N)
            pred = model(x, tod, adjacency=adjacency, drop=drop)  # (K, B, H, N) or (B, H, N)
            losses = (pred.view(envs, *y.shape) - y).abs().mean((1, 2, 3))  # (K,)
            loss = _robust_loss(losses, cfg.beta) if cfg.robust else losses.mean()
            optim.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
            optim.step()
            if adv_optim is not None:
                adv_optim.zero_grad()
                masks.adversary_loss(drop, losses, cfg.adversary_penalty).backward()
                adv_optim.step()
            total += float(losses.detach().mean()) * len(s)
        history["train"].append(total / n_windows)
        if val_series is not None:
            starts = torch.arange(len(val_series) - mcfg.input_len - mcfg.horizon + 1)
            pred, target = predict_windows(model, val_series, starts, val_t0, adjacency)
            val = float(mae(pred, target))
            history["val"].append(val)
            if val < best:
                best, best_state = val, copy.deepcopy(model.state_dict())
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    history["drop_prob"] = torch.sigmoid(masks.phi.detach()).numpy()
    return history
