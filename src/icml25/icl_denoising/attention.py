"""One-layer attention denoisers and their training (Smart, Bietti & Sengupta, ICML 2025, Sec. 3).

The query token attends to the ``L`` context tokens only (no residual stream, no positional
encoding), with merged key-query and projection-value matrices ``W_KQ``, ``W_PV`` (n x n):

- linear attention: ``x^ = (1/L) W_PV X X^T W_KQ x~`` (Eq. for ``F_lin``);
- softmax attention: ``x^ = W_PV X softmax(X^T W_KQ x~)`` (softmax over the ``L`` tokens).

Training follows the paper: mean squared error averaged over coordinates, Adam, learning rate
divided by 10 at 80% and 90% of the epochs, initial entries ``U[-1/sqrt(n), 1/sqrt(n)]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real
from icml25.icl_denoising.tasks import Prompts, _check_size

KINDS = ("linear", "softmax")


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


def attend(
    context: torch.Tensor, query: torch.Tensor, W_KQ: torch.Tensor, W_PV: torch.Tensor, kind: str
) -> torch.Tensor:
    """The attention output at the query token, torch (differentiable).

    Tensors of other shapes, empty or holding NaN or inf, and an unknown ``kind`` are refused.

    Parameters
    ----------
    context : torch.Tensor
        (B, L, n): for each of B prompts, its L clean context tokens in ``R^n``.
    query : torch.Tensor
        (B, n): the noisy query token ``x~`` of each prompt.
    W_KQ : torch.Tensor
        (n, n): the merged key-query matrix.
    W_PV : torch.Tensor
        (n, n): the merged projection-value matrix.
    kind : {"linear", "softmax"}
        Which attention: ``"linear"`` (no softmax, scaled by ``1/L``) or ``"softmax"``.

    Returns
    -------
    torch.Tensor
        (B, n): the output ``x^`` at the query token, differentiable in all four inputs.

    Raises
    ------
    TypeError
        If an input is not a ``torch.Tensor``.
    ValueError
        If ``kind`` is unknown, or a tensor is empty, holds NaN or inf, or has another shape.
    """
    _check_kind(kind)
    tensors = {"context": context, "query": query, "W_KQ": W_KQ, "W_PV": W_PV}
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    _check_shapes(*(tuple(t.shape) for t in tensors.values()))
    for name, t in tensors.items():
        if not bool(torch.isfinite(t).all()):
            raise ValueError(f"{name} must be finite: it holds NaN or inf")
    return _attend(context, query, W_KQ, W_PV, kind)


def _check_shapes(context, query, W_KQ, W_PV) -> None:
    """The shapes of context (B, L, n), query (B, n), W_KQ and W_PV (n, n), all non-empty."""
    if len(context) != 3 or 0 in context:
        raise ValueError(f"context must have shape (B, L, n), non-empty, got {context}")
    B, _, n = context
    if query != (B, n):
        raise ValueError(f"query must have shape ({B}, {n}) like context, got {query}")
    for name, shape in (("W_KQ", W_KQ), ("W_PV", W_PV)):
        if shape != (n, n):
            raise ValueError(f"{name} must be ({n}, {n}), got {shape}")


def _attend(context, query, W_KQ, W_PV, kind: str) -> torch.Tensor:
    keys = query @ W_KQ.T  # (B, n): W_KQ x~
    if kind == "linear":
        second = torch.einsum("bln,blm->bnm", context, context) / context.shape[1]  # (B, n, n)
        return torch.einsum("bnm,bm->bn", second, keys) @ W_PV.T
    weights = torch.softmax(torch.einsum("bln,bn->bl", context, keys), dim=1)  # (B, L)
    return torch.einsum("bl,bln->bn", weights, context) @ W_PV.T


def attention_denoise(
    context: np.ndarray, query: np.ndarray, W_KQ: np.ndarray, W_PV: np.ndarray, kind: str
) -> np.ndarray:
    """Denoise each query with one attention layer over its context, on numpy arrays.

    :func:`attend` on numpy arrays (float64). context (B, L, n), query (B, n) -> (B, n). The
    query token attends to the ``L`` context tokens only (Smart, Bietti & Sengupta, ICML 2025,
    Sec. 3): linear attention ``x^ = (1/L) W_PV X X^T W_KQ x~``, softmax attention
    ``x^ = W_PV X softmax(X^T W_KQ x~)`` (softmax over the ``L`` tokens), ``X`` (n, L) the
    context of one prompt and ``x~`` its noisy query.

    Arrays that are not numeric, empty, of other shapes or holding NaN or inf are refused.

    Parameters
    ----------
    context : numpy.ndarray
        (B, L, n): for each of B prompts, its L clean context tokens in ``R^n``.
    query : numpy.ndarray
        (B, n): the noisy query token ``x~`` of each prompt.
    W_KQ : numpy.ndarray
        (n, n): the merged key-query matrix.
    W_PV : numpy.ndarray
        (n, n): the merged projection-value matrix.
    kind : {"linear", "softmax"}
        Which attention: ``"linear"`` (no softmax, scaled by ``1/L``) or ``"softmax"``.

    Returns
    -------
    numpy.ndarray
        (B, n) float64: the denoised estimate ``x^`` of each prompt's clean query.

    Raises
    ------
    ValueError
        If ``kind`` is unknown, or an array is not numeric, empty, holds NaN or inf, or has a
        shape other than these.
    """
    _check_kind(kind)
    context, query = real_array("context", context), real_array("query", query)
    W_KQ, W_PV = real_array("W_KQ", W_KQ), real_array("W_PV", W_PV)
    _check_shapes(context.shape, query.shape, W_KQ.shape, W_PV.shape)
    out = _attend(*(torch.from_numpy(a) for a in (context, query, W_KQ, W_PV)), kind)
    return out.numpy()


@dataclass(frozen=True)
class TrainingRun:
    """A trained attention layer and its loss curves (:func:`train_attention`).

    Parameters
    ----------
    W_KQ : numpy.ndarray
        (n, n): the trained merged key-query matrix.
    W_PV : numpy.ndarray
        (n, n): the trained merged projection-value matrix.
    train_loss : numpy.ndarray
        (epochs + 1,): mean squared error per coordinate on the training prompts, before
        training and after each epoch.
    test_loss : numpy.ndarray or None
        (epochs + 1,): the same on the test prompts; None when trained without a test set.
    """

    W_KQ: np.ndarray
    W_PV: np.ndarray
    train_loss: np.ndarray
    test_loss: np.ndarray | None


def init_weights(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Initial ``W_KQ``, ``W_PV`` with i.i.d. entries ``U[-1/sqrt(n), 1/sqrt(n)]``.

    The same start as the official code.

    Parameters
    ----------
    n : int
        Token dimension, ``>= 1`` (and ``n * n <= 2**30``).
    seed : int
        Seed of the numpy generator, ``>= 0``.

    Returns
    -------
    W_KQ : numpy.ndarray
        (n, n) float64: the initial key-query matrix (drawn first).
    W_PV : numpy.ndarray
        (n, n) float64: the initial projection-value matrix.
    """
    check_int("n", n, minimum=1)
    _check_size("n", n * n)
    check_int("seed", seed, minimum=0)
    rng = np.random.default_rng(seed)
    bound = 1.0 / np.sqrt(n)
    return rng.uniform(-bound, bound, (n, n)), rng.uniform(-bound, bound, (n, n))


