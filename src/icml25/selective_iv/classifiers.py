"""Classifiers for selectively labelled data (Chen, Li & Mao, ICML 2025), scikit-learn style.

- :class:`UCLClassifier`: unified cost-sensitive learning (UCL) under point or partial
  identification, ``fit(X, y, decision, instrument)``;
- :class:`ERMClassifier`: the baselines, cross-entropy on the labelled units, unweighted
  (selected-sample ERM; with every unit labelled, the full-label oracle) or inverse-propensity
  weighted (``1 / P(D = 1 | x)``, cross-fitted, clipped at its 0.9 quantile).

All share the score model ``f(x) = x A^T + c`` (``output_relu=True``: the official code's
``ReLU(x A^T + c)``, which the reproduction runs) and predict ``argmax_k f_k(x)``.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from icml25.common.validate import check_int, check_real
from icml25.selective_iv.identification import (
    clip_upper_quantile,
    level_first_stage_slope,
    partial_identification_bounds,
    partial_weights,
    point_identified_eta,
    point_weights,
    wald_denominator,
)
from icml25.selective_iv.learner import scores, train_scores
from icml25.selective_iv.nuisance import (
    at_levels,
    fit_conditional_mean,
    folds,
    level_moments,
    point_moments,
)

IDENTIFICATIONS = ("point", "partial")
WEIGHTINGS = ("none", "ipw")
# point UCL warns when more units than this share have a weak first stage: the 0.9-quantile
# clip of the weights tames at most the top tenth of them
WEAK_SHARE = 0.1


class WeakInstrumentWarning(UserWarning):
    """The instrument barely moves the decision at many units: the Wald ratio's denominator
    ``Cov(D, Z | x)`` is tiny there and point-identified weights are mostly noise."""


def default_nuisance() -> HistGradientBoostingRegressor:
    """Our default nuisance model: gradient-boosted regression trees for each conditional mean.

    The official code uses ``HistGradientBoostingClassifier(max_iter=500)``; pass it as
    ``nuisance=`` for the paper's exact choice, about 15x slower.

    Returns
    -------
    HistGradientBoostingRegressor
        A new, unfitted ``HistGradientBoostingRegressor(max_iter=100, early_stopping=False)``.
    """
    return HistGradientBoostingRegressor(max_iter=100, early_stopping=False)


class _ScoreClassifier(ClassifierMixin, BaseEstimator):
    """Prediction from the fitted scores ``f(x) = ReLU(x coef_^T + intercept_)``."""

    def _scores(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return scores(X, self.coef_, self.intercept_, self.output_relu)  # (n, K)

    def decision_function(self, X) -> np.ndarray:
        """The scores ``f(x)``, ``(n, K)``; with two classes, scikit-learn's ``(n,)``
        ``f_1(x) - f_0(x)``."""
        f = self._scores(X)
        return f[:, 1] - f[:, 0] if f.shape[1] == 2 else f

    def predict_proba(self, X) -> np.ndarray:
        """``softmax(f(x))``, ``(n, K)``, the probabilities the surrogate losses act on."""
        return softmax(self._scores(X), axis=1)

    def predict(self, X) -> np.ndarray:
        """``classes_[argmax_k f_k(x)]``, ``(n,)`` (ties go to the first class)."""
        f = self._scores(X)
        return self.classes_[np.argmax(f, axis=1)]

    def _labelled(self, X, y, decision):
        """Validated ``X (n, d)``, ``decision (n,)`` in {0, 1}, label codes ``(n,)`` (-1 where
        unlabelled); sets ``classes_`` from the labelled units."""
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        X = validate_data(self, X, dtype=np.float64)
        n = X.shape[0]
        if decision is None:
            decision = np.ones(n, dtype=int)
        decision = np.asarray(decision)
        if decision.shape != (n,) or not np.isin(decision, (0, 1)).all():
            raise ValueError(f"decision must be an array of shape ({n},) with values in {{0, 1}}")
        decision = decision.astype(int)
        y = column_or_1d(y, warn=True)
        if y.shape != (n,):
            raise ValueError(f"y must be an array of shape ({n},), got shape {y.shape}")
        labelled = decision == 1
        if labelled.sum() == 0:
            raise ValueError("decision must have at least one labelled unit (decision == 1)")
        check_classification_targets(y[labelled])
        self.classes_, codes = np.unique(y[labelled], return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                f"y must have at least 2 classes among the labelled units, got one class: "
                f"{self.classes_}"
            )
        y_code = np.full(n, -1)
        y_code[labelled] = codes
        return X, decision, y_code

    def _seeds(self) -> tuple[int, int]:
        """(fold seed, init seed) drawn from ``random_state``."""
        rng = check_random_state(self.random_state)
        return tuple(int(s) for s in rng.randint(0, 2**31 - 1, size=2))


class UCLClassifier(_ScoreClassifier):
    """Unified cost-sensitive learning from selectively labelled data with an instrument.

    Chen, Li & Mao (ICML 2025; arXiv 2306.07566). On cross-fitted folds, estimate the
    conditional moments, identify
    ``eta_k(x) = P(Y = k | x)`` (Wald ratio) or bounds ``[L_k, U_k]`` (intersection over the
    instrument's levels), turn them into weights ``W_k(x) = max_p eta_p - eta_k`` or
    ``[max_p U_p - L_k]_+`` (see :mod:`icml25.selective_iv.identification`), and minimise
    ``mean_i sum_k W_k(x_i) softmax_k(f(x_i))`` over ``f(x) = x A^T + c`` (the official
    ``ReLU(x A^T + c)`` with ``output_relu=True``).

    Parameters
    ----------
    identification : {"point", "partial"}, default "point"
        Wald-ratio point identification of ``eta``, or bounds intersected over the levels.
    nuisance : estimator or None, default None
        Scikit-learn classifier or regressor, cloned for each conditional mean; None:
        :func:`default_nuisance`.
    n_folds : int, default 5
        Folds of cross-fitting, ``>= 2`` and at most ``n`` (official: 5).
    a : float, default 0.0
        Lower bound on ``P(Y = k | x, z, D = 0)``, in ``[0, 1]`` (partial only; official 0).
    b : float, default 1.0
        Upper bound on ``P(Y = k | x, z, D = 0)``, in ``[a, 1]`` (partial only; official 1).
    quantile : float, default 0.8
        Robust intersection over levels, in ``[0.5, 1]`` (partial only; official 0.8, tight
        1.0); see ``partial_identification_bounds``.
    clip_quantile : float or None, default 0.9
        Point weights are clipped at this quantile of each column per fold, in ``[0, 1]``
        (official 0.9); None: no clip.
    weak_first_stage : float, default 0.02
        Threshold, ``>= 0``: a unit's first stage is weak where the change of
        ``P(D = 1 | x, z)`` per unit of ``z`` (``first_stage_``) is below this in absolute
        value; point identification warns (:class:`WeakInstrumentWarning`) when more than a
        tenth of the units are weak.
    output_relu : bool, default False
        Scores ``f(x) = ReLU(x A^T + c)`` as the official code (True, what the reproduction
        runs) or the linear scores ``x A^T + c`` (False): with the ReLU, units whose scores
        are all negative tie at 0 and the fit can stall (61% training accuracy on three
        Gaussian blobs against 93% with linear scores, and scikit-learn's
        ``check_classifiers_train`` fails).
    lr : float, default 0.005
        Adam step size, ``> 0`` (official 0.005).
    epochs : int, default 200
        Full-batch Adam epochs, ``>= 1`` (official 200).
    random_state : int, RandomState or None, default None
        Seeds the folds and the initialisation.

    Attributes
    ----------
    classes_ : ndarray, shape (K,)
        Labels seen among the labelled units.
    coef_ : ndarray, shape (K, d)
        Weights ``A`` of the scores ``f``.
    intercept_ : ndarray, shape (K,)
        Intercepts ``c`` of the scores ``f``.
    weights_ : ndarray, shape (n, K)
        The cross-fitted UCL weights ``W_k(x_i)`` of the training units.
    levels_ : ndarray, shape (L,)
        The instrument's levels.
    first_stage_ : ndarray, shape (n,)
        The cross-fitted per-unit first stage, the least-squares slope of ``P(D = 1 | x, z)``
        over the levels (one nuisance model on ``(X, Z)``, the partial variant's; point UCL
        fits it for this diagnostic only). The Wald denominator estimated from three separate
        models (``wald_denominator_``) is a difference of two large, noisy numbers and hides
        a weak instrument (README: "weak first stage").
    weak_first_stage_ : ndarray of bool, shape (n,)
        ``|first_stage_| < weak_first_stage``.
    wald_denominator_ : ndarray, shape (n,)
        Point only: the estimated ``Cov(D, Z | x)`` the ratio divides by.

    Notes
    -----
    Shapes in ``fit``: ``X (n, d)``, ``y (n,)`` (entries where ``decision == 0`` are ignored
    and may be anything, e.g. nan), ``decision (n,)`` in {0, 1}, ``instrument (n,)`` numeric
    and finite with ``L >= 2`` levels.

    scikit-learn: a ``BaseEstimator`` (``get_params``, ``set_params``, ``clone`` and pickling
    work, and ``check_estimator``'s parameter checks pass), but ``fit`` needs the decisions
    and the instrument beside ``X`` and ``y``, so every check that calls ``fit(X, y)`` fails by
    construction (40 of 55 in scikit-learn 1.9); ``ERMClassifier`` passes them all.
    """

    def __init__(
        self,
        identification: str = "point",
        *,
        nuisance=None,
        n_folds: int = 5,
        a: float = 0.0,
        b: float = 1.0,
        quantile: float = 0.8,
        clip_quantile: float | None = 0.9,
        weak_first_stage: float = 0.02,
        output_relu: bool = False,
        lr: float = 0.005,
        epochs: int = 200,
        random_state=None,
    ):
        self.identification = identification
        self.nuisance = nuisance
        self.n_folds = n_folds
        self.a = a
        self.b = b
        self.quantile = quantile
        self.clip_quantile = clip_quantile
        self.weak_first_stage = weak_first_stage
        self.output_relu = output_relu
        self.lr = lr
        self.epochs = epochs
        self.random_state = random_state

    def fit(self, X, y, decision, instrument):
        """Fit on ``X (n, d)``, labels ``y (n,)`` observed where ``decision == 1``, and the
        instrument ``(n,)`` (e.g. the decision-maker's id)."""
        if self.identification not in IDENTIFICATIONS:
            raise ValueError(
                f"identification must be one of {IDENTIFICATIONS}, got {self.identification!r}"
            )
        n_folds = check_int("n_folds", self.n_folds, minimum=2)
        check_real("lr", self.lr, low=0.0, high=np.inf, low_open=True)
        epochs = check_int("epochs", self.epochs, minimum=1)
        if self.clip_quantile is not None:
            check_real("clip_quantile", self.clip_quantile, low=0.0, high=1.0)
        weak = check_real("weak_first_stage", self.weak_first_stage, low=0.0, high=np.inf)
        X, decision, y_code = self._labelled(X, y, decision)
        n = X.shape[0]
        z = np.asarray(instrument)
        if z.shape != (n,) or not np.issubdtype(z.dtype, np.number) or not np.isfinite(z).all():
            raise ValueError(f"instrument must be a finite numeric array of shape ({n},)")
        z = z.astype(float)
        self.levels_ = np.unique(z)
        if len(self.levels_) < 2:
            raise ValueError("instrument must take at least 2 distinct values")
        if n < n_folds:
            raise ValueError(f"n_folds must be <= the number of samples {n}, got {n_folds}")
        K = len(self.classes_)
        dy = (y_code[:, None] == np.arange(K)).astype(float)  # (n, K) D 1{Y = k}
        fold_seed, init_seed = self._seeds()
        estimator = default_nuisance() if self.nuisance is None else self.nuisance
        W, slope, cov_dz = np.empty((n, K)), np.empty(n), np.empty(n)
        for fit_idx, out_idx in folds(n, n_folds, fold_seed):
            fit = (X[fit_idx], decision[fit_idx], z[fit_idx], dy[fit_idx])
            if self.identification == "point":
                moments = point_moments(estimator, *fit, X[out_idx])
                eta = point_identified_eta(**moments)
                W[out_idx] = clip_upper_quantile(point_weights(eta), self.clip_quantile)
                cov_dz[out_idx] = wald_denominator(moments["m_d"], moments["m_z"], moments["m_dz"])
                X_fit, d_fit, z_fit = fit[:3]
                p_d1_z = at_levels(estimator, X_fit, z_fit, d_fit, X[out_idx], self.levels_)
                slope[out_idx] = level_first_stage_slope(p_d1_z, self.levels_)
            else:
                m_dy_z, p_d0_z = level_moments(estimator, *fit, X[out_idx], self.levels_)
                lower, upper = partial_identification_bounds(
                    m_dy_z, p_d0_z, a=self.a, b=self.b, quantile=self.quantile
                )
                W[out_idx] = partial_weights(lower, upper)
                slope[out_idx] = level_first_stage_slope(1.0 - p_d0_z, self.levels_)
        self.weights_, self.first_stage_ = W, slope
        if self.identification == "point":
            self.wald_denominator_ = cov_dz
        self.weak_first_stage_ = np.abs(slope) < weak
        share = float(self.weak_first_stage_.mean())
        if self.identification == "point" and share > WEAK_SHARE:
            warnings.warn(
                f"weak first stage: P(D = 1 | x, z) moves by less than {weak:g} per unit of the "
                f"instrument at {share:.0%} of the units (median slope "
                f"{np.median(np.abs(slope)):.3g}); the Wald ratio divides by Cov(D, Z | x), so "
                "the point weights there are mostly nuisance error. See first_stage_, "
                "weak_first_stage_ and wald_denominator_ per unit, or use "
                "identification='partial'.",
                WeakInstrumentWarning,
                stacklevel=2,
            )
        self.coef_, self.intercept_ = train_scores(
            X,
            cost=W,
            n_classes=K,
            output_relu=bool(self.output_relu),
            lr=self.lr,
            epochs=epochs,
            seed=init_seed,
        )
        return self


class ERMClassifier(_ScoreClassifier):
    """Empirical risk minimisation on the labelled units: the paper's baselines.

    Cross-entropy on the units with ``decision == 1``; fitted with ``decision=None`` (all
    labelled) it is the full-label oracle.

    Parameters
    ----------
    weighting : {"none", "ipw"}, default "none"
        ``"none"``: selected-sample ERM, every labelled unit weighted 1. ``"ipw"``: each
        labelled unit weighted by ``1 / P(D = 1 | x)``, the propensity cross-fitted on all
        units (floored at 1e-12 before inverting).
    propensity : estimator or None, default None
        Scikit-learn classifier or regressor for ``P(D = 1 | x)`` (``"ipw"`` only); None:
        :func:`default_nuisance`.
    n_folds : int, default 5
        Folds of cross-fitting of the propensity, ``>= 2`` and at most ``n`` (``"ipw"`` only).
    clip_quantile : float or None, default 0.9
        The inverse propensities are clipped at this quantile per fold, in ``[0, 1]``
        (``"ipw"`` only; official 0.9); None: no clip.
    output_relu : bool, default False
        Scores ``ReLU(x A^T + c)`` (True, the official code) or ``x A^T + c``; as in
        :class:`UCLClassifier`.
    lr : float, default 0.01
        Adam step size, ``> 0`` (official 0.01).
    epochs : int, default 200
        Full-batch Adam epochs, ``>= 1`` (official 200).
    random_state : int, RandomState or None, default None
        Seeds the folds and the initialisation.

    Notes
    -----
    After ``fit``: ``classes_`` (K,) the labels seen among the labelled units, ``coef_`` (K, d)
    and ``intercept_`` (K,) of the scores ``f``.
    """

    def __init__(
        self,
        weighting: str = "none",
        *,
        propensity=None,
        n_folds: int = 5,
        clip_quantile: float | None = 0.9,
        output_relu: bool = False,
        lr: float = 0.01,
        epochs: int = 200,
        random_state=None,
    ):
        self.weighting = weighting
        self.propensity = propensity
        self.n_folds = n_folds
        self.clip_quantile = clip_quantile
        self.output_relu = output_relu
        self.lr = lr
        self.epochs = epochs
        self.random_state = random_state

    def fit(self, X, y, decision=None):
        """Fit on ``X (n, d)`` and ``y (n,)``, labels observed where ``decision == 1`` (None:
        all observed)."""
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {self.weighting!r}")
        check_real("lr", self.lr, low=0.0, high=np.inf, low_open=True)
        epochs = check_int("epochs", self.epochs, minimum=1)
        X, decision, y_code = self._labelled(X, y, decision)
        fold_seed, init_seed = self._seeds()
        w = np.ones(X.shape[0])
        if self.weighting == "ipw":
            n_folds = check_int("n_folds", self.n_folds, minimum=2)
            if X.shape[0] < n_folds:
                raise ValueError(f"n_folds must be <= the number of samples, got {n_folds}")
            estimator = default_nuisance() if self.propensity is None else self.propensity
            for fit_idx, out_idx in folds(X.shape[0], n_folds, fold_seed):
                e = fit_conditional_mean(estimator, X[fit_idx], decision[fit_idx])(X[out_idx])
                e = np.maximum(e, 1e-12)  # P(D = 1 | x) clipped away from 0 before inverting
                w[out_idx] = clip_upper_quantile(1.0 / e, self.clip_quantile)
        keep = decision == 1
        self.coef_, self.intercept_ = train_scores(
            X[keep],
            labels=y_code[keep],
            sample_weight=w[keep],
            n_classes=len(self.classes_),
            output_relu=bool(self.output_relu),
            lr=self.lr,
            epochs=epochs,
            seed=init_seed,
        )
        return self
