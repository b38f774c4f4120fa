"""Training the defences of ``defenses.py`` on the digits, each seeded by one integer.

Every classifier is trained with Adam on what the defence will show it: quantised inputs for
``quantised``, freshly resized-and-padded inputs for ``random_resize``, and, for
``adv_trained``, PGD adversarial examples of the current model (Madry et al. 2018: the inner
maximisation by ``train_steps`` steps of PGD at ``eps``, on half of each batch, the other half
clean). The detector is a PCA of the clean training digits with the rejection threshold at the
``1 - false_reject`` quantile of their reconstruction errors.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from icml25.autoadvexbench.attacks import pgd
from icml25.autoadvexbench.defenses import Defense, Detector, build_defense


@dataclass(frozen=True)
class TrainConfig:
    """Settings of :func:`train_defense`.

    Parameters
    ----------
    epochs : int, default 30
        Passes over the training digits, ``>= 1``.
    batch_size : int, default 64
        Images per Adam step, ``>= 1``.
    lr : float, default 2e-3
        Learning rate of Adam.
    eps : float, default 0.2
        L-infinity budget of adversarial training.
    train_steps : int, default 7
        PGD steps of the inner maximisation, ``>= 1``.
    components : int, default 20
        Principal directions of the detector.
    false_reject : float, default 0.05
        Detector's rejection rate on clean training digits, in ``(0, 1)``.
    quant_levels : int, default 3
        Grey levels of ``quantised``.
    resize_to : int, default 12
        Canvas side of ``random_resize``.
    sigma : float, default 0.5
        Noise standard deviation of ``random_noise``.
    """

    epochs: int = 30
    batch_size: int = 64
    lr: float = 2e-3
    eps: float = 0.2  # adversarial training budget
    train_steps: int = 7  # PGD steps of the inner maximisation
    components: int = 20  # detector's principal directions
    false_reject: float = 0.05  # detector's rejection rate on clean training digits
    quant_levels: int = 3
    resize_to: int = 12
    sigma: float = 0.5

    def __post_init__(self) -> None:
        if self.epochs < 1 or self.batch_size < 1 or self.train_steps < 1:
            raise ValueError("epochs, batch_size and train_steps must be >= 1")
        if not 0 < self.false_reject < 1:
            raise ValueError(f"false_reject must be in (0, 1), got {self.false_reject!r}")


def defense_config(kind: str, config: TrainConfig) -> dict:
    """The constructor parameters of one kind of defence."""
    params = {
        "quantised": {"levels": config.quant_levels},
        "random_resize": {"out_size": config.resize_to},
        "detector": {"components": config.components},
        "random_noise": {"sigma": config.sigma},
    }
    return {"kind": kind, **params.get(kind, {})}


def train_defense(
    kind: str, x: torch.Tensor, y: torch.Tensor, config: TrainConfig, seed: int
) -> Defense:
    """Build and train one defence on the digits, seeded by one integer.

    Adam on cross-entropy through the defence's own ``forward`` (so on quantised, resized or
    noisy inputs); ``adv_trained`` replaces the first half of each batch by PGD adversarial
    examples of the current model; ``detector`` first fits its PCA and threshold.

    Parameters
    ----------
    kind : str
        One of ``KINDS``.
    x : torch.Tensor
        (N, 1, 8, 8) training images in [0, 1].
    y : torch.Tensor
        (N,) int64 labels.
    config : TrainConfig
        Training settings and the defence's parameters.
    seed : int
        Seed of the initial weights (through ``torch.manual_seed``, which also resets torch's
        global stream), of the batch order and of the adversarial starts.

    Returns
    -------
    defense : Defense
        The trained defence, in eval mode.
    """
    torch.manual_seed(seed)  # nn.Module initialisation draws from the global generator
    defense = build_defense(defense_config(kind, config), seed=seed)
    if isinstance(defense, Detector):
        _fit_detector(defense, x, config.false_reject)
    generator = torch.Generator().manual_seed(seed)
    optimiser = torch.optim.Adam(defense.classifier.parameters(), lr=config.lr)
    for epoch in range(config.epochs):
        order = torch.randperm(len(x), generator=generator)
        for i, start in enumerate(range(0, len(x), config.batch_size)):
            idx = order[start : start + config.batch_size]
            xb, yb = x[idx], y[idx]
            if kind == "adv_trained":
                xb = _half_adversarial(defense, xb, yb, config, seed * 100003 + epoch * 1009 + i)
            defense.train()
            loss = F.cross_entropy(defense(xb), yb)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return defense.eval()


def _half_adversarial(defense, xb, yb, config: TrainConfig, seed: int) -> torch.Tensor:
    half = len(xb) // 2
    defense.eval()
    adv = pgd(defense, xb[:half], yb[:half], config.eps, steps=config.train_steps, seed=seed)
    return torch.cat([adv, xb[half:]])


@torch.no_grad()
def _fit_detector(defense: Detector, x: torch.Tensor, false_reject: float) -> None:
    flat = x.flatten(1).double()  # (N, d)
    mean = flat.mean(0)
    _, _, vt = torch.linalg.svd(flat - mean, full_matrices=False)
    defense.mean.copy_(mean.float())
    defense.basis.copy_(vt[: defense.basis.shape[1]].T.float())  # (d, k)
    scores = defense.detector_score(x)
    defense.threshold.copy_(torch.quantile(scores, 1 - false_reject))
