"""The diagnostics behind the README's explanations of (a), (b) and (c), run as the
``explain_shift`` and ``explain_transductive`` cells of ``icml25 run stop_st``, one of each per
replicate. A cell trains its own models on the replicate's data (seeds drawn from the cell's
seed) and evaluates them where the reproduction's cells do not:

- ``shift_factors``: later periods that change one factor of the generator at a time (phase,
  level and amplitude, diffusion and pulses; and none, a control), for claim (b); all 30
  unseen sensors as new nodes instead of 10, for claim (a); and plain STOP trained twice with
  two seeds, the seed-to-seed noise against which claim (c)'s gain is read;
- ``transductive_gcn``: the GCN with one learned embedding per training node (as the
  adaptive-graph baselines of the paper have), new nodes getting the mean embedding, for (a).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import nn

from icml25.stop_st.data import NodeSplit, Periods, random_geometric_graph, simulate, smooth_field
from icml25.stop_st.forecaster import STOPForecaster
from icml25.stop_st.model import GCN, ModelConfig, _normalized_adjacency
from icml25.stop_st.training import TrainConfig, predict_windows, train_model

if TYPE_CHECKING:
    from icml25.stop_st.reproduce import Config

# builds the untrained forecaster of a model of ``reproduce.MODELS`` with a seed
Factory = Callable[[str, int], STOPForecaster]

# the models of ``shift_factors``: name -> (model of ``reproduce.MODELS``, which of two seeds)
SHIFT_MODELS = {
    "stop": ("stop", 0),
    "stop_plain": ("stop_plain", 0),
    "gcn": ("gcn", 0),
    "stop_plain_seed2": ("stop_plain", 1),
}


def _single_factor_periods(
    config: Config, replicate: int, periods: Periods
) -> dict[str, np.ndarray]:
    """Later periods changing one factor each, on the replicate's graph and fields (redrawn
    in ``generate``'s order from the replicate's generator)."""
    rng = np.random.default_rng([config.data_seed, replicate])
    graph = random_geometric_graph(config.n_nodes, rng)
    pos = graph.positions
    level = 5.0 + smooth_field(pos, rng)
    amplitude = 1.5 + 0.5 * smooth_field(pos, rng)
    phase = 1.5 * smooth_field(pos, rng)
    steps = config.shifted_days * config.steps_per_day
    noise = np.random.default_rng([99, replicate])
    extra_level = smooth_field(pos, np.random.default_rng([98, replicate]))

    def run(**changes):
        fields = dict(level=level, amplitude=amplitude, phase=phase)
        fields.update(changes)
        return simulate(graph, steps, noise, steps_per_day=config.steps_per_day, **fields)

    return {
        "none": run(),
        "phase": run(phase=phase + 0.8),
        "level_amplitude": run(level=level + 0.6 * extra_level, amplitude=amplitude * 1.3),
        "diffusion_pulses": run(alpha=0.85, pulse_rate=0.02),
        "all": periods.shifted,
    }


def shift_factors(
    config: Config, replicate: int, periods: Periods, split: NodeSplit, make: Factory, seed: int
) -> dict[str, dict[str, float]]:
    """MAE (training nodes) of STOP, plain STOP (two seeds) and the GCN on the ID period and
    on each single-factor later period, and their MAE on the kept and new nodes with 10% and
    30% new nodes: ``{model of SHIFT_MODELS: {set: MAE}}``. ``periods`` and ``split`` are the
    replicate's data; ``make`` builds the forecasters."""
    graph = periods.graph
    variants = _single_factor_periods(config, replicate, periods)
    t_train = config.train_days * config.steps_per_day
    unseen = np.setdiff1d(np.arange(config.n_nodes), split.train)
    kept = split.test[: len(split.test) - len(split.new)]
    seeds = np.random.SeedSequence(seed).generate_state(2)  # (2,) the two training seeds
    out = {}
    for label, (name, which) in SHIFT_MODELS.items():
        f = make(name, int(seeds[which]))
        f.fit(periods.base[:t_train, split.train], graph.subgraph(split.train))

        def mae(series, nodes, start, f=f):
            pred, truth = f.rolling(series[:, nodes], graph.subgraph(nodes), start)
            return np.abs(pred - truth).mean((0, 1))  # (N,)

        res = {"id": float(mae(periods.base[t_train:], split.train, t_train).mean())}
        for variant, series in variants.items():
            res[f"later_{variant}"] = float(mae(series, split.train, 0).mean())
        for share, nodes in (("10", split.test), ("30", np.concatenate([kept, unseen]))):
            err = mae(periods.base[t_train:], nodes, t_train)
            res[f"new{share}"] = float(err[len(kept) :].mean())
            res[f"kept{share}"] = float(err[: len(kept)].mean())
        out[label] = res
    return out


class TransductiveGCN(GCN):
    """The GCN plus a learned embedding per training node added to ``h``; ``index`` (N,)
    maps the current nodes to embeddings, ``-1`` (a new node) to their mean."""

    def __init__(self, cfg: ModelConfig, n_train: int):
        super().__init__(cfg)
        self.node_emb = nn.Parameter(0.1 * torch.randn(n_train, cfg.hidden))
        self.index = torch.arange(n_train)

    def forward(self, x, tod, adjacency=None, **_):
        a_hat = _normalized_adjacency(adjacency)  # (N, N)
        emb = torch.cat([self.node_emb, self.node_emb.mean(0, keepdim=True)])
        h = self.embed(x, tod) + emb[self.index]  # (B, N, F)
        for layer in self.layers:
            h = h + layer.fc(torch.einsum("nm,bmf->bnf", a_hat, h))
        return self.regression(h).transpose(1, 2)


def transductive_gcn(
    config: Config, periods: Periods, split: NodeSplit, make: Factory, seed: int
) -> dict[str, float]:
    """MAE of the transductive GCN on the kept and the new nodes of the ID period."""
    graph = periods.graph
    t_train = config.train_days * config.steps_per_day
    y = periods.base[:t_train, split.train]
    mean, std = y.mean(), y.std()

    def scaled(a):
        return torch.as_tensor((a - mean) / std, dtype=torch.float32)

    def adjacency(nodes):
        return torch.as_tensor(graph.subgraph(nodes), dtype=torch.float32)

    n_val = int(len(y) * config.val_fraction)
    cfg = make("gcn", 0).model_config
    with torch.random.fork_rng():
        torch.manual_seed(seed % 2**31)
        model = TransductiveGCN(cfg, len(split.train))
        train_model(
            model,
            scaled(y[:-n_val]),
            TrainConfig(epochs=config.epochs, batch_size=config.batch_size),
            seed % 2**31,
            adjacency=adjacency(split.train),
            val_series=scaled(y[-n_val:]),
            val_t0=t_train - n_val,
        )
    position = {node: i for i, node in enumerate(split.train)}
    model.index = torch.tensor([position.get(n, -1) for n in split.test])
    series = scaled(periods.base[t_train:, split.test])
    starts = torch.arange(len(series) - cfg.input_len - cfg.horizon + 1)
    pred, truth = predict_windows(model, series, starts, t_train, adjacency(split.test))
    err = (pred - truth).abs().mean((0, 1)).numpy() * std  # (N,)
    k = len(split.test) - len(split.new)
    return {"new10": float(err[k:].mean()), "kept10": float(err[:k].mean())}
