"""Reproduction: STOP against a GCN on a sensor graph under the paper's three shifts.

Data (``data.generate``): ``n_nodes`` sensors on a random geometric graph, hourly steps with
daily periodicity and diffusion; a base period of ``base_days`` and a later period of
``shifted_days`` with changed dynamics. Nodes (``data.node_split``, the official split):
``n / 1.3`` train; the test node set removes 10% of them and adds 10% new ones.
Time: the first ``train_days`` of the base period train (its last ``val_fraction`` selects the
epoch), the rest of the base period is the in-distribution (ID) test period.

Cells: one per (model, replicate): ``stop`` (perturbation and robust loss on),
``stop_plain`` (both off), ``gcn`` (graph convolution on the sensor graph), ``backbone`` (no
context units), ``stop_plain_mixed_heads`` (``stop_plain`` with the official
``Core_Adaptive``'s output reshape, which mixes attention heads across the samples of a batch).
A replicate fixes the data (``Config.data_seed`` and the replicate index), so the models of a
replicate see the same graph, series and split; the cell's seed initialises and trains its
model. Each cell is evaluated on four sets: ID period x {training
nodes, test nodes}, later period x {training nodes, test nodes}. Two more cells per replicate,
``explain_shift`` and ``explain_transductive`` (``explain.py``), train their own models to
compute the diagnostics of the claims.

``Config.diagnostics`` (on at ``smoke`` and ``paper`` scale, off at ``default``) adds the cells
no claim or check rests on: ``backbone``, ``stop_plain_mixed_heads`` and the two ``explain_*``
cells. Without it a replicate has the three cells of the claims, ``CLAIM_MODELS`` (issue 44:
the default's 15 minutes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from icml25.stop_st.data import generate, node_split
from icml25.stop_st.explain import shift_factors, transductive_gcn
from icml25.stop_st.forecaster import STOPForecaster

CELL_THREADS = 1

MODELS = {  # cell name -> (model, perturb, robust)
    "stop": ("stop", True, True),
    "stop_plain": ("stop", False, False),
    "gcn": ("gcn", False, False),
    "backbone": ("backbone", False, False),
    "stop_plain_mixed_heads": ("stop", False, False),
}
MIXED_HEADS = ("stop_plain_mixed_heads",)  # with the official Core_Adaptive's output reshape
EXPLAIN = ("explain_shift", "explain_transductive")
# the models claims (a), (b), (c) and the check shift_is_real are computed from
CLAIM_MODELS = ("stop", "stop_plain", "gcn")


@dataclass(frozen=True)
class Config:
    data_seed: int = 0
    replicates: int = 6
    n_nodes: int = 130
    base_days: int = 36
    train_days: int = 28
    shifted_days: int = 8
    steps_per_day: int = 24
    input_len: int = 12
    horizon: int = 12
    epochs: int = 20
    batch_size: int = 32
    val_fraction: float = 0.15
    model_dim: int = 32
    tod_dim: int = 16
    num_layer: int = 2
    cores: int = 8
    heads: int = 4
    hid_dim: int = 64
    trace_days: int = 3  # forecast traces kept for the figure (replicate 0)
    timing: bool = True
    # the cells behind no claim or check: backbone, stop_plain_mixed_heads, explain_*
    diagnostics: bool = True


SCALES = {
    "smoke": Config(
        replicates=1,
        n_nodes=40,
        base_days=8,
        train_days=6,
        shifted_days=2,
        epochs=2,
        val_fraction=0.2,
        model_dim=16,
        tod_dim=8,
        hid_dim=32,
        trace_days=1,
        timing=False,
    ),
    # the cells of the claims only: 18 cells, about 675 s of cell time (the committed run's
    # stop, stop_plain and gcn cells), against 1,821 s with the diagnostic cells (issue 44)
    "default": Config(diagnostics=False),
    # the official sizes (model_dim 64, prompt_dim 32, 3 layers, 8 heads x 8 cores, hid_dim
    # 256) and a longer series and training; not run here
    "paper": Config(
        n_nodes=520,
        base_days=120,
        train_days=90,
        shifted_days=30,
        epochs=100,
        model_dim=64,
        tod_dim=32,
        num_layer=3,
        heads=8,
        hid_dim=256,
    ),
}


def cell_models(config: Config) -> tuple[str, ...]:
    """The cell names of one replicate: every model and the explanations with
    ``config.diagnostics``, else the claims' models."""
    return (*MODELS, *EXPLAIN) if config.diagnostics else CLAIM_MODELS


