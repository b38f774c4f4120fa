"""Synthetic vision-language length distributions, shaped like the research notes' reading of
the official length files (ModelTC/OmniBal ``data/vision/*_token_lengths.json``): images per
sample in {1, 3, 4, 5} with frequencies {0.45, 0.30, 0.05, 0.20}; language tokens = the vision
tokens (``tokens_per_image`` per image) plus text tokens ~ LogNormal(5, 0.7)."""

from __future__ import annotations

import numpy as np

from icml25.common.validate import check_int

IMAGES = np.array([1, 3, 4, 5])
IMAGE_FREQ = np.array([0.45, 0.30, 0.05, 0.20])


def synthetic_lengths(
    n: int,
    rng: np.random.Generator,
    *,
    tokens_per_image: int = 256,
    text_mu: float = 5.0,
    text_sigma: float = 0.7,
    text_scale: float = 1.0,
    text_cap: int = 2048,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample images (n,) and language tokens (n,).

    Text tokens are ``min(ceil(text_scale * LogNormal(text_mu, text_sigma)), text_cap)``.

    Parameters
    ----------
    n : int
        Number of samples, ``>= 1``.
    rng : numpy.random.Generator
        Source of the draws.
    tokens_per_image : int, default 256
        Vision tokens each image adds to the language tokens.
    text_mu : float, default 5.0
        Mean of the log of the text tokens.
    text_sigma : float, default 0.7
        Standard deviation of the log of the text tokens.
    text_scale : float, default 1.0
        Factor on the log-normal draw.
    text_cap : int, default 2048
        Largest number of text tokens.

    Returns
    -------
    images : ndarray of int64, shape (n,)
        Images per sample, in {1, 3, 4, 5}.
    tokens : ndarray of int64, shape (n,)
        Language tokens per sample: ``images * tokens_per_image`` plus the text tokens.
    """
    n = check_int("n", n, minimum=1)
    images = rng.choice(IMAGES, size=n, p=IMAGE_FREQ)
    text = np.minimum(np.ceil(text_scale * rng.lognormal(text_mu, text_sigma, n)), text_cap)
    return images.astype(np.int64), (images * tokens_per_image + text).astype(np.int64)
