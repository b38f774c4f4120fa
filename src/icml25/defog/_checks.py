"""Checks of the arguments of DeFoG's public functions: each raises ValueError naming the
argument and what was expected (TypeError for what is not a torch tensor), before any work."""

from __future__ import annotations

import numbers

import torch

MAX_ENTRIES = 2**31  # a dense tensor (or array) with more entries is refused: out of memory
MAX_NODES = 10**7  # graphs returned at once with more nodes in all (networkx: ~1 KB a node)


def _kind(value) -> str:
    if isinstance(value, torch.Tensor):
        return f"a {value.dtype} tensor"
    return type(value).__name__


def check_labels(name: str, x, states: int) -> None:
    """``x`` a torch int64 tensor of states in ``[0, states)``."""
    if not isinstance(x, torch.Tensor) or x.dtype != torch.long:
        raise TypeError(f"{name} must be a torch int64 (long) tensor of states, got {_kind(x)}")
    if x.numel() and (int(x.min()) < 0 or int(x.max()) >= states):
        raise ValueError(
            f"{name} must hold states in [0, {states - 1}], got values in "
            f"[{int(x.min())}, {int(x.max())}]"
        )


def check_distribution(name: str, p) -> None:
    """``p`` a non-empty float vector, finite, in [0, 1], summing to 1 (within 1e-4)."""
    if not isinstance(p, torch.Tensor) or not p.is_floating_point():
        raise TypeError(f"{name} must be a floating-point torch tensor, got {_kind(p)}")
    if p.ndim != 1 or p.numel() == 0:
        raise ValueError(f"{name} must be a non-empty vector, got shape {tuple(p.shape)}")
    if not torch.isfinite(p).all():
        raise ValueError(f"{name} must be finite: it holds NaN or inf")
    if (p < 0).any() or (p > 1).any():
        raise ValueError(f"{name} must hold probabilities in [0, 1]")
    total = float(p.double().sum())
    if abs(total - 1.0) > 1e-4:
        raise ValueError(f"{name} must sum to 1, got {total:.6g}")


def check_times(name: str, t, shape: torch.Size | None = None) -> None:
    """``t`` a number or tensor in [0, 1] (broadcastable to ``shape`` where given)."""
    try:
        t = torch.as_tensor(t, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"{name} must be a number or a tensor of numbers in [0, 1]") from None
    if not torch.isfinite(t).all() or (t < 0).any() or (t > 1).any():
        raise ValueError(
            f"{name} must lie in [0, 1] (finite), got {t if t.ndim == 0 else 'a tensor'}"
        )
    if shape is not None and t.ndim:
        try:
            torch.broadcast_shapes(t.shape, shape)
        except RuntimeError:
            raise ValueError(
                f"{name} of shape {tuple(t.shape)} does not broadcast to {tuple(shape)}"
            ) from None


def check_range(name: str, value) -> tuple[int, int]:
    """``value`` a pair ``(low, high)`` of integers with ``1 <= low <= high``."""
    message = f"{name} must be a range (low, high) of integers with 1 <= low <= high, got {value!r}"
    try:
        low, high = value
    except (TypeError, ValueError):
        raise ValueError(message) from None
    for v in (low, high):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise ValueError(message)
    if not 1 <= low <= high:
        raise ValueError(message)
    return int(low), int(high)


def check_entries(what: str, entries: int) -> None:
    """Refuse a dense allocation of more than :data:`MAX_ENTRIES` entries."""
    if entries > MAX_ENTRIES:
        raise ValueError(f"{what} = {entries:.3g} entries, more than {MAX_ENTRIES:.3g}: too large")


def check_nodes(what: str, nodes: int) -> None:
    """Refuse to build more than :data:`MAX_NODES` networkx nodes at once."""
    if nodes > MAX_NODES:
        raise ValueError(f"{what} = {nodes:.3g} nodes in all, more than {MAX_NODES:.3g}: too large")
