"""Panels to discrete tokens: a k-means codebook on image patches (our stand-in for the VQ-VAE
of UCGS, Shi, Li & Xue, ICML 2025, whose encoder maps a panel to a grid of codebook indices).

Each panel image is cut into its four layout cells (the patches, ``c * c`` pixels each); the
codebook is scikit-learn's ``KMeans`` fitted on the distinct patches of a sample of training
panels, with ``K = min(codebook_size, number of distinct patches)`` centres; a patch's token is
its nearest centre. The codebook never sees the attributes: it learns from pixels only.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans

from icml25.common.arrays import int_array
from icml25.common.validate import check_int
from icml25.ucgs_avr.render import image_cells


class PatchCodebook:
    """A k-means codebook on panel cells: ``fit(images)`` then ``encode(images)``.

    ``encode`` maps panel images (..., 2c, 2c) to tokens (..., 4), one per layout cell (the
    index of its nearest centre); ``decode`` maps tokens back to the images of the centres.

    Parameters
    ----------
    codebook_size : int, default 128
        Largest number of centres, ``>= 2``; ``fit`` uses ``min(codebook_size, distinct
        patches)``.
    seed : int, default 0
        ``random_state`` of ``KMeans``, ``>= 0``.

    Notes
    -----
    After ``fit``: ``kmeans`` (the fitted scikit-learn ``KMeans``) and ``n_codes``, the number
    of centres ``K``.

    scikit-learn: not an estimator (``fit`` takes images (n, H, W), ``encode`` and ``decode``
    map them to token grids and back), so ``check_estimator`` does not apply; the clustering
    itself is scikit-learn's ``KMeans``.
    """

    def __init__(self, codebook_size: int = 128, seed: int = 0):
        if isinstance(codebook_size, bool) or not isinstance(codebook_size, int):
            raise ValueError(f"codebook_size must be an int >= 2, got {codebook_size!r}")
        if codebook_size < 2:
            raise ValueError(f"codebook_size must be an int >= 2, got {codebook_size!r}")
        check_int("seed", seed, minimum=0)
        self.codebook_size, self.seed = codebook_size, seed
        self.kmeans: KMeans | None = None

    @property
    def n_codes(self) -> int:
        if self.kmeans is None:
            raise ValueError("the codebook is not fitted: call fit(images) first")
        return self.kmeans.n_clusters

    def fit(self, images: np.ndarray) -> PatchCodebook:
        _check_images(images)
        patches = image_cells(images).reshape(-1, image_cells(images[:1]).shape[-1])
        distinct = np.unique(patches, axis=0).astype(np.float64)  # (U, c * c)
        k = min(self.codebook_size, len(distinct))
        self.kmeans = KMeans(k, n_init=1, random_state=self.seed).fit(distinct)
        return self

    def encode(self, images: np.ndarray, chunk: int = 65536) -> np.ndarray:
        if self.kmeans is None:
            raise ValueError("the codebook is not fitted: call fit(images) first")
        _check_images(images)
        check_int("chunk", chunk, minimum=1)
        cells = image_cells(images)  # (..., 4, c * c)
        if cells.shape[-1] != self.kmeans.n_features_in_:
            raise ValueError(
                f"images must have cells of {self.kmeans.n_features_in_} pixels, as fitted, "
                f"got {cells.shape[-1]}"
            )
        flat = cells.reshape(-1, cells.shape[-1]).astype(np.float64)
        codes = np.concatenate(
            [self.kmeans.predict(flat[i : i + chunk]) for i in range(0, len(flat), chunk)]
        )
        return codes.reshape(cells.shape[:-1]).astype(np.int64)

    def decode(self, tokens: np.ndarray) -> np.ndarray:
        """Tokens ``(..., 4)`` -> images ``(..., 2c, 2c)`` of the centres (for figures)."""
        if self.kmeans is None:
            raise ValueError("the codebook is not fitted: call fit(images) first")
        codes = int_array("tokens", tokens, low=0, high=self.n_codes - 1)
        if codes.ndim < 1 or codes.shape[-1] != 4:
            raise ValueError(f"tokens must have shape (..., 4), got {codes.shape}")
        centres = np.rint(self.kmeans.cluster_centers_).clip(0, 255).astype(np.uint8)
        c = int(round(np.sqrt(centres.shape[1])))
        cells = centres[np.asarray(tokens)].reshape(*np.shape(tokens), c, c)
        top = np.concatenate([cells[..., 0, :, :], cells[..., 1, :, :]], axis=-1)
        bottom = np.concatenate([cells[..., 3, :, :], cells[..., 2, :, :]], axis=-1)
        return np.concatenate([top, bottom], axis=-2)


def _check_images(images) -> None:
    """Panel images: a non-empty numeric array of finite values."""
    try:
        array = np.asarray(images)
    except ValueError:
        raise ValueError("images must be a numeric array (..., 2c, 2c), not ragged") from None
    if array.dtype.kind not in "iuf":
        raise ValueError(f"images must be a numeric array, got dtype {array.dtype}")
    if array.size == 0:
        raise ValueError(f"images must not be empty, got shape {array.shape}")
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise ValueError("images must be finite: they hold NaN or inf")
