"""OmniBal: omni-dimensional compute balance for vision-language model training (ICML 2025).

>>> import numpy as np
>>> from icml25.omnibal import synthetic_lengths, isf, random_batches, balance_metrics
>>> v, t = synthetic_lengths(10_000, np.random.default_rng(0))
>>> ours = isf(v, t, vit_max=13, llm_max=4416, iterations=50, n_ranks=8)
>>> balance_metrics(ours, v, t, llm_max=4416)["language_imbalance"]  # doctest: +SKIP
"""

from icml25.omnibal.balance import (
    Batches,
    assign_steps,
    first_fit_decreasing,
    full_groups,
    greedy_fill,
    isf,
    random_batches,
)
from icml25.omnibal.data import synthetic_lengths
from icml25.omnibal.distributed import Layout, idle_at_allreduce, run_data_parallel
from icml25.omnibal.metrics import balance_metrics, group_loads, step_imbalance
from icml25.omnibal.model import TinyVLM, VLBatch, VLMConfig, make_batch
from icml25.omnibal.partition import (
    LayerCosts,
    Memory,
    Plan,
    brute_force_partition,
    equal_layer_partition,
    evaluate,
    param_balanced_partition,
    search_partition,
)
from icml25.omnibal.pipeline import Schedule, data_parallel_steps, one_f_one_b
from icml25.omnibal.profile import LayerProfile, profile
from icml25.omnibal.recompute import adaptive_recompute, stage_memory
from icml25.omnibal.search import IsfArguments, search_arguments

__all__ = [
    "Batches",
    "IsfArguments",
    "LayerCosts",
    "LayerProfile",
    "Layout",
    "Memory",
    "Plan",
    "Schedule",
    "TinyVLM",
    "VLBatch",
    "VLMConfig",
    "adaptive_recompute",
    "assign_steps",
    "balance_metrics",
    "brute_force_partition",
    "data_parallel_steps",
    "equal_layer_partition",
    "evaluate",
    "first_fit_decreasing",
    "full_groups",
    "greedy_fill",
    "group_loads",
    "idle_at_allreduce",
    "isf",
    "make_batch",
    "one_f_one_b",
    "param_balanced_partition",
    "profile",
    "random_batches",
    "run_data_parallel",
    "search_arguments",
    "search_partition",
    "stage_memory",
    "step_imbalance",
    "synthetic_lengths",
]
