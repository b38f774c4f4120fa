"""Weak-to-strong generalization through intrinsic dimension (Dong et al., ICML 2025).

Dong, Li, Li, Lee & Lei, *Discrepancies are Virtue: Weak-to-Strong Generalization through Lens
of Intrinsic Dimension* (arXiv 2502.05075).

>>> from icml25.w2s_intrinsic import w2s_risks, simulate_w2s
>>> theory = w2s_risks(d_s=20, d_w=40, d_sw=8, n=100, N=400)  # closed forms, sigma = 1
>>> round(float(theory.w2s), 3), round(float(theory.pgr), 3)
(0.164, 0.808)
>>> sim = simulate_w2s(20, 40, 8, n=100, N=[400, 1000], trials=200, seed=0)
>>> sim.w2s.shape  # (trials, len(N))
(200, 2)
"""

from icml25.w2s_intrinsic.dimensions import (
    correlation_dimension,
    feature_dimensions,
    intrinsic_dimension,
    match_feature_dim,
    principal_subspace,
    sample_subspace,
)
from icml25.w2s_intrinsic.probe import (
    W2SProbe,
    predicted_pgr,
    principal_coordinates,
    w2s_linear_probe,
)
from icml25.w2s_intrinsic.simulate import W2SCurves, W2SSimulation, simulate_w2s, subspace_pair
from icml25.w2s_intrinsic.theory import W2SRisks, w2s_risks

__all__ = [
    "W2SCurves",
    "W2SProbe",
    "W2SRisks",
    "W2SSimulation",
    "correlation_dimension",
    "feature_dimensions",
    "intrinsic_dimension",
    "match_feature_dim",
    "predicted_pgr",
    "principal_coordinates",
    "principal_subspace",
    "sample_subspace",
    "simulate_w2s",
    "subspace_pair",
    "w2s_linear_probe",
    "w2s_risks",
]
