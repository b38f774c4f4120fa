"""The unified conditional generative solver (UCGS; Shi, Li & Xue, ICML 2025), at CPU size.

The paper's reformulation: every task asks how *predictable* a target panel ``x_t`` is from the
other panels ``x_C`` of its problem, ``S(x_t | x_C) = p_theta(x_t | x_C)``; one conditional
generative model ``p_theta`` trained to predict hidden panels answers all formats:

- matrix completion: the candidate ``argmax_k S(a_k | x_1..x_8)`` (the ninth panel hidden);
- odd-one-out: the panel ``argmin_i S(x_i | x_{-i})`` (each panel hidden in turn);
- analogy ``A : B :: C : ?``: ``argmax_k S(a_k | A, B, C)`` (the other panels hidden).

As in the official code, panels are tokenised (here by :class:`PatchCodebook`, four tokens
per panel). Our read-out factorises over the target's tokens ``j``, so the default score is the
paper's predictability itself, ``log S = sum_j log p_theta(z_{t,j} | z_C)``; the official
code's ``S = mean_j p_theta(z_{t,j} | z_C)`` is ``score="mean_probability"``. Our ``p_theta`` is a
bidirectional transformer over the 9 panels of a 3 x 3 matrix
(:class:`icml25.ucgs_avr.networks.PanelTransformer`, hidden panels replaced by a mask vector)
with a read-out ``softmax(W_j h_t)`` per cell ``j`` of the target; training hides
the target panel and, at random, up to ``max_extra_hidden`` context panels (the official
reasoner takes any labelled subset of panels as its context), with cross-entropy on every hidden
token. The reasoner of the official code (slot encoder, latent rule variable with a KL term,
autoregressive decoder) is replaced by this one network; see the README.
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from icml25.common.arrays import int_array
from icml25.common.validate import check_int, check_real
from icml25.ucgs_avr.generator import ANALOGY_PANELS
from icml25.ucgs_avr.networks import PanelTransformer, seeded

PANELS, TOKENS = 9, 4  # panels of a matrix, tokens per panel
SCORES = ("log_likelihood", "mean_probability")


@dataclass(frozen=True)
class SolverConfig:
    """Sizes and training budget of :class:`GenerativeSolver`.

    Parameters
    ----------
    n_layer : int, default 2
        Transformer encoder blocks of the panel transformer, ``>= 1``.
    n_head : int, default 4
        Attention heads, ``>= 1``, dividing ``n_embd``.
    n_embd : int, default 64
        Width ``d`` of the panel vectors, ``>= 1``.
    steps : int, default 2000
        Training steps, ``>= 1``.
    batch : int, default 64
        Matrices per step, ``>= 1``.
    lr : float, default 2e-3
        Peak AdamW learning rate, finite and ``> 0``.
    warmup : int, default 100
        Steps of linear warm-up before the cosine decay, ``>= 0``.
    max_extra_hidden : int, default 4
        Each training matrix hides one target panel and, drawn uniformly, 0 to this many more
        panels; in ``[0, 8]``.
    """

    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    steps: int = 2000
    batch: int = 64
    lr: float = 2e-3
    warmup: int = 100
    max_extra_hidden: int = 4

    def __post_init__(self) -> None:
        _check_config(self)
        check_int("max_extra_hidden", self.max_extra_hidden, minimum=0)
        if self.max_extra_hidden > PANELS - 1:
            raise ValueError(
                f"max_extra_hidden must be at most {PANELS - 1}, got {self.max_extra_hidden}"
            )


def _check_config(c) -> None:
    """Sizes >= 1 (``warmup`` >= 0), ``n_head`` dividing ``n_embd``, a finite ``lr`` > 0."""
    for name in ("n_layer", "n_head", "n_embd", "steps", "batch"):
        check_int(name, getattr(c, name), minimum=1)
    check_int("warmup", c.warmup, minimum=0)
    if c.n_embd % c.n_head:
        raise ValueError(f"n_head must divide n_embd = {c.n_embd}, got {c.n_head}")
    check_real("lr", c.lr, low=0.0, high=math.inf, low_open=True, high_open=True)


class _Generator(nn.Module):
    """``p_theta(z_{i,j} | z_C)``: panel states -> per-cell code logits ``(B, 9, 4, K)``."""

    def __init__(self, n_codes: int, c: SolverConfig):
        super().__init__()
        self.body = PanelTransformer(n_codes, PANELS, c.n_embd, c.n_head, c.n_layer)
        self.head = nn.Linear(c.n_embd, TOKENS * n_codes)
        self.n_codes = n_codes

    def forward(self, tokens: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        h = self.body(tokens, hidden)  # (B, 9, d)
        return self.head(h).unflatten(-1, (TOKENS, self.n_codes))


def _check_tokens(name: str, tokens, panels: int, n_codes: int) -> torch.Tensor:
    int_array(name, tokens, nonempty=False)
    t = torch.as_tensor(np.asarray(tokens), dtype=torch.int64)
    if t.ndim != 3 or t.shape[1:] != (panels, TOKENS):
        raise ValueError(f"{name} must have shape (B, {panels}, {TOKENS}), got {tuple(t.shape)}")
    if len(t) == 0:
        raise ValueError(f"{name} must hold at least one puzzle, got shape {tuple(t.shape)}")
    if len(t) and (t.min() < 0 or t.max() >= n_codes):
        raise ValueError(f"{name} must hold codes in [0, {n_codes}), got {int(t.max())}")
    return t


def _check_hidden(hidden) -> None:
    """``hidden``: a 2-d array (B, 9) of bools (or of 0 and 1)."""
    h = np.asarray(hidden)
    if h.ndim != 2 or (h.dtype != bool and not np.isin(h, (0, 1)).all()):
        raise ValueError(f"hidden must be a bool array (B, {PANELS}), got {h.dtype} {h.shape}")


def _reduce(probs: torch.Tensor, score: str) -> torch.Tensor:
    """Per-token probabilities ``(..., 4)`` -> a panel's predictability ``(...)``."""
    if score == "log_likelihood":
        return probs.clamp_min(1e-30).log().sum(-1)
    return probs.mean(-1)


