"""How natural adversarial images look, measured without a human.

- :func:`train_discriminator` / :func:`detection_auc`: a real-versus-fake classifier (a
  :class:`~icml25.diffadvmap.models.SmallCNN` with two classes) trained on clean against
  attacked images; its ROC AUC on held-out clean against held-out attacked images (0.5: it
  cannot tell them apart).
- :func:`nearest_neighbour_distance`: the mean Euclidean distance from each image's features to
  its nearest neighbour among the features of the data set.
- :func:`frechet_distance`: ``||mu_1 - mu_2||^2 + tr(S_1 + S_2 - 2 (S_1 S_2)^{1/2})`` between two
  feature clouds (FID, Heusel et al., 2017, on a small classifier's features instead of
  Inception's).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import torch
from sklearn.metrics import roc_auc_score

from icml25.common.arrays import real_array
from icml25.diffadvmap.attack import _check_images
from icml25.diffadvmap.models import SmallCNN, train_classifier

__all__ = [
    "detection_auc",
    "frechet_distance",
    "nearest_neighbour_distance",
    "train_discriminator",
]


def train_discriminator(
    clean: torch.Tensor, fake: torch.Tensor, *, epochs: int = 20, width: int = 16, seed: int = 0
) -> SmallCNN:
    """A CNN telling ``fake`` (label 1) from ``clean`` (label 0), both (N, C, H, W).

    Parameters
    ----------
    clean : torch.Tensor, shape (N_c, C, H, W)
        Clean images (label 0).
    fake : torch.Tensor, shape (N_f, C, H, W)
        Attacked images of the same image shape (label 1).
    epochs : int, default 20
        Training epochs (:func:`~icml25.diffadvmap.train_classifier`).
    width : int, default 16
        Width of the :class:`~icml25.diffadvmap.SmallCNN`.
    seed : int, default 0
        Seed of the initialisation and the batch order.

    Returns
    -------
    SmallCNN
        The trained two-class discriminator, in eval mode.

    Raises
    ------
    ValueError
        If the batches are empty, not finite 4-D images or of different image shapes.
    """
    _check_pair(clean, fake)
    x = torch.cat([clean, fake])  # (N_c + N_f, C, H, W)
    y = torch.cat([torch.zeros(len(clean)), torch.ones(len(fake))]).long()
    model = SmallCNN(clean.shape[1], 2, width, seed=seed)
    return train_classifier(model, x, y, epochs=epochs, seed=seed)


@torch.no_grad()
def detection_auc(discriminator, clean: torch.Tensor, fake: torch.Tensor) -> float:
    """ROC AUC of the discriminator's fake-logit margin, clean (0) against fake (1).

    Parameters
    ----------
    discriminator : callable
        Two-class classifier, e.g. from :func:`train_discriminator`.
    clean : torch.Tensor, shape (N_c, C, H, W)
        Held-out clean images.
    fake : torch.Tensor, shape (N_f, C, H, W)
        Held-out attacked images.

    Returns
    -------
    float
        AUC in ``[0, 1]``; 0.5 means it cannot tell them apart.

    Raises
    ------
    ValueError
        If the batches are empty, not finite 4-D images or of different image shapes.
    """
    _check_pair(clean, fake)
    scores = [(discriminator(x)[:, 1] - discriminator(x)[:, 0]).numpy() for x in (clean, fake)]
    labels = np.r_[np.zeros(len(clean)), np.ones(len(fake))]
    return float(roc_auc_score(labels, np.concatenate(scores)))


def nearest_neighbour_distance(features: np.ndarray, reference: np.ndarray) -> float:
    """Mean over rows of ``features`` (n, d) of the distance to the nearest row of ``reference``.

    Parameters
    ----------
    features : numpy.ndarray, shape (n, d)
        Finite query features.
    reference : numpy.ndarray, shape (m, d)
        Finite features of the data set.

    Returns
    -------
    float
        Mean Euclidean nearest-neighbour distance.

    Raises
    ------
    ValueError
        If an array is not finite and 2-D, is empty, or the widths differ.
    """
    _check_clouds(("features", features), ("reference", reference), rows=1)
    d2 = (
        (features**2).sum(1)[:, None] + (reference**2).sum(1)[None] - 2 * features @ reference.T
    )  # (n, m)
    return float(np.sqrt(np.maximum(d2.min(1), 0)).mean())


def frechet_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Fréchet distance between Gaussians fitted to ``a`` (n, d) and ``b`` (m, d), n, m >= 2.

    Parameters
    ----------
    a : numpy.ndarray, shape (n, d)
        First feature cloud, ``n >= 2``.
    b : numpy.ndarray, shape (m, d)
        Second feature cloud, ``m >= 2``.

    Returns
    -------
    float
        ``||mu_1 - mu_2||^2 + tr(S_1 + S_2 - 2 (S_1 S_2)^{1/2})``.

    Raises
    ------
    ValueError
        If an array is not finite and 2-D, has fewer than 2 rows, or the widths differ.
    """
    _check_clouds(("a", a), ("b", b), rows=2)
    mu_a, mu_b = a.mean(0), b.mean(0)
    s_a, s_b = np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    root = scipy.linalg.sqrtm(s_a @ s_b)
    root = np.real(root)
    return float(((mu_a - mu_b) ** 2).sum() + np.trace(s_a + s_b - 2 * root))


def _check_pair(clean, fake) -> None:
    """Two non-empty batches of finite images (N, C, H, W) of one image shape."""
    for name, x in (("clean", clean), ("fake", fake)):
        _check_images(name, x)
        if x.dim() != 4:
            raise ValueError(f"{name} must be images (N, C, H, W), got shape {tuple(x.shape)}")
    if clean.shape[1:] != fake.shape[1:]:
        raise ValueError(
            f"clean and fake must have one image shape, got {tuple(clean.shape[1:])} "
            f"and {tuple(fake.shape[1:])}"
        )


def _check_clouds(first, second, *, rows: int) -> None:
    """Two finite feature matrices (n, d) and (m, d), each of at least ``rows`` rows; the
    callers' arrays are used as they are (float32 stays float32)."""
    shapes = []
    for name, value in (first, second):
        shape = real_array(name, value, ndim=2).shape
        if shape[0] < rows:
            raise ValueError(f"{name} must have at least {rows} rows, got shape {shape}")
        shapes.append(shape)
    if shapes[0][1] != shapes[1][1]:
        raise ValueError(
            f"{first[0]} and {second[0]} must have one number of columns, "
            f"got {shapes[0][1]} and {shapes[1][1]}"
        )
