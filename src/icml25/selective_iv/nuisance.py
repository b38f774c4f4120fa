"""Cross-fitted nuisance moments of unified cost-sensitive learning (Chen, Li & Mao, ICML 2025):
the weights ``W_k(x)`` of each fold are built from moments fitted on the other folds, as in
double machine learning.

A nuisance estimator is any scikit-learn estimator: a classifier is read as
``predict_proba @ classes_`` (the conditional mean of a discrete target, the official code's
use of ``HistGradientBoostingClassifier``), a regressor through ``predict``. Predictions are
clipped to the target's range (a regressor may overshoot ``[0, 1]``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.model_selection import KFold


def fit_conditional_mean(estimator, X: np.ndarray, target: np.ndarray) -> Callable:
    """Fit a clone of an estimator to the conditional mean ``E[target | X]``.

    Parameters
    ----------
    estimator : estimator
        Scikit-learn classifier or regressor, cloned for each fitted model.
    X : ndarray, shape (n, d)
        Features.
    target : ndarray, shape (n,)
        Numeric target; a classifier reads it as discrete classes.

    Returns
    -------
    callable
        Maps ``X_new`` (m, d) to the estimates (m,), clipped to ``[target.min(), target.max()]``
        (a classifier's ``predict_proba @ classes_``, a regressor's ``predict``); a constant
        target gives that constant and fits nothing.
    """
    low, high = float(target.min()), float(target.max())
    if low == high:  # a constant target: nothing to learn (and a classifier cannot be fitted)
        return lambda X_new: np.full(X_new.shape[0], low)
    model = clone(estimator).fit(X, target)
    if is_classifier(model):
        values = model.classes_.astype(float)  # (c,)
        return lambda X_new: np.clip(model.predict_proba(X_new) @ values, low, high)
    return lambda X_new: np.clip(model.predict(X_new), low, high)


def point_moments(estimator, X_fit, d_fit, z_fit, dy_fit, X_eval) -> dict[str, np.ndarray]:
    """The moments of the Wald ratio, fitted on ``X_fit`` and evaluated on ``X_eval``.

    Parameters
    ----------
    estimator : estimator
        Scikit-learn classifier or regressor, cloned for each fitted model.
    X_fit : ndarray, shape (n, d)
        Features of the units the models are fitted on.
    d_fit : ndarray, shape (n,)
        Decisions ``D`` in {0, 1}.
    z_fit : ndarray, shape (n,)
        Instrument values ``Z``.
    dy_fit : ndarray, shape (n, K)
        ``D 1{Y=k}`` of each unit and class.
    X_eval : ndarray, shape (m, d)
        Features of the units the moments are evaluated at.

    Returns
    -------
    dict of str to ndarray
        ``m_d``, ``m_z``, ``m_dz`` (m,) the estimates of ``E[D | x]``, ``E[Z | x]``,
        ``E[D Z | x]``, and ``m_dy``, ``m_dzy`` (m, K) those of ``E[D 1{Y=k} | x]``,
        ``E[D Z 1{Y=k} | x]``: ``3 + 2K`` fitted models.
    """
    dz = d_fit * z_fit  # (n,)
    fit = lambda t: fit_conditional_mean(estimator, X_fit, t)(X_eval)  # noqa: E731
    return {
        "m_d": fit(d_fit),
        "m_z": fit(z_fit),
        "m_dz": fit(dz),
        "m_dy": np.stack([fit(dy_fit[:, k]) for k in range(dy_fit.shape[1])], axis=1),
        "m_dzy": np.stack([fit(dz * dy_fit[:, k]) for k in range(dy_fit.shape[1])], axis=1),
    }


def level_moments(
    estimator, X_fit, d_fit, z_fit, dy_fit, X_eval, levels
) -> tuple[np.ndarray, np.ndarray]:
    """The moments of the partial-identification bounds at every level of the instrument.

    The models take ``(X, Z)`` as features (``Z`` one numeric column, as the official code's
    "robust" variant) and are evaluated with ``Z`` set to each level: ``1 + K`` fitted models.

    Parameters
    ----------
    estimator : estimator
        Scikit-learn classifier or regressor, cloned for each fitted model.
    X_fit : ndarray, shape (n, d)
        Features of the units the models are fitted on.
    d_fit : ndarray, shape (n,)
        Decisions ``D`` in {0, 1}.
    z_fit : ndarray, shape (n,)
        Instrument values ``Z``.
    dy_fit : ndarray, shape (n, K)
        ``D 1{Y=k}`` of each unit and class.
    X_eval : ndarray, shape (m, d)
        Features of the units the moments are evaluated at.
    levels : ndarray, shape (L,)
        The instrument's levels ``z_j``.

    Returns
    -------
    m_dy : ndarray, shape (m, L, K)
        Estimates of ``E[D 1{Y=k} | x, Z = z_j]``.
    p_d0 : ndarray, shape (m, L)
        Estimates of ``P(D = 0 | x, Z = z_j)``.
    """
    p_d0 = 1.0 - at_levels(estimator, X_fit, z_fit, d_fit, X_eval, levels)
    m_dy = np.stack(
        [
            at_levels(estimator, X_fit, z_fit, dy_fit[:, k], X_eval, levels)
            for k in range(dy_fit.shape[1])
        ],
        axis=2,
    )
    return m_dy, p_d0


def at_levels(estimator, X_fit, z_fit, target, X_eval, levels) -> np.ndarray:
    """``E[target | x, Z = z_j]`` ``(m, L)``: one model on ``(X, Z)`` (``Z`` one numeric column),
    evaluated with ``Z`` set to each of the ``L`` levels."""
    Xz_fit = np.column_stack([X_fit, z_fit])  # (n, d + 1)
    m, L = X_eval.shape[0], len(levels)
    Xz_eval = np.column_stack([np.tile(X_eval, (L, 1)), np.repeat(levels, m)])  # (L m, d + 1)
    return fit_conditional_mean(estimator, Xz_fit, target)(Xz_eval).reshape(L, m).T


def folds(n: int, n_folds: int, random_state) -> list[tuple[np.ndarray, np.ndarray]]:
    """Index pairs of a shuffled K-fold split, for cross-fitting.

    Parameters
    ----------
    n : int
        Number of units.
    n_folds : int
        Number of folds, ``2 <= n_folds <= n``.
    random_state : int, RandomState or None
        Seed of the shuffle (scikit-learn's ``KFold``).

    Returns
    -------
    list of tuple of ndarray
        ``n_folds`` pairs ``(fit, held_out)`` of index arrays; the held-out sets partition
        ``range(n)``.
    """
    return list(KFold(n_splits=n_folds, shuffle=True, random_state=random_state).split(np.zeros(n)))
