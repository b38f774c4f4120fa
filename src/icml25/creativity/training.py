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

from icml25.common.transformer import Transformer, TransformerConfig
from icml25.common.validate import check_int, check_real
from icml25.creativity.tasks import MASK, PAD, TaskData

IGNORE = -100
OBJECTIVES = ("ntp", "teacherless", "mdm")


def ntp_pairs(task: TaskData) -> tuple[np.ndarray, np.ndarray]:
    """Next-token pairs: (n, T) inputs and labels, loss on the tokens after each prompt."""
    inputs = task.train.copy()
    cols = np.arange(inputs.shape[1])
    labels = np.where(
        (cols >= task.prompt_len[:, None]) & (inputs != PAD), inputs, IGNORE
    )  # (n, T)
    return inputs, labels


def teacherless_pairs(task: TaskData) -> tuple[np.ndarray, np.ndarray]:
    """The official teacherless hybrid, as (n', T') inputs and labels (see the module)."""
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


def ntp_loss(model: Transformer, inputs: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of ``labels[:, 1:]`` given ``inputs[:, :-1]`` (IGNORE skipped)."""
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

    ``x0`` (B, T) clean sequences, ``answer`` (B, T) bool: the positions that may be masked.
    Only masked positions contribute; each is weighted by ``1/t``.
    """
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
    """Optimisation: AdamW, linear warm-up then constant learning rate (the official NTP
    schedule is constant with warm-up), ``steps`` steps of ``batch`` sequences."""

    steps: int = 2000
    batch: int = 64
    lr: float = 1e-3
    warmup: int = 100
    weight_decay: float = 0.0
    log_every: int = 50


@dataclass
class Trained:
    """A trained network and its loss curve (mean loss per ``log_every`` steps)."""

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
    """Train one network on ``task`` with ``objective`` in ``OBJECTIVES``.

    NTP and teacherless use ``task`` as given (with or without hash); the MDM uses ``task``'s
    sequences as given too (pass ``strip_hash(task)`` for the official no-hash MDM). ``net``
    sets the sizes (``vocab_size``, ``block_size`` and ``causal`` are filled in).
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    check_int("seed", seed, minimum=0)
    check_int("steps", config.steps, minimum=1)
    check_int("batch", config.batch, minimum=1)
    check_real("lr", config.lr, low=0.0, high=1.0, low_open=True)
    if objective == "teacherless":
        inputs, labels = teacherless_pairs(task)
    else:
        inputs, labels = ntp_pairs(task)
    base = net or TransformerConfig(vocab_size=task.vocab_size, block_size=inputs.shape[1])
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
        for group in opt.param_groups:
            group["lr"] = config.lr * min(1.0, (step + 1) / max(config.warmup, 1))
        idx = torch.randint(0, len(x_all), (config.batch,), generator=gen)
        if objective == "mdm":
            loss = mdm_loss(model, x_all[idx], answer_all[idx], gen)
        else:
            loss = ntp_loss(model, x_all[idx], y_all[idx])
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
