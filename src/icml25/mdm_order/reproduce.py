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
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.mdm_order.adaptive import STRATEGIES
from icml25.mdm_order.claims import HIGH_RATIO, LOSS_FLOOR
from icml25.mdm_order.generate import make_puzzles
from icml25.mdm_order.model import MDMConfig, state_dict_numpy, train_mdm
from icml25.mdm_order.sampling import accuracy, decode, legal_candidates
from icml25.mdm_order.subproblems import order_losses
from icml25.mdm_order.sudoku import search_effort

# Table 2 (6M MDM, Sudoku) and Table 5 (hard Sudoku), % of puzzles solved
PAPER = {"vanilla": 6.88, "top_prob": 18.51, "top_margin": 89.49}
PAPER_HARD = {"vanilla": 3.62, "top_prob": 9.44, "top_margin": 49.88}


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
    replicates: int = 1

    def mdm(self) -> MDMConfig:
        return MDMConfig(self.d_model, self.n_layer, self.n_head, self.d_ff, self.peer_attention)


SCALES = {
    "smoke": Config(model="analytic", pool=4, n_train=0, n_test=100, n_hard=20, n_curve=50,
                    n_orders=50, min_guesses=1),
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


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    outs = [o for _, o in results]
    m: dict[str, float] = {}
    if not outs:
        return Summary(m)

    def mean(key: str) -> float:
        return float(np.mean([o[key] for o in outs]))

    keys = [k for k, v in outs[0].items() if isinstance(v, float | int) and k != "n_params"]
    for k in keys:
        if config.model == "analytic" and k.startswith("decode_seconds"):
            continue  # wall-clock: not at smoke, where runs must repeat exactly
        m[k] = mean(k)
    m["adaptive_over_vanilla"] = m["acc_top_margin"] / max(m["acc_vanilla"], 1 / config.n_test)
    m["margin_minus_prob"] = m["acc_top_margin"] - m["acc_top_prob"]
    m["margin_minus_prob_hard"] = m["acc_hard_top_margin_gumbel"] - m["acc_hard_top_prob_gumbel"]
    m["margin_minus_prob_hard_deterministic"] = m["acc_hard_top_margin"] - m["acc_hard_top_prob"]
    ratios = np.array(config.ratios)
    rand = np.mean([o["loss_random_order"] for o in outs], 0)  # (R,)
    solver = np.mean([o["loss_solver_order"] for o in outs], 0)  # (R,)
    for r, a, b in zip(ratios, rand, solver, strict=True):
        m[f"loss_random_order_r{r:.1f}"] = float(a)
        m[f"loss_solver_order_r{r:.1f}"] = float(b)
    high = ratios >= HIGH_RATIO
    m["loss_ratio_random_over_solver_high"] = float(
        max(rand[high].mean(), LOSS_FLOOR) / max(solver[high].mean(), LOSS_FLOOR)
    )
    m["loss_ratio_vanilla_over_margin"] = max(m["loss_vanilla"], LOSS_FLOOR) / max(
        m["loss_top_margin"], LOSS_FLOOR
    )
    if "train_loss" in outs[0]:
        m["n_params"] = float(outs[0]["n_params"])
        m["train_loss_last50"] = float(np.mean([np.mean(o["train_loss"][-50:]) for o in outs]))
        for s in STRATEGIES:  # puzzles per second of one 50-step decoding
            m[f"decode_puzzles_per_second_{s}"] = config.n_test / m.pop(f"decode_seconds_{s}")
    figures = {"accuracy_by_strategy": _fig_bars(m), "accuracy_vs_steps": _fig_steps(config, m)}
    figures["loss_by_order"] = _fig_orders(ratios, rand, solver)
    if "train_loss" in outs[0]:
        figures["training_loss"] = _fig_train(outs)
    return Summary(m, figures)


def _fig_bars(m: dict) -> Figure:
    fig = Figure(figsize=(7, 3.6))
    ax = fig.subplots()
    x = np.arange(len(STRATEGIES))
    hard = [m[f"acc_hard_{s}_gumbel" if s != "vanilla" else "acc_hard_vanilla"] for s in STRATEGIES]
    bars = (
        ("ours, singles test", [m[f"acc_{s}"] * 100 for s in STRATEGIES]),
        ("paper Table 2", [PAPER[s] for s in STRATEGIES]),
        ("ours, hard (Gumbel 0.5)", [h * 100 for h in hard]),
        ("paper Table 5 (hard)", [PAPER_HARD[s] for s in STRATEGIES]),
    )
    for j, (label, vals) in enumerate(bars):
        ax.bar(x + (j - 1.5) * 0.2, vals, 0.2, label=label, color=f"C{j}")
    ax.set_xticks(x, STRATEGIES)
    ax.set_ylabel("% puzzles solved")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_steps(config: Config, m: dict) -> Figure:
    fig = Figure(figsize=(5, 3.6))
    ax = fig.subplots()
    grid = sorted({*config.step_grid, config.steps})
    for j, s in enumerate(STRATEGIES):
        vals = [m[f"acc_{s}_steps{n}"] if n != config.steps else m[f"acc_{s}"] for n in grid]
        ax.plot(grid, np.array(vals) * 100, "o-", color=f"C{j}", label=s)
    ax.set_xlabel("reverse steps")
    ax.set_ylabel("% puzzles solved")
    ax.set_xscale("log")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_orders(ratios: np.ndarray, rand: np.ndarray, solver: np.ndarray) -> Figure:
    fig = Figure(figsize=(5, 3.6))
    ax = fig.subplots()
    ax.plot(ratios, rand, "o-", label="random order (training masks)")
    ax.plot(ratios, solver, "s-", label="solver's order (next round)")
    ax.axvspan(HIGH_RATIO - 0.05, ratios.max() + 0.05, color="0.9", label="claim (f)")
    ax.set_xlabel("masking ratio (fraction of the blanks masked)")
    ax.set_ylabel("cross-entropy per cell (nats)")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_train(outs: list[dict]) -> Figure:
    fig = Figure(figsize=(5, 3.4))
    ax = fig.subplots()
    for o in outs:
        loss = np.array(o["train_loss"])
        w = max(1, len(loss) // 50)
        ax.plot(np.convolve(loss, np.ones(w) / w, mode="valid"))
    ax.set_xlabel("training step")
    ax.set_ylabel("MDM loss (running mean)")
    fig.tight_layout()
    return fig
