"""The Fourier-feature regression task of the supercollapse MLP experiments.

Qiu, Xiao, Agarwala, Pennington, Pehlevan et al., *Scaling Collapse Reveals Universal Dynamics
in Compute-Optimally Trained Neural Networks*, ICML 2025 (Sec. 2, App. on the MLP task; official
code shikaiqiu/supercollapse, ``data.py``). Inputs are uniform on the cube, the target a fixed
random sum of ``M`` Fourier modes with a power-law spectrum of frequencies:

    x ~ U[-1/2, 1/2]^d,   y(x) = sum_i w_i sqrt(2) cos(2 pi k_i . x + b_i),

    k_i = round(s_i v_i),  s_i = (1 - u_i)^(-1/alpha),  u_i ~ U[0, 1),  v_i uniform on S^{d-1},
    w = g / ||g||,  g ~ N(0, I_M),  b_i in {0, pi/2} with probability 1/2 each.

The modes are orthonormal on the cube up to coincident frequencies, so ``E[y^2] ~ 1``; a model
learns low frequencies first, which gives the power-law loss curves the paper needs.

Shapes: ``k (M, d)``, ``w (M,)``, ``b (M,)``, inputs ``x (B, d)``, targets ``(B,)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real

MAX_FLOATS = 2**30  # arrays of more numbers (4-8 GiB) are refused as a size typo


def _check_floats(name: str, count: int) -> None:
    if count > MAX_FLOATS:
        raise ValueError(f"{name} is too large: {count} numbers (at most 2**30)")


@dataclass(frozen=True)
class FourierTask:
    """A fixed target function: frequencies ``k (M, d)``, weights ``w (M,)``, phases ``b (M,)``.

    Parameters
    ----------
    k : numpy.ndarray
        Integer-valued frequencies ``k_i`` (M, d), float64; ``d`` is the property ``dim``.
    w : numpy.ndarray
        Weights ``w_i`` (M,) of the modes, of unit Euclidean norm.
    b : numpy.ndarray
        Phases ``b_i`` (M,), each 0 or ``pi / 2``.
    """

    k: np.ndarray
    w: np.ndarray
    b: np.ndarray

    @property
    def dim(self) -> int:
        return self.k.shape[1]


def fourier_task(dim: int = 8, n_modes: int = 10_000, alpha: float = 2.0, seed=0) -> FourierTask:
    """Draw the target function of the paper's Fourier regression task (see the module).

    Parameters
    ----------
    dim : int, default 8
        Input dimension ``d``; at least 1.
    n_modes : int, default 10000
        Number of Fourier modes ``M``; at least 1 (``M d`` at most ``2**30``).
    alpha : float, default 2.0
        Tail exponent of the frequency magnitudes ``s_i = (1 - u_i)^(-1/alpha)``; positive.
    seed : int or numpy.random.Generator or None, default 0
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    FourierTask
        The target's frequencies ``k (M, d)``, weights ``w (M,)`` and phases ``b (M,)``.

    Raises
    ------
    ValueError
        If ``dim``, ``n_modes`` or ``alpha`` is out of range.
    """
    dim = check_int("dim", dim, minimum=1)
    n_modes = check_int("n_modes", n_modes, minimum=1)
    _check_floats("n_modes * dim", n_modes * dim)
    alpha = check_real("alpha", alpha, low=0.0, high=np.inf, low_open=True, high_open=True)
    rng = np.random.default_rng(seed)
    s = (1.0 - rng.uniform(size=n_modes)) ** (-1.0 / alpha)  # (M,) frequency magnitudes
    v = rng.normal(size=(n_modes, dim))
    v /= np.linalg.norm(v, axis=1, keepdims=True)  # (M, d) unit directions
    g = rng.normal(size=n_modes)
    b = 0.5 * np.pi * (rng.uniform(size=n_modes) < 0.5)  # (M,)
    return FourierTask(k=np.round(s[:, None] * v), w=g / np.linalg.norm(g), b=b)


def fourier_targets(task: FourierTask, x) -> np.ndarray | torch.Tensor:
    """``y(x) = sum_i w_i sqrt(2) cos(2 pi k_i . x + b_i)`` for ``x (B, d)``; returns ``(B,)``.

    Numpy in, numpy out; a torch tensor in, a tensor out (same dtype).

    Parameters
    ----------
    task : FourierTask
        The target function, of input dimension ``d = task.dim``.
    x : array_like or torch.Tensor
        Inputs (B, d), finite; a tensor must be floating point.

    Returns
    -------
    numpy.ndarray or torch.Tensor
        Targets ``y(x)`` (B,): float64 numpy for array input, a tensor of ``x``'s dtype for
        tensor input.

    Raises
    ------
    TypeError
        If ``task`` is not a :class:`FourierTask`.
    ValueError
        If ``x`` is not a finite (B, d) array or floating-point tensor.
    """
    if not isinstance(task, FourierTask):
        raise TypeError(f"task must be a FourierTask, got {type(task).__name__}")
    if isinstance(x, torch.Tensor):
        if x.ndim != 2 or x.shape[1] != task.dim or not x.is_floating_point():
            raise ValueError(
                f"x must be a float tensor of shape (B, {task.dim}), got {x.dtype} {tuple(x.shape)}"
            )
        if not torch.isfinite(x).all():
            raise ValueError("x must be finite: it holds NaN or inf")
        k, w, b = (torch.as_tensor(a, dtype=x.dtype) for a in (task.k, task.w, task.b))
        return torch.cos(2 * torch.pi * x @ k.T + b) @ (np.sqrt(2.0) * w)
    x = real_array("x", x, nonempty=False)
    if x.ndim != 2 or x.shape[1] != task.dim:
        raise ValueError(f"x must have shape (B, {task.dim}), got {x.shape}")
    return np.cos(2 * np.pi * x @ task.k.T + task.b) @ (np.sqrt(2.0) * task.w)


def sample_inputs(n: int, dim: int, generator: torch.Generator) -> torch.Tensor:
    """``n`` inputs uniform on ``[-1/2, 1/2]^dim``, float32, ``(n, dim)``.

    Parameters
    ----------
    n : int
        Number of inputs; at least 1.
    dim : int
        Input dimension; at least 1 (``n dim`` at most ``2**30``).
    generator : torch.Generator or None
        The random generator drawn from (None: torch's global one).

    Returns
    -------
    torch.Tensor
        Inputs (n, dim), float32.

    Raises
    ------
    TypeError
        If ``generator`` is neither None nor a ``torch.Generator``.
    ValueError
        If ``n`` or ``dim`` is out of range.
    """
    check_int("n", n, minimum=1)
    check_int("dim", dim, minimum=1)
    _check_floats("n * dim", n * dim)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    return torch.rand(n, dim, generator=generator) - 0.5
