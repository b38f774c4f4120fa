"""Adaptive reverse sampling of any masked diffusion model: which tokens to unmask, and when.

Kim et al., *Train for the Worst, Plan for the Best: Understanding Token Ordering in Masked
Diffusions* (ICML 2025), Sec. 4 and Algorithm 1. A sequence of length ``L`` over a vocabulary of
``V`` tokens, one of which (``mask_id``) is ``[MASK]``, is decoded in ``steps`` reverse steps.
From ``t`` to ``s < t`` the sampler unmasks ``K = M (alpha_s - alpha_t) / (1 - alpha_t)`` of the
``M`` masked positions (linear schedule ``alpha_t = 1 - t``; integer form: after step ``i``,
``round(M_0 (i + 1) / steps)`` of the ``M_0`` initially masked positions are out), and *which*
ones is the planner's choice ``F(theta, x_t)`` from the model's ``p_theta(x^i | x_t)``:

- ``vanilla``: uniformly random masked positions (the MDM's own reverse process);
- ``top_prob``: the largest ``max_j p_theta(x^i = j | x_t)``;
- ``top_margin``: the largest margin ``p(j_1) - p(j_2)`` between the two likeliest tokens.

Gumbel perturbation (the scheme of HKUNLP/diffusion-vs-ar, whose decoder the paper reuses,
``trainer.py``: ``topk_decoding`` with ``stochastic0.5-linear``): the adaptive score is taken in
log space, ``log p(j_1)`` for ``top_prob`` and ``log(p(j_1) - p(j_2))`` for ``top_margin``, and
perturbed by ``gumbel * r_i * G`` with ``G`` standard Gumbel and ``r_i = 1 - (i + 1) / steps``
the fraction of positions still masked after step ``i``: the noise anneals to zero as decoding
ends. ``gumbel = 0`` is deterministic top-K. Ties are broken at random. The token of an
unmasked position is sampled from ``p_theta(x^i | x_t)`` (with ``[MASK]`` excluded); positions
not masked at the start are never changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from icml25.common.arrays import int_array, probabilities, real_array
from icml25.common.validate import check_int, check_real
from icml25.mdm_order._checks import check_entries

STRATEGIES = ("vanilla", "top_prob", "top_margin")


def unmask_counts(masked: np.ndarray, steps: int) -> np.ndarray:
    """Give the number of positions to unmask at each reverse step.

    The integer form of ``K = M (alpha_s - alpha_t) / (1 - alpha_t)`` under the linear schedule:
    after step ``i``, ``round(M_0 (i + 1) / steps)`` of the ``M_0`` initially masked positions are
    unmasked, so each row's counts sum to ``M_0``.

    Parameters
    ----------
    masked : ndarray of int, shape (B,)
        Number of masked positions of each sequence, ``>= 0``; may be empty.
    steps : int
        Number of reverse steps, ``>= 1``.

    Returns
    -------
    counts : ndarray of int64, shape (steps, B)
        Positions unmasked at each step.

    Raises
    ------
    ValueError
        For a bad ``masked`` or ``steps``, or a schedule of more than ``2**28`` entries.
    """
    steps = check_int("steps", steps, minimum=1)
    int_array("masked", masked, ndim=1, low=0, nonempty=False)
    check_entries("(steps + 1) x B of the schedule", (steps + 1) * len(masked))
    done = np.rint(np.asarray(masked)[None, :] * np.arange(steps + 1)[:, None] / steps)
    return np.diff(done, axis=0).astype(np.int64)


def planner_scores(probs: np.ndarray, strategy: str, log: bool = False) -> np.ndarray:
    """Score every position the way an adaptive planner does.

    Parameters
    ----------
    probs : ndarray, shape (B, L, V)
        Per-position token probabilities ``p_theta(x^i | x_t)``; finite rows of ``V >= 2``
        entries summing to 1.
    strategy : {"top_prob", "top_margin"}
        The largest probability ``p(j_1)``, or the margin ``p(j_1) - p(j_2)`` between the two
        likeliest tokens. ``"vanilla"`` has no score and is refused.
    log : bool, default False
        Return the logarithm of the score (floored at ``1e-30``), the space in which
        :func:`adaptive_decode` adds its Gumbel noise.

    Returns
    -------
    score : ndarray, shape (B, L)
        The planner's score of each position; higher is unmasked first.
    """
    if strategy not in ("top_prob", "top_margin"):
        raise ValueError(f"strategy must be 'top_prob' or 'top_margin', got {strategy!r}")
    array = real_array("probs", probs, ndim=3)
    if array.shape[-1] < 2:
        raise ValueError(f"probs must have at least 2 tokens (V >= 2), got shape {array.shape}")
    probabilities("probs", array.reshape(-1, array.shape[-1]))
    return _planner_scores(probs, strategy, log)


def _planner_scores(probs: np.ndarray, strategy: str, log: bool = False) -> np.ndarray:
    top2 = np.sort(probs, axis=-1)[..., -2:]  # (B, L, 2)
    score = top2[..., 1] if strategy == "top_prob" else top2[..., 1] - top2[..., 0]
    return np.log(np.maximum(score, 1e-30)) if log else score


@dataclass
class Decoding:
    """The output of :func:`adaptive_decode`.

    Parameters
    ----------
    tokens : ndarray of int64, shape (B, L)
        The decoded sequences (also available as ``grids``, the name the Sudoku helpers use).
    loss : ndarray of float, shape (B, L)
        The cross-entropy ``-log p_theta(x^i = answer | x_t)`` of each position at the step it was
        unmasked; nan at the given positions, and everywhere when no answers were given.
    step : ndarray of int, shape (B, L)
        The step at which each position was unmasked, -1 for the given positions.
    """

    tokens: np.ndarray
    loss: np.ndarray
    step: np.ndarray

    @property
    def grids(self) -> np.ndarray:
        """``tokens``, under the name the Sudoku helpers use."""
        return self.tokens


def as_probs(logits_fn: Callable, tokens: np.ndarray, mask_id: int) -> np.ndarray:
    """``(B, L, V)`` float64 probabilities from ``logits_fn(tokens)`` (a numpy array or a torch
    tensor of logits), ``[MASK]`` excluded."""
    out = logits_fn(tokens)
    if hasattr(out, "detach"):  # a torch tensor
        out = out.detach().cpu().double().numpy()
    logits = np.array(out, dtype=np.float64)
    if logits.ndim != 3 or logits.shape[:2] != tokens.shape:
        raise ValueError(
            f"logits_fn must return logits of shape (B, L, V) = {tokens.shape} + (V,), "
            f"got {logits.shape}"
        )
    logits[..., mask_id] = -np.inf
    logits -= logits.max(-1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(-1, keepdims=True)


def adaptive_decode(
    tokens,
    logits_fn: Callable,
    mask_id: int,
    strategy: str = "top_margin",
    steps: int = 50,
    seed: int = 0,
    gumbel: float = 0.0,
    answers=None,
) -> Decoding:
    """Decode every ``mask_id`` position of ``tokens`` ``(B, L)`` (module docstring).

    ``logits_fn`` maps tokens ``(B, L)`` (int64 numpy) to logits ``(B, L, V)`` over a vocabulary
    of ``V`` tokens that contains ``mask_id``. With ``answers`` ``(B, L)`` the chosen positions
    are filled with the answer instead of a sampled token (teacher forcing): the masking
    patterns are those the planner meets when it decodes correctly, and ``Decoding.loss`` is the
    model's loss on each position it chose. Logits that are NaN or ``+inf`` (or all ``-inf``) at
    a masked position, and tokens or answers outside the vocabulary, are refused.

    Kim et al. (ICML 2025), Algorithm 1: after step ``i`` of ``steps``,
    ``round(M_0 (i + 1) / steps)`` of the ``M_0`` masked positions of each row are unmasked,
    the ones the planner ``strategy`` scores highest.

    Parameters
    ----------
    tokens : array_like of int, shape (B, L)
        Non-empty integer sequences; entries equal to ``mask_id`` are decoded, the others are
        kept unchanged. Every entry must lie in the vocabulary ``0 .. V - 1``.
    logits_fn : callable
        ``logits_fn(tokens (B, L) int64 numpy) -> (B, L, V)`` logits (a numpy array or a torch
        tensor) over ``V`` tokens including ``mask_id``; called once per step that unmasks
        something. ``[MASK]`` is excluded before the softmax.
    mask_id : int
        The ``[MASK]`` token, ``0 <= mask_id < V``.
    strategy : {"top_margin", "top_prob", "vanilla"}, default "top_margin"
        The planner: the largest top-two margin, the largest top probability, or uniformly
        random masked positions (the MDM's own reverse process).
    steps : int, default 50
        Number of reverse steps (``>= 1``).
    seed : int, default 0
        Seed (``>= 0``) of the sampler's random numbers: sampled tokens, random ties, the
        ``vanilla`` order and the Gumbel noise.
    gumbel : float, default 0.0
        Scale (``>= 0``, finite) of the annealed Gumbel perturbation of the log-space planner
        score; 0 is deterministic top-K. Not used by ``vanilla``.
    answers : array_like of int, shape (B, L), optional
        The correct sequences for teacher forcing: chosen positions get the answer instead of
        a sampled token, and ``Decoding.loss`` holds the model's loss there. They must agree
        with ``tokens`` where those are not masked and hold no ``mask_id``. None (default)
        samples the tokens.

    Returns
    -------
    Decoding
        ``tokens`` ``(B, L)`` int64, the decoded sequences; ``loss`` ``(B, L)`` float, the
        cross-entropy of each position at the step it was unmasked (nan at the given positions,
        and everywhere without ``answers``); ``step`` ``(B, L)`` int, that step (-1 for the
        given positions).
    """
    arr = np.asarray(tokens)
    if arr.dtype.kind not in "iu" or arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"tokens must be a non-empty (B, L) integer array, got {arr.shape}")
    tokens = arr.astype(np.int64)
    if not callable(logits_fn):
        raise ValueError(f"logits_fn must be a function of the tokens, got {type(logits_fn)}")
    mask_id = check_int("mask_id", mask_id, minimum=0)
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    steps = check_int("steps", steps, minimum=1)
    gumbel = check_real("gumbel", gumbel, low=0.0, high=np.inf, high_open=True)
    check_int("seed", seed, minimum=0)
    start = tokens == mask_id  # (B, L)
    if answers is not None:
        answers = np.asarray(answers)
        if answers.dtype.kind not in "iu":
            raise ValueError(f"answers must be an integer array, got dtype {answers.dtype}")
        if answers.shape != tokens.shape or (answers == mask_id).any():
            raise ValueError("answers must have the shape of tokens and hold no mask_id")
        if answers.min() < 0:
            raise ValueError(f"answers must be >= 0, got {answers.min()}")
        if (~start & (tokens != answers)).any():
            raise ValueError("answers must agree with tokens where tokens are not masked")
    rng = np.random.default_rng(seed)
    B, L = tokens.shape
    rows = np.arange(B)[:, None]
    loss = np.full((B, L), np.nan)
    when = np.full((B, L), -1)
    counts = unmask_counts(start.sum(1), steps)  # (steps, B)
    for i, k in enumerate(counts):
        if not k.any():
            continue
        probs = as_probs(logits_fn, tokens, mask_id)  # (B, L, V)
        if tokens.min() < 0 or tokens.max() >= probs.shape[-1] or mask_id >= probs.shape[-1]:
            raise ValueError(f"tokens and mask_id must lie in the vocabulary 0..{probs.shape[-1]}")
        if answers is not None and answers.max() >= probs.shape[-1]:
            raise ValueError(f"answers must lie in the vocabulary 0..{probs.shape[-1] - 1}")
        masked = tokens == mask_id
        if np.isnan(probs[masked]).any():
            raise ValueError(
                "logits_fn returned NaN or +inf logits (or all -inf) at a masked position"
            )
        if strategy == "vanilla":
            score = rng.random((B, L))
        elif gumbel > 0:
            noise = gumbel * (1 - (i + 1) / steps) * rng.gumbel(size=(B, L))
            score = _planner_scores(probs, strategy, log=True) + noise
        else:
            score = _planner_scores(probs, strategy)
        score = np.where(masked, score, -np.inf)
        order = np.lexsort((rng.random((B, L)), -score), axis=-1)  # ties: random
        rank = np.empty_like(order)
        rank[rows, order] = np.arange(L)
        chosen = rank < k[:, None]  # (B, L)
        if answers is None:
            cum = probs.cumsum(-1)  # (B, L, V)
            u = rng.random((B, L, 1)) * cum[..., -1:]
            value = np.minimum((cum < u).sum(-1), probs.shape[-1] - 1)
        else:
            value = answers
            picked = np.take_along_axis(probs, answers[..., None], -1)[..., 0]
            loss[chosen] = -np.log(np.maximum(picked[chosen], 1e-12))
        tokens = np.where(chosen, value, tokens)
        when[chosen] = i
    return Decoding(tokens, loss, when)
