"""Write the shipped weights: the adversarial pre-training of seed 0 at the default scale of the
reproduction (Wu & Bergman, ICML 2025), as ``weights/apt_default.npz`` (float32).

Run ``python -m icml25.apt_tabular.ship`` (one thread: about 2.5 minutes); it prints the iris
numbers that the README quotes and ``tests/apt_tabular`` checks to 1e-6.
"""

from __future__ import annotations

from importlib import resources

import torch

from icml25.apt_tabular.classifier import WEIGHTS_FILE, APTClassifier
from icml25.apt_tabular.evaluate import auc, real_split
from icml25.apt_tabular.pretrain import pretrain, save_weights
from icml25.apt_tabular.reproduce import SCALES, variant_config


def iris_numbers(weights=None) -> tuple[float, float]:
    """AUC and sum of ``predict_proba`` on split 0 of iris (the README's reference numbers)."""
    X_tr, X_te, y_tr, y_te = real_split("iris", 0)
    P = APTClassifier(weights=weights).fit(X_tr, y_tr).predict_proba(X_te)
    return auc(y_te, P), float(P[:, 0].sum())


def main() -> None:
    torch.set_num_threads(1)
    weights = pretrain(variant_config(SCALES["default"], "adversarial", 0))
    path = resources.files("icml25.apt_tabular").joinpath(WEIGHTS_FILE)
    save_weights(weights, str(path))
    auc_0, mass = iris_numbers()
    print(f"{path}: iris split 0 AUC {auc_0:.10f}, sum of P(setosa) {mass:.10f}")


if __name__ == "__main__":
    main()
