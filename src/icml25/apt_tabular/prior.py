"""Random-MLP data makers, the synthetic task prior of APT (Wu & Bergman, ICML 2025, Sec. 3.1;
official code ``apt/data/mlp.py``).

A data maker draws latent rows ``z`` (Gaussian, uniform or categorical), passes them through a
random MLP of depth ``L`` and width ``h`` with activation ``sigma`` and Gaussian noise of scale
``s`` after each layer; the features ``x`` are ``f`` hidden units picked at random among all
layers, the target is one more unit, discretised into ``K`` classes at its empirical quantiles
and relabelled by a random permutation. Makers are ``nn.Module``s: an *adversarial* maker's
weights take gradient ascent on the model's loss (``pretrain``), a fixed one is drawn afresh.
"""

from __future__ import annotations

import torch
from torch import nn

ACTIVATIONS = {
    "tanh": torch.tanh,
    "relu": torch.relu,
    "sin": torch.sin,
    "identity": lambda t: t,
}
LATENTS = ("gaussian", "uniform", "categorical")


def _randint(low: int, high: int, generator: torch.Generator) -> int:
    """An integer in ``[low, high]`` from ``generator``."""
    return int(torch.randint(low, high + 1, (1,), generator=generator))


class DataMaker(nn.Module):
    """One random MLP data maker; its structure is drawn from ``generator`` at construction.

    ``sample(n_rows, generator)`` returns ``x`` ``(n_rows, f)`` float and ``y`` ``(n_rows,)``
    long in ``[0, K)``; gradients flow from ``x`` to the MLP's weights (the labels, being
    quantile bins, carry none).
    """

    def __init__(
        self,
        generator: torch.Generator,
        max_features: int = 30,
        min_classes: int = 2,
        max_classes: int = 10,
        n_classes: int | None = None,
    ):
        super().__init__()
        g = generator
        self.n_features = _randint(2, max_features, g)
        self.n_classes = (
            n_classes if n_classes is not None else _randint(min_classes, max_classes, g)
        )
        self.depth = _randint(1, 3, g)
        self.width = _randint(max(self.n_features + 1, 8), max(self.n_features + 1, 8) + 32, g)
        self.latent_dim = _randint(2, 16, g)
        self.activation = list(ACTIVATIONS)[_randint(0, len(ACTIVATIONS) - 1, g)]
        self.latent = LATENTS[_randint(0, len(LATENTS) - 1, g)]
        self.noise = float(torch.rand((), generator=g)) * 0.3
        dims = [self.latent_dim] + [self.width] * self.depth
        self.weights = nn.ParameterList(
            nn.Parameter(torch.randn(a, b, generator=g) / a**0.5)
            for a, b in zip(dims, dims[1:], strict=False)
        )
        self.biases = nn.ParameterList(
            nn.Parameter(torch.randn(b, generator=g) * 0.5) for b in dims[1:]
        )
        # pick f feature units and one target unit among all hidden units, without repeats
        units = torch.randperm(self.width * self.depth, generator=g)[: self.n_features + 1]
        self.register_buffer("feature_units", units[:-1])
        self.register_buffer("target_unit", units[-1:])

    def _latent(self, n_rows: int, g: torch.Generator) -> torch.Tensor:
        if self.latent == "gaussian":
            return torch.randn(n_rows, self.latent_dim, generator=g)
        if self.latent == "uniform":
            return torch.rand(n_rows, self.latent_dim, generator=g) * 2 - 1
        levels = torch.randint(2, 6, (self.latent_dim,), generator=g)  # categorical latents
        u = torch.rand(n_rows, self.latent_dim, generator=g)
        return torch.floor(u * levels) / (levels - 1).clamp(min=1) * 2 - 1

    def sample(self, n_rows: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        act = ACTIVATIONS[self.activation]
        h = self._latent(n_rows, generator)  # (n, latent_dim)
        layers = []
        for w, b in zip(self.weights, self.biases, strict=True):
            h = act(h @ w + b)
            h = h + self.noise * torch.randn(h.shape, generator=generator)  # (n, width)
            layers.append(h)
        units = torch.cat(layers, dim=1)  # (n, width * depth)
        x = units[:, self.feature_units]  # (n, f)
        target = units[:, self.target_unit[0]].detach()  # (n,)
        y = quantile_classes(target, self.n_classes)
        perm = torch.randperm(self.n_classes, generator=generator)
        return x, perm[y]


def quantile_classes(target: torch.Tensor, n_classes: int) -> torch.Tensor:
    """Discretise ``target`` ``(n,)`` into ``n_classes`` bins of equal counts (ties broken by
    order), so that every class appears when ``n >= n_classes``."""
    ranks = torch.argsort(torch.argsort(target, stable=True), stable=True)  # (n,)
    return (ranks * n_classes // target.shape[0]).long()


def make_batch(
    makers: list[DataMaker], n_rows: int, n_train: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample one dataset from each maker and stack them: ``x`` ``(B, n_rows, F)`` (features
    standardised by the first ``n_train`` rows, zero-padded to the widest ``F``) and ``y``
    ``(B, n_rows)``. Each dataset's rows are shuffled, so the first ``n_train`` are a random
    training split."""
    xs, ys = [], []
    width = max(m.n_features for m in makers)
    for maker in makers:
        x, y = maker.sample(n_rows, generator)
        order = torch.randperm(n_rows, generator=generator)
        x, y = x[order], y[order]
        mean, std = x[:n_train].mean(0), x[:n_train].std(0)
        x = (x - mean) / (std + 1e-6)
        xs.append(nn.functional.pad(x, (0, width - x.shape[1])))
        ys.append(y)
    return torch.stack(xs), torch.stack(ys)


def synthetic_task(
    seed: int, n_classes: int, n_rows: int, max_features: int = 30
) -> tuple[torch.Tensor, torch.Tensor]:
    """One held-out task from the same prior with ``n_classes`` classes: ``x`` ``(n_rows, f)``,
    ``y`` ``(n_rows,)``, rows in random order."""
    g = torch.Generator().manual_seed(seed)
    maker = DataMaker(g, max_features=max_features, n_classes=n_classes)
    with torch.no_grad():
        x, y = maker.sample(n_rows, g)
    order = torch.randperm(n_rows, generator=g)
    return x[order], y[order]
