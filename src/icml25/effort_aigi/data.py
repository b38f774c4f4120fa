"""Real images and three generators of fakes for the reproduction.

Real: scikit-learn's bundled handwritten digits (1,797 images of 8 x 8 pixels, 17 grey levels
0..16), scaled to ``[-1, 1]``. Fakes, all trained here on a split of the real images and all
quantised back to the same 17 grey levels (as generated images are saved with the pixel depth of
real ones; otherwise a detector would only have to spot continuous pixel values):

- ``ddpm``: the shared small DDPM (``icml25.common.diffusion``), DDIM sampling;
- ``vae``: a small MLP variational auto-encoder (Kingma & Welling, 2014), decoder means;
- ``pca``: a PCA-Gaussian, ``x = mu + sum_k sqrt(lambda_k) z_k u_k``, ``z ~ N(0, I)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from torch import nn
from torch.nn import functional as F

from icml25.common.arrays import real_array
from icml25.common.diffusion import TrainedDDPM, cached_ddpm, ddim_sample
from icml25.common.validate import check_int

GENERATORS = ("ddpm", "vae", "pca")
LEVELS = 16  # digits take the values 0..16


def digits() -> tuple[np.ndarray, np.ndarray]:
    """Scikit-learn's handwritten digits as images in ``[-1, 1]`` and their labels.

    Returns
    -------
    images : ndarray of float32, shape (1797, 1, 8, 8)
        The 17 grey levels 0..16 mapped linearly onto ``[-1, 1]``.
    labels : ndarray of int64, shape (1797,)
        The digit of each image, 0..9.
    """
    data = load_digits()
    images = data.images.astype(np.float32)[:, None] * (2 / LEVELS) - 1
    return images, data.target.astype(np.int64)


def quantise(x: np.ndarray) -> np.ndarray:
    """Clip to ``[-1, 1]`` and round to the digits' 17 grey levels.

    Parameters
    ----------
    x : ndarray
        Images of any shape, finite real values (NaN and inf are refused).

    Returns
    -------
    quantised : ndarray of float32
        ``x``'s shape, every value one of ``-1 + 2k / 16`` for ``k = 0..16``.
    """
    real_array("x", x, nonempty=False)
    x = np.clip(np.asarray(x, dtype=np.float32), -1, 1)
    return (np.round((x + 1) * (LEVELS / 2)) * (2 / LEVELS) - 1).astype(np.float32)


class VAE(nn.Module):
    """MLP encoder (d -> hidden -> 2 latent) and decoder (latent -> hidden -> d, tanh)."""

    def __init__(self, d: int, latent: int = 8, hidden: int = 128, seed: int = 0):
        super().__init__()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.enc = nn.Sequential(nn.Linear(d, hidden), nn.SiLU(), nn.Linear(hidden, 2 * latent))
            self.dec = nn.Sequential(
                nn.Linear(latent, hidden), nn.SiLU(), nn.Linear(hidden, d), nn.Tanh()
            )
        self.latent = latent

    def loss(self, x: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        """Negative ELBO per image with a Gaussian decoder of variance 1/2 (up to constants)."""
        mu, logvar = self.enc(x).chunk(2, dim=1)  # (B, latent) each
        z = mu + (0.5 * logvar).exp() * noise
        recon = ((self.dec(z) - x) ** 2).sum(1)
        kl = 0.5 * (mu**2 + logvar.exp() - 1 - logvar).sum(1)
        return (recon + kl).mean()


def train_vae(images: np.ndarray, *, steps: int, latent: int = 8, seed: int = 0) -> VAE:
    """Adam (lr 2e-3) on mini-batches of 128 flattened images, every draw seeded by ``seed``."""
    x = torch.as_tensor(images.reshape(len(images), -1))  # (N, d)
    vae = VAE(x.shape[1], latent, seed=seed)
    opt = torch.optim.Adam(vae.parameters(), lr=2e-3)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(check_int("steps", steps, minimum=1)):
        idx = torch.randint(len(x), (128,), generator=gen)
        loss = vae.loss(x[idx], torch.randn(128, latent, generator=gen))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return vae.eval().requires_grad_(False)


@dataclass
class Generators:
    """The three trained generators; ``sample(name, n, seed)`` -> quantised images (n, 1, H, W)."""

    ddpm: TrainedDDPM
    vae: VAE
    pca: PCA
    shape: tuple[int, int, int]
    ddim_steps: int

    def sample(self, name: str, n: int, seed: int) -> np.ndarray:
        if name not in GENERATORS:
            raise ValueError(f"name must be one of {GENERATORS}, got {name!r}")
        n = check_int("n", n, minimum=1)
        if name == "ddpm":
            m = self.ddpm
            x = ddim_sample(m.model, m.schedule, (n, *self.shape), steps=self.ddim_steps, seed=seed)
            return quantise(x.numpy())
        rng = np.random.default_rng(seed)
        if name == "vae":
            z = torch.as_tensor(rng.standard_normal((n, self.vae.latent)), dtype=torch.float32)
            with torch.no_grad():
                return quantise(self.vae.dec(z).numpy().reshape(n, *self.shape))
        z = rng.standard_normal((n, self.pca.n_components_)) * np.sqrt(self.pca.explained_variance_)
        return quantise(self.pca.inverse_transform(z).reshape(n, *self.shape))


def train_generators(images: np.ndarray, config, seed: int) -> Generators:
    """The DDPM (cached on disk: trained once per configuration), the VAE and the PCA-Gaussian,
    on ``images`` (N, 1, H, W)."""
    ddpm = cached_ddpm(
        images,
        T=config.ddpm_T,
        width=config.ddpm_width,
        steps=config.ddpm_steps,
        batch_size=128,
        lr=2e-3,
        seed=seed,
    )
    vae = train_vae(images, steps=config.vae_steps, latent=config.vae_latent, seed=seed)
    pca = PCA(config.pca_components, random_state=seed).fit(images.reshape(len(images), -1))
    return Generators(ddpm, vae, pca, images.shape[1:], config.ddim_steps)


def reconstruction_mse(vae: VAE, images: np.ndarray) -> float:
    """Mean squared error of the VAE's reconstructions at the posterior means (for the log)."""
    x = torch.as_tensor(images.reshape(len(images), -1))
    with torch.no_grad():
        return float(F.mse_loss(vae.dec(vae.enc(x).chunk(2, 1)[0]), x))
