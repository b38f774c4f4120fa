"""Multiclass loss correction with a known noise matrix: forward and backward.

The standard learners for multiclass RCN with known ``H`` (Patrini, Rozza, Menon, Nock & Qu,
*Making deep neural networks robust to label noise: a loss correction approach*, CVPR 2017;
Natarajan et al. 2013 for ``k = 2``), fitted here on the paper's hypothesis class, the linear
softmax model ``p(y | x) = softmax(W x)`` with ``W`` (k, d), whose argmax is the multiclass linear
classifier of Diakonikolas, Ma, Ren & Tzamos (ICML 2025):

- ``forward``: cross-entropy of the *noisy* posterior the model implies,
  ``L = -mean_t log (H^T p(x_t))_{y~_t}`` (``P(y~ = j | x) = sum_i p_i H_ij``);
- ``backward``: the unbiased corrected loss ``L = mean_t (H^{-1} l(x_t))_{y~_t}`` with
  ``l(x) = -log p(x)`` (k,); since ``E[(H^{-1} l)_{y~} | y] = l_y`` it equals the clean
  cross-entropy in expectation. It is cross-entropy against the soft, possibly negative,
  targets ``C = H^{-1}[y~]`` (rows sum to 1), unbounded below without the ridge term;
- ``none``: plain cross-entropy on the noisy labels (what one fits without correcting).

All three add ``l2 / 2 |W|_F^2`` and are minimised by L-BFGS (``scipy.optimize.minimize``) with
closed-form gradients. The paper's theorem says no SQ algorithm -- gradient methods on such
losses included, their gradients being expectations -- reaches ``opt + eps`` in polynomial time
for *every* distribution when ``k >= 3``; on a given benign distribution they may well.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_softmax

from icml25.common.validate import check_int, check_real
from icml25.mlc_rcn.data import check_features
from icml25.mlc_rcn.noise import _as_float_array, check_labels, check_noise_matrix

CORRECTIONS = ("forward", "backward", "none")


@dataclass(frozen=True)
class CorrectionFit:
    """Result of :func:`fit_loss_correction`.

    Parameters
    ----------
    W : numpy.ndarray
        (k, d) float64 fitted weights; the classifier is ``argmax(X @ W.T)``.
    loss : float
        The final objective, ridge term included.
    converged : bool
        Whether L-BFGS-B reported success.
    """

    W: np.ndarray
    loss: float
    converged: bool


def corrected_loss(W, X, y_noisy, H, correction: str = "forward", l2: float = 0.0):
    """Loss and gradient of one loss correction at ``W``.

    Anything of another shape or kind is refused with a ValueError naming the argument.

    Parameters
    ----------
    W : array_like
        (k, d) finite weights of the linear softmax model.
    X : array_like
        (n, d) finite real features, ``n >= 1``.
    y_noisy : array_like
        (n,) integer noisy labels in ``0..k-1``.
    H : array_like
        (k, k) row-stochastic noise matrix, ``k >= 2``; invertible for ``"backward"``.
    correction : {"forward", "backward", "none"}, default "forward"
        The loss (module docstring).
    l2 : float, default 0.0
        Ridge weight, finite and ``>= 0``.

    Returns
    -------
    loss : float
        The loss plus ``l2 / 2 |W|_F^2``.
    grad : numpy.ndarray
        (k, d): its gradient in ``W``.
    """
    _check_correction(correction)
    H = check_noise_matrix(H)
    X = check_features(X)
    k, d = H.shape[0], X.shape[1]
    y_noisy = check_labels("y_noisy", y_noisy, k, n=X.shape[0])
    W = _as_float_array("W", W)
    if W.shape != (k, d):
        raise ValueError(f"W must have shape ({k}, {d}) to match H and X, got {W.shape}")
    if not np.all(np.isfinite(W)):
        raise ValueError("W must be finite")
    l2 = check_real("l2", l2, low=0.0, high=np.inf)
    _check_invertible(H, correction)
    return _corrected_loss(W, X, y_noisy, H, correction, l2)


def _check_correction(correction) -> None:
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, got {correction!r}")


def _check_invertible(H: np.ndarray, correction: str) -> None:
    if correction == "backward" and abs(np.linalg.det(H)) < 1e-10:
        raise ValueError("H must be invertible for the backward correction")


def _corrected_loss(W, X, y_noisy, H, correction, l2):
    W = np.asarray(W, dtype=float)
    n = X.shape[0]
    logp = log_softmax(X @ W.T, axis=1)  # (n, k)
    p = np.exp(logp)
    if correction == "forward":
        q = p @ H  # (n, k) noisy posterior implied by the model
        q_y = q[np.arange(n), y_noisy]  # (n,)
        loss = -np.mean(np.log(q_y))
        g_p = -H[:, y_noisy].T / q_y[:, None]  # (n, k) dL/dp times n
        g_z = p * (g_p - np.sum(g_p * p, axis=1, keepdims=True))  # through the softmax
    else:
        C = np.linalg.inv(H)[y_noisy] if correction == "backward" else np.eye(H.shape[0])[y_noisy]
        loss = -np.mean(np.sum(C * logp, axis=1))
        g_z = p * C.sum(axis=1, keepdims=True) - C  # (n, k), rows of C sum to 1
    grad = g_z.T @ X / n + l2 * W  # (k, d)
    return float(loss + 0.5 * l2 * np.sum(W * W)), grad


def fit_loss_correction(
    X,
    y_noisy,
    H,
    correction: str = "forward",
    *,
    l2: float = 1e-4,
    max_iter: int = 500,
    seed=0,
) -> CorrectionFit:
    """Fit the linear softmax model to RCN labels with a known noise matrix ``H`` (k, k).

    Shapes: ``X`` (n, d) (add a constant column for offsets), ``y_noisy`` (n,) in ``0..k-1``.
    ``correction`` is ``"forward"``, ``"backward"`` or ``"none"``; ``l2`` the ridge weight;
    ``seed`` draws the small random start ``W_0 ~ N(0, 0.01^2)``. Warns if L-BFGS stops before
    convergence. The classifier is ``argmax(X @ W.T)`` (:func:`~icml25.mlc_rcn.linear_classifier`).

    The model is ``p(y | x) = softmax(W x)`` with ``W`` (k, d), the multiclass linear classifier
    of Diakonikolas, Ma, Ren & Tzamos (ICML 2025); the losses are those of Patrini et al.
    (CVPR 2017): forward ``L = -mean_t log (H^T p(x_t))_{y~_t}``, backward
    ``L = mean_t (H^{-1} l(x_t))_{y~_t}`` with ``l(x) = -log p(x)``, each plus
    ``l2 / 2 |W|_F^2``, minimised by L-BFGS-B with closed-form gradients.

    Parameters
    ----------
    X : array_like
        (n, d) finite real features, n >= 1 (add a constant column for offsets, as
        :func:`~icml25.mlc_rcn.make_rcn_data` does).
    y_noisy : array_like
        (n,) integer noisy labels in ``0..k-1``.
    H : array_like
        (k, k) row-stochastic noise matrix, k >= 2: ``H[i, j] = P(y~ = j | y = i)``. It must
        be invertible for ``"backward"``.
    correction : {"forward", "backward", "none"}, default "forward"
        The loss: forward correction, backward (unbiased) correction, or plain cross-entropy
        on the noisy labels.
    l2 : float, default 1e-4
        Ridge weight, finite and >= 0; it must be > 0 for ``"backward"`` (unbounded below
        otherwise).
    max_iter : int, default 500
        The most L-BFGS-B iterations, >= 1.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, default 0
        Seed of the random start ``W_0 ~ N(0, 0.01^2)`` (anything
        ``numpy.random.default_rng`` accepts).

    Returns
    -------
    CorrectionFit
        ``W`` (k, d) float64 fitted weights, ``loss`` (the final objective, ridge term
        included) and ``converged`` (whether L-BFGS-B reported success).

    Raises
    ------
    ValueError
        If an argument has the wrong shape, type or values, ``H`` is singular for
        ``"backward"``, or ``l2`` is 0 for ``"backward"``.

    Warns
    -----
    UserWarning
        If L-BFGS-B stops before convergence.
    """
    _check_correction(correction)
    H = check_noise_matrix(H)
    X = check_features(X)
    k, d = H.shape[0], X.shape[1]
    y_noisy = check_labels("y_noisy", y_noisy, k, n=X.shape[0])
    l2 = check_real("l2", l2, low=0.0, high=np.inf, high_open=True)
    max_iter = check_int("max_iter", max_iter, minimum=1)
    _check_invertible(H, correction)
    if correction == "backward" and l2 == 0.0:
        raise ValueError("l2 must be > 0 for the backward correction (unbounded below otherwise)")
    W0 = 0.01 * np.random.default_rng(seed).standard_normal((k, d))

    def fun(w):
        loss, grad = _corrected_loss(w.reshape(k, d), X, y_noisy, H, correction, l2)
        return loss, grad.ravel()

    res = minimize(fun, W0.ravel(), jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    if not res.success:
        warnings.warn(
            f"fit_loss_correction({correction!r}) did not converge: {res.message}", stacklevel=2
        )
    return CorrectionFit(res.x.reshape(k, d), float(res.fun), bool(res.success))
