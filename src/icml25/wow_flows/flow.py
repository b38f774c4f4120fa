"""WoW gradient flow of a labelled dataset toward a target dataset (Bonet, Vauthier & Korba,
ICML 2025, Algorithm 1 / Eq. (15); official ``lib/gd.py`` and ``lib/mmd.py``).

The objective is ``F(P) = MMD_K^2(P, Q) / 2``. The WoW gradient of ``F`` at the particle
``x_i^c`` (point ``i`` of class ``c``) is ``C n`` times the Euclidean gradient of ``F`` with respect
to that particle (each class carries mass ``1/C``, each point ``1/n`` of it), so one explicit
Euler step with heavy-ball momentum ``m`` reads

    v <- C n grad_x F(x) + m v,        x <- x - tau v,

with fresh directions for the sliced distances at every step and, optionally, each target class
subsampled to ``target_batch`` points per step (the official code's ``n_sample_batch``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icml25.common.validate import check_int, check_real
from icml25.wow_flows.kernels import SWKernel, get_kernel
from icml25.wow_flows.mmd import as_datasets, mmd2_sorted
from icml25.wow_flows.sliced import (
    random_projections,
    sorted_projections,
)


@dataclass(frozen=True)
class FlowResult:
    """A recorded WoW flow.

    ``final`` is the dataset at the last step, ``trajectory[-1]``, shape ``(C, n, d)``.

    Parameters
    ----------
    trajectory : ndarray, shape (R, C, n, d)
        The dataset at the recorded steps, step 0 first and the last step last.
    steps : ndarray of int, shape (R,)
        The recorded step numbers.
    mmd2 : ndarray, shape (R,)
        ``MMD_K^2`` to the full target at the recorded steps, on ``n_eval_projections``
        directions fixed for the whole flow (so values at different steps are comparable).
    loss : ndarray, shape (steps,)
        The objective ``MMD_K^2`` of each step, on that step's directions and target batch.
    """

    trajectory: np.ndarray
    steps: np.ndarray
    mmd2: np.ndarray
    loss: np.ndarray

    @property
    def final(self) -> np.ndarray:
        return self.trajectory[-1]


def _target_batch(
    target: torch.Tensor, batch: int | None, generator: torch.Generator
) -> torch.Tensor:
    """Each class of (C', m, d) subsampled without replacement to ``batch`` points."""
    if batch is None or batch >= target.shape[1]:
        return target
    keys = torch.rand(target.shape[:2], generator=generator)  # (C', m)
    idx = keys.argsort(dim=1)[:, :batch]  # (C', B)
    return torch.gather(target, 1, idx[..., None].expand(-1, -1, target.shape[2]))


def flow(
    source,
    target,
    *,
    kernel: str | SWKernel = "riesz",
    steps: int = 500,
    lr: float = 0.1,
    momentum: float = 0.0,
    seed: int = 0,
    record_every: int = 50,
    n_projections: int = 500,
    target_batch: int | None = None,
    n_eval_projections: int = 500,
) -> FlowResult:
    """Flow a labelled dataset toward a target dataset by WoW gradient descent.

    Explicit Euler steps on ``F = MMD_K^2 / 2`` with heavy-ball momentum:
    ``v <- C n grad_x F(x) + momentum v`` and ``x <- x - lr v`` (Algorithm 1 of the paper), with
    fresh directions for the sliced distances at every step.

    Parameters
    ----------
    source : array_like or torch.Tensor, shape (C, n, d)
        The starting dataset, ``C`` classes of ``n`` points, finite.
    target : array_like or torch.Tensor, shape (C', m, d)
        The target dataset, same ``d``.
    kernel : str or SWKernel, default "riesz"
        Kernel on classes, as in :func:`~icml25.wow_flows.mmd.mmd_wow`.
    steps : int, default 500
        Number of Euler steps, ``>= 0``.
    lr : float, default 0.1
        Step size ``tau``, finite and ``> 0``.
    momentum : float, default 0.0
        Heavy-ball coefficient, in ``[0, 1)``.
    seed : int, default 0
        Seed of the ``torch.Generator`` of the directions and the target batches, ``>= 0``; the
        evaluation directions use ``seed + 1``.
    record_every : int, default 50
        Record the dataset every that many steps (and at the last step), ``>= 1``.
    n_projections : int, default 500
        Directions drawn afresh at each step, ``>= 1``.
    target_batch : int or None, default None
        Points per target class drawn without replacement at each step, ``>= 1``; None uses all.
    n_eval_projections : int, default 500
        Directions, fixed for the flow, on which ``FlowResult.mmd2`` is measured, ``>= 1``.

    Returns
    -------
    FlowResult
        The recorded datasets ``(R, C, n, d)``, their steps and MMD to the target, and the loss
        of every step; ``FlowResult.final`` is the last dataset.
    """
    x, y = as_datasets(source, target)
    kernel = get_kernel(kernel)
    steps = check_int("steps", steps, minimum=0)
    lr = check_real("lr", lr, low=0.0, high=float("inf"), low_open=True, high_open=True)
    momentum = check_real("momentum", momentum, low=0.0, high=1.0, high_open=True)
    record_every = check_int("record_every", record_every, minimum=1)
    n_projections = check_int("n_projections", n_projections, minimum=1)
    n_eval_projections = check_int("n_eval_projections", n_eval_projections, minimum=1)
    if target_batch is not None:
        target_batch = check_int("target_batch", target_batch, minimum=1)
    generator = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    eval_generator = torch.Generator().manual_seed(seed + 1)

    x = x.detach().clone()
    y = y.detach().to(x.dtype)
    n_classes, n_points, d = x.shape
    eval_theta = random_projections(d, n_eval_projections, eval_generator, x.dtype)  # (d, L)
    eval_target = sorted_projections(y, eval_theta)  # (C', L, m)

    def measure(z: torch.Tensor) -> float:
        return float(mmd2_sorted(sorted_projections(z, eval_theta), eval_target, kernel))

    recorded, rec_steps, rec_mmd = [x.numpy().copy()], [0], [measure(x)]
    losses = np.empty(steps)
    velocity = torch.zeros_like(x)
    for step in range(1, steps + 1):
        theta = random_projections(d, n_projections, generator, x.dtype)  # (d, L)
        batch = sorted_projections(_target_batch(y, target_batch, generator), theta)
        x.requires_grad_(True)
        loss = mmd2_sorted(sorted_projections(x, theta), batch, kernel)
        (grad,) = torch.autograd.grad(loss / 2, x)  # (C, n, d)
        with torch.no_grad():
            velocity = n_classes * n_points * grad + momentum * velocity
            x = x.detach() - lr * velocity
        losses[step - 1] = float(loss.detach())
        if step % record_every == 0 or step == steps:
            recorded.append(x.numpy().copy())
            rec_steps.append(step)
            rec_mmd.append(measure(x))
    return FlowResult(np.stack(recorded), np.array(rec_steps), np.array(rec_mmd), losses)
