"""Ensembles of random-feature regressors, fitted at once (Dern, Cunningham & Pleiss, ICML 2025).

One member of width ``D`` is the least-squares fit of its features ``Phi`` (N, D) to the labels
``y`` (N,), with ridge ``lambda >= 0`` (Section 2 of the paper):

- overparameterized (``D > N``): ``theta = Phi^T (Phi Phi^T + lambda I_N)^{-1} y``; for
  ``lambda = 0`` the minimum-norm interpolator, the ridgeless limit;
- otherwise: ``theta = (Phi^T Phi + lambda I_D)^{-1} Phi^T y``.

An ensemble of ``M`` members averages their predictions. Members are a leading batch axis: one
batched Gram matrix and one batched solve fit them all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real
from icml25.rf_ensembles.features import (
    _check_size,
    _finite,
    _gaussian_features,
    _numeric,
    _relu_features,
    arccos_kernel,
    as_inputs,
    kernel_root,
    sample_relu_weights,
)

MODES = ("relu", "gaussian")


def fit_rf(Phi: np.ndarray, y, ridge: float = 0.0) -> np.ndarray:
    """Fit ridge (or ridgeless) least squares for a batch of feature matrices.

    Overparameterized (``D > N``): ``theta = Phi^T (Phi Phi^T + ridge I_N)^{-1} y``, the
    minimum-norm interpolator when ``ridge = 0`` (through the pseudo-inverse, since a ReLU Gram
    matrix can be singular); otherwise ``theta = (Phi^T Phi + ridge I_D)^{-1} Phi^T y``.

    Parameters
    ----------
    Phi : ndarray, shape (B, N, D) or (N, D)
        Finite training features of ``B`` members (or of one).
    y : array_like, shape (N,)
        Finite training labels, shared by all members.
    ridge : float, default 0.0
        Ridge penalty, finite and ``>= 0``.

    Returns
    -------
    theta : ndarray, shape (B, D) or (D,)
        The output weights of each member (``(D,)`` for a 2-D ``Phi``).
    """
    Phi = _numeric("Phi", Phi)
    if Phi.ndim not in (2, 3):
        raise ValueError(f"Phi must have shape (B, N, D) or (N, D), got shape {Phi.shape}")
    if Phi.ndim == 2:
        return fit_rf(Phi[None], y, ridge)[0]
    y = _numeric("y", y)
    if y.shape != (Phi.shape[1],):
        raise ValueError(f"y must have shape ({Phi.shape[-2]},) for Phi of shape {Phi.shape}")
    _finite("Phi", Phi, 3)
    _finite("y", y, 1)
    ridge = check_real("ridge", ridge, low=0.0, high=np.inf)
    return _fit_rf(Phi, y, ridge)


def _fit_rf(Phi: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    _, N, D = Phi.shape
    if D > N:  # dual: (B, N, N) Gram matrices
        gram = np.matmul(Phi, Phi.transpose(0, 2, 1)) + ridge * np.eye(N)
        alpha = _solve(gram, np.broadcast_to(y, (Phi.shape[0], N)), ridge)  # (B, N)
        return np.einsum("bnD,bn->bD", Phi, alpha)  # (B, D)
    gram = np.matmul(Phi.transpose(0, 2, 1), Phi) + ridge * np.eye(D)  # (B, D, D)
    return _solve(gram, np.einsum("bnD,n->bD", Phi, y), ridge)


def _solve(gram: np.ndarray, rhs: np.ndarray, ridge: float) -> np.ndarray:
    """``gram^{-1} rhs`` for a batch; ridgeless, the pseudo-inverse (minimum-norm least squares,
    as LAPACK's gelsd gives), since a ReLU Gram matrix can be singular (a feature that is zero on
    every training input). Shapes: gram (B, n, n), rhs (B, n) -> (B, n)."""
    if ridge > 0:
        return np.linalg.solve(gram, rhs[..., None])[..., 0]
    return np.einsum("bij,bj->bi", np.linalg.pinv(gram, hermitian=True), rhs)


def rf_predict(Phi_test: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Predict with each member of a batch of RF models.

    Parameters
    ----------
    Phi_test : ndarray, shape (B, T, D)
        Finite test features of ``B`` members.
    theta : ndarray, shape (B, D)
        Finite output weights, as from :func:`fit_rf`.

    Returns
    -------
    predictions : ndarray, shape (B, T)
        ``Phi_test[b] @ theta[b]`` for each member.
    """
    Phi_test = _finite("Phi_test", _numeric("Phi_test", Phi_test), 3)
    theta = _numeric("theta", theta)
    B, _, D = Phi_test.shape
    if theta.shape != (B, D):
        raise ValueError(f"theta must have shape ({B}, {D}) to match Phi_test, got {theta.shape}")
    return _rf_predict(Phi_test, _finite("theta", theta, 2))


