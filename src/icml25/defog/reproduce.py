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
from matplotlib.figure import Figure

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
from icml25.lab.reproduction import Summary

CELL_THREADS = 1
FAMILIES = ("tree", "planar", "sbm")
# Table 1 of the paper (V.U.N. %, 1000 steps) and the 50-step numbers of Fig. 3 (verify)
PAPER_VUN = {"tree": 96.5, "planar": 99.5, "sbm": 90.0}


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


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    by = {cell["family"]: out for cell, out in results}
    m: dict[str, float] = {}
    short, long_ = config.short_steps, config.long_steps
    gains, gaps, same = [], [], []
    for f, o in by.items():
        for key, value in o.items():
            if key.startswith(("vun_", "valid_", "degree_", "clustering_", "spectral_", "orbit_")):
                m[f"{key}_{f}"] = float(value)
        m[f"vun_long_default_{f}"] = float(o[f"vun_default_{long_}"])
        m[f"vun_short_default_{f}"] = float(o[f"vun_default_{short}"])
        m[f"vun_short_tuned_{f}"] = float(o[f"vun_tuned_{short}"])
        m[f"eta_star_{f}"] = float(o["eta_star"])
        gain = o[f"vun_tuned_{short}"] - o[f"vun_default_{short}"]
        gap = o[f"vun_default_{long_}"] - o[f"vun_tuned_{short}"]
        m[f"tuned_gain_short_{f}"], m[f"gap_long_default_minus_tuned_short_{f}"] = gain, gap
        gains.append(gain)
        gaps.append(gap)
        er = max(o["degree_mmd_er"], 1e-12)
        m[f"degree_mmd_ratio_to_er_{f}"] = float(o["degree_mmd_long_default"] / er)
        m[f"train_loss_last100_{f}"] = float(np.mean(o["train_loss"][-100:]))
        same.append(o["weights_hash"] == o["weights_hash_after"])
        if config.timing:
            m[f"train_seconds_{f}"] = float(o["train_seconds"])
    m["n_families_tuned_gain_ge_10pts"] = float(sum(g >= 0.10 - 1e-9 for g in gains))
    m["max_gap_default_long_minus_tuned_short"] = float(max(gaps))
    m["same_weights_all_settings"] = float(all(same))
    if config.timing:
        outs = list(by.values())
        m["train_seconds_mean"] = float(np.mean([o["train_seconds"] for o in outs]))
        for name, steps in (("short_default", short), ("long_default", long_)):
            secs = np.mean([o[f"sample_seconds_default_{steps}"] for o in outs])
            m[f"sample_seconds_{name}"] = float(secs)
    figures = {
        "vun_vs_steps": _fig_steps(config, by),
        "graphs": _fig_graphs(by),
        "sampler_rates": _fig_rates(by),
        "training_loss": _fig_loss(by),
    }
    captions = {
        "vun_vs_steps": "V.U.N. against the number of sampling steps, default sampler "
        "(identity, eta = omega = 0) and tuned sampler (polydec, omega = 0.05, eta chosen on "
        "validation), one trained model per family.",
        "graphs": "Training graphs (top row of each family) and graphs generated with the "
        "default sampler at the long step count (bottom row).",
        "sampler_rates": "Mean rate out of the current state per edge variable, for each term "
        "of the rate matrix (R*, eta R^DB, R^TG), polydec, eta = 10, omega = 0.05, short steps.",
        "training_loss": "Training loss (node CE + 5 x edge CE), running mean.",
    }
    return Summary(m, figures, captions)


def _fig_steps(config, by) -> Figure:
    fig = Figure(figsize=(10, 3.2))
    axes = fig.subplots(1, len(by))
    steps_all = sorted({*config.step_grid, config.short_steps, config.long_steps})
    for ax, (f, o) in zip(np.atleast_1d(axes), by.items(), strict=True):
        for j, name in enumerate(("default", "tuned")):
            vals = [100 * o[f"vun_{name}_{s}"] for s in steps_all]
            label = name if name == "default" else f"tuned (eta = {o['eta_star']:g})"
            ax.plot(steps_all, vals, "o-", color=f"C{j}", label=label)
        ax.axhline(PAPER_VUN[f], color="gray", ls=":", label="paper, 1000 steps (64 nodes)")
        ax.set_xscale("log")
        ax.set_title(f)
        ax.set_xlabel("sampling steps")
        ax.set_ylim(-2, 102)
        ax.legend(fontsize=6)
    np.atleast_1d(axes)[0].set_ylabel("V.U.N. (%)")
    fig.tight_layout()
    return fig


def _draw(ax, edges, n):
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(tuple(e) for e in edges)
    pos = nx.spring_layout(g, seed=0)
    nx.draw_networkx(g, pos, ax=ax, node_size=12, with_labels=False, width=0.6)
    ax.set_axis_off()


def _fig_graphs(by) -> Figure:
    k = min(len(o["show_train"]) for o in by.values())
    k = min(k, min(len(o["show_generated"]) for o in by.values()), 6)
    fig = Figure(figsize=(1.4 * k, 1.4 * 2 * len(by)))
    axes = fig.subplots(2 * len(by), k, squeeze=False)
    for r, (f, o) in enumerate(by.items()):
        for c in range(k):
            _draw(axes[2 * r, c], o["show_train"][c], o["show_train_sizes"][c])
            _draw(axes[2 * r + 1, c], o["show_generated"][c], o["show_sizes"][c])
        axes[2 * r, 0].set_title(f"{f}: training", fontsize=7, loc="left")
        axes[2 * r + 1, 0].set_title(f"{f}: generated", fontsize=7, loc="left")
    fig.tight_layout()
    return fig


def _fig_rates(by) -> Figure:
    fig = Figure(figsize=(10, 3.2))
    axes = np.atleast_1d(fig.subplots(1, len(by)))
    for ax, (f, o) in zip(axes, by.items(), strict=True):
        tr = o["rate_trace"]
        for j, (key, label) in enumerate(
            (("R_star", "R*"), ("R_db", "eta R^DB"), ("R_tg", "R^TG"))
        ):
            if tr.get(key):
                ax.plot(tr["t"], tr[key], color=f"C{j}", label=label)
        ax.set_yscale("symlog", linthresh=1e-3)
        ax.set_xlabel("t (distorted)")
        ax.set_title(f)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("mean rate out of x_t per edge")
    fig.tight_layout()
    return fig


def _fig_loss(by) -> Figure:
    fig = Figure(figsize=(5, 3.2))
    ax = fig.subplots()
    for f, o in by.items():
        loss = np.asarray(o["train_loss"])
        w = max(1, len(loss) // 50)
        ax.plot(np.convolve(loss, np.ones(w) / w, mode="valid"), label=f)
    ax.set_xlabel("training step")
    ax.set_ylabel("loss")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