def train_attention(
    train: Prompts,
    test: Prompts | None = None,
    kind: str = "softmax",
    *,
    epochs: int,
    batch_size: int,
    lr: float = 1e-2,
    seed: int = 0,
) -> TrainingRun:
    """Train ``W_KQ``, ``W_PV`` of one attention layer by Adam on the denoising error.

    The loss is the mean squared error per coordinate ``|x^ - x_{L+1}|^2 / n`` on minibatches of
    ``batch_size`` prompts, reshuffled each epoch; the learning rate is multiplied by 0.1 at 80%
    and 90% of the epochs. The start is :func:`init_weights` ``(n, seed)``.

    Parameters
    ----------
    train : Prompts
        The training prompts, context (B, L, n).
    test : Prompts or None, default None
        Prompts with the same ``n``, only monitored (never trained on).
    kind : {"softmax", "linear"}, default "softmax"
        Which attention layer to train.
    epochs : int
        Passes over the training prompts, ``>= 1``.
    batch_size : int
        Prompts per Adam step, ``>= 1``; the last minibatch of an epoch may be smaller.
    lr : float, default 1e-2
        Initial Adam learning rate, ``> 0``.
    seed : int, default 0
        Seed of the initial weights and of the shuffling, ``>= 0``.

    Returns
    -------
    TrainingRun
        The trained ``W_KQ``, ``W_PV`` (n, n) and the losses before training and after each
        epoch, (epochs + 1,) each.

    Raises
    ------
    TypeError
        If ``train`` (or a given ``test``) is not :class:`Prompts`.
    ValueError
        If ``kind`` is unknown, a number is out of range, or ``test`` has another ``n``.
    """
    _check_kind(kind)
    for name, p in (("train", train), ("test", test)):
        if not isinstance(p, Prompts) and (name == "train" or p is not None):
            raise TypeError(f"{name} must be Prompts, got {type(p).__name__}")
    check_int("epochs", epochs, minimum=1)
    check_int("batch_size", batch_size, minimum=1)
    check_real("lr", lr, low=0.0, high=np.inf, low_open=True, high_open=True)
    n = train.context.shape[2]
    if test is not None and test.context.shape[2] != n:
        raise ValueError(f"test must have n = {n} like train, got {test.context.shape[2]}")
    W = [torch.tensor(w, requires_grad=True) for w in init_weights(n, seed)]
    data = {
        name: tuple(torch.from_numpy(np.asarray(a, float)) for a in (p.context, p.query, p.target))
        for name, p in (("train", train), ("test", test))
        if p is not None
    }
    opt = torch.optim.Adam(W, lr=lr)
    milestones = [int(0.8 * epochs), int(0.9 * epochs)]
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=milestones, gamma=0.1)
    gen = torch.Generator().manual_seed(seed)

    def mse(context, query, target) -> torch.Tensor:
        return torch.mean((_attend(context, query, W[0], W[1], kind) - target) ** 2)

    losses = {name: [] for name in data}

    def record() -> None:
        with torch.no_grad():
            for name in losses:
                losses[name].append(float(mse(*data[name])))

    record()
    size = train.context.shape[0]
    for _ in range(epochs):
        for idx in torch.randperm(size, generator=gen).split(batch_size):
            opt.zero_grad()
            mse(*(a[idx] for a in data["train"])).backward()
            opt.step()
        sched.step()
        record()
    return TrainingRun(
        W[0].detach().numpy().copy(),
        W[1].detach().numpy().copy(),
        np.array(losses["train"]),
        np.array(losses["test"]) if test is not None else None,
    )


def scalar_weights(W: np.ndarray) -> tuple[float, float]:
    """How close ``W`` is to a scaled identity ``c I``.

    Parameters
    ----------
    W : numpy.ndarray
        (n, n) square matrix, ``n >= 2``, finite.

    Returns
    -------
    c : float
        The scalar ``c = mean(diag W)``.
    off_ratio : float
        ``mean |W_ij| (i != j) / |c|``: 0 for an exact scaled identity (inf or nan when
        ``c = 0``).
    """
    W = real_array("W", W)
    if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] < 2:
        raise ValueError(f"W must be a square matrix of size >= 2, got shape {W.shape}")
    c = float(np.mean(np.diag(W)))
    off = np.abs(W[~np.eye(W.shape[0], dtype=bool)])
    return c, float(np.mean(off) / abs(c))
