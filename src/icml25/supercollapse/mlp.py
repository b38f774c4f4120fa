"""The muP residual MLP of the supercollapse experiments, trained as a stack of members.

Qiu et al., ICML 2025, App. (MLP on Fourier regression; official code ``mlp.py``, ``train.py``):

    h_0 = W_in x,
    h_l = h_{l-1} + (6 / N) W2_l gelu(W1_l rms(h_{l-1})),   l = 1..N,
    f(x) = w_out . rms(h_N),                                 rms(h) = h / sqrt(mean(h^2) + 1e-6),

no biases; ``W_in`` and ``W1_l`` are N(0, 1/fan_in), ``W2_l`` and ``w_out`` start at zero. Loss
``1/2 (f(x) - y)^2``; Adam(beta1 0.9, beta2 0.95, eps 1e-20) with muP learning rates: each matrix
gets ``eta_base * base_width / fan_in_ratio``, i.e. ``eta_base`` for ``W_in`` (fan-in ``d`` at
every width) and ``eta_base * base_width / D`` for ``W1, W2, w_out``. Dropping muP (the paper's
ablation) keeps the learning rates of the smallest width at every width (``lr_width``).

Several members (seeds, schedules, muP or not) of one width train at once as one batched model:
every weight has a leading member axis ``M`` and the blocks are ``torch.bmm``; all members see
the same data stream (the official code fixes the data key and varies only the init seed).
Adam is written out on the stacked tensors because ``torch.optim.Adam`` has one learning rate per
parameter tensor and the members need their own (tested equal to ``torch.optim.Adam``).

Shapes: ``W_in (M, d, D)``, ``W1, W2 (M, N, D, D)``, ``w_out (M, D)``; inputs ``(B, d)``;
outputs ``(M, B)``.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from icml25.common.arrays import int_array
from icml25.common.validate import check_int, check_real
from icml25.supercollapse.fourier import FourierTask, _check_floats, fourier_targets, sample_inputs
from icml25.supercollapse.schedules import SCHEDULES, lr_schedule

BETA1, BETA2, EPS = 0.9, 0.95, 1e-20
NAMES = ("W_in", "W1", "W2", "w_out")


def parameter_count(width: int, depth: int, dim: int = 8) -> int:
    """Number of parameters of one member, ``P = d D + 2 N D^2 + D`` (the paper's ``p``).

    Parameters
    ----------
    width : int
        Hidden width ``D``, ``>= 1``.
    depth : int
        Number of residual blocks ``N``, ``>= 1``.
    dim : int, default 8
        Input dimension ``d``, ``>= 1``.

    Returns
    -------
    int
        ``d D`` (``W_in``) plus ``2 N D^2`` (``W1``, ``W2``) plus ``D`` (``w_out``); there are no
        biases.
    """
    check_int("width", width, minimum=1)
    check_int("depth", depth, minimum=1)
    check_int("dim", dim, minimum=1)
    return dim * width + 2 * depth * width**2 + width


def init_mlp(width: int, depth: int, seeds: Sequence[int], dim: int = 8) -> dict[str, torch.Tensor]:
    """Stacked float32 starting weights of ``M = len(seeds)`` members of one width.

    Member ``m`` is drawn from a torch generator seeded with ``seeds[m]``: ``W_in`` is
    N(0, 1/d), each ``W1_l`` is N(0, 1/D), and ``W2`` and ``w_out`` are zero.

    Parameters
    ----------
    width : int
        Hidden width ``D``, ``>= 1``.
    depth : int
        Number of residual blocks ``N``, ``>= 1``.
    seeds : sequence of int
        One integer seed per member (a list, tuple or integer array), at least one; booleans are
        refused. ``M`` times the parameter count may be at most ``2**30``.
    dim : int, default 8
        Input dimension ``d``, ``>= 1``.

    Returns
    -------
    dict of str to torch.Tensor
        ``"W_in"`` (M, d, D), ``"W1"`` (M, N, D, D), ``"W2"`` (M, N, D, D) and ``"w_out"``
        (M, D), all float32.
    """
    width = check_int("width", width, minimum=1)
    depth = check_int("depth", depth, minimum=1)
    if not isinstance(seeds, Sequence | np.ndarray) or len(seeds) == 0:
        raise ValueError("seeds must be a sequence naming at least one member")
    _check_floats("len(seeds) * parameter_count", len(seeds) * parameter_count(width, depth, dim))
    for i, s in enumerate(seeds):
        _check_seed(f"seeds[{i}]", s)
    W_in, W1 = [], []
    for s in seeds:
        gen = torch.Generator().manual_seed(int(s))
        W_in.append(torch.randn(dim, width, generator=gen) / np.sqrt(dim))
        W1.append(torch.randn(depth, width, width, generator=gen) / np.sqrt(width))
    M = len(seeds)
    return {
        "W_in": torch.stack(W_in),  # (M, d, D)
        "W1": torch.stack(W1),  # (M, N, D, D)
        "W2": torch.zeros(M, depth, width, width),  # (M, N, D, D)
        "w_out": torch.zeros(M, width),  # (M, D)
    }


def _check_seed(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer seed, got {value!r}")


def _rms(h: torch.Tensor) -> torch.Tensor:
    return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)


def mlp_forward(params: dict[str, torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """Outputs of every member of a stacked model on the same inputs.

    Computes ``h_0 = W_in x``, then ``h_l = h_{l-1} + (6 / N) W2_l gelu(W1_l rms(h_{l-1}))`` for
    ``l = 1..N`` (tanh approximation of gelu), and ``f(x) = w_out . rms(h_N)`` (see the module).

    Parameters
    ----------
    params : dict of str to torch.Tensor
        Stacked weights as made by :func:`init_mlp`: ``"W_in"`` (M, d, D), ``"W1"`` and
        ``"W2"`` (M, N, D, D), ``"w_out"`` (M, D).
    x : torch.Tensor
        Inputs (B, d), finite, with the dtype of the weights; shared by all members.

    Returns
    -------
    torch.Tensor
        Outputs ``f(x)`` (M, B), one row per member.
    """
    W_in = params["W_in"]
    if not isinstance(x, torch.Tensor) or x.ndim != 2 or x.shape[1] != W_in.shape[1]:
        shape = tuple(getattr(x, "shape", ()))
        raise ValueError(
            f"x must be a tensor of shape (B, {W_in.shape[1]}), got {type(x).__name__} {shape}"
        )
    if x.dtype != W_in.dtype:
        raise ValueError(f"x must have the weights' dtype {W_in.dtype}, got {x.dtype}")
    if not torch.isfinite(x).all():
        raise ValueError("x must be finite: it holds NaN or inf")
    depth = params["W1"].shape[1]
    h = torch.matmul(x, params["W_in"])  # (M, B, D)
    for layer in range(depth):
        z = torch.nn.functional.gelu(torch.bmm(_rms(h), params["W1"][:, layer]), approximate="tanh")
        h = h + (6.0 / depth) * torch.bmm(z, params["W2"][:, layer])  # (M, B, D)
    return torch.einsum("mbd,md->mb", _rms(h), params["w_out"])


def mup_learning_rates(
    width: int, base_width: int, base_lr: float, lr_width: int | None = None
) -> dict[str, float]:
    """Adam peak learning rates per weight under muP (official ``assign_lr``).

    ``W_in`` gets ``base_lr`` at every width; ``W1``, ``W2`` and ``w_out`` get
    ``base_lr * base_width / lr_width``.

    Parameters
    ----------
    width : int
        Hidden width ``D`` of the model, ``>= 1``.
    base_width : int
        Width at which every weight gets ``base_lr``, ``>= 1``.
    base_lr : float
        Peak learning rate ``eta_base`` at the base width, ``> 0`` and finite.
    lr_width : int or None, default None
        Width whose muP rates are used, ``>= 1``: None means ``width`` itself (muP); a fixed
        width for every model gives the paper's no-muP ablation.

    Returns
    -------
    dict of str to float
        Peak rate of each weight, keyed ``"W_in"``, ``"W1"``, ``"W2"``, ``"w_out"``.
    """
    width = check_int("width", width, minimum=1)
    base_width = check_int("base_width", base_width, minimum=1)
    base_lr = check_real("base_lr", base_lr, low=0.0, high=np.inf, low_open=True, high_open=True)
    lr_width = width if lr_width is None else check_int("lr_width", lr_width, minimum=1)
    hidden = base_lr * base_width / lr_width
    return {"W_in": base_lr, "W1": hidden, "W2": hidden, "w_out": hidden}


@dataclass(frozen=True)
class Training:
    """Test losses of a stack of members recorded during training.

    Parameters
    ----------
    steps : numpy.ndarray
        Numbers of updates (R,) after which the test loss was recorded, increasing, from 0 to
        the total number of steps.
    loss : numpy.ndarray
        Test loss ``1/2 mean (f(x) - y)^2`` (M, R) of each member at each recorded step, float.
    params : int
        Parameter count ``P`` of one member (:func:`parameter_count`).
    samples_per_step : int
        Fresh training samples drawn per step (the batch size).
    """

    steps: np.ndarray
    loss: np.ndarray
    params: int
    samples_per_step: int


def train_members(
    task: FourierTask,
    width: int,
    seeds: Sequence[int],
    schedules: Sequence[str],
    total_steps: int,
    *,
    lr_widths: Sequence[int | None] | None = None,
    depth: int = 3,
    batch: int = 256,
    base_width: int = 16,
    base_lr: float = 0.01,
    eval_steps: Sequence[int] = (),
    eval_size: int = 2048,
    data_seed: int = 0,
) -> Training:
    """Train ``M = len(seeds)`` members of one width at once with Adam on fresh batches.

    Training is online, as in the paper: each step draws a new batch, shared by all members.
    Member ``m`` starts from ``seeds[m]``, follows schedule ``schedules[m]`` and uses the muP
    rates of width ``lr_widths[m]``. The test loss on one fixed test set is recorded after each
    of ``eval_steps`` updates, 0 and ``total_steps`` always included.

    Parameters
    ----------
    task : FourierTask
        Target function to regress on (:func:`fourier_task`); its ``dim`` is the input
        dimension ``d``.
    width : int
        Hidden width ``D`` of every member, ``>= 1``.
    seeds : sequence of int
        Initialisation seed of each member, at least one.
    schedules : sequence of str
        Learning-rate schedule of each member, ``M`` names from ``SCHEDULES`` (``"constant"``,
        ``"linear"``, ``"cosine"``).
    total_steps : int
        Number of Adam updates, ``>= 1``.
    lr_widths : sequence of int or None, optional
        Width whose muP rates each member uses (``M`` entries, None for its own width); None
        (the default) means every member uses its own width.
    depth : int, default 3
        Number of residual blocks ``N``, ``>= 1``.
    batch : int, default 256
        Fresh training samples per step, ``>= 1``.
    base_width : int, default 16
        Base width of the muP rates (:func:`mup_learning_rates`), ``>= 1``.
    base_lr : float, default 0.01
        Peak learning rate at the base width, ``> 0``.
    eval_steps : sequence of int, default ()
        Extra steps at which to record the test loss, each in ``[0, total_steps]``.
    eval_size : int, default 2048
        Number of test points, ``>= 1``.
    data_seed : int, default 0
        Seed of the generator of the test set and of the training batches.

    Returns
    -------
    Training
        Recorded steps (R,), test losses (M, R), the parameter count of one member and the
        batch size.
    """
    total_steps = check_int("total_steps", total_steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    eval_size = check_int("eval_size", eval_size, minimum=1)
    if not isinstance(task, FourierTask):
        raise TypeError(f"task must be a FourierTask, got {type(task).__name__}")
    width = check_int("width", width, minimum=1)
    _check_seed("data_seed", data_seed)
    M = len(seeds)
    _check_floats("total_steps * len(seeds)", total_steps * M)
    _check_floats("max(batch, eval_size) * len(seeds) * width", max(batch, eval_size) * M * width)
    if len(schedules) != M or any(s not in SCHEDULES for s in schedules):
        raise ValueError(f"schedules must be {M} names from {SCHEDULES}, got {schedules!r}")
    lr_widths = [None] * M if lr_widths is None else list(lr_widths)
    if len(lr_widths) != M:
        raise ValueError(f"lr_widths must have {M} entries, got {len(lr_widths)}")
    eval_steps = int_array("eval_steps", eval_steps, ndim=1, nonempty=False)
    record = np.unique(np.concatenate([[0, total_steps], eval_steps]))
    if record.min() < 0 or record.max() > total_steps:
        raise ValueError(f"eval_steps must lie in [0, total_steps={total_steps}]")

    params = init_mlp(width, depth, seeds, task.dim)
    rates = [mup_learning_rates(width, base_width, base_lr, w) for w in lr_widths]
    shape = {n: (M,) + (1,) * (params[n].dim() - 1) for n in NAMES}
    peak = {n: torch.tensor([r[n] for r in rates]).reshape(shape[n]) for n in NAMES}
    factor = np.stack([lr_schedule(s, np.arange(total_steps), total_steps) for s in schedules])
    factor = torch.tensor(factor, dtype=torch.float32)  # (M, T) multiplier of the peak rate
    moments = {n: (torch.zeros_like(p), torch.zeros_like(p)) for n, p in params.items()}

    gen = torch.Generator().manual_seed(int(data_seed))
    x_test = sample_inputs(eval_size, task.dim, gen)  # (E, d)
    y_test = fourier_targets(task, x_test)  # (E,)
    losses = []
    for p in params.values():
        p.requires_grad_(True)
    for step in range(total_steps + 1):
        if step == record[len(losses)]:
            with torch.no_grad():
                err = mlp_forward(params, x_test) - y_test  # (M, E)
                losses.append((0.5 * err.pow(2).mean(1)).numpy())
        if step == total_steps:
            break
        x = sample_inputs(batch, task.dim, gen)  # (B, d)
        loss = 0.5 * (mlp_forward(params, x) - fourier_targets(task, x)).pow(2).mean(1).sum()
        grads = torch.autograd.grad(loss, list(params.values()))
        with torch.no_grad():
            _adam_step(params, grads, moments, peak, factor[:, step], step + 1, shape)
    return Training(
        steps=record,
        loss=np.stack(losses, axis=1).astype(float),  # (M, R)
        params=parameter_count(width, depth, task.dim),
        samples_per_step=batch,
    )


def _adam_step(params, grads, moments, peak, factor, t, shape) -> None:
    """One Adam update with bias correction; the rate of member ``m`` is ``peak * factor[m]``."""
    c1, c2 = 1.0 - BETA1**t, 1.0 - BETA2**t
    for (name, p), g in zip(params.items(), grads, strict=True):
        m, v = moments[name]
        m.lerp_(g, 1.0 - BETA1)
        v.lerp_(g * g, 1.0 - BETA2)
        lr = peak[name] * factor.reshape(shape[name])
        p.sub_(lr * (m / c1) / ((v / c2).sqrt() + EPS))
