"""Reproduction: a GPT trained on "intent to win" Othello games makes legal moves out of
distribution when its attention encodes a causal structure with high confidence.

One cell per training run: generate greedy-with-noise 6x6 games, train the GPT, then read it
on two sets of prefixes, one prefix of random length per game: in-distribution (held-out games
of the same generator) and out-of-distribution (uniformly random legal games). For each prefix
the method of ``causal_discovery`` turns the last layer's head-averaged attention over the
prefix's move tokens into a correlation matrix, learns an ordered causal structure, and scores
it (stand-in confidence). ``summarize`` bins the OOD prefixes by confidence quintile and
compares the confidence's AUC for "the top-1 move is legal" with the model's top probability
and the attention entropy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from icml25.common.transformer import Transformer, TransformerConfig
from icml25.gpt_causal.causal_discovery import (
    attention_correlation,
    ordered_causal_discovery,
    structural_confidence,
)
from icml25.gpt_causal.gpt import VOCAB, prefix_readouts, train_gpt
from icml25.gpt_causal.othello import play_games

# one thread per cell: the machine is shared, and a rerun must give equal numbers
CELL_THREADS = 1


@dataclass(frozen=True)
class Config:
    train_games: int = 30000
    val_games: int = 500  # validation loss during training
    id_games: int = 2000  # held-out greedy games: in-distribution prefixes
    ood_games: int = 5000  # uniformly random legal games: out-of-distribution prefixes
    epsilon: float = 0.1  # the greedy player's exploration rate
    min_prefix: int = 5  # prefixes have min_prefix .. (game length - 1) moves
    n_layer: int = 3
    n_head: int = 4
    n_embd: int = 64
    steps: int = 5000
    batch_size: int = 128
    lr: float = 3e-3
    eval_every: int = 250
    alpha: float = 0.01  # CI-test threshold
    max_cond_size: int = 2
    layer: int = -1  # attention layer read by the method
    runs: tuple[str, ...] = ("main",)
    length_bins: tuple[int, ...] = (5, 10, 15, 20, 25, 32)
    timing: bool = True  # wall-clock measurements in the summary (off at smoke: they never repeat)


SCALES = {
    "smoke": Config(
        train_games=400,
        val_games=50,
        id_games=100,
        ood_games=150,
        n_layer=1,
        n_head=2,
        n_embd=32,
        steps=40,
        batch_size=32,
        eval_every=10,
        max_cond_size=1,
        timing=False,
    ),
    "default": Config(),
    # the paper's model is GPT-2-like (8 layers, 8 heads, 512 wide in Othello-GPT) on 8x8
    # games; the board stays 6x6 here, the network and the budget grow
    "paper": Config(
        train_games=200000, n_layer=8, n_head=8, n_embd=512, steps=50000, max_cond_size=3
    ),
}


def cells(config: Config) -> list[dict]:
    return [{"run": run} for run in config.runs]


def _prefix_lengths(moves: np.ndarray, minimum: int, rng: np.random.Generator) -> np.ndarray:
    """One prefix length per game, uniform in [minimum, game length - 1]: (n,)."""
    n_moves = (moves >= 0).sum(axis=1)
    return rng.integers(minimum, np.maximum(n_moves, minimum + 1))


def _discover(attention: list[np.ndarray], config: Config) -> dict:
    """Per prefix (its own ordered search): structural confidence, edges, tests, structure."""
    confidence = np.empty(len(attention))
    edges = np.empty(len(attention), dtype=np.int64)
    tests = np.empty(len(attention), dtype=np.int64)
    structures = []
    start = time.perf_counter()
    for g, A in enumerate(attention):
        corr = attention_correlation(A[1:])  # move tokens m_1..m_t (rows), all columns
        s = ordered_causal_discovery(corr, config.n_embd, config.alpha, config.max_cond_size)
        confidence[g] = structural_confidence(s, config.alpha)
        edges[g], tests[g] = s.adjacency.sum(), s.log_pvalues.size
        structures.append(s.adjacency)
    seconds = time.perf_counter() - start
    return {
        "confidence": confidence,
        "edges": edges,
        "tests": tests,
        "structures": structures,
        "discovery_seconds": seconds,
    }


def _read(model, moves, legal, config: Config, rng: np.random.Generator, control=None) -> dict:
    """Legal-move outcome, baselines and structural confidence per prefix; with ``control``
    (an untrained network) also the confidence read from its attention on the same prefixes."""
    lengths = _prefix_lengths(moves, config.min_prefix, rng)  # (n,)
    out = prefix_readouts(model, moves, lengths, layer=config.layer)
    is_legal = legal[np.arange(len(moves)), lengths, out["prediction"]]  # (n,)
    found = _discover(out["attention"], config)
    result = {
        "lengths": lengths,
        "legal": is_legal,
        "top_probability": out["top_probability"],
        "attention_entropy": out["attention_entropy"],
        **found,
    }
    if control is not None:
        untrained = prefix_readouts(control, moves, lengths, layer=config.layer)["attention"]
        result["control_confidence"] = _discover(untrained, config)["confidence"]
    return result


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    train, _ = play_games(config.train_games, rng, "greedy", config.epsilon)
    val, _ = play_games(config.val_games, rng, "greedy", config.epsilon)
    id_moves, id_legal = play_games(config.id_games, rng, "greedy", config.epsilon)
    ood_moves, ood_legal = play_games(config.ood_games, rng, "random")
    t1 = time.perf_counter()
    net = TransformerConfig(
        vocab_size=VOCAB,
        block_size=train.shape[1],
        n_layer=config.n_layer,
        n_head=config.n_head,
        n_embd=config.n_embd,
    )
    model, curves = train_gpt(
        train,
        val,
        net,
        steps=config.steps,
        batch_size=config.batch_size,
        lr=config.lr,
        seed=seed,
        eval_every=config.eval_every,
    )
    t2 = time.perf_counter()
    ind = _read(model, id_moves, id_legal, config, rng)
    # control: the same prefixes read through the attention of the untrained network
    ood = _read(model, ood_moves, ood_legal, config, rng, control=Transformer(net, seed=seed))
    t3 = time.perf_counter()
    examples = _examples(ood, ood_moves)
    for part in (ind, ood):
        del part["structures"]
    return {
        "id": ind,
        "ood": ood,
        "curves": curves,
        "examples": examples,
        "generate_seconds": t1 - t0,
        "train_seconds": t2 - t1,
        "read_seconds": t3 - t2,
    }


def _examples(ood: dict, moves: np.ndarray) -> dict:
    """Two OOD prefixes of 10 to 14 moves for the structure figure: the most confident one
    with a legal prediction and the least confident one with an illegal prediction."""
    length_ok = (ood["lengths"] >= 10) & (ood["lengths"] <= 14)
    out = {}
    for name, want, pick in (
        ("confident_legal", True, np.argmax),
        ("unsure_illegal", False, np.argmin),
    ):
        idx = np.flatnonzero(length_ok & (ood["legal"] == want))
        if len(idx) == 0:
            continue
        g = int(idx[pick(ood["confidence"][idx])])
        out[name] = {
            "moves": moves[g, : ood["lengths"][g]],
            "adjacency": ood["structures"][g],
            "confidence": float(ood["confidence"][g]),
        }
    return out
