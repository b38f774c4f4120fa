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

from icml25.common.progress import report_progress
from icml25.common.validate import check_int, check_real
from icml25.mdm_order._checks import check_entries
from icml25.mdm_order.generate import _augment
from icml25.mdm_order.sudoku import BOX, COL, ROW, check_grids


@dataclass(frozen=True)
class MDMConfig:
    """Sizes of :class:`SudokuMDM`.

    The defaults are a small CPU-scale model; ``MDMConfig.paper()`` gives the paper's
    6M-parameter one (``d_model = 384``, ``n_layer = 3``, ``n_head = 12``, ``d_ff = 1536``).

    Parameters
    ----------
    d_model : int, default 128
        Width of the token and position embeddings and of the transformer, a multiple of
        ``n_head``.
    n_layer : int, default 4
        Number of transformer encoder layers, ``>= 1``.
    n_head : int, default 4
        Attention heads per layer, ``>= 1``.
    d_ff : int, default 512
        Hidden width of each feed-forward block, ``>= 1``.
    peer_attention : bool, default False
        When True a cell attends only to itself and its 20 peers (same row, column or box), a
        prior for small CPU runs; False is full bidirectional attention as in the paper.
    """

    d_model: int = 128
    n_layer: int = 4
    n_head: int = 4
    d_ff: int = 512
    peer_attention: bool = False  # attend only to the 20 peers and oneself (a CPU-scale prior)

    @classmethod
    def paper(cls) -> MDMConfig:
        return cls(d_model=384, n_layer=3, n_head=12, d_ff=1536)


class SudokuMDM(nn.Module):
    """Bidirectional transformer that maps partly masked grids to digit logits.

    Input tokens ``(B, 81)`` are 0 for ``[MASK]`` and ``1..9`` for a digit; a cell's position is
    the sum of learned row, column and box embeddings. Pre-norm encoder layers with GELU and no
    dropout, then a layer norm and a linear head, give logits ``(B, 81, 9)`` over the digits
    ``1..9``, the per-cell distributions ``p_theta(x^i | x_t)`` of the reverse process. The time
    ``t`` is not an input.

    Parameters
    ----------
    config : MDMConfig, default MDMConfig()
        The sizes; anything but an :class:`MDMConfig`, a size below 1, or a ``d_model`` that is
        not a multiple of ``n_head`` raises ValueError.
    """

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
    """Compute the masked-diffusion training loss of one batch.

    A time ``t ~ U{0, ..., T - 1}`` is drawn per row and each non-clue cell is masked
    independently with probability ``(t + 1) / T``. The cross-entropy ``l`` of each masked cell
    is reweighted to ``alpha (1 - exp(-l))^gamma l`` and multiplied by the time weight ``T - t``;
    the sum is divided by the number of masked cells (at least 1).

    Parameters
    ----------
    model : SudokuMDM
        The network, called on the masked grids.
    puzzles : torch.Tensor of int64, shape (B, 81)
        The puzzles, entries ``0..9``; their clue cells (non-zero) are never masked.
    solutions : torch.Tensor of int64, shape (B, 81)
        The solutions, entries ``1..9``, same shape as ``puzzles``.
    generator : torch.Generator
        CPU generator of the times and masks (draws are moved to the device of ``solutions``).
    T : int, default 20
        Number of diffusion times, ``>= 1``.
    alpha : float, default 0.25
        Scale of the token reweighting, finite and ``>= 0``.
    gamma : float, default 1.0
        Exponent of the token reweighting, finite and ``>= 0``.

    Returns
    -------
    loss : torch.Tensor
        The scalar loss, differentiable in the model's parameters.

    Raises
    ------
    TypeError
        When ``puzzles`` or ``solutions`` is not an int64 tensor.
    ValueError
        For other shapes, entries out of range, ``T < 1``, or a negative or non-finite ``alpha``
        or ``gamma``.
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
    """What :func:`train_mdm` returns.

    Parameters
    ----------
    model : SudokuMDM
        The trained model, in eval mode.
    loss : ndarray, shape (steps,)
        The training loss of each step.
    puzzles_per_second : float
        Training throughput, ``steps * batch`` over the wall time of the loop.
    """

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
    """Train a :class:`SudokuMDM` with :func:`mdm_loss`.

    AdamW (no weight decay) with a linear warm-up of ``lr`` over ``warmup`` steps, then cosine
    decay to 0 at ``steps``, and gradients clipped to norm 1. Each batch is drawn with replacement
    from the puzzles and given a random Sudoku symmetry
    (:func:`~icml25.mdm_order.generate.augment`). The batches and symmetries come from
    ``numpy.random.default_rng(seed)``, the masks from a torch generator seeded with ``seed``,
    and torch's global seed is set to ``seed`` before the model is built.

    Parameters
    ----------
    puzzles : array_like of int
        Training puzzles as accepted by :func:`~icml25.mdm_order.sudoku.check_grids`, ``(N, 81)``.
    solutions : array_like of int
        Their solutions, same shape, digits ``1..9``, agreeing with the clues.
    config : MDMConfig, default MDMConfig()
        Sizes of the model.
    steps : int, default 1000
        Optimizer steps, ``>= 1``.
    batch : int, default 128
        Puzzles per step, ``>= 1``.
    lr : float, default 1e-3
        Peak learning rate, in ``(0, 1]``.
    warmup : int, default 50
        Steps of linear warm-up, ``>= 0``.
    seed : int, default 0
        Seed of the batches, the masks and the initial weights, ``>= 0``.
    device : str, default "cpu"
        Torch device of the model and the batches.

    Returns
    -------
    TrainLog
        The trained model (eval mode), the loss of each step ``(steps,)`` and the throughput.
    """
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
        report_progress(step, steps)
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
    """Copy a model's weights into numpy arrays.

    Parameters
    ----------
    model : SudokuMDM
        The model; any ``torch.nn.Module`` works.

    Returns
    -------
    state : dict of str to ndarray
        The state dict, detached and on the CPU (picklable, device-free).
    """
    return {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}


def load_model(state: dict, config: MDMConfig = MDMConfig()) -> SudokuMDM:
    """Build a :class:`SudokuMDM` from saved weights.

    Parameters
    ----------
    state : dict
        A state dict whose values are torch tensors or numpy arrays (as from
        :func:`state_dict_numpy`).
    config : MDMConfig, default MDMConfig()
        Sizes of the model the weights were trained with.

    Returns
    -------
    SudokuMDM
        The model with the weights loaded, in eval mode, on the CPU.
    """
    model = SudokuMDM(config)
    model.load_state_dict({k: torch.as_tensor(np.asarray(v)) for k, v in state.items()})
    return model.eval()
