"""A small GPT on Othello move sequences: tokens, training, and per-prefix read-outs.

Rohekar et al. (ICML 2025, Sec. 5) pre-train a GPT-2-like model on Othello games played with
the intention of winning, by next-token prediction. A game is the token sequence
``[START, m_1, ..., m_L]`` with ``m_t`` in the 36 squares; the network is
``icml25.common.transformer.Transformer`` (causal). The prediction after the prefix
``m_1..m_t`` is read at position ``t``; because attention is causal, one forward pass over a
whole game gives every prefix's prediction and every prefix's attention (the top-left
``(t + 1, t + 1)`` block of the game's attention).
"""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional as F

from icml25.common.transformer import Transformer, TransformerConfig
from icml25.common.validate import check_int, check_real
from icml25.gpt_causal.othello import SQUARES

__all__ = ["START", "VOCAB", "tokens_of", "train_gpt", "prefix_readouts"]

START = SQUARES  # the start token; the squares are tokens 0..35
VOCAB = SQUARES + 1
IGNORE = -100


def tokens_of(moves: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Games ``(n, L)`` (square indices, -1 after the end) -> inputs ``(n, L)`` =
    ``[START, m_1, ..., m_{L-1}]`` (padding after the end: START) and targets ``(n, L)`` =
    ``[m_1, ..., m_L]`` (padding: ignored by the loss)."""
    moves = np.asarray(moves)
    if moves.ndim != 2 or moves.min() < -1 or moves.max() >= SQUARES:
        raise ValueError(f"moves must be (n, L) squares in [0, 36) or -1, got {moves.shape}")
    n, L = moves.shape
    inputs = np.full((n, L), START, dtype=np.int64)
    inputs[:, 1:] = np.where(moves[:, :-1] >= 0, moves[:, :-1], START)
    targets = np.where(moves >= 0, moves, IGNORE)
    return torch.from_numpy(inputs), torch.from_numpy(targets)


def train_gpt(
    train_moves: np.ndarray,
    val_moves: np.ndarray,
    config: TransformerConfig,
    *,
    steps: int,
    batch_size: int,
    lr: float,
    seed: int,
    eval_every: int = 200,
) -> tuple[Transformer, dict[str, np.ndarray]]:
    """Next-token training with AdamW (weight decay 0.01), linear warm-up over the first 5% of
    steps then cosine decay to 10% of ``lr``, batches drawn by a seeded generator.

    Parameters
    ----------
    train_moves : ndarray of int, shape (n, L)
        Training games: squares in ``[0, 36)``, -1 after the end.
    val_moves : ndarray of int, shape (n_val, L)
        Validation games, same encoding.
    config : TransformerConfig
        Architecture of the causal ``Transformer``.
    steps : int
        Optimizer steps, ``>= 1``.
    batch_size : int
        Games per batch, ``>= 1``.
    lr : float
        Peak learning rate, in ``(0, 1]``.
    seed : int
        Seed of the initialisation and of the batch draws.
    eval_every : int, default 200
        Steps between evaluations (the last step is always evaluated).

    Returns
    -------
    model : Transformer
        The trained model, in eval mode.
    curves : dict of str to ndarray
        ``{"step", "train_loss", "val_loss"}``: the mean training loss since the last
        evaluation and the validation loss, every ``eval_every`` steps.
    """
    check_int("steps", steps, minimum=1)
    check_int("batch_size", batch_size, minimum=1)
    check_real("lr", lr, low=0.0, high=1.0, low_open=True)
    x_tr, y_tr = tokens_of(train_moves)
    x_va, y_va = tokens_of(val_moves)
    model = Transformer(config, seed=seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01, betas=(0.9, 0.98))
    warm = max(1, steps // 20)

    def rate(step: int) -> float:
        if step < warm:
            return (step + 1) / warm
        progress = (step - warm) / max(1, steps - warm)
        return 0.1 + 0.9 * 0.5 * (1.0 + np.cos(np.pi * progress))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, rate)
    gen = torch.Generator().manual_seed(seed)
    curve_step, curve_train, curve_val, running = [], [], [], []
    model.train()
    for step in range(steps):
        batch = torch.randint(len(x_tr), (batch_size,), generator=gen)
        logits = model(x_tr[batch])  # (B, L, V)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), y_tr[batch].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        running.append(loss.item())
        if (step + 1) % eval_every == 0 or step + 1 == steps:
            curve_step.append(step + 1)
            curve_train.append(float(np.mean(running)))
            curve_val.append(_loss(model, x_va, y_va))
            running = []
            model.train()
    model.eval()
    curves = {"step": np.array(curve_step), "train_loss": np.array(curve_train)}
    curves["val_loss"] = np.array(curve_val)
    return model, curves


@torch.no_grad()
def _loss(model: Transformer, x: torch.Tensor, y: torch.Tensor, chunk: int = 512) -> float:
    model.eval()
    total, count = 0.0, 0
    for i in range(0, len(x), chunk):
        logits = model(x[i : i + chunk])
        total += F.cross_entropy(
            logits.reshape(-1, VOCAB), y[i : i + chunk].reshape(-1), reduction="sum"
        ).item()
        count += int((y[i : i + chunk] != IGNORE).sum())
    return total / count


@torch.no_grad()
def prefix_readouts(
    model: Transformer, moves: np.ndarray, lengths: np.ndarray, layer: int = -1
) -> dict[str, np.ndarray]:
    """For each game ``g``, the model's read-outs after its prefix of ``lengths[g]`` moves.

    Parameters
    ----------
    model : Transformer
        A trained model (``train_gpt``).
    moves : ndarray of int, shape (n, L)
        Games: squares in ``[0, 36)``, -1 after the end.
    lengths : ndarray of int, shape (n,)
        Prefix length ``t`` of each game, in ``[1, L - 1]``.
    layer : int, default -1
        Layer whose attention is read.

    Returns
    -------
    readouts : dict
        ``prediction`` (n,) the top-1 square (the START token excluded),
        ``top_probability`` (n,) its probability among the squares, ``attention_entropy`` (n,)
        the entropy of the head-averaged attention row of the prediction's position at
        ``layer``, and ``attention`` a list of ``n`` arrays ``(t + 1, t + 1)``: the
        head-averaged attention of ``layer`` over ``[START, m_1..m_t]``.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    x, _ = tokens_of(moves)
    if lengths.shape != (len(x),) or lengths.min() < 1 or lengths.max() >= x.shape[1]:
        raise ValueError(f"lengths must be (n,) in [1, {x.shape[1] - 1}], got {lengths.shape}")
    logits, att = model(x, return_attention=True)  # (n, L, V), (n_layer, n, H, L, L)
    rows = torch.arange(len(x))
    pos = torch.from_numpy(lengths)
    probs = logits[rows, pos, :SQUARES].softmax(dim=-1)  # (n, 36)
    top_p, pred = probs.max(dim=-1)
    A = att[layer].mean(dim=1)  # (n, L, L), head average
    row = A[rows, pos]  # (n, L)
    entropy = -(row * torch.log(row.clamp_min(1e-30))).sum(dim=-1)
    A = A.numpy()
    return {
        "prediction": pred.numpy(),
        "top_probability": top_p.numpy(),
        "attention_entropy": entropy.numpy(),
        "attention": [A[g, : t + 1, : t + 1] for g, t in enumerate(lengths)],
    }
