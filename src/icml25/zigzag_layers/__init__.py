"""Persistent topological features in large language models (Gardinazzi et al., ICML 2025).

Gardinazzi, Viswanathan, Panerai, Ansuini, Cazzaniga & Biagetti, *Persistent Topological
Features in Large Language Models*, ICML 2025. Official code: YuriGardinazzi/conferenceProject.

Prompts' representations at every layer give k-NN flag complexes joined into a zigzag
``K_0 ⊇ K_0 ∩ K_1 ⊆ K_1 ⊇ ...``; its barcode yields descriptors (Betti curves, the inter-layer
persistence matrix, birth frequencies, a persistence image) and a layer-pruning rule.
Needs the ``topology`` extra (dionysus, gudhi); real language models need the ``text`` extra.

>>> import numpy as np
>>> from icml25.zigzag_layers import betti_curves, zigzag_barcode, zigzag_filtration
>>> rng = np.random.default_rng(0)
>>> reps = np.cumsum(rng.normal(size=(4, 30, 3)), axis=0)  # (layers, prompts, dim)
>>> zz = zigzag_filtration(reps, k=3, max_dim=2)
>>> bars = zigzag_barcode(zz)  # (B, 3): dim, birth layer, death layer (exclusive)
>>> betti_curves(bars, 4, max_dim=1).shape
(2, 4)
"""

from icml25.common.optional import load_minilm
from icml25.zigzag_layers.barcode import METHODS, zigzag_barcode
from icml25.zigzag_layers.descriptors import (
    betti_curves,
    birth_relative_frequency,
    persistence_image,
    persistence_matrix,
    static_betti,
)
from icml25.zigzag_layers.filtration import (
    ZigzagFiltration,
    flag_complex,
    knn_edges,
    zigzag_filtration,
)
from icml25.zigzag_layers.prompts import FAMILIES, build_prompts
from icml25.zigzag_layers.pruning import (
    angular_distances,
    angular_prune,
    layer_scores,
    prune_layers,
)
from icml25.zigzag_layers.representations import final_embeddings, layer_representations
from icml25.zigzag_layers.toy_encoder import ToyEncoder

__all__ = [
    "FAMILIES",
    "METHODS",
    "ToyEncoder",
    "ZigzagFiltration",
    "angular_distances",
    "angular_prune",
    "betti_curves",
    "birth_relative_frequency",
    "build_prompts",
    "final_embeddings",
    "flag_complex",
    "knn_edges",
    "layer_representations",
    "layer_scores",
    "load_minilm",
    "persistence_image",
    "persistence_matrix",
    "prune_layers",
    "static_betti",
    "zigzag_barcode",
    "zigzag_filtration",
]
