"""The score model ``f(x)`` of the official code: one linear layer followed by a ReLU,
``f(x) = ReLU(x A^T + c)`` ``(n, K)``, trained full-batch by Adam (torch). The ReLU (official
``SimpleClassifier``) can zero every score of a unit (a tie, predicted as the first class);
``output_relu=False`` gives the plain linear scores ``x A^T + c``.

Two losses (Chen, Li & Mao, ICML 2025; as in the official code):

- ``cost``: the UCL surrogate ``mean_i sum_k W_k(x_i) softmax_k(f(x_i))``, a smooth stand-in
  for ``sum_k W_k 1{argmax f = k}`` (official: ``exploss``, lr 0.005, 200 epochs);
- ``labels``: weighted cross-entropy ``mean_i w_i CE(f(x_i), y_i)`` for the ERM baselines
  (official: lr 0.01, 200 epochs).
"""

from __future__ import annotations

import math

import numpy as np
import torch


def train_scores(
    X: np.ndarray,
    *,
    cost: np.ndarray | None = None,
    labels: np.ndarray | None = None,
    sample_weight: np.ndarray | None = None,
    n_classes: int,
    output_relu: bool = True,
    lr: float,
    epochs: int,
    seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Fit the linear score model ``f(x) = ReLU(x A^T + c)`` full-batch by Adam.

    Initialisation is torch's ``nn.Linear`` default, ``U(-1/sqrt(d), 1/sqrt(d))``, drawn from a
    ``torch.Generator`` seeded by ``seed``. Give ``cost`` or ``labels``; when both are given
    ``cost`` is used.

    Parameters
    ----------
    X : ndarray, shape (n, d)
        Features (cast to float32).
    cost : ndarray or None, shape (n, K), default None
        UCL weights ``W_k(x_i)``: the loss is ``mean_i sum_k W_k(x_i) softmax_k(f(x_i))``.
    labels : ndarray of int or None, shape (n,), default None
        Class codes in ``[0, K)``: the loss is the weighted cross-entropy
        ``mean_i w_i CE(f(x_i), y_i)``.
    sample_weight : ndarray or None, shape (n,), default None
        Weights ``w_i`` of the cross-entropy (``labels`` only); None: all 1.
    n_classes : int
        Number K of classes (score columns).
    output_relu : bool, default True
        Apply the ReLU to the scores; ``False`` gives the plain linear scores ``x A^T + c``.
    lr : float
        Adam step size.
    epochs : int
        Number of full-batch Adam steps.
    seed : int
        Seed of the initialisation.

    Returns
    -------
    A : ndarray of float, shape (K, d)
        Fitted weights.
    c : ndarray of float, shape (K,)
        Fitted intercepts.
    """
    gen = torch.Generator().manual_seed(int(seed))
    d = X.shape[1]
    bound = 1.0 / math.sqrt(d)
    A = ((torch.rand(n_classes, d, generator=gen) * 2 - 1) * bound).requires_grad_()
    c = ((torch.rand(n_classes, generator=gen) * 2 - 1) * bound).requires_grad_()
    x = torch.as_tensor(X, dtype=torch.float32)  # (n, d)
    if cost is not None:
        W = torch.as_tensor(cost, dtype=torch.float32)  # (n, K)
        loss_fn = lambda f: (W * torch.softmax(f, dim=1)).sum(dim=1).mean()  # noqa: E731
    else:
        y = torch.as_tensor(labels, dtype=torch.long)  # (n,)
        w = torch.ones(len(y)) if sample_weight is None else torch.as_tensor(sample_weight)
        w = w.to(torch.float32)
        ce = torch.nn.CrossEntropyLoss(reduction="none")
        loss_fn = lambda f: (ce(f, y) * w).mean()  # noqa: E731
    optimizer = torch.optim.Adam([A, c], lr=lr)
    link = torch.relu if output_relu else (lambda f: f)
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = loss_fn(link(x @ A.T + c))  # (n, K) scores
        loss.backward()
        optimizer.step()
    return A.detach().numpy().astype(float), c.detach().numpy().astype(float)


def scores(X: np.ndarray, A: np.ndarray, c: np.ndarray, output_relu: bool = True) -> np.ndarray:
    """Scores of the linear score model, ``f(x) = ReLU(x A^T + c)``.

    Parameters
    ----------
    X : ndarray, shape (n, d)
        Features.
    A : ndarray, shape (K, d)
        Weights, as ``train_scores`` returns them.
    c : ndarray, shape (K,)
        Intercepts.
    output_relu : bool, default True
        Apply the ReLU; ``False`` gives ``x A^T + c``.

    Returns
    -------
    ndarray, shape (n, K)
        The scores of each unit for each class.
    """
    f = X @ A.T + c
    return np.maximum(f, 0.0) if output_relu else f
