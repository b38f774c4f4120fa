"""Real models for the weak-to-strong experiment: feature extractors on scikit-learn's digits.

The paper's real experiments take frozen features of pretrained models of different sizes
(ResNets, DINOv2, ...) and fine-tune linear heads on a downstream task. At CPU scale and with no
download we build the same structure from the 8 x 8 digits bundled with scikit-learn:

- pretraining task: classify digits 0-4 (901 images); downstream task: digits 5-9 (896 images),
  five classes regressed as one-hot vectors, classes the models never saw;
- models, named ``kind:width:seed``: ``pixels`` (the raw 64 pixels: a linear model),
  ``random:W:s`` (an untrained one-hidden-layer ReLU network of width W), ``mlp:W:s`` and
  ``mlp:WxW:s`` (ReLU networks with one or two hidden layers of width W, pretrained on digits
  0-4 with scikit-learn's ``MLPClassifier``); the features are the last hidden layer's
  activations on the downstream images.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier

PRETRAIN_CLASSES = (0, 1, 2, 3, 4)


def digits_split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X_pre, y_pre, X_task, y_task)``: pixels in [0, 1]; task labels 0-4 for digits 5-9."""
    X, y = load_digits(return_X_y=True)
    X = X / 16.0  # (1797, 64)
    pre = np.isin(y, PRETRAIN_CLASSES)
    return X[pre], y[pre], X[~pre], y[~pre] - len(PRETRAIN_CLASSES)


def parse_model(name: str) -> tuple[str, tuple[int, ...], int]:
    """``"mlp:128x128:1"`` -> ``("mlp", (128, 128), 1)``; ``"pixels"`` -> ``("pixels", (), 0)``."""
    if name == "pixels":
        return "pixels", (), 0
    parts = name.split(":")
    if len(parts) != 3 or parts[0] not in ("random", "mlp"):
        raise ValueError(f"model must be 'pixels', 'random:W:s' or 'mlp:W[xW]:s', got {name!r}")
    widths = tuple(int(w) for w in parts[1].split("x"))
    if parts[0] == "random" and len(widths) != 1:
        raise ValueError(f"a random model has one hidden layer, got {name!r}")
    return parts[0], widths, int(parts[2])


def model_features(
    name: str, X_pre: np.ndarray, y_pre: np.ndarray, X_task: np.ndarray, max_iter: int = 300
) -> tuple[np.ndarray, float]:
    """(m, width) features of model ``name`` on ``X_task``, and its pretraining accuracy.

    Deterministic given the name (its seed is part of it); ``max_iter`` bounds the pretraining
    epochs of ``mlp`` models (Adam, scikit-learn defaults otherwise).
    """
    kind, widths, seed = parse_model(name)
    if kind == "pixels":
        return X_task.copy(), float("nan")
    if kind == "random":
        rng = np.random.default_rng(seed)
        W = rng.standard_normal((X_task.shape[1], widths[0])) / np.sqrt(X_task.shape[1])
        b = 0.5 * rng.standard_normal(widths[0])
        return np.maximum(X_task @ W + b, 0.0), float("nan")
    net = MLPClassifier(hidden_layer_sizes=widths, max_iter=max_iter, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        net.fit(X_pre, y_pre)
    H = X_task
    for W, b in zip(net.coefs_[:-1], net.intercepts_[:-1], strict=True):
        H = np.maximum(H @ W + b, 0.0)  # (m, width) ReLU activations
    return H, float(net.score(X_pre, y_pre))
