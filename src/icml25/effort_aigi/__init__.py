"""Effort: orthogonal subspace decomposition for generalisable AI-generated image detection (Yan
et al., ICML 2025). Every chosen ``nn.Linear`` keeps its top singular directions frozen and
trains a rank-r residual; the feature space stays high-ranked.

>>> import torch
>>> from icml25.effort_aigi import apply_effort, count_trainable, effort_regularizer
>>> model = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
>>> model = apply_effort(model, target="0", rank=1)  # the first layer; the rest is frozen
>>> count_trainable(model)  # rank * (out + in + 1)
11
"""

from icml25.effort_aigi.convergence import ConvergenceRule
from icml25.effort_aigi.data import GENERATORS, digits, quantise
from icml25.effort_aigi.detect import METHODS, Detector, build_detector, fine_tune
from icml25.effort_aigi.lora import LoRALinear, apply_lora
from icml25.effort_aigi.rank import (
    effective_rank,
    entropy_effective_rank,
    feature_spectrum,
    pca_rank,
)
from icml25.effort_aigi.svd_residual import (
    SVDResidualLinear,
    apply_effort,
    count_trainable,
    effort_layers,
    effort_regularizer,
    select_linears,
)
from icml25.effort_aigi.vit import TinyViT

__all__ = [
    "GENERATORS",
    "METHODS",
    "ConvergenceRule",
    "Detector",
    "LoRALinear",
    "SVDResidualLinear",
    "TinyViT",
    "apply_effort",
    "apply_lora",
    "build_detector",
    "count_trainable",
    "digits",
    "effective_rank",
    "effort_layers",
    "effort_regularizer",
    "entropy_effective_rank",
    "feature_spectrum",
    "fine_tune",
    "pca_rank",
    "quantise",
    "select_linears",
]
