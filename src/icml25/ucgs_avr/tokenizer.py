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

from icml25.ucgs_avr.render import image_cells


class PatchCodebook:
    """``fit(images)`` then ``encode(images)``: ``(..., 2c, 2c)`` uint8 -> ``(..., 4)`` tokens."""

    def __init__(self, codebook_size: int = 128, seed: int = 0):
        if isinstance(codebook_size, bool) or not isinstance(codebook_size, int):
            raise ValueError(f"codebook_size must be an int >= 2, got {codebook_size!r}")
        if codebook_size < 2:
            raise ValueError(f"codebook_size must be an int >= 2, got {codebook_size!r}")
        self.codebook_size, self.seed = codebook_size, seed
        self.kmeans: KMeans | None = None

    @property
    def n_codes(self) -> int:
        if self.kmeans is None:
            raise ValueError("the codebook is not fitted: call fit(images) first")
        return self.kmeans.n_clusters

    def fit(self, images: np.ndarray) -> PatchCodebook:
        patches = image_cells(images).reshape(-1, image_cells(images[:1]).shape[-1])
        distinct = np.unique(patches, axis=0).astype(np.float64)  # (U, c * c)
        k = min(self.codebook_size, len(distinct))
        self.kmeans = KMeans(k, n_init=1, random_state=self.seed).fit(distinct)
        return self

    def encode(self, images: np.ndarray, chunk: int = 65536) -> np.ndarray:
        if self.kmeans is None:
            raise ValueError("the codebook is not fitted: call fit(images) first")
        cells = image_cells(images)  # (..., 4, c * c)
        flat = cells.reshape(-1, cells.shape[-1]).astype(np.float64)
        codes = np.concatenate(
            [self.kmeans.predict(flat[i : i + chunk]) for i in range(0, len(flat), chunk)]
        )
        return codes.reshape(cells.shape[:-1]).astype(np.int64)

    def decode(self, tokens: np.ndarray) -> np.ndarray:
        """Tokens ``(..., 4)`` -> images ``(..., 2c, 2c)`` of the centres (for figures)."""
        centres = np.rint(self.kmeans.cluster_centers_).clip(0, 255).astype(np.uint8)
        c = int(round(np.sqrt(centres.shape[1])))
        cells = centres[np.asarray(tokens)].reshape(*np.shape(tokens), c, c)
        top = np.concatenate([cells[..., 0, :, :], cells[..., 1, :, :]], axis=-1)
        bottom = np.concatenate([cells[..., 3, :, :], cells[..., 2, :, :]], axis=-1)
        return np.concatenate([top, bottom], axis=-2)
