"""APT: zero-shot tabular classification with an adversarially pre-trained transformer and a
mixture block (Wu & Bergman, *Zero-shot Meta-learning for Tabular Prediction Tasks with
Adversarially Pre-trained Transformer*, ICML 2025).

>>> from sklearn.datasets import load_iris
>>> from icml25.apt_tabular import APTClassifier
>>> X, y = load_iris(return_X_y=True)
>>> clf = APTClassifier().fit(X[::2], y[::2])  # stores the context; no gradient step
>>> clf.predict_proba(X[1::2]).shape
(75, 3)
"""

from icml25.apt_tabular.classifier import APTClassifier, default_weights
from icml25.apt_tabular.model import APT, MixtureBlock, ModelConfig
from icml25.apt_tabular.pretrain import (
    PretrainConfig,
    load_model,
    pretrain,
    read_weights,
    save_weights,
)
from icml25.apt_tabular.prior import DataMaker, make_batch, quantile_classes, synthetic_task

__all__ = [
    "APT",
    "APTClassifier",
    "DataMaker",
    "MixtureBlock",
    "ModelConfig",
    "PretrainConfig",
    "default_weights",
    "load_model",
    "make_batch",
    "pretrain",
    "quantile_classes",
    "read_weights",
    "save_weights",
    "synthetic_task",
]
