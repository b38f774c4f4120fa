"""DeFoG: discrete flow matching for graph generation (Qin, Madeira et al., ICML 2025).

Qin, Madeira, Thanou & Frossard, *DeFoG: Discrete Flow Matching for Graph Generation*,
ICML 2025 (official code: manuelmlmadeira/DeFoG). Nodes and edges are noised independently
along ``p_t(x | x_1) = t delta(x, x_1) + (1 - t) p_0(x)``; a graph transformer learns
``p_theta(x_1 | G_t)`` by cross-entropy; a CTMC with rate ``R* + eta R^DB + R^TG`` carries
noise to graphs, and its number of steps, time distortion, stochasticity ``eta`` and target
guidance ``omega`` are chosen after training.

>>> from icml25.defog import DeFoGConfig, fit, sample, tree_graphs
>>> model = fit(tree_graphs(8, 6, seed=0), DeFoGConfig(train_steps=5))
>>> graphs = sample(model, 4, steps=5, distortion="polydec", eta=10.0, omega=0.05, seed=0)
>>> all(g.number_of_nodes() == 6 for g in graphs)
True
"""

from icml25.defog.data import GraphDataset, planar_graphs, sbm_graphs, tree_graphs
from icml25.defog.generator import DeFoG
from icml25.defog.metrics import (
    clustering_mmd,
    degree_mmd,
    is_valid,
    novelty,
    orbit_counts,
    orbit_mmd,
    spectral_mmd,
    uniqueness,
    vun,
)
from icml25.defog.model import GraphTransformer, ModelConfig, rrwp
from icml25.defog.noise import DISTORTIONS, NOISES, distort, dt_p_t, limit_distribution, p_t
from icml25.defog.sampler import euler_step_probs, rate_matrices, sample, to_networkx
from icml25.defog.train import DeFoGConfig, DeFoGModel, fit

__all__ = [
    "DISTORTIONS",
    "NOISES",
    "DeFoG",
    "DeFoGConfig",
    "DeFoGModel",
    "GraphDataset",
    "GraphTransformer",
    "ModelConfig",
    "clustering_mmd",
    "degree_mmd",
    "distort",
    "dt_p_t",
    "euler_step_probs",
    "fit",
    "is_valid",
    "limit_distribution",
    "novelty",
    "orbit_counts",
    "orbit_mmd",
    "p_t",
    "planar_graphs",
    "rate_matrices",
    "rrwp",
    "sample",
    "sbm_graphs",
    "spectral_mmd",
    "to_networkx",
    "tree_graphs",
    "uniqueness",
    "vun",
]
