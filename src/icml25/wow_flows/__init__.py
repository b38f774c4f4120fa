"""WoW gradient flows of labelled datasets (Bonet, Vauthier & Korba, *Flowing Datasets with
Wasserstein over Wasserstein Gradient Flows*, ICML 2025).

>>> from icml25.wow_flows import flow, mmd_wow, sliced_wasserstein, rings
>>> source, target, _ = rings()  # (3, 80, 2) each
>>> res = flow(source, target, kernel="riesz", steps=501, lr=0.1, seed=0)  # doctest: +SKIP
>>> mmd_wow(res.final, target, "riesz")  # doctest: +SKIP
"""

from icml25.wow_flows.datasets import digits_split, from_classes, rings, thicken, to_classes
from icml25.wow_flows.flow import FlowResult, flow
from icml25.wow_flows.kernels import (
    KERNELS,
    SWKernel,
    gaussian_kernel,
    get_kernel,
    imq_kernel,
    laplace_kernel,
    riesz_kernel,
)
from icml25.wow_flows.mmd import mmd_wow
from icml25.wow_flows.sliced import quantile_grid, random_projections, sliced_wasserstein
from icml25.wow_flows.wow import match_classes, w2_squared_matrix, wow_distance

__all__ = [
    "KERNELS",
    "FlowResult",
    "SWKernel",
    "digits_split",
    "flow",
    "from_classes",
    "gaussian_kernel",
    "get_kernel",
    "imq_kernel",
    "laplace_kernel",
    "match_classes",
    "mmd_wow",
    "quantile_grid",
    "random_projections",
    "riesz_kernel",
    "rings",
    "sliced_wasserstein",
    "thicken",
    "to_classes",
    "w2_squared_matrix",
    "wow_distance",
]
