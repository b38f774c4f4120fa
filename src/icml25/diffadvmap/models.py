"""Small classifiers trained here, and their (optionally adversarial) training.

- :class:`SmallCNN`: three 3x3 convolutions (the last two of stride 2), global average pooling
  and a linear head; any image size.
- :class:`MLP`: two hidden ReLU layers on the flattened image.
- :func:`train_classifier`: Adam on the cross-entropy; with ``pgd_epsilon > 0`` it is PGD
  adversarial training (Madry et al., 2018): each mini-batch is replaced by its PGD-Linf images.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from icml25.common.validate import check_int, check_real
from icml25.diffadvmap.attack import _check_images, _check_labels
from icml25.diffadvmap.baselines import pgd_linf

__all__ = ["MLP", "SmallCNN", "accuracy", "train_classifier"]


class SmallCNN(nn.Module):
    """Three 3x3 convolutions (the last two of stride 2), global average pooling, a linear head.

    Any image size: images (B, channels, H, W) -> logits (B, classes).

    Parameters
    ----------
    channels : int, default 1
        Input channels ``C``.
    classes : int, default 10
        Number of output logits ``K``.
    width : int, default 16
        Channels of the first convolution (the others have ``2 width``).
    seed : int, default 0
        Seed of the initialisation (torch's global generator is forked and restored).
    """

    def __init__(self, channels: int = 1, classes: int = 10, width: int = 16, seed: int = 0):
        for name, value in (("channels", channels), ("classes", classes), ("width", width)):
            check_int(name, value, minimum=1)
        super().__init__()
        with torch.random.fork_rng(devices=[]):  # the initialisers use the global stream
            torch.manual_seed(seed)
            self.body = nn.Sequential(
                nn.Conv2d(channels, width, 3, 1, 1),
                nn.ReLU(),
                nn.Conv2d(width, 2 * width, 3, 2, 1),
                nn.ReLU(),
                nn.Conv2d(2 * width, 2 * width, 3, 2, 1),
                nn.ReLU(),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
            )
            self.head = nn.Linear(2 * width, classes)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)  # (B, 2 width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))  # (B, classes)


class MLP(nn.Module):
    """Two hidden ReLU layers on the flattened image: (B, ...) -> logits (B, classes).

    Parameters
    ----------
    inputs : int, default 64
        Number of values of a flattened image (64 for 8 x 8 digits).
    classes : int, default 10
        Number of output logits ``K``.
    hidden : int, default 128
        Width of both hidden layers.
    seed : int, default 0
        Seed of the initialisation (torch's global generator is forked and restored).
    """

    def __init__(self, inputs: int = 64, classes: int = 10, hidden: int = 128, seed: int = 0):
        for name, value in (("inputs", inputs), ("classes", classes), ("hidden", hidden)):
            check_int(name, value, minimum=1)
        super().__init__()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.net = nn.Sequential(
                nn.Flatten(),
                nn.Linear(inputs, hidden),
                nn.ReLU(),
                nn.Linear(hidden, hidden),
                nn.ReLU(),
                nn.Linear(hidden, classes),
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def train_classifier(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    epochs: int = 30,
    batch_size: int = 64,
    lr: float = 3e-3,
    pgd_epsilon: float = 0.0,
    pgd_steps: int = 5,
    seed: int = 0,
) -> nn.Module:
    """Train ``model`` in place on images (N, C, H, W) and labels (N,).

    Returns it in eval mode with its parameters frozen.

    Parameters
    ----------
    model : torch.nn.Module
        Classifier, ``logits = model(images)``; trained in place.
    x : torch.Tensor, shape (N, C, H, W)
        Finite training images (in ``[-1, 1]`` when ``pgd_epsilon > 0``).
    y : torch.Tensor of int, shape (N,)
        Training labels.
    epochs : int, default 30
        Passes over the data.
    batch_size : int, default 64
        Mini-batch size.
    lr : float, default 3e-3
        Adam learning rate.
    pgd_epsilon : float, default 0.0
        PGD-Linf radius of adversarial training, in ``[0, 2]`` (0: plain training).
    pgd_steps : int, default 5
        PGD steps per mini-batch when ``pgd_epsilon > 0``.
    seed : int, default 0
        Seed of the batch order and the PGD starts.

    Returns
    -------
    torch.nn.Module
        The same ``model``, in eval mode with ``requires_grad`` off.

    Raises
    ------
    ValueError
        If the images or labels are malformed or a number is out of range.
    """
    _check_images("x", x)
    _check_labels(y, len(x))
    check_int("epochs", epochs, minimum=1)
    check_int("batch_size", batch_size, minimum=1)
    check_real("pgd_epsilon", pgd_epsilon, low=0.0, high=2.0)
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(epochs):
        order = torch.randperm(len(x), generator=gen)
        for start in range(0, len(x), batch_size):
            idx = order[start : start + batch_size]
            xb, yb = x[idx], y[idx]  # (b, C, H, W), (b,)
            if pgd_epsilon > 0:
                model.eval()
                step_seed = int(torch.randint(2**31, (1,), generator=gen))
                xb = pgd_linf(model, xb, yb, epsilon=pgd_epsilon, steps=pgd_steps, seed=step_seed)
                model.train()
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    return model.eval().requires_grad_(False)


@torch.no_grad()
def accuracy(model, x: torch.Tensor, y: torch.Tensor) -> float:
    """The fraction of images (N, ...) whose argmax logit is their label (N,).

    Parameters
    ----------
    model : callable
        Classifier, ``logits = model(images)`` of shape (N, K).
    x : torch.Tensor, shape (N, ...)
        Finite images.
    y : torch.Tensor of int, shape (N,)
        Their labels in ``[0, K)``.

    Returns
    -------
    float
        Accuracy in ``[0, 1]``.

    Raises
    ------
    ValueError
        If the images or labels are malformed or a label is ``>= K``.
    """
    _check_images("x", x)
    _check_labels(y, len(x))
    logits = model(x)  # (N, K)
    if y.max() >= logits.shape[1]:
        raise ValueError(f"y must hold labels in [0, {logits.shape[1]}), got {int(y.max())}")
    return float((logits.argmax(1) == y).float().mean())
