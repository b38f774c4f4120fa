"""When a fine-tuning run has converged: the stopping rule of the reproduction's training loops.

The smoothed training loss at step ``t`` is the mean of the last ``window`` per-step losses,
``L(t) = mean(loss[t - window : t])``. Every ``every`` steps from ``t = 2 window`` on, the rule
compares it with the window before, ``L(t - window)``, and the run has converged when

    L(t - window) - L(t) <= rtol * L(t - window) + atol,

i.e. the smoothed loss fell by less than a share ``rtol`` of itself (plus ``atol`` in the loss's
units, so that a loss near zero, whose relative changes are noise, can converge) over the last
window. A loss that rises meets the rule. Training stops at the first check where the rule
holds, or at ``max_steps``; a run stopped by the cap is recorded as not converged (unless the
rule happens to hold at the cap itself).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real


@dataclass(frozen=True)
class ConvergenceRule:
    """Stop when the windowed mean loss stops falling (see the module's docstring).

    Parameters
    ----------
    window : int, default 200
        Steps in each of the two compared windows (the smoothing), ``>= 1``.
    every : int, default 50
        Steps between two checks, ``>= 1``.
    rtol : float, default 0.02
        The largest relative fall of the smoothed loss over one window that counts as
        converged, ``>= 0``.
    atol : float, default 0.002
        The absolute slack added to ``rtol * L(t - window)``, in the loss's units, ``>= 0``.
    max_steps : int, default 2000
        The hard cap, at least ``2 * window``.

    Notes
    -----
    Methods: ``met(losses)`` whether the rule holds at the end of a loss sequence,
    ``stop(losses)`` whether a loop stops after ``len(losses)`` steps, ``relative_change(losses)``
    the relative fall over the last window, ``stopping_step(losses)`` a replay giving
    ``(steps, converged)``.
    """

    window: int = 200
    every: int = 50
    rtol: float = 0.02
    atol: float = 0.002
    max_steps: int = 2000

    def __post_init__(self) -> None:
        check_int("window", self.window, minimum=1)
        check_int("every", self.every, minimum=1)
        check_real("rtol", self.rtol, low=0.0, high=math.inf)
        check_real("atol", self.atol, low=0.0, high=math.inf)
        check_int("max_steps", self.max_steps, minimum=2 * self.window)

    def _windows(self, losses) -> tuple[float, float] | None:
        try:
            x = np.asarray(losses, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("losses must be a 1-d sequence of numbers") from None
        if x.ndim != 1:
            raise ValueError(f"losses must be a 1-d sequence, got shape {x.shape}")
        if len(x) < 2 * self.window:
            return None
        w = self.window
        return float(x[-2 * w : -w].mean()), float(x[-w:].mean())

    def relative_change(self, losses) -> float:
        """``(L(t - window) - L(t)) / L(t - window)`` at the end of ``losses``: the relative
        fall of the smoothed loss over the last window (positive while it still falls); NaN
        before ``2 window`` steps or when the earlier window's mean is 0."""
        windows = self._windows(losses)
        if windows is None or windows[0] == 0:
            return math.nan
        before, now = windows
        return (before - now) / before

    def met(self, losses) -> bool:
        """Whether the rule holds at the end of ``losses`` (False before ``2 window`` steps)."""
        windows = self._windows(losses)
        if windows is None:
            return False
        before, now = windows
        return before - now <= self.rtol * abs(before) + self.atol

    def stop(self, losses) -> bool:
        """Whether a loop that has taken ``len(losses)`` steps stops now: at a check step where
        the rule holds, or at the cap."""
        t = len(losses)
        if t >= self.max_steps:
            return True
        return t >= 2 * self.window and t % self.every == 0 and self.met(losses)

    def stopping_step(self, losses) -> tuple[int, bool]:
        """Replay a loss sequence: ``(steps, converged)`` for the first step count at which a
        loop under this rule stops, and whether the rule held there. A sequence shorter than
        that ends at its own length."""
        x = np.asarray(losses, dtype=np.float64)
        for t in range(1, len(x) + 1):
            if self.stop(x[:t]):
                return t, self.met(x[:t])
        return len(x), self.met(x)
