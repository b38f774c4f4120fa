"""Reproduction: zigzag persistence across the layers of a sentence encoder (Gardinazzi et al.).

Model: all-MiniLM-L6-v2 (6 blocks, 7 representations with the embeddings), mean-pooled token
states; prompts: 4 families x 100 from :mod:`icml25.zigzag_layers.prompts`; k = 5 neighbours,
flag complexes up to triangles (exact H0, H1), FastZigzag via dionysus. Cells:

- ``check``: random small zigzags (points drifting over 3-6 layers, k in 2..4, simplices up to
  dimension 2 or 3); FastZigzag's barcode against the plain zigzag algorithm's, bar for bar in
  stage units (claim a), and the Betti numbers read off the barcode at every layer against
  GUDHI's static homology of that layer's complex (claim b);
- ``layers``: the zigzag of all prompts: descriptors and figures, the Betti check on every
  layer (claim b), the pruning rule on H1 against the angular-distance rule and against every
  choice of the same number of blocks (the exact mean of a uniformly random choice), scored by
  a linear probe of the prompt family on the pruned model's sentence embedding and by its
  cosine agreement with the full model's (claim d);
- ``sensitivity``: every family split into random halves; descriptor distance
  ``||PHSim_1(A) - PHSim_1(B)||_F / n`` between halves of two families and between the two
  halves of one family (claim c).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from icml25.common.optional import load_minilm
from icml25.zigzag_layers.barcode import zigzag_barcode
from icml25.zigzag_layers.descriptors import (
    betti_curves,
    birth_relative_frequency,
    persistence_image,
    persistence_matrix,
    static_betti,
)
from icml25.zigzag_layers.filtration import zigzag_filtration
from icml25.zigzag_layers.prompts import build_prompts
from icml25.zigzag_layers.pruning import angular_prune, layer_scores, prune_layers
from icml25.zigzag_layers.representations import final_embeddings, layer_representations
from icml25.zigzag_layers.toy_encoder import ToyEncoder

# MiniLM's forward passes on small batches: one thread per cell
CELL_THREADS = 1


@dataclass(frozen=True)
class Config:
    model: str = "minilm"  # "minilm", "toy" (smoke), or a local Hugging Face model path
    pooling: str = "mean"
    families: tuple[str, ...] = ("docstring", "code", "cooking", "sport")
    per_family: int = 100
    k: int = 5
    max_dim: int = 2
    method: str = "fast"
    check_cells: int = 5
    check_per_cell: int = 10
    sensitivity_replicates: int = 5
    sensitivity_sizes: tuple[int, ...] = (100, 250)  # prompts per family; the claim reads the last
    remove_counts: tuple[int, ...] = (1, 2)
    probe_folds: int = 5


SCALES = {
    "smoke": Config(
        model="toy",
        families=("docstring", "cooking", "sport"),
        per_family=30,
        check_cells=1,
        check_per_cell=4,
        sensitivity_replicates=1,
        sensitivity_sizes=(30,),
        remove_counts=(1,),
        probe_folds=3,
    ),
    "default": Config(),
    # the paper's setting on a decoder given by a local path (ICML25_ZIGZAG_MODEL), last token,
    # flag complexes up to dimension 4 as in the official code, ~10% and ~20% of the blocks
    "paper": Config(
        model=os.environ.get("ICML25_ZIGZAG_MODEL", "minilm"),
        pooling="last" if "ICML25_ZIGZAG_MODEL" in os.environ else "mean",
        families=("docstring", "code", "cooking", "sport", "travel", "weather"),
        per_family=250,
        max_dim=4,
        check_cells=10,
        check_per_cell=20,
        sensitivity_replicates=10,
        sensitivity_sizes=(250, 1000),
        remove_counts=(1, 2, 3),
    ),
}


def cells(config: Config) -> list[dict]:
    check = [{"part": "check", "batch": i} for i in range(config.check_cells)]
    sens = [
        {"part": "sensitivity", "per_family": size, "replicate": r}
        for size in config.sensitivity_sizes
        for r in range(config.sensitivity_replicates)
    ]
    return check + [{"part": "layers"}] + sens


@lru_cache(maxsize=2)
def _model(name: str):
    if name == "toy":
        return ToyEncoder(n_blocks=6, dim=32, seed=0)
    if name == "minilm":
        return load_minilm()
    return name  # a local model path, loaded by layer_representations


@lru_cache(maxsize=4)
def _prompts_and_reps(config: Config, per_family: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Texts, labels (n,) and representations (L + 1, n, d), computed once per process."""
    texts, labels = build_prompts(config.families, per_family)
    reps = layer_representations(_model(config.model), texts, config.pooling)
    return texts, labels, reps


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    if cell["part"] == "check":
        return _check(config, rng)
    if cell["part"] == "sensitivity":
        return _sensitivity(config, cell["per_family"], rng)
    return _layers(config, rng)


def random_zigzag_points(rng: np.random.Generator) -> tuple[np.ndarray, int, int]:
    """Points drifting across layers (L, n, 3), a k and a top simplex dimension."""
    L, n = int(rng.integers(3, 7)), int(rng.integers(10, 26))
    steps = rng.normal(scale=0.6, size=(L, n, 3))
    steps[0] = rng.normal(size=(n, 3))
    return np.cumsum(steps, axis=0), int(rng.integers(2, 5)), int(rng.integers(2, 4))


