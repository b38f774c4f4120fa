"""Reproduction: token ordering in masked diffusion on Sudoku (Kim et al., ICML 2025).

One cell = one model, trained and evaluated (cells are independent, so the evaluation must
live with the training; the trained weights are returned in the cell's output and kept in its
record under ``runs/mdm_order/<scale>/cells/``):

1. data from our generator: ``n_train`` puzzles solved by singles (the paper trains on puzzles a
   solver finishes without backtracking), a held-out test set of ``n_test`` such puzzles, and
   ``n_hard`` unique puzzles whose solver search needs at least ``min_guesses`` guesses (the
   "hard" split, Table 5), each with its difficulty (``search_effort``);
2. the model: at ``smoke`` the analytic model (uniform over each cell's legal digits), no
   training; otherwise :class:`~icml25.mdm_order.model.SudokuMDM` trained with the MDM loss;
3. accuracy (every cell right) of ``vanilla``, ``top_prob``, ``top_margin`` with ``steps``
   reverse steps: on the test split deterministic (claims a-c; the official Gumbel noise
   beside), on the hard split with the official code's Gumbel noise ``gumbel`` (claim d) and
   deterministic beside, and the analytic model on the same hard puzzles;
4. check (e): teacher-forced decoding with the planner's order (the chosen cells filled with
   the answer) and the model's cross-entropy on each cell at the step it is chosen: the mean
   over the cells random order picks against the mean over those top_margin picks;
5. claim (f): the loss per cell on random-order masks and on the solver's next cells at each
   masking ratio of ``ratios`` (:func:`~icml25.mdm_order.subproblems.order_losses`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from icml25.mdm_order.adaptive import STRATEGIES
from icml25.mdm_order.generate import make_puzzles
from icml25.mdm_order.model import MDMConfig, state_dict_numpy, train_mdm
from icml25.mdm_order.sampling import accuracy, decode, legal_candidates
from icml25.mdm_order.subproblems import order_losses
from icml25.mdm_order.sudoku import search_effort


@dataclass(frozen=True)
class Config:
    model: str = "trained"  # or "analytic": uniform over legal digits, no training
    givens: tuple[int, int] = (30, 36)
    pool: int = 64  # solver-drawn full grids, each output a random symmetry of one
    n_train: int = 4000
    n_test: int = 300
    n_hard: int = 200
    min_guesses: int = 2  # hard split: the solver's search needs at least this many guesses
    n_curve: int = 100  # test puzzles for the variants and the teacher-forced loss of (e)
    n_orders: int = 200  # test puzzles for the loss on random vs solver's order (f)
    ratios: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    d_model: int = 96
    n_layer: int = 3
    n_head: int = 4
    d_ff: int = 384
    peer_attention: bool = True
    train_steps: int = 2000
    batch: int = 64
    lr: float = 2e-3
    warmup: int = 50
    device: str = "cpu"
    steps: int = 50
    step_grid: tuple[int, ...] = (10,)
    gumbel: float = 0.5  # the official code's stochastic top-K scale, for (d) and beside (a)
    replicates: int = 3  # trained models: the claims' replicates

    def mdm(self) -> MDMConfig:
        return MDMConfig(self.d_model, self.n_layer, self.n_head, self.d_ff, self.peer_attention)


SCALES = {
    "smoke": Config(model="analytic", pool=4, n_train=0, n_test=100, n_hard=20, n_curve=50,
                    n_orders=50, min_guesses=1, replicates=1),
    "default": Config(),
    "paper": Config(pool=512, n_train=100_000, n_test=2000, n_hard=1000, n_curve=1000,
                    n_orders=1000, d_model=384, n_layer=3, n_head=12, d_ff=1536,
                    peer_attention=False, train_steps=60_000, batch=128, lr=1e-3, warmup=1000,
                    device="cuda", step_grid=(5, 10, 20)),
}  # fmt: skip
CELL_THREADS = 1


def cells(config: Config) -> list[dict]:
    return [{"part": config.model, "replicate": r} for r in range(config.replicates)]


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    s_train, s_test, s_hard, s_fit, s_dec = np.random.SeedSequence(seed).generate_state(5)
    test_p, test_s = make_puzzles(config.n_test, config.givens, "singles", s_test, config.pool)
    hard_p, hard_s = make_puzzles(
        config.n_hard, config.givens, "hard", s_hard, config.pool, config.min_guesses
    )
    guesses = search_effort(hard_p)  # (n_hard,) the solver's search on each hard puzzle
    out: dict = {"givens_test": float((test_p > 0).sum(1).mean())}
    out.update(
        givens_hard=float((hard_p > 0).sum(1).mean()),
        guesses_hard_mean=float(guesses.mean()),
        guesses_hard_median=float(np.median(guesses)),
        guesses_test_max=float(search_effort(test_p).max()),
    )
    if config.model == "analytic":
        model = legal_candidates
    else:
        train_p, train_s = make_puzzles(
            config.n_train, config.givens, "singles", s_train, config.pool
        )
        log = train_mdm(
            train_p, train_s, config=config.mdm(), steps=config.train_steps,
            batch=config.batch, lr=config.lr, warmup=config.warmup, seed=int(s_fit),
            device=config.device,
        )  # fmt: skip
        model = log.model
        out.update(
            train_loss=log.loss.tolist(),
            train_puzzles_per_second=log.puzzles_per_second,
            n_params=sum(p.numel() for p in model.parameters()),
            state_dict=state_dict_numpy(model),
        )
    seed_dec = int(s_dec)
    curve_p, curve_s = test_p[: config.n_curve], test_s[: config.n_curve]
    for strategy in STRATEGIES:
        begin = time.perf_counter()
        grids = decode(test_p, model, strategy, config.steps, seed_dec).grids
        out[f"decode_seconds_{strategy}"] = time.perf_counter() - begin
        out[f"acc_{strategy}"] = accuracy(grids, test_s)
        for n in config.step_grid:
            grids = decode(curve_p, model, strategy, n, seed_dec).grids
            out[f"acc_{strategy}_steps{n}"] = accuracy(grids, curve_s)
        noises = (0.0,) if strategy == "vanilla" else (0.0, config.gumbel)
        for g in noises:  # the hard split, deterministic and with the official noise
            tag = "_gumbel" if g > 0 else ""
            grids = decode(hard_p, model, strategy, config.steps, seed_dec, g).grids
            solved = (grids == hard_s).all(1)
            out[f"acc_hard_{strategy}{tag}"] = float(solved.mean())
            out[f"guesses_solved_hard_{strategy}{tag}"] = float(guesses[solved].mean()) if (
                solved.any()) else 0.0  # fmt: skip
            if config.model != "analytic":  # the analytic model on the same puzzles
                grids = decode(hard_p, legal_candidates, strategy, config.steps, seed_dec, g)
                out[f"acc_hard_analytic_{strategy}{tag}"] = accuracy(grids.grids, hard_s)
            if g > 0:
                grids = decode(curve_p, model, strategy, config.steps, seed_dec, g).grids
                out[f"acc_{strategy}_gumbel"] = accuracy(grids, curve_s)
        if strategy != "top_prob":
            forced = decode(curve_p, model, strategy, config.steps, seed_dec, 0.0, curve_s)
            out[f"loss_{strategy}"] = float(np.nanmean(forced.loss))
            steps = forced.step[forced.step >= 0]
            per_step = np.bincount(steps, forced.loss[forced.step >= 0], config.steps)
            out[f"loss_by_step_{strategy}"] = (per_step / np.maximum(
                np.bincount(steps, minlength=config.steps), 1)).tolist()  # fmt: skip
    random_loss, solver_loss = order_losses(
        model, test_p[: config.n_orders], test_s[: config.n_orders], config.ratios, seed_dec
    )
    out.update(loss_random_order=random_loss.tolist(), loss_solver_order=solver_loss.tolist())
    return out
