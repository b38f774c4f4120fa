"""STOP: a spatio-temporal OOD processor with centralised context units, message perturbation
and a robust loss (Ma et al., *Robust Spatio-Temporal Centralized Interaction for OOD
Learning*, ICML 2025), with a GCN baseline and a sensor-graph generator with shifts.

>>> import numpy as np
>>> from icml25.stop_st import STOPForecaster, generate, node_split
>>> periods = generate(60, base_days=10, shifted_days=2, rng=np.random.default_rng(0))
>>> f = STOPForecaster("stop", input_len=12, horizon=12, steps_per_day=24, epochs=2)
>>> f.fit(periods.base[:, :50]).predict(12, history=periods.base[-24:, 50:]).shape
(12, 10)
"""

from icml25.stop_st.data import (
    NodeSplit,
    Periods,
    SensorGraph,
    diffusion_matrix,
    generate,
    node_split,
    random_geometric_graph,
    simulate,
    smooth_field,
)
from icml25.stop_st.forecaster import STOPForecaster
from icml25.stop_st.model import (
    GCN,
    MODELS,
    STOP,
    Backbone,
    BackboneForecaster,
    ContextUnits,
    ModelConfig,
    SeriesDecomp,
    normalized_adjacency,
)
from icml25.stop_st.training import (
    MessagePerturbation,
    TrainConfig,
    robust_loss,
    train_model,
    windows,
)

__all__ = [
    "GCN",
    "MODELS",
    "STOP",
    "Backbone",
    "BackboneForecaster",
    "ContextUnits",
    "MessagePerturbation",
    "ModelConfig",
    "NodeSplit",
    "Periods",
    "STOPForecaster",
    "SensorGraph",
    "SeriesDecomp",
    "TrainConfig",
    "diffusion_matrix",
    "generate",
    "node_split",
    "normalized_adjacency",
    "random_geometric_graph",
    "robust_loss",
    "simulate",
    "smooth_field",
    "train_model",
    "windows",
]
