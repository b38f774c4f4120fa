"""The masked diffusion model (MDM) on Sudoku and its training objective.

Kim et al. (ICML 2025), App. D.2, train a 6M-parameter GPT-2 without the causal mask
(HKUNLP/diffusion-vs-ar, ``model_config_tiny``: ``n_embd = 384``, ``n_layer = 3``, 12 heads) on
``puzzle [SEP] solution`` with only the solution half masked. We keep the bidirectional
transformer and the objective, and shorten the sequence to the 81 cells: a clue is a visible
token of its cell, every other cell starts as ``[MASK]`` (token 0). The network maps a partly
masked grid ``x_t`` ``(B, 81)`` to logits over the digits ``(B, 81, 9)``, the per-position
distributions ``p_theta(x^i | x_t)`` of the reverse process (the time ``t`` is not an input, as
in the paper's model). Cell position is the sum of learned row, column and box embeddings.

Objective (App. D.2; HKUNLP ``trainer.py``): ``t ~ U{0, ..., T-1}`` with ``T = 20``, each
non-clue cell masked independently with probability ``(t + 1) / T``; cross-entropy ``l`` on the
masked cells, the token reweighting ``alpha (1 - e^{-l})^gamma l`` (``alpha = 0.25``,
``gamma = 1``) and the linear time weight ``T - t``; summed and divided by the number of masked
cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from icml25.common.validate import check_int, check_real
from icml25.mdm_order._checks import check_entries
from icml25.mdm_order.generate import _augment
from icml25.mdm_order.sudoku import BOX, COL, ROW, check_grids


@dataclass(frozen=True)
class MDMConfig:
    """Sizes of :class:`SudokuMDM`. ``paper()`` is the paper's 6M-parameter model."""

    d_model: int = 128
    n_layer: int = 4
    n_head: int = 4
    d_ff: int = 512
    peer_attention: bool = False  # attend only to the 20 peers and oneself (a CPU-scale prior)

    @classmethod
    def paper(cls) -> MDMConfig:
        return cls(d_model=384, n_layer=3, n_head=12, d_ff=1536)


