"""Zero-shot evaluation of pre-trained APT weights (Wu & Bergman, ICML 2025, Sec. 4): ROC AUC
(one-vs-rest) on scikit-learn's bundled data sets over random splits, and accuracy on held-out
synthetic tasks with many classes; scikit-learn baselines on the same splits."""

from __future__ import annotations

import numpy as np
import torch
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from icml25.apt_tabular.classifier import APTClassifier
from icml25.apt_tabular.pretrain import load_model
from icml25.apt_tabular.prior import synthetic_task

DATASETS = {
    "iris": load_iris,
    "wine": load_wine,
    "breast_cancer": load_breast_cancer,
    "digits": load_digits,
}
BASELINES = ("logistic", "random_forest", "hist_gb")


def real_split(name: str, split: int, max_rows: int = 500):
    """Split ``split`` of data set ``name``: at most ``max_rows`` rows drawn at random (stratified),
    then a stratified half/half train/test split, both seeded by ``split``."""
    X, y = DATASETS[name](return_X_y=True)
    if len(y) > max_rows:
        X, _, y, _ = train_test_split(X, y, train_size=max_rows, stratify=y, random_state=split)
    return train_test_split(X, y, test_size=0.5, stratify=y, random_state=split)


def auc(y: np.ndarray, P: np.ndarray) -> float:
    """ROC AUC, one-vs-rest macro average over classes (the positive column if binary)."""
    if P.shape[1] == 2:
        return float(roc_auc_score(y, P[:, 1]))
    return float(roc_auc_score(y, P, multi_class="ovr", labels=np.arange(P.shape[1])))


def baseline(name: str, seed: int):
    """scikit-learn's defaults (logistic regression after standardisation)."""
    if name == "logistic":
        return make_pipeline(StandardScaler(), LogisticRegression())
    if name == "random_forest":
        return RandomForestClassifier(random_state=seed)
    if name == "hist_gb":
        return HistGradientBoostingClassifier(random_state=seed)
    raise ValueError(f"baseline must be one of {BASELINES}, got {name!r}")


def real_aucs(estimator_for, n_splits: int, max_rows: int = 500) -> dict[str, list[float]]:
    """``{data set: [AUC per split]}``; ``estimator_for(split)`` returns a fresh estimator."""
    out = {}
    for name in DATASETS:
        scores = []
        for split in range(n_splits):
            X_tr, X_te, y_tr, y_te = real_split(name, split, max_rows)
            est = estimator_for(split).fit(X_tr, y_tr)
            scores.append(auc(y_te, est.predict_proba(X_te)))
        out[name] = scores
    return out


def apt_real_aucs(weights: dict, n_splits: int, max_rows: int = 500) -> dict[str, list[float]]:
    return real_aucs(lambda split: APTClassifier(weights=weights), n_splits, max_rows)


DIGITS_VARIANTS = ("pca30", "dequantised")


def digits_variant_aucs(weights: dict, n_splits: int, max_rows: int = 500) -> dict[str, list]:
    """APT's AUC per split of digits made to look like the prior in one respect each (the
    diagnostic of claim (c)): ``pca30`` its 64 pixels projected on the training split's first
    30 principal components (scikit-learn ``PCA``: within the pre-training width of 30
    features, and continuous); ``dequantised`` every integer pixel plus ``U(0, 1)`` noise
    (seeded by the split: continuous, same width and information)."""
    from sklearn.decomposition import PCA

    out: dict[str, list] = {v: [] for v in DIGITS_VARIANTS}
    for split in range(n_splits):
        X_tr, X_te, y_tr, y_te = real_split("digits", split, max_rows)
        pca = PCA(30, random_state=split).fit(X_tr)
        rng = np.random.default_rng(split)
        variants = {
            "pca30": (pca.transform(X_tr), pca.transform(X_te)),
            "dequantised": (X_tr + rng.random(X_tr.shape), X_te + rng.random(X_te.shape)),
        }
        for name, (a, b) in variants.items():
            P = APTClassifier(weights=weights).fit(a, y_tr).predict_proba(b)
            out[name].append(auc(y_te, P))
    return out


def synthetic_accuracy(
    weights: dict, class_counts, tasks: int, n_rows: int, train_fraction: float, seed: int
) -> dict[int, list[float]]:
    """``{K: [test accuracy per task]}`` on held-out prior tasks with ``K`` classes (task seeds
    ``seed + 1000 K + t``). The fixed-head control predicts among its 10 outputs only."""
    model = load_model(weights)
    n_train = int(n_rows * train_fraction)
    out = {}
    for K in class_counts:
        accs = []
        for t in range(tasks):
            x, y = synthetic_task(seed + 1000 * K + t, K, n_rows)
            mean, std = x[:n_train].mean(0), x[:n_train].std(0)
            x = (x - mean) / (std + 1e-6)
            with torch.no_grad():
                P = model(x[None], y[None, :n_train], n_classes=K)[0]  # (m, K or 10)
            accs.append(float((P.argmax(-1) == y[n_train:]).double().mean()))
        out[K] = accs
    return out


def synthetic_baseline_accuracy(
    name: str, class_counts, tasks: int, n_rows: int, train_fraction: float, seed: int
) -> dict[int, list[float]]:
    """``{K: [accuracy per task]}`` of a scikit-learn baseline trained on each held-out task
    (the same tasks as :func:`synthetic_accuracy`): how hard the tasks are for a fitted model."""
    n_train = int(n_rows * train_fraction)
    out = {}
    for K in class_counts:
        accs = []
        for t in range(tasks):
            x, y = synthetic_task(seed + 1000 * K + t, K, n_rows)
            x, y = x.numpy(), y.numpy()
            est = baseline(name, t).fit(x[:n_train], y[:n_train])
            accs.append(float(np.mean(est.predict(x[n_train:]) == y[n_train:])))
        out[K] = accs
    return out