def _betti_disagreements(filtration, bars: np.ndarray, hom_max: int) -> int:
    curves = betti_curves(bars, filtration.n_layers, max_dim=hom_max)  # (hom_max + 1, L)
    static = np.stack(
        [static_betti(filtration.layer_simplices(i), hom_max) for i in range(filtration.n_layers)]
    ).T  # (hom_max + 1, L)
    return int(np.sum(curves != static))


def _check(config: Config, rng: np.random.Generator) -> dict:
    mismatches, betti_bad, sizes = 0, 0, []
    for _ in range(config.check_per_cell):
        points, k, max_dim = random_zigzag_points(rng)
        zz = zigzag_filtration(points, k=k, max_dim=max_dim)
        fast = zigzag_barcode(zz, "fast", units="stages")
        plain = zigzag_barcode(zz, "plain", units="stages")
        mismatches += int(fast.shape != plain.shape or np.any(fast != plain))
        bars = zigzag_barcode(zz, config.method)
        betti_bad += _betti_disagreements(zz, bars, hom_max=1)
        sizes.append([zz.n_layers, zz.simplices.shape[0], len(fast)])
    return {"mismatches": mismatches, "betti_bad": betti_bad, "sizes": sizes}


def _descriptor(reps: np.ndarray, config: Config) -> np.ndarray:
    """(L, L) PHSim_1 per prompt: the sensitivity descriptor."""
    zz = zigzag_filtration(reps, k=config.k, max_dim=config.max_dim)
    bars = zigzag_barcode(zz, config.method)
    return persistence_matrix(bars, zz.n_layers, dim=1) / reps.shape[1]


def _sensitivity(config: Config, per_family: int, rng: np.random.Generator) -> dict:
    _, labels, reps = _prompts_and_reps(config, per_family)
    half = per_family // 2
    desc = []  # per family: descriptors of its two halves
    for f in range(len(config.families)):
        idx = rng.permutation(np.flatnonzero(labels == f))
        desc.append([_descriptor(reps[:, part], config) for part in (idx[:half], idx[half:])])
    within = [float(np.linalg.norm(a - b)) for a, b in desc]
    between = {
        f"{i}-{j}": float(np.linalg.norm(desc[i][0] - desc[j][0]))
        for i, j in itertools.combinations(range(len(desc)), 2)
    }
    return {"within": within, "between": between}


def _probe_accuracy(X: np.ndarray, y: np.ndarray, folds: int, seed: int) -> float:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    split = StratifiedKFold(folds, shuffle=True, random_state=seed)
    return float(cross_val_score(LogisticRegression(max_iter=2000), X, y, cv=split).mean())


def _layers(config: Config, rng: np.random.Generator) -> dict:
    texts, labels, reps = _prompts_and_reps(config, config.per_family)
    model = _model(config.model)
    L = reps.shape[0]  # representations = blocks + 1
    zz = zigzag_filtration(reps, k=config.k, max_dim=config.max_dim)
    bars = zigzag_barcode(zz, config.method)
    betti_bad = _betti_disagreements(zz, bars, hom_max=1)
    scores = layer_scores(bars, L, dim=1)
    blocks = np.arange(L - 1)  # representation i + 1 is the output of block i
    probe_seed = int(rng.integers(2**31))
    full = final_embeddings(model, texts, config.pooling)  # (n, d)
    evaluated: dict[tuple[int, ...], tuple[float, float]] = {}

    def evaluate(drop: tuple[int, ...]) -> tuple[float, float]:
        if drop not in evaluated:
            emb = final_embeddings(model, texts, config.pooling, drop_blocks=drop)
            cosine = float(np.mean(np.sum(emb * full, axis=1)))
            evaluated[drop] = (_probe_accuracy(emb, labels, config.probe_folds, probe_seed), cosine)
        return evaluated[drop]

    pruning = {}
    for n in config.remove_counts:
        picked = prune_layers(bars, L, fraction=n / (L - 1), candidates=blocks + 1)
        zig = tuple(int(i) - 1 for i in picked)
        ang = tuple(int(i) - 1 for i in angular_prune(reps, n))
        rand = [evaluate(c) for c in itertools.combinations(range(L - 1), n)]
        pruning[str(n)] = {
            "zigzag_blocks": list(zig),
            "angular_blocks": list(ang),
            "zigzag": evaluate(zig),
            "angular": evaluate(ang),
            "random_mean": np.mean(rand, axis=0).tolist(),
            "random_all": rand,
        }
    return {
        "n_prompts": len(texts),
        "n_simplices": int(zz.simplices.shape[0]),
        "betti_bad": betti_bad,
        "full_probe": _probe_accuracy(full, labels, config.probe_folds, probe_seed),
        "scores": scores.tolist(),
        "betti": betti_curves(bars, L, max_dim=1).tolist(),
        "phsim": persistence_matrix(bars, L, dim=1).tolist(),
        "birth_frequency": birth_relative_frequency(bars, L, dim=1).tolist(),
        "image": persistence_image(bars, L, dim=1).tolist(),
        "bars": bars.tolist(),
        "pruning": pruning,
    }
