"""Reproduction: DeFoG on trees, planar graphs and SBMs (Qin, Madeira et al., ICML 2025).

One cell = one family: the data (train / validation / test split), one model trained, then
every sampler setting applied to that one model (claim (d) hashes its weights before and
after):

1. the default sampler (identity distortion, ``eta = omega = 0``) at ``short_steps`` (50) and
   ``long_steps`` (500) and at every count of ``step_grid``;
2. the tuned sampler (polydec, ``omega = 0.05``, ``eta`` from ``eta_grid`` = {0, 10, 50}
   chosen by V.U.N. of ``n_val`` graphs generated with another seed, novelty against the
   training split) at the same step counts;
3. an Erdős–Rényi baseline with the training density and node counts;
4. V.U.N., degree / clustering / spectral MMD^2 against the test split (orbit MMD at default);
   the mean rate of each sampler term over time; a few graphs for the figure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import networkx as nx
import numpy as np

from icml25.defog.data import planar_graphs, sbm_graphs, tree_graphs
from icml25.defog.metrics import (
    clustering_mmd,
    degree_mmd,
    is_valid,
    orbit_mmd,
    spectral_mmd,
)
from icml25.defog.metrics import vun as _vun
from icml25.defog.model import ModelConfig
from icml25.defog.sampler import sample
from icml25.defog.train import DeFoGConfig, fit

CELL_THREADS = 1
FAMILIES = ("tree", "planar", "sbm")


@dataclass(frozen=True)
class Config:
    n_nodes: int = 16  # trees and planar graphs
    sbm_blocks: tuple[int, int] = (2, 3)
    sbm_block_sizes: tuple[int, int] = (6, 10)
    n_train: int = 200
    n_val: int = 40
    n_test: int = 40
    n_generate: int = 100
    n_tune: int = 50  # graphs generated per eta on the validation seed
    short_steps: int = 50
    long_steps: int = 500
    step_grid: tuple[int, ...] = (10, 50, 500)
    eta_grid: tuple[float, ...] = (0.0, 10.0, 50.0)
    omega: float = 0.05
    tuned_distortion: str = "polydec"
    model: ModelConfig = ModelConfig()
    train_steps: int = 3000
    batch_size: int = 32
    lr: float = 1e-3
    tree_train_distortion: str = "polydec"  # as the official tree config; others identity
    orbit: bool = True
    timing: bool = True  # wall-clock measurements (off at smoke, where runs must repeat)
    n_show: int = 8


SCALES = {
    "smoke": Config(n_nodes=8, sbm_blocks=(2, 2), sbm_block_sizes=(4, 5), n_train=16, n_val=8,
                    n_test=8, n_generate=8, n_tune=4, short_steps=3, long_steps=6,
                    step_grid=(3, 6), train_steps=15,
                    model=ModelConfig(n_layers=1, dx=16, de=4, dy=8, n_heads=2, dim_ff_x=32,
                                      dim_ff_e=8, rrwp_steps=4),
                    batch_size=8, orbit=False, timing=False, n_show=4),
    "default": Config(),
    "paper": Config(n_nodes=64, sbm_blocks=(2, 5), sbm_block_sizes=(20, 40), n_train=128,
                    n_val=32, n_test=40, n_generate=40, n_tune=40, short_steps=50,
                    long_steps=1000, step_grid=(5, 10, 50, 100, 1000), train_steps=300_000,
                    model=ModelConfig(n_layers=10, dx=256, de=64, dy=64, n_heads=8,
                                      dim_ff_x=512, dim_ff_e=128, rrwp_steps=12),
                    batch_size=64, lr=2e-4),
}  # fmt: skip


def cells(config: Config) -> list[dict]:
    return [{"family": f} for f in ("sbm", "tree", "planar")]  # the slowest first


def sbm_params(config: Config) -> dict:
    """The SBM validity test with our generator's parameters (not SPECTRE's 20-40 nodes)."""
    return {"p_intra": 0.3, "p_inter": 0.05, "block_sizes": config.sbm_block_sizes,
            "n_blocks": config.sbm_blocks}  # fmt: skip


def family_graphs(config: Config, family: str, n: int, seed: int) -> list[nx.Graph]:
    if family == "tree":
        return tree_graphs(n, config.n_nodes, seed)
    if family == "planar":
        return planar_graphs(n, config.n_nodes, seed)
    graphs = sbm_graphs(n, seed, blocks=config.sbm_blocks, block_sizes=config.sbm_block_sizes)
    return _strip(graphs)


def _strip(graphs):
    """Plain graphs (the planted block labels are not given to the model)."""
    out = []
    for g in graphs:
        h = nx.Graph()
        h.add_nodes_from(range(g.number_of_nodes()))
        h.add_edges_from(g.edges)
        out.append(h)
    return out


def erdos_renyi(sizes, density: float, seed: int) -> list[nx.Graph]:
    rng = np.random.default_rng(seed)
    return [nx.gnp_random_graph(int(n), density, seed=int(rng.integers(2**31))) for n in sizes]


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    family = cell["family"]
    s_data, s_fit, s_tune, s_gen, s_er = (
        int(s) for s in np.random.SeedSequence(seed).generate_state(5)
    )
    data = family_graphs(config, family, config.n_train + config.n_val + config.n_test, s_data)
    train = data[: config.n_train]
    test = data[config.n_train + config.n_val :]
    params = sbm_params(config) if family == "sbm" else {}

    def vun(graphs, training, family):
        return _vun(graphs, training, family, **params)

    out_valid = float(np.mean([is_valid(g, family, **params) for g in test]))
    fit_config = DeFoGConfig(
        model=config.model, train_steps=config.train_steps,
        batch_size=config.batch_size, lr=config.lr, seed=s_fit % 2**31,
        train_distortion=config.tree_train_distortion if family == "tree" else "identity",
    )  # fmt: skip
    model = fit(train, fit_config)
    hash_before = model.weights_hash()
    out: dict = {"weights_hash": hash_before, "train_loss": model.loss}
    out["valid_test"] = out_valid
    if config.timing:
        out["train_seconds"] = model.train_seconds

    def run(steps, distortion, eta, omega, n, s, trace=None):
        begin = time.perf_counter()
        graphs = sample(model, n, steps=steps, distortion=distortion, eta=eta, omega=omega,
                        seed=s, trace=trace)  # fmt: skip
        return graphs, time.perf_counter() - begin

    # eta chosen on the validation seed, by V.U.N. (novelty against the training split)
    tune = {}
    trace: dict = {}
    for eta in config.eta_grid:
        graphs, _ = run(config.short_steps, config.tuned_distortion, eta, config.omega,
                        config.n_tune, s_tune % 2**31, trace if eta == 10.0 else None)  # fmt: skip
        tune[eta] = vun(graphs, train, family)
    eta_star = max(config.eta_grid, key=lambda e: (tune[e], -e))
    out["eta_star"] = eta_star
    out["tune_vun"] = {str(k): v for k, v in tune.items()}
    out["rate_trace"] = trace
    steps_all = sorted({*config.step_grid, config.short_steps, config.long_steps})
    settings = {
        "default": ("identity", 0.0, 0.0),
        "tuned": (config.tuned_distortion, eta_star, config.omega),
    }
    s_eval = s_gen % 2**31
    for name, (distortion, eta, omega) in settings.items():
        for steps in steps_all:
            graphs, seconds = run(steps, distortion, eta, omega, config.n_generate, s_eval)
            out[f"vun_{name}_{steps}"] = vun(graphs, train, family)
            if config.timing:
                out[f"sample_seconds_{name}_{steps}"] = seconds
            if steps in (config.short_steps, config.long_steps):
                tag = "short" if steps == config.short_steps else "long"
                out.update(_mmds(graphs, test, f"{tag}_{name}", config.orbit))
                if name == "default" and tag == "long":
                    out["show_generated"] = [list(g.edges) for g in graphs[: config.n_show]]
                    out["show_sizes"] = [g.number_of_nodes() for g in graphs[: config.n_show]]
    sizes = np.random.default_rng(s_er).choice(
        [g.number_of_nodes() for g in train], config.n_generate
    )
    density = float(np.mean([nx.density(g) for g in train]))
    er = erdos_renyi(sizes, density, s_er)
    out.update(_mmds(er, test, "er", config.orbit))
    out["vun_er"] = vun(er, train, family)
    out["show_train"] = [list(g.edges) for g in train[: config.n_show]]
    out["show_train_sizes"] = [g.number_of_nodes() for g in train[: config.n_show]]
    out["weights_hash_after"] = model.weights_hash()
    return out


def _mmds(graphs, reference, tag, orbit) -> dict:
    out = {
        f"degree_mmd_{tag}": degree_mmd(graphs, reference),
        f"clustering_mmd_{tag}": clustering_mmd(graphs, reference),
        f"spectral_mmd_{tag}": spectral_mmd(graphs, reference),
    }
    if orbit:
        out[f"orbit_mmd_{tag}"] = orbit_mmd(graphs, reference)
    return out
