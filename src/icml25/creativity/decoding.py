"""Decoding for the creativity tasks (Nagarajan et al., ICML 2025, Sec. 4): autoregressive
greedy or temperature sampling (``softmax(logits / tau)``, top-k off: the official code left
Hugging Face's default top-k = 50 on, a confound), seed-conditioning (a random hash prompt, then
greedy: the randomness enters at the input), and the masked-diffusion sampler.

All prompts are decoded at once: one forward pass of the whole (N, t) batch per new token (the
sequences are short, so we recompute rather than cache keys and values).
"""

from __future__ import annotations

import numpy as np
import torch

from icml25.common.transformer import Transformer
from icml25.common.validate import check_int, check_real
from icml25.creativity.tasks import MASK, PAD, _check_entries


def _check_prompts(prompts) -> torch.Tensor:
    try:
        array = np.asarray(prompts)
    except ValueError as err:  # ragged nested lists
        raise ValueError(f"prompts must be a non-empty (N, P) int64 array: {err}") from None
    if array.dtype.kind not in "iuf":
        raise ValueError(f"prompts must be a non-empty (N, P) int64 array, got dtype {array.dtype}")
    x = torch.as_tensor(array)
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0 or x.dtype not in (torch.int64,):
        raise ValueError(f"prompts must be a non-empty (N, P) int64 array, got {tuple(x.shape)}")
    return x


def _check_model(model, x: torch.Tensor, length: int) -> None:
    """``model`` a network with a ``config`` (a Transformer) whose vocabulary holds ``x`` and
    whose block holds ``length``."""
    if not callable(model) or not hasattr(model, "config"):
        raise TypeError(f"model must be a Transformer, got {type(model).__name__}")
    V, block = model.config.vocab_size, model.config.block_size
    if int(x.min()) < 0 or int(x.max()) >= V:
        raise ValueError(f"prompts must hold tokens in [0, {V - 1}] (the model's vocabulary)")
    if length > block:
        raise ValueError(
            f"n_new is too large: prompts of {x.shape[1]} tokens and n_new new ones need "
            f"{length} positions, more than block_size = {block}"
        )


@torch.no_grad()
def generate(
    model: Transformer,
    prompts: np.ndarray,
    n_new: int,
    temperature: float = 0.0,
    seed: int = 0,
) -> np.ndarray:
    """Autoregressive decoding of every prompt at once.

    Parameters
    ----------
    model : Transformer
        A causal network whose vocabulary holds the prompts and whose ``block_size`` is at
        least ``P + n_new - 1``.
    prompts : ndarray of int64, shape (N, P)
        Prompts, ``N >= 1`` and ``P >= 1``.
    n_new : int
        Tokens to generate after each prompt, ``>= 1``.
    temperature : float, default 0.0
        In ``[0, 1000]``: 0 is greedy (argmax), ``> 0`` samples from
        ``softmax(logits / temperature)`` over all tokens (no top-k, no top-p).
    seed : int, default 0
        Seed of the torch generator of the sampling, ``>= 0``.

    Returns
    -------
    tokens : ndarray of int64, shape (N, n_new)
        The new tokens after each prompt.
    """
    x = _check_prompts(prompts)
    check_int("n_new", n_new, minimum=1)
    check_real("temperature", temperature, low=0.0, high=1e3)
    check_int("seed", seed, minimum=0)
    _check_model(model, x, x.shape[1] + n_new - 1)
    if not model.config.causal:
        raise ValueError("model must be causal for autoregressive decoding")
    gen = torch.Generator().manual_seed(seed)
    for _ in range(n_new):
        logits = model(x)[:, -1]  # (N, V)
        if temperature == 0:
            nxt = logits.argmax(-1)
        else:
            nxt = torch.multinomial((logits / temperature).softmax(-1), 1, generator=gen)[:, 0]
        x = torch.cat([x, nxt[:, None]], dim=1)
    return x[:, -n_new:].numpy()


@torch.no_grad()
def mdm_generate(
    model: Transformer,
    prompts: np.ndarray,
    n_new: int,
    steps: int,
    seed: int = 0,
) -> np.ndarray:
    """Ancestral sampler of the absorbing-state masked diffusion (linear schedule).

    Start from ``n_new`` ``<mask>`` tokens after each prompt; going from time ``t`` to
    ``s = t - 1/steps``, each still-masked token is revealed with probability ``(t - s) / t``,
    drawn from the network's distribution at that position (``<mask>`` and ``<pad>``
    excluded); revealed tokens stay. At ``s = 0`` every token is revealed.

    Parameters
    ----------
    model : Transformer
        A bidirectional network (``causal=False``) whose vocabulary holds the prompts and whose
        ``block_size`` is at least ``P + n_new``.
    prompts : ndarray of int64, shape (N, P)
        Prompts, ``N >= 1`` and ``P >= 1``.
    n_new : int
        Tokens to generate after each prompt, ``>= 1``.
    steps : int
        Denoising steps, ``>= 1``.
    seed : int, default 0
        Seed of the torch generator of the masks and the draws, ``>= 0``.

    Returns
    -------
    tokens : ndarray of int64, shape (N, n_new)
        The revealed tokens after each prompt.
    """
    x0 = _check_prompts(prompts)
    check_int("n_new", n_new, minimum=1)
    check_int("steps", steps, minimum=1)
    check_int("seed", seed, minimum=0)
    _check_model(model, x0, x0.shape[1] + n_new)
    _check_entries("steps x N x (P + n_new) draws", steps * x0.shape[0] * (x0.shape[1] + n_new))
    if model.config.causal:
        raise ValueError("model must be bidirectional (causal=False) for the diffusion sampler")
    gen = torch.Generator().manual_seed(seed)
    N, P = x0.shape
    x = torch.cat([x0, torch.full((N, n_new), MASK, dtype=torch.int64)], dim=1)  # (N, P + n)
    for i in range(steps):
        t, s = 1 - i / steps, 1 - (i + 1) / steps
        masked = x == MASK  # (N, P + n)
        reveal = masked & (torch.rand(x.shape, generator=gen) < (t - s) / t)
        if not reveal.any():
            continue
        logits = model(x)  # (N, P + n, V)
        logits[..., MASK] = logits[..., PAD] = float("-inf")
        probs = logits[reveal].softmax(-1)  # (R, V)
        x[reveal] = torch.multinomial(probs, 1, generator=gen)[:, 0]
    return x[:, P:].numpy()
