"""The time-frequency loss of TimeBridge (Liu et al., ICML 2025; the official training loop):

    L = (1 - alpha) mean |y^ - y| + alpha mean |F(y^) - F(y)|,

with ``F`` the real FFT along the time axis (``torch.fft.rfft``, unnormalised, as in the official
code) and the means over every entry (batch, frequency or step, series); alpha = 0.35 on ETT.
"""

from __future__ import annotations

import torch

from icml25.common.validate import check_real

__all__ = ["frequency_term", "time_frequency_loss"]


def _check_pair(pred, target) -> None:
    for name, value in (("pred", pred), ("target", target)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if pred.ndim != 3:
        raise ValueError(f"pred must have shape (batch, time, series), got {tuple(pred.shape)}")
    if pred.shape != target.shape:
        raise ValueError(f"pred and target must have one shape, got {pred.shape}, {target.shape}")
    if pred.numel() == 0:
        raise ValueError(f"pred must not be empty, got shape {tuple(pred.shape)}")


def frequency_term(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Frequency term of the TimeBridge loss: mean modulus of the spectra's difference.

    Parameters
    ----------
    pred : torch.Tensor, shape (B, H, N)
        Forecasts, non-empty.
    target : torch.Tensor, shape (B, H, N)
        True values, same shape as ``pred``.

    Returns
    -------
    torch.Tensor, shape ()
        ``mean |rfft(y^) - rfft(y)|``, the unnormalised real FFT along axis 1 (time), the mean
        over all ``B (H // 2 + 1) N`` entries; differentiable.
    """
    _check_pair(pred, target)
    return (torch.fft.rfft(pred, dim=1) - torch.fft.rfft(target, dim=1)).abs().mean()


def time_frequency_loss(
    pred: torch.Tensor, target: torch.Tensor, alpha: float = 0.35
) -> torch.Tensor:
    """Time-frequency loss of TimeBridge: a mix of the time-domain and the frequency-domain MAE.

    Parameters
    ----------
    pred : torch.Tensor, shape (B, H, N)
        Forecasts, non-empty.
    target : torch.Tensor, shape (B, H, N)
        True values, same shape as ``pred``.
    alpha : float, default 0.35
        Weight of the frequency term, in ``[0, 1]`` (0.35 on ETT).

    Returns
    -------
    torch.Tensor, shape ()
        ``(1 - alpha) mean |y^ - y| + alpha mean |F(y^) - F(y)|`` (``F`` as in
        ``frequency_term``); differentiable.
    """
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    _check_pair(pred, target)
    time = (pred - target).abs().mean()
    return (1 - alpha) * time + alpha * frequency_term(pred, target)
