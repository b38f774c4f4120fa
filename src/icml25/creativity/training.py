"""The three training objectives of Nagarajan et al. (ICML 2025, Sec. 3) on one network
(``icml25.common.transformer.Transformer``): next-token prediction (NTP), the teacherless
hybrid of the official code, and an absorbing-state masked diffusion model (MDM).

Every objective is a pair of arrays ``inputs`` (n, T) and ``labels`` (n, T) (``IGNORE`` where
no loss is taken):

- NTP: ``inputs`` are the training sequences, ``labels`` their answer tokens (no loss on the
  hash prompt, as the official Seq2Seq code masks the prefix); the causal network predicts
  ``labels[:, t]`` from ``inputs[:, :t]``.
- Teacherless hybrid (official ``*_hybrid.ipynb``). Circle and line: each training sequence once
  as NTP plus three copies whose answer is replaced by ``<pad>`` tokens while the labels stay
  the answer, so answer token ``j`` is predicted from the prompt and ``j`` dummy tokens only.
  Sibling: the NTP sequence plus ``prompt <pad> -> b2`` and ``prompt <pad> <pad> -> a``.
- MDM (absorbing state, the MDLM/SEDD-absorb family; the paper trains SEDD): on the official
  "no hash" sequences ``<q> answer``, draw ``t ~ U(0, 1]`` per sequence, replace each answer
  token by ``<mask>`` with probability ``t`` (linear schedule ``alpha_t = 1 - t``), and minimise
  the ELBO ``E_t [ (1/t) sum_{masked i} -log p(x_i | x_t) ]`` (divided by the answer length),
  with the bidirectional network (``causal=False``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

from icml25.common.progress import report_progress
from icml25.common.transformer import Transformer, TransformerConfig
from icml25.common.validate import check_int, check_real
from icml25.creativity.tasks import MASK, PAD, TaskData, _check_entries, _check_task

IGNORE = -100
OBJECTIVES = ("ntp", "teacherless", "mdm")


def ntp_pairs(task: TaskData) -> tuple[np.ndarray, np.ndarray]:
    """Next-token pairs of a task: loss on the tokens after each prompt.

    Parameters
    ----------
    task : TaskData
        The task whose training sequences are used.

    Returns
    -------
    inputs : ndarray of int64, shape (n, T)
        A copy of ``task.train``.
    labels : ndarray of int64, shape (n, T)
        The tokens at and after ``prompt_len`` that are not ``PAD``; ``IGNORE`` elsewhere.
    """
    _check_task(task)
    inputs = task.train.copy()
    cols = np.arange(inputs.shape[1])
    labels = np.where(
        (cols >= task.prompt_len[:, None]) & (inputs != PAD), inputs, IGNORE
    )  # (n, T)
    return inputs, labels


def teacherless_pairs(task: TaskData) -> tuple[np.ndarray, np.ndarray]:
    """The official teacherless hybrid pairs of a task (see the module docstring).

    Parameters
    ----------
    task : TaskData
        A sibling, circle or line task (not triangle).

    Returns
    -------
    inputs : ndarray of int64, shape (n', T)
        Circle and line: the NTP sequences then three copies with the answer replaced by
        ``PAD`` (``n' = 4n``); sibling: the NTP sequences then the two one-target rows
        (``n' = 3n``).
    labels : ndarray of int64, shape (n', T)
        The matching labels, ``IGNORE`` where no loss is taken.
    """
    _check_task(task)
    inputs, labels = ntp_pairs(task)
    p = task.prompt_len[:, None]
    cols = np.arange(inputs.shape[1])
    if task.name == "sibling":  # prompt <pad> -> b2, prompt <pad> <pad> -> a
        p0 = int(task.prompt_len[0])
        b2, a = task.train[:, p0 + 1], task.train[:, p0 + 2]
        out_in, out_lab = [inputs], [labels]
        for k, target in ((1, b2), (2, a)):
            x = np.full_like(inputs, PAD)
            x[:, :p0] = task.train[:, :p0]
            x[:, p0 + k] = target
            y = np.full_like(labels, IGNORE)
            y[:, p0 + k] = target
            out_in.append(x)
            out_lab.append(y)
        return np.concatenate(out_in), np.concatenate(out_lab)
    if task.name == "triangle":
        raise ValueError("task must be sibling, circle or line for the teacherless hybrid")
    dummy = np.where(cols >= p, PAD, inputs)  # prompt then <pad> for every answer token
    return (
        np.concatenate([inputs] + [dummy] * 3),
        np.concatenate([labels] * 4),
    )


def _check_tokens(model, name: str, x, *, ignore: bool = False) -> None:
    """``x`` a (B, T) int64 tensor of tokens ``>= 0`` (or ``IGNORE``), below the model's
    ``config.vocab_size`` where it has one."""
    if not callable(model):
        raise TypeError(f"model must be a network (a torch module), got {type(model).__name__}")
    if not isinstance(x, torch.Tensor) or x.dtype != torch.int64 or x.ndim != 2:
        kind = f"{x.dtype} {tuple(x.shape)}" if isinstance(x, torch.Tensor) else type(x).__name__
        raise TypeError(f"{name} must be a (B, T) torch int64 tensor, got {kind}")
    V = getattr(getattr(model, "config", None), "vocab_size", None)
    real = x[x != IGNORE] if ignore else x
    if real.numel() and (int(real.min()) < 0 or (V is not None and int(real.max()) >= V)):
        what = ("tokens >= 0" if V is None else f"tokens in [0, {V - 1}]") + (
            " or IGNORE" if ignore else ""
        )
        raise ValueError(f"{name} must hold {what}, got values in [{int(x.min())}, {int(x.max())}]")


def ntp_loss(model: Transformer, inputs: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Next-token loss: mean cross-entropy of ``labels[:, 1:]`` given ``inputs[:, :-1]``.

    Parameters
    ----------
    model : Transformer
        The network; its ``config.vocab_size`` bounds the tokens.
    inputs : torch.Tensor
        (B, T) int64 tokens in ``[0, vocab_size)``.
    labels : torch.Tensor
        (B, T) int64 targets, the shape of ``inputs``, tokens in ``[0, vocab_size)`` or
        ``IGNORE``; at least one of ``labels[:, 1:]`` must not be ``IGNORE``.

    Returns
    -------
    loss : torch.Tensor
        Scalar mean cross-entropy over the positions not ``IGNORE``.
    """
    _check_tokens(model, "inputs", inputs)
    _check_tokens(model, "labels", labels, ignore=True)
    if labels.shape != inputs.shape:
        raise ValueError(f"labels must have the shape of inputs {tuple(inputs.shape)}")
    if not (labels[:, 1:] != IGNORE).any():
        raise ValueError("labels must hold a token to predict: all of labels[:, 1:] are IGNORE")
    return _ntp_loss(model, inputs, labels)


def _ntp_loss(model: Transformer, inputs: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    logits = model(inputs[:, :-1])  # (B, T-1, V)
    return F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1), ignore_index=IGNORE
    )


def mdm_loss(
    model: Transformer,
    x0: torch.Tensor,
    answer: torch.Tensor,
    generator: torch.Generator,
    eps: float = 1e-3,
) -> torch.Tensor:
    """Absorbing-state masked-diffusion ELBO (linear schedule), per answer token.

    Each sequence draws ``t = eps + (1 - eps) u`` with ``u ~ U[0, 1)`` and masks each answer
    position with probability ``t``; only masked positions contribute, each weighted by
    ``1/t``, and each sequence's sum is divided by its number of answer positions.

    Parameters
    ----------
    model : Transformer
        The network (bidirectional for the paper's MDM); its ``config.vocab_size`` bounds the
        tokens.
    x0 : torch.Tensor
        (B, T) int64 clean sequences.
    answer : torch.Tensor
        (B, T) bool, the positions that may be masked.
    generator : torch.Generator
        Source of ``t`` and of the masks.
    eps : float, default 1e-3
        Smallest masking time, in ``(0, 1)``.

    Returns
    -------
    loss : torch.Tensor
        Scalar mean over the batch of the weighted negative log-likelihood.
    """
    _check_tokens(model, "x0", x0)
    if not isinstance(answer, torch.Tensor) or answer.dtype != torch.bool:
        raise TypeError(f"answer must be a torch bool tensor, got {type(answer).__name__}")
    if answer.shape != x0.shape:
        raise ValueError(f"answer must have the shape of x0 {tuple(x0.shape)}")
    check_real("eps", eps, low=0.0, high=1.0, low_open=True, high_open=True)
    return _mdm_loss(model, x0, answer, generator, eps)


def _mdm_loss(model, x0, answer, generator, eps: float = 1e-3) -> torch.Tensor:
    B, T = x0.shape
    t = eps + (1 - eps) * torch.rand(B, 1, generator=generator)  # (B, 1)
    masked = (torch.rand(B, T, generator=generator) < t) & answer  # (B, T)
    xt = torch.where(masked, torch.full_like(x0, MASK), x0)
    logits = model(xt)  # (B, T, V)
    nll = F.cross_entropy(logits.transpose(1, 2), x0, reduction="none")  # (B, T)
    weighted = (nll * masked / t).sum(1) / answer.sum(1).clamp(min=1)
    return weighted.mean()


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation settings of :func:`train`.

    AdamW, linear warm-up then constant learning rate (the official NTP schedule is constant
    with warm-up), ``steps`` steps of ``batch`` sequences drawn with replacement.

    Parameters
    ----------
    steps : int, default 2000
        Optimiser steps, ``>= 1``.
    batch : int, default 64
        Sequences per step, ``>= 1``.
    lr : float, default 1e-3
        Learning rate after warm-up, in ``(0, 1]``.
    warmup : int, default 100
        Steps of linear warm-up, ``>= 0``.
    weight_decay : float, default 0.0
        AdamW weight decay.
    log_every : int, default 50
        Steps averaged into one entry of the loss curve, ``>= 1``.
    """

    steps: int = 2000
    batch: int = 64
    lr: float = 1e-3
    warmup: int = 100
    weight_decay: float = 0.0
    log_every: int = 50


@dataclass
class Trained:
    """A trained network and its loss curve.

    Parameters
    ----------
    model : Transformer
        The trained network, in eval mode.
    objective : str
        The objective it was trained with, one of ``OBJECTIVES``.
    losses : ndarray of float, shape (steps // log_every,)
        Mean training loss of each block of ``log_every`` steps.
    """

    model: Transformer
    objective: str
    losses: np.ndarray


def train(
    task: TaskData,
    objective: str,
    net: TransformerConfig | None = None,
    config: TrainConfig = TrainConfig(),
    seed: int = 0,
) -> Trained:
    """Train one network on a task with one objective.

    NTP and teacherless use ``task`` as given (with or without hash); the MDM uses ``task``'s
    sequences as given too (pass ``strip_hash(task)`` for the official no-hash MDM). Gradients
    are clipped to norm 1.

    Parameters
    ----------
    task : TaskData
        The task to train on.
    objective : str
        One of ``OBJECTIVES``: ``"ntp"``, ``"teacherless"`` or ``"mdm"``.
    net : TransformerConfig or None, default None
        Sizes of the network (``n_layer``, ``n_head``, ``n_embd``, ``dropout``);
        ``vocab_size``, ``block_size`` and ``causal`` are filled in from the task and the
        objective. None uses the ``TransformerConfig`` defaults.
    config : TrainConfig, default TrainConfig()
        Optimisation settings.
    seed : int, default 0
        Seed of the network's start and of the batches and masks, ``>= 0``.

    Returns
    -------
    trained : Trained
        The network (causal unless ``objective == "mdm"``) and its loss curve.
    """
    _check_task(task)
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig, got {type(config).__name__}")
    if net is not None and not isinstance(net, TransformerConfig):
        raise TypeError(f"net must be a TransformerConfig or None, got {type(net).__name__}")
    check_int("seed", seed, minimum=0)
    check_int("steps", config.steps, minimum=1)
    check_int("batch", config.batch, minimum=1)
    check_real("lr", config.lr, low=0.0, high=1.0, low_open=True)
    check_int("warmup", config.warmup, minimum=0)
    check_int("log_every", config.log_every, minimum=1)
    if objective == "teacherless":
        inputs, labels = teacherless_pairs(task)
    else:
        inputs, labels = ntp_pairs(task)
    base = net or TransformerConfig(vocab_size=task.vocab_size, block_size=inputs.shape[1])
    width = max(4 * base.n_embd, task.vocab_size)
    _check_entries("batch x T x width of the activations", config.batch * inputs.shape[1] * width)
    cfg = TransformerConfig(
        vocab_size=task.vocab_size,
        block_size=inputs.shape[1],
        n_layer=base.n_layer,
        n_head=base.n_head,
        n_embd=base.n_embd,
        dropout=base.dropout,
        causal=objective != "mdm",
    )
    model = Transformer(cfg, seed=seed)
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    gen = torch.Generator().manual_seed(seed)
    x_all, y_all = torch.from_numpy(inputs), torch.from_numpy(labels)
    answer_all = y_all != IGNORE  # for the MDM: the maskable positions
    losses, running = [], []
    model.train()
    for step in range(config.steps):
        report_progress(step, config.steps)
        for group in opt.param_groups:
            group["lr"] = config.lr * min(1.0, (step + 1) / max(config.warmup, 1))
        idx = torch.randint(0, len(x_all), (config.batch,), generator=gen)
        if objective == "mdm":
            loss = _mdm_loss(model, x_all[idx], answer_all[idx], gen)
        else:
            loss = _ntp_loss(model, x_all[idx], y_all[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        running.append(float(loss.detach()))
        if len(running) == config.log_every:
            losses.append(float(np.mean(running)))
            running = []
    model.eval()
    return Trained(model, objective, np.array(losses))
