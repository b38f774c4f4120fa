"""Defences against adversarial examples, as torch modules with one interface (AutoAdvExBench,
Carlini et al., ICML 2025, Sec. 3: every defence is a forward function on images in [0, 1],
with optional preprocessing and optional rejection).

Each defence is ``classifier(preprocess(x))``: ``forward(x)`` returns logits (n, 10),
``predict(x)`` returns labels (n,) with ``-1`` for an input the defence rejects. The six built
here on 8x8 digits (x of shape (n, 1, 8, 8) in [0, 1]):

- ``undefended``: the classifier alone;
- ``quantised``: input quantisation to ``levels`` grey levels (its rounding has a zero gradient
  almost everywhere, a masked gradient: Athalye et al. 2018 break it with BPDA);
- ``random_resize``: random resizing and padding (Xie et al. 2018), redrawn at every call (a
  stochastic gradient: broken by EOT);
- ``random_noise``: Gaussian noise added at every call, the classifier trained on noisy digits
  (a stochastic gradient);
- ``detector``: the classifier plus a rejecting detector, the PCA reconstruction error of the
  input above a threshold set on clean training digits (``detector_score`` is differentiable);
- ``adv_trained``: the classifier trained on PGD adversarial examples (Madry et al. 2018).

This file imports only torch: the benchmark copies it into each task's folder, where the agent
reads it and loads the defence with ``load_defense(folder)``.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

KINDS = ("undefended", "quantised", "random_resize", "random_noise", "detector", "adv_trained")
SHAPE = (1, 8, 8)  # channels, height, width of one digit


class SmallCNN(nn.Module):
    """Two 3x3 convolutions, a 2x2 max-pool and two linear layers: (n, 1, s, s) -> (n, 10).

    Parameters
    ----------
    size : int, default 8
        Side ``s`` of the square input images (the hidden layer reads ``(s // 2)**2`` cells).
    width : int, default 16
        Channels of the first convolution; the second has ``2 * width``.
    """

    def __init__(self, size: int = 8, width: int = 16):
        super().__init__()
        self.size = size
        self.conv1 = nn.Conv2d(1, width, 3, padding=1)
        self.conv2 = nn.Conv2d(width, 2 * width, 3, padding=1)
        self.fc1 = nn.Linear(2 * width * (size // 2) ** 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.conv1(x))  # (n, w, s, s)
        h = F.max_pool2d(F.relu(self.conv2(h)), 2)  # (n, 2w, s/2, s/2)
        return self.fc2(F.relu(self.fc1(h.flatten(1))))  # (n, 10)


class Defense(nn.Module):
    """The undefended classifier and the interface of every defence.

    ``forward(x) = classifier(preprocess(x))`` gives logits (n, 10) for x (n, 1, 8, 8) in
    [0, 1]; ``predict(x)`` gives labels (n,), ``-1`` where ``reject(x)`` is true.

    Parameters
    ----------
    classifier : torch.nn.Module
        The network applied after ``preprocess``, for instance :class:`SmallCNN`.
    seed : int, default 0
        Seed of ``self.generator``, the torch generator of a randomised ``preprocess``.

    Notes
    -----
    Class attributes: ``kind`` (its key in ``KINDS``), ``randomised`` (whether ``preprocess``
    draws randomness from ``self.generator``, reset by ``reseed(seed)``), ``rejects`` (whether
    ``reject`` can be true). ``config()`` gives the dict :func:`build_defense` rebuilds it from.
    """

    kind = "undefended"
    randomised = False
    rejects = False

    def __init__(self, classifier: nn.Module, seed: int = 0):
        super().__init__()
        self.classifier = classifier
        self.generator = torch.Generator().manual_seed(seed)

    def reseed(self, seed: int) -> None:
        self.generator.manual_seed(int(seed))

    def preprocess(self, x: torch.Tensor) -> torch.Tensor:
        return x

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _check_images(x)
        return self.classifier(self.preprocess(x))

    def reject(self, x: torch.Tensor) -> torch.Tensor:
        """Boolean mask (n,): inputs the defence refuses to classify."""
        return torch.zeros(len(x), dtype=torch.bool)

    @torch.no_grad()
    def predict(self, x: torch.Tensor) -> torch.Tensor:
        """Labels (n,), ``-1`` where rejected."""
        labels = self(x).argmax(1)
        return torch.where(self.reject(x), torch.full_like(labels, -1), labels)

    def config(self) -> dict:
        return {"kind": self.kind}


class Quantised(Defense):
    """Input quantisation: ``round(x (L - 1)) / (L - 1)``; its gradient is zero a.e.

    Parameters
    ----------
    classifier : torch.nn.Module
        The network applied to the quantised images.
    levels : int, default 3
        Grey levels ``L``, at least 2 (1 would divide by zero).
    seed : int, default 0
        Seed of the defence's generator (unused: the quantisation is deterministic).
    """

    kind = "quantised"

    def __init__(self, classifier: nn.Module, levels: int = 3, seed: int = 0):
        super().__init__(classifier, seed)
        self.levels = int(levels)

    def preprocess(self, x: torch.Tensor) -> torch.Tensor:
        return torch.round(x * (self.levels - 1)) / (self.levels - 1)

    def config(self) -> dict:
        return {"kind": self.kind, "levels": self.levels}


class RandomResize(Defense):
    """Random resizing and padding (Xie et al. 2018), redrawn at every call.

    Each image is resized to a random side ``r`` in [8, ``out_size``] (bilinear) and placed at
    a random offset on an ``out_size`` canvas of zeros. The classifier sees
    (n, 1, out_size, out_size).

    Parameters
    ----------
    classifier : torch.nn.Module
        The network applied to the padded images, sized for ``out_size``.
    out_size : int, default 12
        Side of the canvas, ``>= 8``.
    seed : int, default 0
        Seed of the generator of the sides and offsets.
    """

    kind = "random_resize"
    randomised = True

    def __init__(self, classifier: nn.Module, out_size: int = 12, seed: int = 0):
        super().__init__(classifier, seed)
        self.out_size = int(out_size)

    def preprocess(self, x: torch.Tensor) -> torch.Tensor:
        return random_resize_pad(x, self.out_size, self.generator)

    def config(self) -> dict:
        return {"kind": self.kind, "out_size": self.out_size}


def random_resize_pad(x: torch.Tensor, out_size: int, generator: torch.Generator) -> torch.Tensor:
    """(n, 1, s, s) -> (n, 1, out, out): per image a random side and offset, one batched
    ``grid_sample`` (an affine map from each output pixel back into the input image)."""
    n, s = len(x), x.shape[-1]
    side = torch.randint(s, out_size + 1, (n,), generator=generator).to(x.dtype)  # (n,)
    room = out_size - side
    off_r = torch.floor(torch.rand(n, generator=generator) * (room + 1))  # (n,)
    off_c = torch.floor(torch.rand(n, generator=generator) * (room + 1))
    # output pixel centre u (in pixels) -> input coordinate in [-1, 1] (align_corners=False)
    centre = torch.arange(out_size, dtype=x.dtype) + 0.5  # (out,)
    rows = 2 * (centre[None] - off_r[:, None]) / side[:, None] - 1  # (n, out)
    cols = 2 * (centre[None] - off_c[:, None]) / side[:, None] - 1  # (n, out)
    grid = torch.stack(torch.broadcast_tensors(cols[:, None, :], rows[:, :, None]), -1)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


class RandomNoise(Defense):
    """Random noise: ``x + sigma z``, ``z ~ N(0, I)`` drawn afresh at every call.

    The classifier is trained on such noisy digits (one draw per prediction).

    Parameters
    ----------
    classifier : torch.nn.Module
        The network applied to the noisy images.
    sigma : float, default 0.5
        Standard deviation of the noise.
    seed : int, default 0
        Seed of the generator of the noise.
    """

    kind = "random_noise"
    randomised = True

    def __init__(self, classifier: nn.Module, sigma: float = 0.5, seed: int = 0):
        super().__init__(classifier, seed)
        self.sigma = float(sigma)

    def preprocess(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.sigma * torch.randn(x.shape, generator=self.generator)

    def config(self) -> dict:
        return {"kind": self.kind, "sigma": self.sigma}


class Detector(Defense):
    """Classifier plus a rejecting detector based on the PCA reconstruction error.

    An input is rejected when ``||x - mean - P P^T (x - mean)||^2`` (``P``: top ``k`` principal
    directions of the clean training digits) exceeds ``threshold`` (a high quantile of the
    clean training errors).

    Parameters
    ----------
    classifier : torch.nn.Module
        The network applied to the images (no preprocessing).
    components : int, default 20
        Principal directions ``k`` of the detector.
    seed : int, default 0
        Seed of the defence's generator (unused: the detector is deterministic).

    Notes
    -----
    Buffers ``mean`` (64,), ``basis`` (64, k) and ``threshold`` () start at zero and are set by
    :func:`train_defense` (or loaded by :func:`load_defense`). ``detector_score(x)`` gives the
    reconstruction errors (n,), differentiable in x.
    """

    kind = "detector"
    rejects = True

    def __init__(self, classifier: nn.Module, components: int = 20, seed: int = 0):
        super().__init__(classifier, seed)
        d = SHAPE[0] * SHAPE[1] * SHAPE[2]
        self.register_buffer("mean", torch.zeros(d))
        self.register_buffer("basis", torch.zeros(d, components))  # (d, k)
        self.register_buffer("threshold", torch.zeros(()))

    def detector_score(self, x: torch.Tensor) -> torch.Tensor:
        """Reconstruction error (n,), differentiable in x."""
        z = x.flatten(1) - self.mean  # (n, d)
        residual = z - (z @ self.basis) @ self.basis.T
        return residual.square().sum(1)

    def reject(self, x: torch.Tensor) -> torch.Tensor:
        return self.detector_score(x) > self.threshold

    def config(self) -> dict:
        return {"kind": self.kind, "components": self.basis.shape[1]}


class AdvTrained(Defense):
    """The classifier after PGD adversarial training (Madry et al. 2018); no preprocessing.

    Parameters
    ----------
    classifier : torch.nn.Module
        The network, adversarially trained by :func:`train_defense`.
    seed : int, default 0
        Seed of the defence's generator (unused: no randomness).
    """

    kind = "adv_trained"


def build_defense(config: dict, seed: int = 0) -> Defense:
    """An untrained defence from its config dict.

    Parameters
    ----------
    config : dict
        ``{"kind": ..., **parameters}``, ``kind`` one of ``KINDS`` and the parameters those of
        its class (as its ``config()`` writes them).
    seed : int, default 0
        Seed of the defence's generator.

    Returns
    -------
    defense : Defense
        The defence around a fresh :class:`SmallCNN` (sized for ``out_size`` for
        ``random_resize``), initialised from torch's global random stream.
    """
    if not isinstance(config, dict) or config.get("kind") not in KINDS:
        raise ValueError(f"config must be a dict with 'kind' in {KINDS}, got {config!r}")
    params = {k: v for k, v in config.items() if k != "kind"}
    kind = config["kind"]
    if kind == "random_resize":
        return RandomResize(SmallCNN(size=params.get("out_size", 12)), seed=seed, **params)
    cls = {
        "undefended": Defense,
        "quantised": Quantised,
        "random_noise": RandomNoise,
        "detector": Detector,
        "adv_trained": AdvTrained,
    }[kind]
    return cls(SmallCNN(), seed=seed, **params)


def save_defense(defense: Defense, folder: str | Path) -> None:
    """Write ``defense.json`` and ``weights.pt`` into ``folder``.

    Parameters
    ----------
    defense : Defense
        The defence to save: its ``config()`` as JSON and its ``state_dict`` as torch weights.
    folder : str or pathlib.Path
        The folder, created with its parents if missing; existing files are overwritten.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "defense.json").write_text(json.dumps(defense.config()))
    torch.save(defense.state_dict(), folder / "weights.pt")


def load_defense(folder: str | Path = ".", seed: int = 0) -> Defense:
    """The defence saved in ``folder`` by ``save_defense``, in eval mode.

    Parameters
    ----------
    folder : str or pathlib.Path, default "."
        The folder holding ``defense.json`` and ``weights.pt``.
    seed : int, default 0
        Seed of the defence's generator.

    Returns
    -------
    defense : Defense
        The rebuilt defence with the saved weights, in eval mode.
    """
    folder = Path(folder)
    defense = build_defense(json.loads((folder / "defense.json").read_text()), seed=seed)
    defense.load_state_dict(torch.load(folder / "weights.pt", weights_only=True))
    return defense.eval()


def _check_images(x: torch.Tensor) -> None:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor of shape (n, 1, 8, 8), got {type(x).__name__}")
    if x.ndim != 4 or tuple(x.shape[1:]) != SHAPE:
        raise ValueError(f"x must have shape (n, 1, 8, 8), got {tuple(x.shape)}")
