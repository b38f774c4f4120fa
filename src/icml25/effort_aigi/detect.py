"""The detector: a backbone pre-trained here on real images (10-digit classification), then
fine-tuned as a real-versus-fake detector with a new linear head, in one of three ways (Effort,
Yan et al., ICML 2025, Tables 1-3 and Section 4):

- ``full``: every backbone parameter and the head;
- ``lora``: rank-1 LoRA on the attention projections, backbone frozen, and the head;
- ``effort``: :func:`~icml25.effort_aigi.apply_effort` (rank-1 residual) on the attention
  projections, the rest frozen, and the head.

Loss: binary cross-entropy on balanced batches (half real, half fake); Adam with weight decay
5e-4 as in the official configuration (``effort.yaml``), the same learning rate for all three;
a fixed number of steps, or until a :class:`~icml25.effort_aigi.convergence.ConvergenceRule`
says the training loss has stopped falling.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
from sklearn.metrics import roc_auc_score
from torch import nn
from torch.nn import functional as F

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real
from icml25.effort_aigi.convergence import ConvergenceRule
from icml25.effort_aigi.lora import apply_lora
from icml25.effort_aigi.svd_residual import apply_effort
from icml25.effort_aigi.vit import TinyViT

METHODS = ("full", "lora", "effort")


def pretrain_backbone(images: np.ndarray, labels: np.ndarray, config, seed: int) -> TinyViT:
    """Classification pre-training on real images: Adam (lr ``config.pretrain_lr``, cosine
    decay) on mini-batches of 128, ``config.pretrain_steps`` steps, seeded by ``seed``."""
    model = TinyViT(
        images.shape[-1],
        config.patch,
        images.shape[1],
        config.dim,
        config.depth,
        config.heads,
        classes=int(labels.max()) + 1,
        seed=seed,
    )
    x, y = torch.as_tensor(images), torch.as_tensor(labels)
    opt = torch.optim.Adam(model.parameters(), lr=config.pretrain_lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=config.pretrain_steps)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(config.pretrain_steps):
        idx = torch.randint(len(x), (128,), generator=gen)
        loss = F.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
    return model.eval()


class Detector(nn.Module):
    """Real-versus-fake detector ``logit(x) = head(backbone.features(x))``: fake if positive.

    Shapes: x (B, C, H, W) -> logits (B,).

    Parameters
    ----------
    backbone : TinyViT
        The feature extractor, used as given (its ``features`` is called).
    seed : int
        Seed of the torch stream that initialises the new linear head ``(dim -> 1)``.
    """

    def __init__(self, backbone: TinyViT, seed: int):
        super().__init__()
        self.backbone = backbone
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.head = nn.Linear(backbone.dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone.features(x))[:, 0]


def build_detector(pretrained: TinyViT, method: str, *, rank: int = 1, seed: int = 0) -> Detector:
    """A copy of a pre-trained backbone adapted by one fine-tuning method, with a new head.

    Parameters
    ----------
    pretrained : TinyViT
        The pre-trained backbone; it is deep-copied, not changed, and the copy's
        classification head is replaced by ``nn.Identity``.
    method : str
        One of :data:`METHODS`: ``"full"`` (every backbone parameter trainable), ``"lora"``
        (:func:`apply_lora` on the attention projections) or ``"effort"``
        (:func:`apply_effort` on the attention projections).
    rank : int, default 1
        Rank of the LoRA update or of Effort's residual; unused by ``"full"``.
    seed : int, default 0
        Seed of the new head and of LoRA's ``A`` matrices.

    Returns
    -------
    detector : Detector
        The detector, in train mode; the head is trainable.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    backbone = copy.deepcopy(pretrained).train()
    backbone.head = nn.Identity()  # the classification head is not part of the features
    if method == "effort":
        apply_effort(backbone, rank=rank)
    elif method == "lora":
        apply_lora(backbone, rank=rank, seed=seed)
    else:
        backbone.requires_grad_(True)
    return Detector(backbone, seed)


def fine_tune(
    detector: Detector,
    real: np.ndarray,
    fake: np.ndarray,
    *,
    lr: float,
    seed: int,
    batch: int = 64,
    steps: int | None = None,
    rule: ConvergenceRule | None = None,
) -> np.ndarray:
    """Train the detector's trainable parameters on balanced batches of real and fake images.

    Binary cross-entropy (fake = 1) with Adam (weight decay 5e-4), each batch ``batch // 2``
    real and ``batch // 2`` fake images drawn with replacement, for ``steps`` steps or until
    ``rule`` stops it (exactly one of the two must be given).

    Parameters
    ----------
    detector : Detector
        The detector, trained in place.
    real : ndarray, shape (N, C, H, W)
        Real images, non-empty and finite.
    fake : ndarray, shape (M, C, H, W)
        Fake images of the same image shape, non-empty and finite.
    lr : float
        Learning rate of Adam, ``>= 0``.
    seed : int
        Seed of the torch generator that draws the batches.
    batch : int, default 64
        Images per step, ``>= 2``.
    steps : int or None, default None
        Fixed number of steps, ``>= 1``.
    rule : ConvergenceRule or None, default None
        Stopping rule; training runs until it says stop (at most ``rule.max_steps`` steps).

    Returns
    -------
    losses : ndarray of float, shape (steps taken,)
        The training loss at each step taken.
    """
    real_shape, fake_shape = (
        real_array(name, images, ndim=4).shape for name, images in (("real", real), ("fake", fake))
    )
    if real_shape[1:] != fake_shape[1:]:
        raise ValueError(
            f"real and fake must have one image shape, got {real_shape[1:]} and {fake_shape[1:]}"
        )
    check_real("lr", lr, low=0.0, high=math.inf, high_open=True)
    if (steps is None) == (rule is None):
        raise ValueError("give exactly one of steps (a fixed budget) and rule (a stopping rule)")
    if rule is not None and not isinstance(rule, ConvergenceRule):
        raise TypeError(f"rule must be a ConvergenceRule, got {type(rule).__name__}")
    cap = rule.max_steps if rule is not None else check_int("steps", steps, minimum=1)
    half = check_int("batch", batch, minimum=2) // 2
    xr, xf = torch.as_tensor(real), torch.as_tensor(fake)
    params = [p for p in detector.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=lr, weight_decay=5e-4)
    gen = torch.Generator().manual_seed(seed)
    target = torch.cat([torch.zeros(half), torch.ones(half)])
    losses = np.empty(cap)
    for i in range(cap):
        batch = torch.cat(
            [
                xr[torch.randint(len(xr), (half,), generator=gen)],
                xf[torch.randint(len(xf), (half,), generator=gen)],
            ]
        )  # (2 half, C, H, W)
        loss = F.binary_cross_entropy_with_logits(detector(batch), target)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses[i] = loss.item()
        if rule is not None and rule.stop(losses[: i + 1]):
            return losses[: i + 1].copy()
    return losses


@torch.no_grad()
def scores_and_features(detector: Detector, images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Logits (N,) and backbone features (N, dim) in eval mode."""
    detector.eval()
    feats = detector.backbone.features(torch.as_tensor(images))
    return detector.head(feats)[:, 0].numpy(), feats.numpy()


def auc(real_scores: np.ndarray, fake_scores: np.ndarray) -> float:
    """ROC AUC of telling fakes (positives) from reals by the score."""
    y = np.r_[np.zeros(len(real_scores)), np.ones(len(fake_scores))]
    return float(roc_auc_score(y, np.r_[real_scores, fake_scores]))
