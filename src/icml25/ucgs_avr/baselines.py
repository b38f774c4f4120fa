"""The two baselines of the UCGS comparison (Shi, Li & Xue, ICML 2025): a discriminative
matrix solver and an answer-only shortcut model.

- :class:`DiscriminativeSolver`: the usual RAVEN solver, ``s_k = f_phi(x_1..x_8, a_k)``
  trained with cross-entropy ``-log softmax_k(s)_{answer}`` on matrix answers only; ``f_phi``
  is the generative solver's panel transformer over the 9 panels (context, then the candidate),
  mean-pooled to a scalar. It needs a candidate set of the training format, so it cannot
  answer the others.
- :class:`AnswerOnlyModel`: sees the 8 candidates and never the context, ``s_k = g([h_k,
  mean_l h_l])`` with ``h_k`` an MLP of candidate ``k``'s tokens (a permutation-equivariant set
  model, which can count how many candidates share a value); it is above chance exactly when
  the candidate set leaks its answer (RAVEN's distractors do, I-RAVEN's should not).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from icml25.common.arrays import int_array
from icml25.common.validate import check_int
from icml25.ucgs_avr.networks import PanelTransformer, seeded
from icml25.ucgs_avr.solver import PANELS, TOKENS, _check_config, _check_tokens, lr_at


@dataclass(frozen=True)
class BaselineConfig:
    """Sizes and training budget of either baseline.

    Parameters
    ----------
    n_layer : int, default 2
        Transformer encoder blocks, ``>= 1`` (the discriminative solver's panel transformer).
    n_head : int, default 4
        Attention heads, ``>= 1``, dividing ``n_embd``.
    n_embd : int, default 64
        Width ``d`` of the embeddings, ``>= 1``.
    steps : int, default 1000
        Training steps, ``>= 1``.
    batch : int, default 16
        Puzzles per step, ``>= 1``.
    lr : float, default 1e-3
        Peak AdamW learning rate, finite and ``> 0``.
    warmup : int, default 100
        Steps of linear warm-up before the cosine decay, ``>= 0``.
    """

    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    steps: int = 1000
    batch: int = 16
    lr: float = 1e-3
    warmup: int = 100

    def __post_init__(self) -> None:
        _check_config(self)


class _Scorer(nn.Module):
    def __init__(self, n_codes: int, c: BaselineConfig):
        super().__init__()
        self.body = PanelTransformer(n_codes, PANELS, c.n_embd, c.n_head, c.n_layer)
        self.head = nn.Linear(c.n_embd, 1)

    def forward(self, panels: torch.Tensor) -> torch.Tensor:  # (B, 9, 4) -> (B,)
        hidden = torch.zeros(panels.shape[:2], dtype=torch.bool)
        return self.head(self.body(panels, hidden).mean(1))[:, 0]


class _SetScorer(nn.Module):
    def __init__(self, n_codes: int, c: BaselineConfig):
        super().__init__()
        d = c.n_embd
        self.tok = nn.Embedding(n_codes, d)
        self.slot = nn.Parameter(torch.zeros(TOKENS, d))
        self.member = nn.Sequential(nn.Linear(TOKENS * d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.score = nn.Sequential(nn.Linear(3 * d, 2 * d), nn.GELU(), nn.Linear(2 * d, 1))

    def forward(self, cands: torch.Tensor) -> torch.Tensor:  # (B, C, 4) -> (B, C)
        e = self.tok(cands) + self.slot  # (B, C, 4, d)
        h = self.member(e.flatten(2))  # (B, C, d)
        g = h.mean(1, keepdim=True).expand_as(h)
        return self.score(torch.cat([h, g, h * g], -1))[..., 0]


def _train(model: nn.Module, loss_of, n: int, c: BaselineConfig, seed: int) -> list[float]:
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=c.lr, weight_decay=0.01)
    losses = []
    model.train()
    for step in range(c.steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step, c.steps, c.lr, c.warmup)
        loss = loss_of(torch.randint(n, (c.batch,), generator=gen))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    model.eval()
    return losses


def _check_answer(answer, n: int) -> torch.Tensor:
    int_array("answer", answer, nonempty=False)
    a = torch.as_tensor(np.asarray(answer), dtype=torch.int64)
    if a.shape != (n,) or (a < 0).any() or (a >= 8).any():
        raise ValueError(f"answer must have shape ({n},) with values in [0, 8)")
    return a


def _context_and_candidates(context, candidates, n_codes: int):
    ctx = _check_tokens("context", context, PANELS - 1, n_codes)
    cands = _check_tokens("candidates", candidates, 8, n_codes)
    if len(cands) != len(ctx):
        raise ValueError(f"candidates must hold one set per context, {len(ctx)}, got {len(cands)}")
    return ctx, cands


class DiscriminativeSolver:
    """The usual discriminative matrix solver, ``s_k = f_phi(x_1..x_8, a_k)``.

    ``fit(context, candidates, answer)`` trains with cross-entropy over the 8 candidates, then
    ``score(context, candidates)`` gives scores (B, 8), the answer being the argmax. Context
    tokens are (B, 8, 4) and candidate tokens (B, 8, 4), codes in ``[0, n_codes)``.

    Parameters
    ----------
    n_codes : int
        Size ``K`` of the token vocabulary, ``>= 2`` (for instance ``PatchCodebook.n_codes``).
    config : BaselineConfig, default BaselineConfig()
        Sizes and training budget.
    seed : int, default 0
        Seed of the initialisation and of the training batches.

    Notes
    -----
    After ``fit``: ``losses`` (list of float, one per step) and ``train_seconds``.

    scikit-learn: not an estimator: ``fit`` takes context and candidate token grids and the
    answers, not ``(X, y)``, so ``check_estimator`` does not apply.
    """

    def __init__(self, n_codes: int, config: BaselineConfig = BaselineConfig(), seed: int = 0):
        if isinstance(n_codes, bool) or not isinstance(n_codes, int) or n_codes < 2:
            raise ValueError(f"n_codes must be an int >= 2, got {n_codes!r}")
        self.n_codes, self.config, self.seed = n_codes, config, seed
        self.net = seeded(seed, lambda: _Scorer(n_codes, config))
        self.losses: list[float] = []
        self.train_seconds = 0.0

    def _scores(self, ctx: torch.Tensor, cands: torch.Tensor) -> torch.Tensor:
        B, C = cands.shape[:2]
        seq = torch.cat(
            [ctx[:, None].expand(-1, C, -1, -1), cands[:, :, None]], dim=2
        )  # (B, C, 9, 4)
        return self.net(seq.reshape(B * C, PANELS, TOKENS)).reshape(B, C)

    def fit(self, context, candidates, answer) -> DiscriminativeSolver:
        ctx, cands = _context_and_candidates(context, candidates, self.n_codes)
        a = _check_answer(answer, len(ctx))
        begin = time.perf_counter()
        self.losses = _train(
            self.net,
            lambda i: F.cross_entropy(self._scores(ctx[i], cands[i]), a[i]),
            len(ctx),
            self.config,
            self.seed,
        )
        self.train_seconds = time.perf_counter() - begin
        return self

    @torch.no_grad()
    def score(self, context, candidates, chunk: int = 256) -> np.ndarray:
        ctx, cands = _context_and_candidates(context, candidates, self.n_codes)
        check_int("chunk", chunk, minimum=1)
        out = [
            self._scores(ctx[i : i + chunk], cands[i : i + chunk])
            for i in range(0, len(ctx), chunk)
        ]
        return torch.cat(out).numpy()


class AnswerOnlyModel:
    """An answer-only set model that sees the 8 candidates and never the context.

    ``fit(candidates, answer)`` trains with cross-entropy, then ``score(candidates)`` gives
    scores (B, 8) for candidate tokens (B, 8, 4); above chance (1/8) only when the candidate
    set leaks its answer.

    Parameters
    ----------
    n_codes : int
        Size ``K`` of the token vocabulary, ``>= 2``.
    config : BaselineConfig, default BaselineConfig()
        Sizes and training budget (``n_layer`` and ``n_head`` are not used by this model).
    seed : int, default 0
        Seed of the initialisation and of the training batches.

    Notes
    -----
    After ``fit``: ``losses`` (list of float, one per step).

    scikit-learn: not an estimator: ``fit`` takes candidate token grids and the answers, not
    ``(X, y)``, so ``check_estimator`` does not apply.
    """

    def __init__(self, n_codes: int, config: BaselineConfig = BaselineConfig(), seed: int = 0):
        if isinstance(n_codes, bool) or not isinstance(n_codes, int) or n_codes < 2:
            raise ValueError(f"n_codes must be an int >= 2, got {n_codes!r}")
        self.n_codes, self.config, self.seed = n_codes, config, seed
        self.net = seeded(seed, lambda: _SetScorer(n_codes, config))
        self.losses: list[float] = []

    def fit(self, candidates, answer) -> AnswerOnlyModel:
        cands = _check_tokens("candidates", candidates, 8, self.n_codes)
        a = _check_answer(answer, len(cands))
        self.losses = _train(
            self.net,
            lambda i: F.cross_entropy(self.net(cands[i]), a[i]),
            len(cands),
            self.config,
            self.seed,
        )
        return self

    @torch.no_grad()
    def score(self, candidates) -> np.ndarray:
        return self.net(_check_tokens("candidates", candidates, 8, self.n_codes)).numpy()
