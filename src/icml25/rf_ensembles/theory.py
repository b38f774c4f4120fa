"""The paper's closed forms for ridgeless RF ensembles (Dern, Cunningham & Pleiss, ICML 2025).

With ``K`` the (N, N) arc-cosine kernel matrix of the training inputs ``X``, ``k(x)`` the (N,)
vector ``k(X, x)`` and ``N`` training points:

- infinite-width (kernel) predictor, the limit of an infinite ensemble of overparameterized
  ridgeless RF regressors (Theorem 1): ``h_inf(x) = k(x)^T K^{-1} y``;
- ``r_perp^2(x) = k(x, x) - k(x)^T K^{-1} k(x)``: the part of the feature at ``x`` that the
  training features do not span (the kriging variance of ``x`` given ``X``);
- under Gaussian universality, for width ``D > N + 1`` (Section 5, predictive variance):
  ``E[h_D(x)] = h_inf(x)`` and ``Var[h_D(x)] = r_perp^2(x) y^T K^{-1} y / (D - N - 1)``;
- hence (Section 4) the expected squared distance of an ``M``-member ensemble of width ``D``
  from ``h_inf`` is ``r_perp^2(x) y^T K^{-1} y / (M (D - N - 1))``, and that of one model of the
  same budget ``M D`` is ``r_perp^2(x) y^T K^{-1} y / (M D - N - 1)``. Since each is unbiased for
  ``h_inf``, the expected test-error gap, ensemble minus single, is the difference of the two.

The variance formula is what an inverse-Wishart mean gives: the training Gram matrix of
Gaussian features is Wishart(K / D, D), whose inverse has mean ``D K^{-1} / (D - N - 1)``, which
is finite only for ``D > N + 1`` (we derived it and test it against scipy's inverse-Wishart).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from icml25.common.validate import check_int, check_real
from icml25.rf_ensembles.features import _numeric, arccos_kernel, as_inputs


def _train(X, y):
    X = as_inputs("X", X)
    y = _numeric("y", y)
    if y.shape != (X.shape[0],) or not np.all(np.isfinite(y)):
        raise ValueError(f"y must be a finite array of shape ({X.shape[0]},), got {y.shape}")
    return X, y


def _test_inputs(X: np.ndarray, X_test) -> np.ndarray:
    X_test = as_inputs("X_test", X_test)
    if X_test.shape[1] != X.shape[1]:
        raise ValueError(f"X_test must have d = {X.shape[1]} columns, got {X_test.shape[1]}")
    return X_test


def _cho(K: np.ndarray):
    """``cho_factor(K)``, or ValueError when the kernel matrix of ``X`` is singular."""
    try:
        return cho_factor(K)
    except LinAlgError:
        raise ValueError(
            "X must hold distinct training inputs: their kernel matrix K is not positive definite"
        ) from None


def kernel_predictor(X, y, X_test, ridge: float = 0.0) -> np.ndarray:
    """Infinite-width random-feature regressor, ``h_inf(x) = k(x)^T (K + ridge I)^{-1} y``.

    The limit of an infinite ensemble of overparameterized ridgeless RF regressors (Theorem 1 of
    the paper); with ``ridge > 0``, kernel ridge regression with the arc-cosine kernel.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Distinct finite training inputs (1-D: ``N`` inputs of dimension 1).
    y : array_like, shape (N,)
        Finite training labels.
    X_test : array_like, shape (T, d)
        Finite test inputs with the same ``d``.
    ridge : float, default 0.0
        Ridge penalty, finite and ``>= 0``.

    Returns
    -------
    h : ndarray, shape (T,)
        The predictions at ``X_test``.

    Raises
    ------
    ValueError
        When the kernel matrix is not positive definite (repeated training inputs).
    """
    X, y = _train(X, y)
    X_test = _test_inputs(X, X_test)
    ridge = check_real("ridge", ridge, low=0.0, high=np.inf)
    K = arccos_kernel(X) + ridge * np.eye(X.shape[0])  # (N, N)
    return arccos_kernel(X_test, X) @ cho_solve(_cho(K), y)


def r_perp_squared(X, X_test) -> np.ndarray:
    """Part of the feature at each test input that the training features do not span.

    ``r_perp^2(x) = k(x, x) - k(x)^T K^{-1} k(x)``, the kriging variance of ``x`` given ``X``; it is
    ``>= 0`` (clipped) and 0 at the training inputs.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Distinct finite training inputs (1-D: ``N`` inputs of dimension 1).
    X_test : array_like, shape (T, d)
        Finite test inputs with the same ``d``.

    Returns
    -------
    r2 : ndarray, shape (T,)
        ``r_perp^2`` at each test input.
    """
    X = as_inputs("X", X)
    X_test = _test_inputs(X, X_test)
    kx = arccos_kernel(X_test, X)  # (T, N)
    kxx = np.linalg.norm(np.concatenate([X_test, np.ones((len(X_test), 1))], 1), axis=1) ** 2 / 2
    solved = cho_solve(_cho(arccos_kernel(X)), kx.T)  # (N, T)
    return np.clip(kxx - np.einsum("tn,nt->t", kx, solved), 0.0, None)


def rkhs_norm_squared(X, y) -> float:
    """Squared RKHS norm ``y^T K^{-1} y`` of the kernel interpolator.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Distinct finite training inputs (1-D: ``N`` inputs of dimension 1).
    y : array_like, shape (N,)
        Finite training labels.

    Returns
    -------
    float
        ``y^T K^{-1} y`` with ``K`` the arc-cosine kernel matrix of ``X``.
    """
    X, y = _train(X, y)
    return float(y @ cho_solve(_cho(arccos_kernel(X)), y))


def _check_width(width, n_train: int, name: str = "width") -> int:
    width = check_int(name, width, minimum=1)
    if width <= n_train + 1:
        raise ValueError(
            f"{name} must exceed N + 1 = {n_train + 1} (N = {n_train} training points) for the "
            f"variance formula r_perp^2 y^T K^-1 y / ({name} - N - 1) to be defined, got {width}"
        )
    return width


def closed_form_mean(X, y, X_test) -> np.ndarray:
    """Closed-form mean of a ridgeless RF model, ``E[h_D(x)] = h_inf(x)``.

    Under Gaussian universality the mean is the kernel predictor at every width ``D > N``, so no
    width is needed.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Distinct finite training inputs (1-D: ``N`` inputs of dimension 1).
    y : array_like, shape (N,)
        Finite training labels.
    X_test : array_like, shape (T, d)
        Finite test inputs with the same ``d``.

    Returns
    -------
    mean : ndarray, shape (T,)
        :func:`kernel_predictor` at ``X_test`` (ridgeless).
    """
    return kernel_predictor(X, y, X_test)


def closed_form_variance(X, y, X_test, width: int) -> np.ndarray:
    """Closed-form predictive variance of one ridgeless RF model.

    ``Var[h_D(x)] = r_perp^2(x) y^T K^{-1} y / (D - N - 1)`` under Gaussian universality, defined
    for ``D > N + 1``.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Distinct finite training inputs (1-D: ``N`` inputs of dimension 1).
    y : array_like, shape (N,)
        Finite training labels.
    X_test : array_like, shape (T, d)
        Finite test inputs with the same ``d``.
    width : int
        Width ``D``, an integer ``> N + 1``.

    Returns
    -------
    variance : ndarray, shape (T,)
        The variance at each test input.
    """
    X, y = _train(X, y)
    width = _check_width(width, X.shape[0])
    return r_perp_squared(X, X_test) * rkhs_norm_squared(X, y) / (width - X.shape[0] - 1)


def ensemble_excess(X, y, X_test, width: int, members: int = 1) -> float:
    """Expected squared distance of an ensemble from the kernel predictor, averaged over ``X_test``.

    The mean over ``X_test`` of ``E[(h_ens(x) - h_inf(x))^2]`` for ``members`` ridgeless models of
    width ``width``: the mean of :func:`closed_form_variance` divided by ``members``. Since the
    ensemble is unbiased for ``h_inf``, it is also its expected test-error excess over the kernel
    predictor.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Distinct finite training inputs (1-D: ``N`` inputs of dimension 1).
    y : array_like, shape (N,)
        Finite training labels.
    X_test : array_like, shape (T, d)
        Finite test inputs with the same ``d``.
    width : int
        Width ``D`` of each member, an integer ``> N + 1``.
    members : int, default 1
        Number of members ``M``, ``>= 1``.

    Returns
    -------
    float
        ``mean_x r_perp^2(x) y^T K^{-1} y / (M (D - N - 1))``.
    """
    members = check_int("members", members, minimum=1)
    return float(closed_form_variance(X, y, X_test, width).mean() / members)


def budget_gap(X, y, X_test, width: int, members: int) -> float:
    """Expected test-MSE gap between an ensemble and one model of the same feature budget.

    ``members`` ridgeless models of width ``width`` minus one model of width ``members * width``,
    under Gaussian universality:
    ``mean_x r_perp^2(x) y^T K^{-1} y [1 / (M (D - N - 1)) - 1 / (M D - N - 1)]``, which is
    ``>= 0``.

    Parameters
    ----------
    X : array_like, shape (N, d)
        Distinct finite training inputs (1-D: ``N`` inputs of dimension 1).
    y : array_like, shape (N,)
        Finite training labels.
    X_test : array_like, shape (T, d)
        Finite test inputs with the same ``d``.
    width : int
        Width ``D`` of each member, an integer ``> N + 1``.
    members : int
        Number of members ``M``, ``>= 1``.

    Returns
    -------
    float
        The expected gap, ensemble minus single model.
    """
    X, y = _train(X, y)
    width = _check_width(width, X.shape[0])
    members = check_int("members", members, minimum=1)
    return ensemble_excess(X, y, X_test, width, members) - ensemble_excess(
        X, y, X_test, members * width, 1
    )