class SudokuMDM(nn.Module):
    """Bidirectional transformer ``(B, 81)`` tokens (0 = mask, 1-9 digits) to ``(B, 81, 9)``
    logits over the digits 1-9."""

    def __init__(self, config: MDMConfig = MDMConfig()):
        super().__init__()
        c = config
        if not isinstance(c, MDMConfig):
            raise ValueError(f"config must be an MDMConfig, got {type(c).__name__}")
        for name in ("d_model", "n_layer", "n_head", "d_ff"):
            check_int(name, getattr(c, name), minimum=1)
        if c.d_model % c.n_head:
            raise ValueError(f"d_model must be a multiple of n_head, got {c.d_model}, {c.n_head}")
        self.config = c
        self.token = nn.Embedding(10, c.d_model)
        self.row, self.col, self.box = (nn.Embedding(9, c.d_model) for _ in range(3))
        layer = nn.TransformerEncoderLayer(
            c.d_model, c.n_head, c.d_ff, dropout=0.0, activation="gelu", batch_first=True,
            norm_first=True,
        )  # fmt: skip
        self.blocks = nn.TransformerEncoder(layer, c.n_layer, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(c.d_model)
        self.head = nn.Linear(c.d_model, 9)
        for name, index in (("rows", ROW), ("cols", COL), ("boxes", BOX)):
            self.register_buffer(name, torch.as_tensor(index), persistent=False)
        same = (ROW[:, None] == ROW) | (COL[:, None] == COL) | (BOX[:, None] == BOX)  # (81, 81)
        self.register_buffer("blocked", torch.as_tensor(~same), persistent=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        pos = self.row(self.rows) + self.col(self.cols) + self.box(self.boxes)  # (81, C)
        h = self.token(tokens) + pos  # (B, 81, C)
        mask = self.blocked if self.config.peer_attention else None
        return self.head(self.norm(self.blocks(h, mask=mask)))  # (B, 81, 9)


def mdm_loss(
    model: SudokuMDM,
    puzzles: torch.Tensor,
    solutions: torch.Tensor,
    generator: torch.Generator,
    T: int = 20,
    alpha: float = 0.25,
    gamma: float = 1.0,
) -> torch.Tensor:
    """The masked-diffusion training loss of one batch (module docstring), a scalar.

    ``puzzles`` and ``solutions`` ``(B, 81)`` long tensors; clue cells are never masked. Other
    shapes, entries outside ``0..9`` (puzzles) or ``1..9`` (solutions), ``T < 1`` and a negative
    or non-finite ``alpha`` or ``gamma`` are refused.
    """
    for name, x in (("puzzles", puzzles), ("solutions", solutions)):
        if not isinstance(x, torch.Tensor) or x.dtype != torch.long:
            kind = x.dtype if isinstance(x, torch.Tensor) else type(x).__name__
            raise TypeError(f"{name} must be a torch int64 (long) tensor, got {kind}")
    for name, x, low in (("puzzles", puzzles, 0), ("solutions", solutions, 1)):
        if x.ndim != 2 or x.shape[1] != 81 or x.shape != solutions.shape:
            raise ValueError(f"{name} must be (B, 81) like the other, got {tuple(x.shape)}")
        if x.numel() and (int(x.min()) < low or int(x.max()) > 9):
            raise ValueError(f"{name} must hold digits {low}-9")
    check_int("T", T, minimum=1)
    check_real("alpha", alpha, low=0.0, high=np.inf, high_open=True)
    check_real("gamma", gamma, low=0.0, high=np.inf, high_open=True)
    return _mdm_loss(model, puzzles, solutions, generator, T, alpha, gamma)


def _mdm_loss(model, puzzles, solutions, generator, T=20, alpha=0.25, gamma=1.0) -> torch.Tensor:
    B = len(solutions)
    device = solutions.device  # the generator is a CPU one: draw there, then move
    t = torch.randint(0, T, (B,), generator=generator).to(device)  # (B,)
    u = torch.rand(B, 81, generator=generator).to(device)
    masked = (u < ((t + 1) / T)[:, None]) & (puzzles == 0)  # (B, 81)
    x_t = solutions.masked_fill(masked, 0)
    logits = model(x_t)  # (B, 81, 9)
    ce = nn.functional.cross_entropy(logits.transpose(1, 2), solutions - 1, reduction="none")
    ce = alpha * (1 - torch.exp(-ce)) ** gamma * ce  # token reweighting
    weight = (T - t)[:, None].float()  # linear time reweighting
    return (ce * weight * masked).sum() / masked.sum().clamp(min=1)


@dataclass
class TrainLog:
    """What :func:`train_mdm` returns: the trained model, the loss per step, puzzles per second."""

    model: SudokuMDM
    loss: np.ndarray
    puzzles_per_second: float


def train_mdm(
    puzzles,
    solutions,
    *,
    config: MDMConfig = MDMConfig(),
    steps: int = 1000,
    batch: int = 128,
    lr: float = 1e-3,
    warmup: int = 50,
    seed: int = 0,
    device: str = "cpu",
) -> TrainLog:
    """Train :class:`SudokuMDM` with :func:`mdm_loss`: AdamW, linear warm-up then cosine decay of
    ``lr`` (the paper: lr 1e-3, batch 128, cosine). Each batch is drawn with replacement and
    given a random Sudoku symmetry (:func:`~icml25.mdm_order.generate.augment`)."""
    import time

    puzzles = check_grids("puzzles", puzzles)
    solutions = check_grids("solutions", solutions, blanks=False)
    if puzzles.shape != solutions.shape or (
        (puzzles > 0) & (puzzles != solutions)
    ).any():  # fmt: skip
        raise ValueError("solutions must have the shape of puzzles and agree with their clues")
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    warmup = check_int("warmup", warmup, minimum=0)
    lr = check_real("lr", lr, low=0.0, high=1.0, low_open=True)
    check_int("seed", seed, minimum=0)
    check_entries("steps", steps)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = SudokuMDM(config).to(device)
    check_entries("batch x 81 x d_ff", batch * 81 * config.d_ff)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)

    def rate(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + np.cos(np.pi * (step - warmup) / max(1, steps - warmup)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, rate)
    losses = np.zeros(steps)
    begin = time.perf_counter()
    for step in range(steps):
        idx = rng.integers(len(puzzles), size=batch)
        p, s = _augment(puzzles[idx], solutions[idx], rng)
        loss = _mdm_loss(model, torch.as_tensor(p).to(device), torch.as_tensor(s).to(device), gen)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses[step] = loss.item()
    elapsed = time.perf_counter() - begin
    return TrainLog(model.eval(), losses, steps * batch / elapsed)


def state_dict_numpy(model: SudokuMDM) -> dict[str, np.ndarray]:
    """The model's weights as numpy arrays (picklable, device-free)."""
    return {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}


def load_model(state: dict, config: MDMConfig = MDMConfig()) -> SudokuMDM:
    """A :class:`SudokuMDM` in eval mode from a state dict (tensors or numpy arrays)."""
    model = SudokuMDM(config)
    model.load_state_dict({k: torch.as_tensor(np.asarray(v)) for k, v in state.items()})
    return model.eval()
