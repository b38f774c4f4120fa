"""``APTClassifier``: a scikit-learn classifier fitted by a forward pass (Wu & Bergman, ICML
2025): ``fit`` stores the training rows as the context, ``predict_proba`` runs the pre-trained
APT network with the test rows attending to them; no gradient step touches the user's data.

Preprocessing (documented choices): columns listed in ``categorical_features`` are
ordinal-encoded (categories sorted; unseen ones at predict time become NaN); missing values are
replaced by the training column mean (a column all missing becomes 0); columns are standardised
by the training mean and standard deviation. More than ``d_patch`` (100) features are projected
to ``d_patch`` by a fixed Gaussian random projection seeded by ``random_state``. More training
rows than ``max_context`` raise a ``ValueError`` naming the limit, unless ``subsample=True``
(then ``max_context`` rows are drawn at random, seeded by ``random_state``).
"""

from __future__ import annotations

import numbers
from importlib import resources

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from icml25.apt_tabular.model import HEAD_CLASSES
from icml25.apt_tabular.pretrain import load_model, read_weights
from icml25.common.validate import check_int

WEIGHTS_FILE = "weights/apt_default.npz"


def default_weights() -> dict:
    """The shipped weights: the adversarial seed-0 model of the default reproduction.

    Returns
    -------
    dict
        ``{"config": dict, "state": {name: float32 array}}``, as :func:`read_weights` gives,
        for ``APTClassifier(weights=...)`` or :func:`load_model`.
    """
    return read_weights(resources.files("icml25.apt_tabular").joinpath(WEIGHTS_FILE).read_bytes())


def _indices(value) -> list:
    """``categorical_features`` as a list of integer column indices, or ValueError."""
    try:
        cat = list(value)
    except TypeError:
        raise ValueError(
            f"categorical_features must be a list of column indices, got {value!r}"
        ) from None
    for j in cat:
        if isinstance(j, bool | np.bool_) or not isinstance(j, numbers.Integral):
            raise ValueError(f"categorical_features must hold integer column indices, got {j!r}")
    return cat


def _check_float32(name: str, encoded: np.ndarray) -> None:
    """The encoded rows of ``name`` must fit the float32 network."""
    if np.abs(encoded).max(initial=0.0) > np.finfo(np.float32).max:
        raise ValueError(f"{name} has values too large for the float32 network once standardised")


def _check_random_state(value) -> None:
    """``random_state``: None, an integer ``>= 0`` or a numpy Generator / SeedSequence."""
    seeds = np.random.Generator | np.random.SeedSequence
    ok = value is None or isinstance(value, seeds)
    ok = ok or (isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 0)
    if not ok:
        raise ValueError(f"random_state must be None or an integer >= 0, got {value!r}")


