"""A small denoising diffusion model for papers that need one on small images: the noise
schedule, the DDIM step, a small U-Net, training, and a disk cache so that a reproduction
trains it once per configuration and every cell loads the same weights.

DDPM (Ho et al., 2020): the forward process ``q(x_t | x_0) = N(sqrt(abar_t) x_0, (1 - abar_t) I)``
with ``abar_t = prod_{s <= t} (1 - beta_s)``, ``t = 0 .. T-1``; the denoiser ``eps_theta(x_t, t)``
is trained on ``E || eps - eps_theta(sqrt(abar_t) x_0 + sqrt(1 - abar_t) eps, t) ||^2``.

DDIM (Song et al., 2021, eq. 12): from ``x_t`` to an earlier ``x_s``,

    x0_hat = (x_t - sqrt(1 - abar_t) eps) / sqrt(abar_t)
    x_s = sqrt(abar_s) x0_hat + sqrt(1 - abar_s - sigma^2) eps + sigma z,
    sigma = eta sqrt((1 - abar_s) / (1 - abar_t)) sqrt(1 - abar_t / abar_s),

deterministic at ``eta = 0``, DDPM's ancestral step at ``eta = 1``; ``abar_{-1} = 1``.

The denoiser protocol, for a user's own model: ``eps = denoiser(x_t, t)`` with ``x_t`` of shape
(B, C, H, W) in the data's scale (``[-1, 1]`` for images here) and ``t`` a LongTensor (B,) of
steps in ``[0, T)``; it returns a tensor shaped like ``x_t``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from icml25.common.validate import check_int, check_real

__all__ = [
    "NoiseSchedule",
    "TrainedDDPM",
    "UNet",
    "cached_ddpm",
    "ddim_sample",
    "ddim_timesteps",
    "train_ddpm",
]


class NoiseSchedule:
    """The linear beta schedule of DDPM, stretched to ``T`` steps as in Nichol & Dhariwal
    (2021): ``beta_t`` from ``1e-4 * 1000 / T`` to ``0.02 * 1000 / T``."""

    def __init__(self, T: int = 100):
        self.T = check_int("T", T, minimum=2)
        scale = 1000.0 / T
        betas = np.linspace(1e-4 * scale, 0.02 * scale, T)  # (T,)
        if betas[-1] >= 1:
            raise ValueError(f"T must be at least 21 for the linear schedule, got {T}")
        self.betas = torch.tensor(betas, dtype=torch.float64)
        self.alpha_bar = torch.cumprod(1 - self.betas, 0)  # (T,)

    def abar(self, t: int) -> float:
        """``abar_t``, with ``abar_{-1} = 1`` (the clean data)."""
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not -1 <= t < self.T:
            raise ValueError(f"t must be an integer step in [-1, {self.T}), got {t!r}")
        return 1.0 if t < 0 else float(self.alpha_bar[t])

    def q_sample(self, x0: torch.Tensor, t: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        """``x_t = sqrt(abar_t) x0 + sqrt(1 - abar_t) noise`` with ``t`` (B,) per sample."""
        ab = self.alpha_bar.to(x0.dtype)[t].view(-1, *([1] * (x0.dim() - 1)))  # (B, 1, 1, 1)
        return ab.sqrt() * x0 + (1 - ab).sqrt() * noise

    def predict_x0(self, x_t: torch.Tensor, t: int, eps: torch.Tensor) -> torch.Tensor:
        """Tweedie's ``x0_hat = (x_t - sqrt(1 - abar_t) eps) / sqrt(abar_t)`` at one step ``t``."""
        ab = self.abar(t)
        return (x_t - math.sqrt(1 - ab) * eps) / math.sqrt(ab)

    def ddim_step(
        self,
        x_t: torch.Tensor,
        t: int,
        t_prev: int,
        eps: torch.Tensor,
        *,
        eta: float = 0.0,
        noise: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """One DDIM update from step ``t`` to the earlier ``t_prev`` (``-1``: to the data)."""
        if not t_prev < t:
            raise ValueError(f"t_prev must be earlier than t, got t={t}, t_prev={t_prev}")
        check_real("eta", eta, low=0.0, high=1.0)
        ab_t, ab_s = self.abar(t), self.abar(t_prev)
        x0 = self.predict_x0(x_t, t, eps)
        sigma = eta * math.sqrt((1 - ab_s) / (1 - ab_t) * (1 - ab_t / ab_s))
        x_s = math.sqrt(ab_s) * x0 + math.sqrt(max(1 - ab_s - sigma**2, 0.0)) * eps
        if sigma > 0:
            if noise is None:
                raise ValueError("noise must be given when eta > 0")
            x_s = x_s + sigma * noise
        return x_s


def ddim_timesteps(T: int, steps: int) -> list[int]:
    """``steps`` evenly spaced steps of ``[0, T)``, latest first, ending at 0."""
    check_int("steps", steps, minimum=1)
    if steps > T:
        raise ValueError(f"steps must be at most T={T}, got {steps}")
    return sorted({int(round(s)) for s in np.linspace(0, T - 1, steps)}, reverse=True)


def _timestep_embedding(t: torch.Tensor, dim: int) -> torch.Tensor:
    """The transformer's sinusoidal embedding of the step: (B,) -> (B, dim)."""
    half = dim // 2
    freqs = torch.exp(-math.log(10_000.0) * torch.arange(half, dtype=torch.float32) / half)
    args = t.float()[:, None] * freqs[None]  # (B, half)
    return torch.cat([args.sin(), args.cos()], dim=1)


class _ResBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, c_time: int):
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(min(8, c_in), c_in), nn.Conv2d(c_in, c_out, 3, 1, 1)
        self.time = nn.Linear(c_time, c_out)
        self.norm2 = nn.GroupNorm(min(8, c_out), c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1)
        self.skip = nn.Conv2d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, h: torch.Tensor, temb: torch.Tensor) -> torch.Tensor:
        out = self.conv1(F.silu(self.norm1(h)))  # (B, c_out, H, W)
        out = out + self.time(temb)[:, :, None, None]
        out = self.conv2(F.silu(self.norm2(out)))
        return out + self.skip(h)


