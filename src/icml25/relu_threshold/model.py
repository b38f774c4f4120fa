"""A fit/predict front end: one two-layer ReLU network trained on one data set.

Boursier & Flammarion, "Simplicity bias and optimization threshold in two-layer ReLU
networks", ICML 2025: ``f(x) = sum_j a_j relu(w_j . (x, 1))`` with ``m`` neurons, balanced start
``w_j ~ N(0, (lambda^2 / m) I)``, ``a_j = +-||w_j||``, full-batch gradient descent on
``1/(2n) sum_i (f(x_i) - y_i)^2``. Above the optimization threshold in ``n`` such a network ends
near ordinary least squares rather than interpolating.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(-1, 1, (256, 3))                                   # (n, p)
>>> y = X @ [0.5, -0.3, 0.2] + 1.5 + 0.5 * rng.standard_normal(256)    # (n,)
>>> net = ReLUNet(steps=2000, seed=0).fit(X, y)
>>> net.predict(X[:2]).shape
(2,)
"""

from __future__ import annotations

import numpy as np
import torch

from icml25.common.validate import check_int, check_real
from icml25.relu_threshold.network import (
    _check_size,
    as_runs,
    balanced_init,
    forward,
    train,
)


class ReLUNet:
    """Two-layer ReLU regression network from a small balanced start.

    Parameters
    ----------
    width : int, default 200
        Neurons ``m``, ``>= 1``.
    scale : float, default 1e-3
        Initial scale ``lambda``, ``> 0``; small is the paper's early-alignment regime.
    lr : float, default 0.05
        Step size of full-batch gradient descent, ``> 0``.
    steps : int, default 40_000
        Steps of gradient descent, ``>= 1``.
    seed : int, default 0
        Seed of the torch generator of the start, ``>= 0``.
    bias : bool, default True
        Append a constant input coordinate 1, as in the paper's data.

    Notes
    -----
    After ``fit``: ``W_`` (m, d) and ``a_`` (m,), ``step_`` (K,), ``loss_`` (K,) the training
    loss on the recorded steps, ``concentration_`` (K,) the share of output weight mass on the two
    heaviest neuron directions (``direction_concentration``).

    scikit-learn: ``fit(X, y)`` and ``predict(X)`` as a regressor's, but not a
    ``BaseEstimator`` (no ``get_params``, ``set_params`` or ``clone``; parameters are checked
    when set), so ``check_estimator`` does not apply; use it as an array-in, array-out model.
    """

    def __init__(
        self,
        width: int = 200,
        scale: float = 1e-3,
        lr: float = 0.05,
        steps: int = 40_000,
        seed: int = 0,
        bias: bool = True,
    ):
        self.width = check_int("width", width, minimum=1)
        self.scale = check_real("scale", scale, low=0.0, high=np.inf, low_open=True, high_open=True)
        self.lr = check_real("lr", lr, low=0.0, high=np.inf, low_open=True, high_open=True)
        self.steps = check_int("steps", steps, minimum=1)
        self.seed = check_int("seed", seed, minimum=0)
        if not isinstance(bias, bool):
            raise TypeError(f"bias must be True or False, got {bias!r}")
        self.bias = bias

    def _inputs(self, X, name: str = "X") -> torch.Tensor:
        X = as_runs(name, X, "(n, p)")  # (n, p)
        if self.bias:
            X = torch.cat([X, torch.ones(X.shape[0], 1, dtype=torch.float64)], dim=1)
        return X  # (n, d)

    def fit(self, X, y) -> ReLUNet:
        """Train on ``X`` (n, p) and ``y`` (n,), numpy arrays or torch tensors."""
        X = self._inputs(X)
        y = as_runs("y", y, "(n,)")
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y must have shape (n,) = ({X.shape[0]},) as X, got {tuple(y.shape)}")
        _check_size("width * d", self.width * X.shape[1])
        generator = torch.Generator().manual_seed(self.seed)
        W, a = balanced_init(1, self.width, X.shape[1], self.scale, generator=generator)
        run = train(W, a, X.unsqueeze(0), y.unsqueeze(0), lr=self.lr, steps=self.steps)
        self.W_, self.a_ = run.W[0], run.a[0]  # (m, d), (m,)
        self.step_, self.loss_ = run.step, run.loss[:, 0]
        self.concentration_ = run.concentration[:, 0]
        return self

    def predict(self, X) -> np.ndarray:
        """``f(x)`` for the rows of ``X`` (n, p): a numpy array (n,)."""
        if not hasattr(self, "W_"):
            raise RuntimeError("ReLUNet.predict needs fit first")
        X = self._inputs(X)
        if X.shape[1] != self.W_.shape[1]:
            raise ValueError(
                f"X must have {self.W_.shape[1] - self.bias} columns as in fit, "
                f"got {X.shape[1] - self.bias}"
            )
        return forward(self.W_[None], self.a_[None], X[None])[0].numpy()
