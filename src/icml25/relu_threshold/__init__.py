"""Simplicity bias and the optimization threshold in two-layer ReLU networks
(Boursier & Flammarion, ICML 2025).

One data set, numpy in and out:

>>> from icml25.relu_threshold import ReLUNet
>>> net = ReLUNet(width=200, scale=1e-3, lr=0.05, steps=40_000).fit(X, y)  # doctest: +SKIP
>>> net.predict(X_new)                                      # doctest: +SKIP

Many independent runs at once, along a leading ``runs`` axis:

>>> from icml25.relu_threshold import balanced_init, linear_data, train, ols
>>> X, y = linear_data(n=256, runs=5)                       # (5, 256, 4), (5, 256)
>>> W, a = balanced_init(runs=5, m=200, d=4, scale=1e-3)
>>> run = train(W, a, X, y, lr=0.05, steps=20_000)          # doctest: +SKIP
"""

from icml25.relu_threshold.model import ReLUNet
from icml25.relu_threshold.network import (
    BETA_STAR,
    Training,
    balanced_init,
    direction_concentration,
    forward,
    linear_data,
    loss_and_gradients,
    ols,
    record_schedule,
    train,
)

__all__ = [
    "BETA_STAR",
    "ReLUNet",
    "Training",
    "balanced_init",
    "direction_concentration",
    "forward",
    "linear_data",
    "loss_and_gradients",
    "ols",
    "record_schedule",
    "train",
]