class UNet(nn.Module):
    """A two-level U-Net ``eps_theta(x_t, t)``: a residual block per level and in the middle,
    stride-2 convolutions down, nearest-neighbour upsampling with skip concatenation up, the
    step added to every block through its sinusoidal embedding. Any height and width: the input
    is padded to a multiple of 4 and the output cropped back."""

    def __init__(self, channels: int = 1, width: int = 32, seed: int = 0):
        super().__init__()
        check_int("channels", channels, minimum=1)
        check_int("width", width, minimum=8)
        check_int("seed", seed, minimum=0)
        self.width = width
        with torch.random.fork_rng(devices=[]):  # torch's initialisers draw from the global
            torch.manual_seed(seed)  # stream: seed it by ``seed`` inside a fork, left unchanged
            self._build(channels, width)

    def _build(self, channels: int, width: int) -> None:
        c_time = 4 * width
        self.time = nn.Sequential(nn.Linear(width, c_time), nn.SiLU(), nn.Linear(c_time, c_time))
        self.stem = nn.Conv2d(channels, width, 3, 1, 1)
        self.down1, self.pool1 = _ResBlock(width, width, c_time), nn.Conv2d(width, width, 3, 2, 1)
        self.down2 = _ResBlock(width, 2 * width, c_time)
        self.pool2 = nn.Conv2d(2 * width, 2 * width, 3, 2, 1)
        self.mid = _ResBlock(2 * width, 2 * width, c_time)
        self.up2 = _ResBlock(4 * width, 2 * width, c_time)
        self.up1 = _ResBlock(3 * width, width, c_time)
        self.head = nn.Sequential(
            nn.GroupNorm(8, width), nn.SiLU(), nn.Conv2d(width, channels, 3, 1, 1)
        )

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        H, W = x.shape[-2:]
        x = F.pad(x, (0, -W % 4, 0, -H % 4), mode="replicate")  # (B, C, H4, W4)
        temb = self.time(_timestep_embedding(t, self.width))  # (B, 4w)
        h1 = self.down1(self.stem(x), temb)  # (B, w, H4, W4)
        h2 = self.down2(self.pool1(h1), temb)  # (B, 2w, H4/2, W4/2)
        h = self.mid(self.pool2(h2), temb)  # (B, 2w, H4/4, W4/4)
        h = self.up2(torch.cat([F.interpolate(h, scale_factor=2.0), h2], 1), temb)
        h = self.up1(torch.cat([F.interpolate(h, scale_factor=2.0), h1], 1), temb)
        return self.head(h)[..., :H, :W]


@dataclass
class TrainedDDPM:
    """A trained denoiser with its schedule, its loss curve, the seconds its training took (on
    the machine that trained it, also when loaded from the cache) and whether it was loaded."""

    model: UNet
    schedule: NoiseSchedule
    losses: np.ndarray  # (steps,)
    train_seconds: float
    from_cache: bool = False
    config: dict = field(default_factory=dict)