class APTClassifier(ClassifierMixin, BaseEstimator):
    """Zero-shot tabular classifier (APT, mixture-block read-out: any number of classes).

    Parameters
    ----------
    weights : dict, optional
        Weights dict from :func:`~icml25.apt_tabular.pretrain` (or ``read_weights``), or None
        for the shipped default weights.
    max_context : int, default 1024
        Most training rows used as the context (at least 2).
    subsample : bool, default False
        If True, a larger training set is subsampled to ``max_context`` rows; if False,
        it raises ``ValueError``.
    categorical_features : list of int, optional
        Indices of categorical columns (ordinal-encoded), or None.
    batch_size : int, default 512
        Test rows per forward pass (test rows do not interact: the result does not
        depend on it).
    random_state : int, numpy.random.Generator or None, default 0
        Seed of the subsampling and of the projection of wide inputs.

    Attributes
    ----------
    classes_ : numpy.ndarray, shape (n_classes,)
        The sorted class labels seen by ``fit``.
    X_context_ : numpy.ndarray, shape (n_context, F)
        The encoded training rows used as the context (``F <= d_patch``).
    y_context_ : numpy.ndarray of int, shape (n_context,)
        The context rows' class indices into ``classes_``.
    """

    def __init__(
        self,
        weights=None,
        max_context: int = 1024,
        subsample: bool = False,
        categorical_features=None,
        batch_size: int = 512,
        random_state: int = 0,
    ):
        self.weights = weights
        self.max_context = max_context
        self.subsample = subsample
        self.categorical_features = categorical_features
        self.batch_size = batch_size
        self.random_state = random_state

    def _encode(self, X: np.ndarray) -> np.ndarray:
        """Ordinal-encode categoricals, mean-impute, standardise, project: ``(n, F)`` -> float."""
        X = self._ordinal(X)
        X = np.where(np.isnan(X), self.mean_, X)
        X = (X - self.mean_) / self.scale_
        return X if self.projection_ is None else X @ self.projection_

    def fit(self, X, y):
        """Store the context: encoded training rows and labels (``classes_`` sorted)."""
        X, y = validate_data(self, X, y, ensure_all_finite="allow-nan", dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y must contain at least 2 classes, got {len(self.classes_)} class")
        if not isinstance(self.max_context, int | np.integer) or self.max_context < 2:
            raise ValueError(f"max_context must be an int >= 2, got {self.max_context!r}")
        _check_random_state(self.random_state)
        check_int("batch_size", self.batch_size, minimum=1)
        rng = np.random.default_rng(self.random_state)
        if X.shape[0] > self.max_context:
            if not self.subsample:
                raise ValueError(
                    f"X has {X.shape[0]} training rows, more than max_context="
                    f"{self.max_context}; pass subsample=True or a larger max_context"
                )
            keep = np.sort(rng.choice(X.shape[0], self.max_context, replace=False))
            X, y_idx = X[keep], y_idx[keep]
        cat = [] if self.categorical_features is None else _indices(self.categorical_features)
        if any(not 0 <= int(j) < X.shape[1] for j in cat):
            raise ValueError(f"categorical_features must be column indices < {X.shape[1]}")
        self.categories_ = {int(j): np.unique(X[~np.isnan(X[:, j]), j]) for j in cat}
        Xe = self._ordinal(X)
        with np.errstate(all="ignore"):
            mean = np.nanmean(Xe, axis=0) if Xe.shape[0] else np.zeros(Xe.shape[1])
        self.mean_ = np.nan_to_num(mean)
        filled = np.where(np.isnan(Xe), self.mean_, Xe)
        std = filled.std(axis=0)
        self.scale_ = np.where(std > 1e-12, std, 1.0)
        weights = default_weights() if self.weights is None else self.weights
        self.model_ = load_model(weights)
        if self.model_.config.readout == "head" and len(self.classes_) > HEAD_CLASSES:
            raise ValueError(
                f"y has {len(self.classes_)} classes but these weights have a fixed "
                f"{HEAD_CLASSES}-class head; use mixture weights for more classes"
            )
        patch = self.model_.config.d_patch
        self.projection_ = None
        if X.shape[1] > patch:
            self.projection_ = rng.standard_normal((X.shape[1], patch)) / np.sqrt(X.shape[1])
        Xe = self._encode(X)
        _check_float32("X", Xe)
        self.X_context_ = Xe
        self.y_context_ = y_idx
        return self

    def _ordinal(self, X: np.ndarray) -> np.ndarray:
        """Categorical columns -> index in the training categories (unseen -> NaN)."""
        X = X.copy()
        for j, cats in self.categories_.items():
            col = X[:, j]
            idx = np.searchsorted(cats, col)
            known = (idx < len(cats)) & (cats[np.minimum(idx, len(cats) - 1)] == col)
            X[:, j] = np.where(known, idx, np.nan)
        return X

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities ``(n, n_classes)`` in the order of ``classes_``."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, ensure_all_finite="allow-nan", dtype=np.float64)
        check_int("batch_size", self.batch_size, minimum=1)
        Xe = self._encode(X)
        _check_float32("X", Xe)
        K = len(self.classes_)
        context = torch.as_tensor(self.X_context_, dtype=torch.float32)  # (n_train, F)
        y = torch.as_tensor(self.y_context_, dtype=torch.long)[None]  # (1, n_train)
        out = []
        with torch.no_grad():
            for start in range(0, Xe.shape[0], self.batch_size):
                test = torch.as_tensor(Xe[start : start + self.batch_size], dtype=torch.float32)
                x = torch.cat([context, test])[None]  # (1, n_train + m, F)
                p = self.model_(x, y, n_classes=K)[0, :, :K]  # (m, K)
                out.append(p.double().numpy())
        P = np.concatenate(out) if out else np.zeros((0, K))
        if not np.isfinite(P).all():
            raise ValueError(
                "X gives non-finite probabilities: its values (or the training rows') are too "
                "large, once standardised, for the float32 network"
            )
        P = P / P.sum(1, keepdims=True).clip(min=1e-300)
        return P

    def predict(self, X) -> np.ndarray:
        P = self.predict_proba(X)  # checks fitted first
        return self.classes_[np.argmax(P, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.non_deterministic = False
        return tags