def lr_at(step: int, steps: int, lr: float, warmup: int) -> float:
    """Linear warm-up then cosine decay to 0."""
    if step < warmup:
        return lr * (step + 1) / warmup
    return 0.5 * lr * (1 + np.cos(np.pi * (step - warmup) / max(1, steps - warmup)))


class GenerativeSolver:
    """The unified conditional generative solver: one ``p_theta(x_t | x_C)`` for every format.

    ``fit(tokens)`` trains on complete matrices (N, 9, 4) by hiding panels at random; then
    ``answer_matrix`` (scores (B, 8), argmax), ``answer_odd_one_out`` (scores (B, 9), argmin)
    and ``answer_analogy`` (scores (B, 8), argmax) score targets by their predictability
    ``S(x_t | x_C)``. Tokens are codes in ``[0, n_codes)``, four per panel.

    Parameters
    ----------
    n_codes : int
        Size ``K`` of the token vocabulary, ``>= 2`` (for instance ``PatchCodebook.n_codes``).
    config : SolverConfig, default SolverConfig()
        Sizes and training budget.
    seed : int, default 0
        Seed of the initialisation and of the training draws.
    score : {"log_likelihood", "mean_probability"}, default "log_likelihood"
        Predictability of a panel: ``sum_j log p(z_j | z_C)`` over its four tokens, or the
        official code's ``mean_j p(z_j | z_C)``.

    Notes
    -----
    After ``fit``: ``losses`` (list of float, the cross-entropy of each step) and
    ``train_seconds``.

    scikit-learn: not an estimator: ``fit`` takes token grids of puzzles, not ``(X, y)``, so
    ``check_estimator`` does not apply.
    """

    def __init__(
        self,
        n_codes: int,
        config: SolverConfig = SolverConfig(),
        seed: int = 0,
        score: str = "log_likelihood",
    ):
        if isinstance(n_codes, bool) or not isinstance(n_codes, int) or n_codes < 2:
            raise ValueError(f"n_codes must be an int >= 2, got {n_codes!r}")
        if score not in SCORES:
            raise ValueError(f"score must be one of {SCORES}, got {score!r}")
        self.n_codes, self.config, self.seed, self.score = n_codes, config, seed, score
        self.net = seeded(seed, lambda: _Generator(n_codes, config))
        self.losses: list[float] = []
        self.train_seconds = 0.0

    def fit(self, tokens) -> GenerativeSolver:
        """Train by hiding panels at random; ``tokens`` ``(N, 9, 4)`` complete matrices."""
        data = _check_tokens("tokens", tokens, PANELS, self.n_codes)
        c = self.config
        gen = torch.Generator().manual_seed(self.seed)
        opt = torch.optim.AdamW(self.net.parameters(), lr=c.lr, weight_decay=0.01)
        begin = time.perf_counter()
        self.net.train()
        for step in range(c.steps):
            for group in opt.param_groups:
                group["lr"] = lr_at(step, c.steps, c.lr, c.warmup)
            batch = data[torch.randint(len(data), (c.batch,), generator=gen)]  # (B, 9, 4)
            n_hidden = 1 + torch.randint(c.max_extra_hidden + 1, (c.batch, 1), generator=gen)
            rank = torch.rand(c.batch, PANELS, generator=gen).argsort(1).argsort(1)
            hidden = rank < n_hidden  # (B, 9): 1 + m panels hidden at random
            logits = self.net(batch, hidden)  # (B, 9, 4, K)
            loss = F.cross_entropy(logits[hidden].flatten(0, 1), batch[hidden].flatten())
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
            opt.step()
            self.losses.append(loss.item())
        self.train_seconds = time.perf_counter() - begin
        self.net.eval()
        return self

    @torch.no_grad()
    def code_probabilities(self, tokens, hidden, chunk: int = 1024) -> torch.Tensor:
        """``p_theta(z | z_C)`` for every position: tokens ``(B, 9, 4)`` (hidden ones ignored),
        hidden ``(B, 9)`` bool -> probabilities ``(B, 9, 4, K)``."""
        t = _check_tokens("tokens", tokens, PANELS, self.n_codes)
        check_int("chunk", chunk, minimum=1)
        _check_hidden(hidden)
        h = torch.as_tensor(np.asarray(hidden), dtype=torch.bool)
        if h.shape != t.shape[:2]:
            raise ValueError(f"hidden must have shape {tuple(t.shape[:2])}, got {tuple(h.shape)}")
        out = []
        for i in range(0, len(t), chunk):
            out.append(self.net(t[i : i + chunk], h[i : i + chunk]).softmax(-1))
        return torch.cat(out)

    def predictability(self, tokens, hidden, target: int, candidates) -> np.ndarray:
        """``S(a_k | context)`` for candidates ``(B, C, 4)`` placed at panel ``target`` (hidden
        with the panels ``hidden`` marks) -> ``(B, C)``: ``sum_j log p(z_{k,j})`` (``score=
        "log_likelihood"``) or ``mean_j p(z_{k,j})`` (``"mean_probability"``)."""
        if isinstance(target, bool) or not isinstance(target, numbers.Integral):
            raise ValueError(f"target must be a panel index in [0, 9), got {target!r}")
        if not 0 <= target < PANELS:
            raise ValueError(f"target must be a panel index in [0, 9), got {target}")
        _check_hidden(hidden)
        int_array("candidates", candidates, low=0, high=self.n_codes - 1, nonempty=False)
        h = np.array(hidden, dtype=bool)
        h[:, target] = True
        probs = self.code_probabilities(tokens, h)[:, target]  # (B, 4, K)
        cands = torch.as_tensor(np.asarray(candidates), dtype=torch.int64)  # (B, C, 4)
        if cands.ndim != 3 or cands.shape[0] != len(probs) or cands.shape[2] != TOKENS:
            raise ValueError(f"candidates must have shape (B, C, 4), got {tuple(cands.shape)}")
        picked = probs[:, None].expand(-1, cands.shape[1], -1, -1).gather(-1, cands[..., None])
        return _reduce(picked[..., 0], self.score).numpy()  # (B, C)

    def answer_matrix(self, context, candidates) -> np.ndarray:
        """Matrix completion: context ``(B, 8, 4)``, candidates ``(B, 8, 4)`` -> scores
        ``(B, 8)``; the answer is the argmax."""
        ctx = _check_tokens("context", context, PANELS - 1, self.n_codes).numpy()
        full = np.concatenate([ctx, np.zeros_like(ctx[:, :1])], axis=1)  # (B, 9, 4)
        return self.predictability(full, np.zeros(full.shape[:2], bool), PANELS - 1, candidates)

    def answer_odd_one_out(self, panels) -> np.ndarray:
        """Odd-one-out: panels ``(B, 9, 4)`` -> ``S(x_i | x_{-i})`` ``(B, 9)``; the odd panel is
        the argmin. The nine hidings run as one batch of ``9 B`` sequences."""
        t = _check_tokens("panels", panels, PANELS, self.n_codes)
        B = len(t)
        reps = t.repeat_interleave(PANELS, dim=0)  # (9B, 9, 4)
        hidden = torch.eye(PANELS, dtype=torch.bool).repeat(B, 1)  # (9B, 9)
        probs = self.code_probabilities(reps, hidden)  # (9B, 9, 4, K)
        idx = torch.arange(PANELS).repeat(B)
        own = probs[torch.arange(len(reps)), idx]  # (9B, 4, K): the hidden panel's slots
        picked = own.gather(-1, reps[torch.arange(len(reps)), idx][..., None])[..., 0]
        return _reduce(picked, self.score).reshape(B, PANELS).numpy()

    def answer_analogy(self, abc, candidates) -> np.ndarray:
        """``A : B :: C : ?``: ``abc`` ``(B, 3, 4)`` placed at panels (1,1), (1,2), (2,1) of the
        grid, every other panel hidden -> scores ``(B, 8)`` of the candidates for (2,2)."""
        t = _check_tokens("abc", abc, 3, self.n_codes).numpy()
        full = np.zeros((len(t), PANELS, TOKENS), dtype=np.int64)
        full[:, list(ANALOGY_PANELS[:3])] = t
        hidden = np.ones((len(t), PANELS), bool)
        hidden[:, list(ANALOGY_PANELS[:3])] = False
        return self.predictability(full, hidden, ANALOGY_PANELS[3], candidates)
