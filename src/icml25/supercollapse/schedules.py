"""Learning-rate schedules eta(t) / eta_peak of the supercollapse experiments.

Qiu et al., ICML 2025, Sec. 3-4 (schedules compared: constant, linear decay to zero, cosine;
official code ``utils.get_scheduler``). With ``s = t / T`` the fraction of training done and a
decay over the last ``decay_frac`` of it, ``u = max(0, (s - (1 - decay_frac)) / decay_frac)``:

    constant: 1,   linear: 1 - u,   cosine: (1 + cos(pi u)) / 2.

No warm-up (the paper's MLPs use none).
"""

from __future__ import annotations

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real

SCHEDULES = ("constant", "linear", "cosine")


def lr_schedule(name: str, steps, total: int, decay_frac: float = 1.0) -> np.ndarray:
    """The multiplier of the peak learning rate at each step in ``steps`` of a ``total``-step run.

    Shapes: ``steps (n,)`` integers in ``[0, total]``; returns ``(n,)`` in ``[0, 1]``.

    Parameters
    ----------
    name : {"constant", "linear", "cosine"}
        The schedule (see the module).
    steps : array_like
        Steps ``t`` (n,) in ``[0, total]``.
    total : int
        Length ``T`` of the run in steps; at least 1.
    decay_frac : float, default 1.0
        Fraction of the run, in ``(0, 1]``, over which the rate decays (at its end).

    Returns
    -------
    numpy.ndarray
        The multiplier ``eta(t) / eta_peak`` (n,), float64, in ``[0, 1]``.

    Raises
    ------
    ValueError
        If ``name`` is unknown, ``total`` or ``decay_frac`` is out of range, or a step lies
        outside ``[0, total]``.
    """
    if name not in SCHEDULES:
        raise ValueError(f"name must be one of {SCHEDULES}, got {name!r}")
    total = check_int("total", total, minimum=1)
    decay_frac = check_real("decay_frac", decay_frac, low=0.0, high=1.0, low_open=True)
    steps = real_array("steps", steps, nonempty=False)
    if np.any(steps < 0) or np.any(steps > total):
        raise ValueError(f"steps must lie in [0, total={total}]")
    u = np.maximum(0.0, (steps / total - (1.0 - decay_frac)) / decay_frac)
    if name == "constant":
        return np.ones_like(u)
    if name == "linear":
        return np.clip(1.0 - u, 0.0, None)
    return 0.5 * (1.0 + np.cos(np.pi * np.minimum(u, 1.0)))
