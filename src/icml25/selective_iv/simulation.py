"""The numerical study of Chen, Li & Mao (ICML 2025): selective labels from several
decision-makers, the decision-maker's identity ``Z`` being the instrument.

Generating process (official code ``simulation-multi-{nucem,uc}.py``; symbols ours):

- ``X ~ 2 N(0, I_6)`` observed, ``U ~ 2 N(0, I_4)`` unobserved, ``Z`` uniform on ``{1..5}``;
- ``Y`` in ``{0, 1, 2}``: ``P(Y | X, U) = softmax((1 - s_Y) X C_X + 2 s_Y U C_U)`` with
  ``C[i, j] = i + j``;
- ``D`` Bernoulli with, for the ``"nucem"`` setting (no unmeasured common effect modifier: ``Z``
  and ``U`` enter additively, the point-identification condition of the paper),
  ``(1 - s_D) sigmoid(2 Z X beta) + s_D sigmoid(U gamma)``, and for ``"uc"`` (unmeasured
  confounding that breaks it), ``sigmoid((1 - s_D) 2 Z X beta + 3 s_D U gamma)``;
  ``beta = (2, 1, 0, -1, -2, -3)``, ``gamma = (1, 2, 3, 4)``.

``Y`` is observed only where ``D = 1``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import expit, roots_hermitenorm, softmax

from icml25.common.validate import check_int, check_real

SETTINGS = ("nucem", "uc")


class SelectiveData(NamedTuple):
    """One simulated population of :func:`simulate`.

    Parameters
    ----------
    X : ndarray, shape (n, d_x)
        Observed covariates.
    U : ndarray, shape (n, d_u)
        Unobserved confounders.
    Z : ndarray of int, shape (n,)
        The instrument: the decision-maker, integers ``1..levels``.
    Y : ndarray of int, shape (n,)
        The full label in ``0..K-1`` (for the oracle and the test score).
    D : ndarray of int, shape (n,)
        Decision in {0, 1}; ``Y`` is observed only where ``D = 1``.
    eta : ndarray, shape (n, K)
        The true class probabilities ``P(Y = k | X, U)``.
    """

    X: np.ndarray  # (n, d_x) observed covariates
    U: np.ndarray  # (n, d_u) unobserved confounders
    Z: np.ndarray  # (n,) instrument: the decision-maker, integers 1..levels
    Y: np.ndarray  # (n,) label in 0..K-1
    D: np.ndarray  # (n,) decision in {0, 1}; Y is observed only where D = 1
    eta: np.ndarray  # (n, K) P(Y = k | X, U), the true class probabilities given X and U


def simulate(
    n: int,
    setting: str,
    strength_y: float,
    strength_d: float,
    seed: int,
    *,
    n_observed: int = 6,
    n_unobserved: int = 4,
    levels: int = 5,
    n_classes: int = 3,
) -> SelectiveData:
    """Draw ``n`` units of the paper's simulation.

    Parameters
    ----------
    n : int
        Number of units, ``>= 1``.
    setting : {"nucem", "uc"}
        ``"nucem"`` (point identification holds) or ``"uc"`` (it does not).
    strength_y : float
        Confounding strength ``s_Y`` of the label, in ``[0, 1]`` (paper grid
        ``{.3, .5, .7, .9}``).
    strength_d : float
        Confounding strength ``s_D`` of the decision, in ``[0, 1]`` (same grid).
    seed : int
        Seed of a ``numpy.random.Generator``.
    n_observed : int, default 6
        Number ``d_x`` of observed covariates, ``>= 1``.
    n_unobserved : int, default 4
        Number ``d_u`` of unobserved confounders, ``>= 1``.
    levels : int, default 5
        Number of decision-makers (instrument levels), ``>= 2``.
    n_classes : int, default 3
        Number K of classes, ``>= 2``.

    Returns
    -------
    SelectiveData
        ``X`` (n, d_x), ``U`` (n, d_u), ``Z`` (n,), ``Y`` (n,), ``D`` (n,) and ``eta`` (n, K).
    """
    n = check_int("n", n, minimum=1)
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {SETTINGS}, got {setting!r}")
    s_y = check_real("strength_y", strength_y, low=0.0, high=1.0)
    s_d = check_real("strength_d", strength_d, low=0.0, high=1.0)
    n_observed = check_int("n_observed", n_observed, minimum=1)
    n_unobserved = check_int("n_unobserved", n_unobserved, minimum=1)
    levels = check_int("levels", levels, minimum=2)
    n_classes = check_int("n_classes", n_classes, minimum=2)
    rng = np.random.default_rng(seed)
    X = 2.0 * rng.standard_normal((n, n_observed))  # (n, d_x)
    U = 2.0 * rng.standard_normal((n, n_unobserved))  # (n, d_u)
    Z = rng.integers(1, levels + 1, size=n)  # (n,)
    C_x = np.add.outer(np.arange(n_observed), np.arange(n_classes))  # (d_x, K), C[i, j] = i + j
    C_u = np.add.outer(np.arange(n_unobserved), np.arange(n_classes))  # (d_u, K)
    eta = softmax((1 - s_y) * X @ C_x + 2 * s_y * U @ C_u, axis=1)  # (n, K)
    Y = (rng.random((n, 1)) > np.cumsum(eta, axis=1)).sum(axis=1)  # (n,) inverse-CDF draw
    Y = np.minimum(Y, n_classes - 1)  # guards the rounding of the last cumulative sum
    beta = 2.0 - np.arange(n_observed)  # (2, 1, 0, -1, ...)
    gamma = 1.0 + np.arange(n_unobserved)  # (1, 2, 3, ...)
    by_z, by_u = 2.0 * Z * (X @ beta), U @ gamma  # (n,), (n,)
    if setting == "nucem":
        p_d = (1 - s_d) * expit(by_z) + s_d * expit(by_u)
    else:
        p_d = expit((1 - s_d) * by_z + 3 * s_d * by_u)
    D = (rng.random(n) < p_d).astype(int)  # (n,)
    return SelectiveData(X, U, Z, Y, D, eta)


def decision_probability_at_levels(
    X: np.ndarray, setting: str, strength_d: float, *, levels: int = 5, n_unobserved: int = 4
) -> np.ndarray:
    """The true ``P(D = 1 | x, Z = z)`` of :func:`simulate` at ``z = 1..levels``, ``(n, levels)``,
    ``U`` integrated out (``U gamma ~ N(0, 4 |gamma|^2)``; 64-node Gauss-Hermite quadrature for
    ``"uc"``, exact for ``"nucem"`` where ``U`` enters additively)."""
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {SETTINGS}, got {setting!r}")
    s_d = check_real("strength_d", strength_d, low=0.0, high=1.0)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-d array (n, d_x), got shape {X.shape}")
    beta = 2.0 - np.arange(X.shape[1])
    sd_u = 2.0 * np.linalg.norm(1.0 + np.arange(n_unobserved))  # sd of U gamma
    by_z = 2.0 * np.outer(X @ beta, np.arange(1, levels + 1))  # (n, L)
    nodes, weights = roots_hermitenorm(64)  # E f(N(0, 1)) = sum w f(node) / sqrt(2 pi)
    weights = weights / weights.sum()
    if setting == "nucem":
        return (1 - s_d) * expit(by_z) + s_d * float(weights @ expit(sd_u * nodes))
    inner = (1 - s_d) * by_z[:, :, None] + 3 * s_d * sd_u * nodes  # (n, L, nodes)
    return expit(inner) @ weights