def _rf_predict(Phi_test: np.ndarray, theta: np.ndarray) -> np.ndarray:
    return np.einsum("btD,bD->bt", Phi_test, theta)


@dataclass(frozen=True)
class Ensemble:
    """The members' predictions at the test inputs, with their mean and variance.

    Parameters
    ----------
    predictions : ndarray, shape (M, T)
        Each member's predictions at the ``T`` test inputs.
    mean : ndarray, shape (T,)
        The ensemble predictor, the mean over members.
    variance : ndarray, shape (T,)
        The population variance of the members' predictions, the predictive variance of
        Section 5 of the paper.
    """

    predictions: np.ndarray
    mean: np.ndarray
    variance: np.ndarray


class _Sampler:
    """Draws the features of a batch of members on the training and test inputs together."""

    def __init__(self, X, X_test, mode: str):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.X, self.X_test, self.mode = X, X_test, mode
        self.n = X.shape[0]
        if mode == "gaussian":  # kernel of all P = N + T points, factored once
            points = np.concatenate([X, X_test])  # (P, d)
            self.root = kernel_root(arccos_kernel(points))  # (P, P)
        else:
            self.points = np.concatenate([X, X_test])

    def __call__(self, members: int, width: int, rng) -> np.ndarray:
        """(members, N + T, width) features: training rows first."""
        if self.mode == "gaussian":
            return _gaussian_features(self.root, members, width, rng)
        W = sample_relu_weights(members, width, self.X.shape[1], rng)  # (B, D, d + 1)
        return _relu_features(self.points, W)