def cells(config: Config) -> list[dict]:
    models = cell_models(config)
    return [{"model": m, "replicate": r} for r in range(config.replicates) for m in models]


def _data(config: Config, replicate: int):
    rng = np.random.default_rng([config.data_seed, replicate])
    periods = generate(
        config.n_nodes,
        config.base_days,
        config.shifted_days,
        rng,
        steps_per_day=config.steps_per_day,
    )
    return periods, node_split(config.n_nodes, rng)


def make_forecaster(config: Config, name: str, seed: int) -> STOPForecaster:
    """The untrained estimator of model ``name`` (a key of ``MODELS``) at ``config``'s sizes."""
    model, perturb, robust = MODELS[name]
    return STOPForecaster(
        model,
        input_len=config.input_len,
        horizon=config.horizon,
        steps_per_day=config.steps_per_day,
        epochs=config.epochs,
        batch_size=config.batch_size,
        perturb=perturb,
        robust=robust,
        val_fraction=config.val_fraction,
        seed=seed % 2**31,
        model_dim=config.model_dim,
        tod_dim=config.tod_dim,
        num_layer=config.num_layer,
        cores=config.cores,
        heads=config.heads,
        hid_dim=config.hid_dim,
        mix_heads_across_batch=name in MIXED_HEADS,
    )


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    periods, split = _data(config, cell["replicate"])
    if cell["model"] in EXPLAIN:

        def make(name: str, s: int) -> STOPForecaster:
            return make_forecaster(config, name, s)

        if cell["model"] == "explain_shift":
            return {
                "shift_factors": shift_factors(
                    config, cell["replicate"], periods, split, make, seed
                )
            }
        return {"transductive_gcn": transductive_gcn(config, periods, split, make, seed)}
    forecaster = make_forecaster(config, cell["model"], seed)
    t_train = config.train_days * config.steps_per_day
    graph = periods.graph
    begin = time.perf_counter()
    forecaster.fit(periods.base[:t_train, split.train], graph.subgraph(split.train))
    seconds = time.perf_counter() - begin
    out = {
        "train_seconds": seconds,
        "val": np.array(forecaster.history_["val"]),
        "drop_prob": forecaster.history_["drop_prob"],  # (N_train,) final drop probabilities
    }
    periods_by_name = {
        "id": (periods.base[t_train:], t_train),
        "shift": (periods.shifted, periods.shifted_start),
    }
    for period, (series, start) in periods_by_name.items():
        for nodes_name, nodes in (("train", split.train), ("test", split.test)):
            pred, truth = forecaster.rolling(series[:, nodes], graph.subgraph(nodes), start)
            err = np.abs(pred - truth)  # (W, H, N)
            out[f"{period}_{nodes_name}_by_horizon"] = err.mean((0, 2))  # (H,)
            if nodes_name == "test":
                new = slice(len(nodes) - len(split.new), None)
                out[f"{period}_new_by_horizon"] = err[..., new].mean((0, 2))
                out[f"{period}_kept_by_horizon"] = err[..., : len(nodes) - len(split.new)].mean(
                    (0, 2)
                )
                if cell["replicate"] == 0 and period == "id":
                    steps = config.trace_days * config.steps_per_day
                    node = len(nodes) - len(split.new)  # the first new node
                    out["trace_h1"] = pred[:steps, 0, node]
                    out["trace_hlast"] = pred[:steps, -1, node]
                    out["trace_truth"] = series[:, nodes][
                        : steps + config.input_len + config.horizon, node
                    ]
    return out
