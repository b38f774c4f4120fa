"""Learning classifiers from selectively labelled data with multiple decision-makers
(Chen, Li & Mao, ICML 2025; arXiv 2306.07566). Official code: Zhehao97/Learning-Selective-Labels.

>>> from icml25.selective_iv import ERMClassifier, UCLClassifier, simulate
>>> data = simulate(3000, "nucem", 0.5, 0.5, seed=0)
>>> y = data.Y.astype(float)
>>> y[data.D == 0] = float("nan")  # labels are seen only where the decision was positive
>>> ucl = UCLClassifier("partial", random_state=0).fit(data.X, y, data.D, data.Z)
>>> ucl.predict(data.X[:4]).shape, ucl.weights_.shape
((4,), (3000, 3))
"""

from icml25.selective_iv.classifiers import (
    ERMClassifier,
    UCLClassifier,
    WeakInstrumentWarning,
    default_nuisance,
)
from icml25.selective_iv.identification import (
    clip_upper_quantile,
    first_stage_slope,
    level_first_stage_slope,
    partial_identification_bounds,
    partial_weights,
    point_identified_eta,
    point_weights,
    wald_denominator,
)
from icml25.selective_iv.learner import scores, train_scores
from icml25.selective_iv.nuisance import fit_conditional_mean, folds, level_moments, point_moments
from icml25.selective_iv.simulation import SelectiveData, simulate

__all__ = [
    "ERMClassifier",
    "SelectiveData",
    "UCLClassifier",
    "WeakInstrumentWarning",
    "clip_upper_quantile",
    "default_nuisance",
    "first_stage_slope",
    "fit_conditional_mean",
    "folds",
    "level_first_stage_slope",
    "level_moments",
    "partial_identification_bounds",
    "partial_weights",
    "point_identified_eta",
    "point_moments",
    "point_weights",
    "scores",
    "simulate",
    "train_scores",
    "wald_denominator",
]