def _chunk(chunk, floats_per_item: int) -> int:
    """Items per batch: as asked, or as many as fit in about 2^19 floats (4 MB)."""
    if chunk is None:
        return max(1, 2**19 // floats_per_item)
    return check_int("chunk", chunk, minimum=1)


def _check_data(X, y, X_test):
    X, X_test = as_inputs("X", X), as_inputs("X_test", X_test)
    y = _numeric("y", y)
    if y.shape != (X.shape[0],) or not np.all(np.isfinite(y)):
        raise ValueError(f"y must be a finite array of shape ({X.shape[0]},), got {y.shape}")
    if X_test.shape[1] != X.shape[1]:
        raise ValueError(f"X_test must have d = {X.shape[1]} columns, got {X_test.shape[1]}")
    return X, y, X_test


def rf_ensemble(
    X,
    y,
    X_test,
    width: int,
    members: int,
    *,
    mode: str = "relu",
    ridge: float = 0.0,
    seed=None,
    chunk: int | None = None,
) -> Ensemble:
    """Fit ``members`` independent RF regressors of width ``width`` and predict at ``X_test``.

    ``mode="relu"``: ReLU features with a bias input, weights N(0, I). ``mode="gaussian"``: the
    paper's Gaussian-universality features on the points ``X`` and ``X_test`` (covariance: the
    arc-cosine kernel). Members are drawn and fitted ``chunk`` at a time (memory
    ``chunk * (N + T) * width`` floats; by default about 4 MB, which keeps a batch in cache).

    Shapes: X (N, d), y (N,), X_test (T, d) -> Ensemble with predictions (members, T).

    Each member is the ridge (``ridge > 0``) or ridgeless (``ridge = 0``: minimum-norm
    least squares) fit of its own random features (Dern, Cunningham & Pleiss, ICML 2025,
    Section 2); see the module docstring for the formulas.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Finite training inputs; a 1-D array is read as ``N`` inputs of dimension 1.
    y : array_like, shape (N,)
        Finite training labels.
    X_test : array_like, shape (T, d)
        Finite test inputs with the same ``d`` as ``X`` (1-D: ``T`` inputs of dimension 1).
    width : int
        Number of random features ``D`` of each member (``>= 1``); ``D > N`` is the
        overparameterized regime.
    members : int
        Number of independent members ``M`` (``>= 1``).
    mode : {"relu", "gaussian"}, default "relu"
        ``"relu"``: ReLU features ``relu(W x~) / sqrt(D)`` with a bias input, weights
        N(0, I). ``"gaussian"``: Gaussian features whose covariance on the ``N + T`` points is
        the arc-cosine kernel (Gaussian universality).
    ridge : float, default 0.0
        Ridge penalty ``lambda >= 0``; 0 is the ridgeless limit.
    seed : int, numpy.random.Generator or None, default None
        Seed of ``numpy.random.default_rng`` for the feature draws; same seed, same output.
        None draws fresh entropy.
    chunk : int or None, default None
        Members drawn and fitted per batch (``>= 1``); None fits as many as hold in about
        2**19 floats (4 MB).

    Returns
    -------
    Ensemble
        ``predictions`` ``(members, T)``: each member's predictions at ``X_test``; ``mean``
        ``(T,)``: the ensemble predictor; ``variance`` ``(T,)``: the population variance of
        the members' predictions.
    """
    X, y, X_test = _check_data(X, y, X_test)
    width = check_int("width", width, minimum=1)
    members = check_int("members", members, minimum=1)
    _check_size("width", (len(X) + len(X_test)) * width)
    _check_size("members", members * len(X_test))
    chunk = _chunk(chunk, (len(X) + len(X_test)) * width)
    _check_size("chunk", min(chunk, members) * (len(X) + len(X_test)) * width)
    ridge = check_real("ridge", ridge, low=0.0, high=np.inf)
    sampler, rng = _Sampler(X, X_test, mode), np.random.default_rng(seed)
    n, out = X.shape[0], []
    for start in range(0, members, chunk):
        F = sampler(min(chunk, members - start), width, rng)  # (B, N + T, D)
        out.append(_rf_predict(F[:, n:], _fit_rf(F[:, :n], y, ridge)))
    predictions = np.concatenate(out)  # (members, T)
    return Ensemble(predictions, predictions.mean(axis=0), predictions.var(axis=0))


def ensemble_and_single(
    X,
    y,
    X_test,
    width: int,
    members: int,
    replicates: int,
    *,
    mode: str = "relu",
    ridge: float = 0.0,
    seed=None,
    chunk: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Compare an ensemble with one model of the same feature budget, ``replicates`` times.

    An ensemble of ``members`` models of width ``width`` against one model of width
    ``members * width`` (Section 4 of the paper). In each replicate both use the *same*
    ``members * width`` feature draws (the single model all of them, member ``m`` the ``m``-th
    block of ``width``): each is distributed as it should be, and the shared draws make the
    difference of their test errors much less noisy.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Finite training inputs; a 1-D array is read as ``N`` inputs of dimension 1.
    y : array_like, shape (N,)
        Finite training labels.
    X_test : array_like, shape (T, d)
        Finite test inputs with the same ``d`` as ``X``.
    width : int
        Features ``D`` of each ensemble member, ``>= 1``.
    members : int
        Members ``M`` of the ensemble, ``>= 1``; the single model has ``M D`` features.
    replicates : int
        Independent repetitions ``R``, ``>= 1``.
    mode : {"relu", "gaussian"}, default "relu"
        ReLU features with a bias input, or Gaussian-universality features (see
        :func:`rf_ensemble`).
    ridge : float, default 0.0
        Ridge penalty, finite and ``>= 0``; 0 is ridgeless.
    seed : int, numpy.random.Generator or None, default None
        Seed of ``numpy.random.default_rng`` for the feature draws; None draws fresh entropy.
    chunk : int or None, default None
        Replicates drawn and fitted per batch (``>= 1``); None fits as many as hold in about
        2**19 floats.

    Returns
    -------
    ensemble : ndarray, shape (R, T)
        The ensemble's predictions in each replicate.
    single : ndarray, shape (R, T)
        The single wide model's predictions in each replicate.
    """
    X, y, X_test = _check_data(X, y, X_test)
    width = check_int("width", width, minimum=1)
    members = check_int("members", members, minimum=1)
    replicates = check_int("replicates", replicates, minimum=1)
    _check_size("members * width", (len(X) + len(X_test)) * width * members)
    _check_size("replicates", replicates * len(X_test))
    chunk = _chunk(chunk, (len(X) + len(X_test)) * width * members)
    _check_size("chunk", min(chunk, replicates) * (len(X) + len(X_test)) * width * members)
    ridge = check_real("ridge", ridge, low=0.0, high=np.inf)
    sampler, rng = _Sampler(X, X_test, mode), np.random.default_rng(seed)
    n, ens, single = X.shape[0], [], []
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        F = sampler(b, members * width, rng)  # (b, N + T, M D)
        single.append(_rf_predict(F[:, n:], _fit_rf(F[:, :n], y, ridge)))  # (b, T)
        blocks = F.reshape(b, F.shape[1], members, width).transpose(0, 2, 1, 3)  # (b, M, P, D)
        blocks = blocks.reshape(b * members, F.shape[1], width)
        member_preds = _rf_predict(blocks[:, n:], _fit_rf(blocks[:, :n], y, ridge))  # (b M, T)
        ens.append(member_preds.reshape(b, members, -1).mean(axis=1))  # (b, T)
    return np.concatenate(ens), np.concatenate(single)