def _check_images(images) -> torch.Tensor:
    x = torch.as_tensor(np.asarray(images, dtype=np.float32))
    if x.dim() != 4 or x.shape[0] < 2:
        raise ValueError(f"images must be an array (N >= 2, C, H, W), got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError("images must be finite")
    return x


def train_ddpm(
    images,
    *,
    T: int = 100,
    width: int = 32,
    steps: int = 2000,
    batch_size: int = 128,
    lr: float = 2e-3,
    seed: int = 0,
) -> TrainedDDPM:
    """Train a :class:`UNet` on ``images`` (N, C, H, W), scaled to about ``[-1, 1]``, with the
    DDPM noise-prediction loss: Adam at ``lr`` with a cosine decay over ``steps`` mini-batches
    of ``batch_size``, every draw (batch, step, noise) from one generator seeded by ``seed``."""
    x = _check_images(images)
    check_int("steps", steps, minimum=1)
    check_int("batch_size", batch_size, minimum=1)
    check_real("lr", lr, low=0.0, high=1.0, low_open=True)
    schedule = NoiseSchedule(T)
    model = UNet(x.shape[1], width, seed=seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    gen = torch.Generator().manual_seed(seed)
    losses = np.empty(steps)
    start = time.perf_counter()
    for i in range(steps):
        idx = torch.randint(len(x), (min(batch_size, len(x)),), generator=gen)
        x0 = x[idx]  # (B, C, H, W)
        t = torch.randint(T, (len(idx),), generator=gen)  # (B,)
        noise = torch.randn(x0.shape, generator=gen)
        loss = F.mse_loss(model(schedule.q_sample(x0, t, noise), t), noise)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        losses[i] = loss.item()
    model.eval().requires_grad_(False)
    config = {"T": T, "width": width, "steps": steps, "batch_size": batch_size, "lr": lr}
    config["seed"] = seed
    return TrainedDDPM(model, schedule, losses, time.perf_counter() - start, False, config)


def cache_dir() -> Path:
    """``$ICML25_CACHE`` if set, else ``~/.cache/icml25``."""
    return Path(os.environ.get("ICML25_CACHE", Path.home() / ".cache" / "icml25"))


def cached_ddpm(images, *, directory: str | os.PathLike | None = None, **train) -> TrainedDDPM:
    """:func:`train_ddpm` once per (images, arguments, this module's source): the weights are
    saved under ``directory`` (default :func:`cache_dir`) and loaded by every later call, so
    the cells of a run, or of later runs, share one model. Training is deterministic for its
    seed on one thread, so two cells that race both write the same weights (atomic rename)."""
    x = _check_images(images)
    digest = hashlib.sha256(x.numpy().tobytes())
    digest.update(json.dumps([list(x.shape), sorted(train.items())]).encode())
    digest.update(Path(__file__).read_bytes())
    path = Path(directory or cache_dir()) / "ddpm" / f"{digest.hexdigest()[:20]}.pt"
    if path.is_file():
        blob = torch.load(path, weights_only=True)
        meta = json.loads(blob["meta"])
        model = UNet(x.shape[1], meta["config"]["width"])
        model.load_state_dict(blob["state"])
        model.eval().requires_grad_(False)
        losses = np.asarray(meta["losses"])
        schedule = NoiseSchedule(meta["config"]["T"])
        return TrainedDDPM(model, schedule, losses, meta["train_seconds"], True, meta["config"])
    trained = train_ddpm(x, **train)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = asdict(trained) | {"losses": trained.losses.tolist()}
    meta = {k: meta[k] for k in ("losses", "train_seconds", "config")}
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    torch.save({"state": trained.model.state_dict(), "meta": json.dumps(meta)}, tmp)
    os.replace(tmp, path)
    return trained


@torch.no_grad()
def ddim_sample(
    denoiser,
    schedule: NoiseSchedule,
    shape: tuple[int, ...],
    *,
    steps: int = 50,
    eta: float = 0.0,
    seed: int = 0,
    clip: float | None = 1.0,
) -> torch.Tensor:
    """Draw ``shape`` (B, C, H, W) samples from ``x_{T-1} ~ N(0, I)`` by ``steps`` DDIM
    updates; with ``clip``, each ``x0_hat`` is clipped to ``[-clip, clip]`` and ``eps``
    recomputed from it (the usual guard for images)."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=gen)
    ts = ddim_timesteps(schedule.T, steps)
    for t, s in zip(ts, ts[1:] + [-1], strict=True):
        eps = denoiser(x, torch.full((shape[0],), t, dtype=torch.long))
        if clip is not None:
            x0 = schedule.predict_x0(x, t, eps).clamp(-clip, clip)
            ab = schedule.abar(t)
            eps = (x - math.sqrt(ab) * x0) / math.sqrt(1 - ab)
        noise = torch.randn(shape, generator=gen) if eta > 0 else None
        x = schedule.ddim_step(x, t, s, eps, eta=eta, noise=noise)
    return x
