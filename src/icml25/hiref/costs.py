"""Ground costs of Hierarchical Refinement: pointwise, dense on a leaf, and low-rank factors.

The low-rank subsolver never forms a block's ``m x m`` cost; it needs factors ``C ~= A B^T``.

- Squared Euclidean, ``|x - y|^2``: exact factors of rank ``d + 2`` (Scetbon, Cuturi and Peyre
  2021, Prop. 1), ``A = [|x|^2, 1, -2x]``, ``B = [1, |y|^2, y]``.
- Euclidean, ``|x - y|``: no exact low-rank form. The official code samples a factorisation
  (Bakshi and Woodruff / Indyk et al. 2019) whose error it neither controls nor reports. We use
  adaptive cross approximation with partial pivoting (ACA; Bebendorf 2000): step ``k`` takes
  the residual of one cost row ``i``, pivots on its largest entry ``j``, takes the residual of
  column ``j`` and appends the rank-one term ``col row^T / pivot``; the next row is the largest
  residual entry of that column among rows not used. It reads ``O(m k)`` entries of the cost and
  reproduces the pivot rows and columns exactly; ``factor_error`` measures the rest on sampled
  entries, and HiRef reports it per level. Leaves are always solved on the exact cost.
  ACA of ``C`` is not symmetric when ``C`` is (its row and column pivots differ), so identical
  clouds would get different splits of ``X`` and ``Y``; ``euclidean_factors`` therefore
  averages ACA of ``C(X, Y)`` and the transpose of ACA of ``C(Y, X)``, which is symmetric
  whenever ``X = Y`` and approximates ``C`` at least as well as the worse of the two.

Symmetric in exact arithmetic is not enough for identical clouds to get identical splits: with
``C = A B^T`` the subsolver's two gradients ``A (B^T R)`` and ``B (A^T Q)`` add the same terms
in different orders, and their float32 roundings differ. HiRef therefore uses
``symmetric_factors``: ``C = F M G^T`` with ``F`` computed from ``X`` by exactly the code that
computes ``G`` from ``Y`` (so ``F == G`` bit for bit when ``X == Y``) and a fixed symmetric
``M`` (a permutation with signs and powers of two), which ``lowrank._solve`` applies on both
sides alike.
"""

from __future__ import annotations

import numpy as np
import torch

from icml25.common.validate import check_int

__all__ = [
    "COSTS",
    "check_cost",
    "cross_approximation",
    "euclidean_factors",
    "factor_error",
    "leaf_costs",
    "pair_costs",
    "sqeuclidean_factors",
    "symmetric_factors",
]

COSTS = ("sqeuclidean", "euclidean")
_PIVOT_FLOOR = 1e-12  # relative to the block's largest distance (float64; 100 eps if coarser)


def check_cost(cost) -> str:
    """``cost`` itself if it is one of ``COSTS``, else a ValueError naming it."""
    if cost not in COSTS:
        raise ValueError(f"cost must be one of {COSTS}, got {cost!r}")
    return cost


def pair_costs(X: np.ndarray, Y: np.ndarray, cost: str) -> np.ndarray:
    """``c(x_i, y_i)`` for paired rows: (n, d), (n, d) -> (n,)."""
    sq = np.sum((X - Y) ** 2, axis=1)
    return sq if cost == "sqeuclidean" else np.sqrt(sq)


def leaf_costs(Xl: np.ndarray, Yl: np.ndarray, valid: np.ndarray, cost: str) -> np.ndarray:
    """Dense costs of a chunk of leaves, each with the optimal assignments of the true cost.

    Xl, Yl (c, m, d) float64, valid (c, m, 1) with padding rows at the end. For the squared
    Euclidean cost this is ``-2 (x_i - xbar) . (y_j - ybar)``, which differs from
    ``|x_i - y_j|^2`` by a row and a column constant (same optimal assignments), and on which
    scipy's shortest-augmenting-path solver runs 2-2.5x faster: those constants are large
    against a leaf's spread, and the solver would first have to build them up as duals.
    Returns (c, m, m); entries of padding rows and columns are meaningless.
    """
    if cost == "euclidean":
        return np.sqrt(((Xl[:, :, None, :] - Yl[:, None, :, :]) ** 2).sum(-1))
    sizes = valid.sum(1, keepdims=True)  # (c, 1, 1)
    Xc = Xl - (Xl * valid).sum(1, keepdims=True) / sizes
    Yc = Yl - (Yl * valid).sum(1, keepdims=True) / sizes
    return -2.0 * (Xc @ Yc.transpose(0, 2, 1))


def _as_tensor(name: str, value) -> torch.Tensor:
    """``torch.as_tensor(value)`` for a real numeric array (or tensor), else ValueError naming
    ``name``: strings, objects, booleans, complex numbers and ragged lists are refused."""
    if not isinstance(value, torch.Tensor):
        try:
            kind = np.asarray(value).dtype
        except ValueError as err:  # ragged nested lists
            raise ValueError(f"{name} must be a numeric array: {err}") from None
        if kind.kind not in "iuf":
            raise ValueError(f"{name} must be a numeric array, got dtype {kind}")
    t = torch.as_tensor(value)
    if t.dtype == torch.bool or t.is_complex():
        raise ValueError(f"{name} must be a real numeric array, got dtype {t.dtype}")
    return t


def _check_finite(**tensors: torch.Tensor) -> None:
    for name, t in tensors.items():
        if not bool(torch.isfinite(t).all()):
            raise ValueError(f"{name} must be finite: it holds NaN or inf")


def sqeuclidean_factors(X, Y) -> tuple[torch.Tensor, torch.Tensor]:
    """Factors of the squared Euclidean cost, ``|x_i - y_j|^2 = A_i . B_j``.

    ``A = [|x|^2, 1, -2x]`` and ``B = [1, |y|^2, y]``, of shape ``(..., m, d + 2)``. Clouds
    of fewer than 2 dimensions, of different ``d``, or holding NaN or inf are refused.

    Parameters
    ----------
    X : array_like or torch.Tensor, shape (..., m, d)
        The source points, real numeric, finite.
    Y : array_like or torch.Tensor, shape (..., m', d)
        The target points, of the same dimension ``d``, finite.

    Returns
    -------
    A : torch.Tensor, shape (..., m, d + 2)
        ``[|x|^2, 1, -2x]``, one row per source point.
    B : torch.Tensor, shape (..., m', d + 2)
        ``[1, |y|^2, y]``, one row per target point, so ``A B^T`` is the cost.

    Raises
    ------
    ValueError
        If a cloud is not real numeric, has fewer than 2 dimensions, the ``d`` differ, or it
        holds NaN or inf.
    """
    X, Y = _as_tensor("X", X), _as_tensor("Y", Y)
    for name, t in (("X", X), ("Y", Y)):
        if t.ndim < 2:
            raise ValueError(f"{name} must have shape (..., m, d), got shape {tuple(t.shape)}")
    if X.shape[-1] != Y.shape[-1]:
        raise ValueError(f"Y must have points of X's dimension {X.shape[-1]}, got {Y.shape[-1]}")
    _check_finite(X=X, Y=Y)
    one_x = torch.ones_like(X[..., :1])
    one_y = torch.ones_like(Y[..., :1])
    A = torch.cat([(X * X).sum(-1, keepdim=True), one_x, -2.0 * X], dim=-1)  # (..., m, d + 2)
    B = torch.cat([one_y, (Y * Y).sum(-1, keepdim=True), Y], dim=-1)  # (..., m, d + 2)
    return A, B


def symmetric_factors(X, Y, cost: str, rank: int = 16, mask=None):
    """Factors ``C = F M G^T`` of either cost with ``F == G`` bit for bit whenever ``X == Y``.

    ``F`` is computed from ``X`` by exactly the operations that compute ``G`` from ``Y``; ``M``
    (k, k) is symmetric, one non-zero (``+-1``, ``0.5`` or ``-2``) per row, so ``P M`` is
    exact. ``F M`` and ``G`` are the factors of ``sqeuclidean_factors`` and
    ``euclidean_factors`` up to the order of their columns (the same products, exactly).

    - ``"sqeuclidean"``: ``F = [|x|^2, 1, x]``, ``G = [|y|^2, 1, y]``, ``M = [[0, 1, 0],
      [1, 0, 0], [0, 0, -2 I]]`` (``k = d + 2``).
    - ``"euclidean"``: with ``(U, V)`` the cross approximation of ``C(X, Y)`` and ``(U', V')``
      that of ``C(Y, X)`` (rank ``rank`` each), ``F = [U, V']``, ``G = [U', V]`` and
      ``M = [[0, I], [I, 0]] / 2``, so ``F M G^T = (U V^T + V' U'^T) / 2`` (``k = 2 rank``).

    Shapes: X, Y (B, m, d) or (m, d); mask (B, m) (Euclidean only; padding rows last);
    returns F, G of shape (B, m, k) (or (m, k)) and M (k, k), all of X's dtype.
    """
    check_cost(cost)
    X, Y = torch.as_tensor(X), torch.as_tensor(Y)
    if cost == "sqeuclidean":
        F, G = _sqeuclidean_side(X), _sqeuclidean_side(Y)
        d = X.shape[-1]
        M = torch.zeros(d + 2, d + 2, dtype=X.dtype)
        M[0, 1] = M[1, 0] = 1.0
        M[2:, 2:] = -2.0 * torch.eye(d, dtype=X.dtype)
        return F, G, M
    U, V = cross_approximation(X, Y, rank, mask)  # C ~= U V^T
    Ut, Vt = cross_approximation(Y, X, rank, mask)  # C^T ~= Ut Vt^T
    k = U.shape[-1]
    M = torch.zeros(2 * k, 2 * k, dtype=U.dtype)
    M[:k, k:] = M[k:, :k] = 0.5 * torch.eye(k, dtype=U.dtype)
    return torch.cat([U, Vt], dim=-1), torch.cat([Ut, V], dim=-1), M


def _sqeuclidean_side(P: torch.Tensor) -> torch.Tensor:
    """``[|p|^2, 1, p]``: (..., m, d) -> (..., m, d + 2)."""
    return torch.cat([(P * P).sum(-1, keepdim=True), torch.ones_like(P[..., :1]), P], dim=-1)


def _distances(P: torch.Tensor, Z: torch.Tensor) -> torch.Tensor:
    """|p_b - z_bj| for one point per block: P (B, d), Z (B, m, d) -> (B, m)."""
    return (Z - P.unsqueeze(1)).square().sum(-1).sqrt()


def euclidean_factors(X, Y, rank: int, mask=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Factors of the Euclidean cost, ``|x_i - y_j| ~= A_i . B_j``, symmetric when ``X = Y``.

    ``A B^T = (U V^T + V' U'^T) / 2`` with ``(U, V)`` the rank-``rank`` cross approximation of
    ``C(X, Y)`` and ``(U', V')`` that of ``C(Y, X)`` (``cross_approximation``). Shapes: X, Y
    (B, m, d) or (m, d); mask (B, m); returns A, B of shape (B, m, 2 rank) (or (m, 2 rank)).
    Clouds holding NaN or inf are refused.

    Parameters
    ----------
    X, Y : array_like or torch.Tensor, shape (B, m, d) or (m, d)
        The two point clouds (blocks), floating point (float64 advised), of the same shape,
        finite.
    rank : int
        The rank ``>= 1`` of each of the two cross approximations.
    mask : array_like of bool or None, shape (B, m), default None
        True on real points, padding rows last in each block; None when all are real.

    Returns
    -------
    A, B : torch.Tensor, shape (B, m, 2 rank) or (m, 2 rank)
        The factors, ``|x_i - y_j| ~= A_i . B_j``; ``A B^T`` is symmetric when ``X = Y``.

    Raises
    ------
    ValueError
        If the clouds hold NaN or inf, are not floating point of equal shape, ``rank < 1``,
        or ``mask`` is malformed.
    """
    X, Y = _as_tensor("X", X), _as_tensor("Y", Y)
    _check_finite(X=X, Y=Y)
    U, V = cross_approximation(X, Y, rank, mask)  # C ~= U V^T
    Ut, Vt = cross_approximation(Y, X, rank, mask)  # C^T ~= Ut Vt^T
    return torch.cat([U, Vt], dim=-1) * 0.5, torch.cat([V, Ut], dim=-1)


def cross_approximation(X, Y, rank: int, mask=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Rank-``rank`` factors of the Euclidean cost by ACA with partial pivoting, batched.

    ``|x_i - y_j| ~= A_i . B_j`` with ``A = [u_1 .. u_k]``, ``B = [v_1 .. v_k]``, where step
    ``k`` is ``v_k = residual row i_k``, ``j_k = argmax |v_k|``, ``u_k = residual column j_k /
    v_k[j_k]``. Pivot rows and columns are reproduced exactly. A step whose residual pivot is
    below ``1e-12`` (float64; ``100 eps`` of a coarser dtype) of the block's largest distance
    adds a zero term: its row is reproduced already (a duplicate of a pivot point, or an exact
    block); the next row is still read from its column, so the block goes on if it can.

    Shapes: X, Y (B, m, d) or (m, d), float64 advised; mask (B, m), True on real points (padding
    rows must come last in each block); returns A, B of shape (B, m, rank) (or (m, rank)).
    """
    X, Y, valid, single = _check_factor_input(X, Y, rank, mask)
    batch, m, _ = X.shape
    keep = valid.to(X.dtype)  # (B, m)
    rows = torch.arange(batch)
    U = X.new_zeros(batch, m, rank)
    V = X.new_zeros(batch, m, rank)
    used = ~valid  # padding rows are never pivots
    i = torch.zeros(batch, dtype=torch.long)  # the first row of every block is a real point
    floor = None
    for k in range(rank):
        row = _distances(X[rows, i], Y) - torch.einsum("bk,bmk->bm", U[rows, i, :k], V[:, :, :k])
        row = row * keep  # (B, m) residual row i
        j = row.abs().argmax(1)
        pivot = row[rows, j]  # (B,)
        if floor is None:  # the first row holds distances: its largest scales the block
            relative = max(_PIVOT_FLOOR, 100 * torch.finfo(X.dtype).eps)
            floor = relative * pivot.abs().clamp_min(torch.finfo(X.dtype).tiny)
        live = pivot.abs() > floor  # (B,) this step adds a term
        col = _distances(Y[rows, j], X) - torch.einsum("bmk,bk->bm", U[:, :, :k], V[rows, j, :k])
        col = col * keep  # (B, m) residual column j
        safe = torch.where(live, pivot, torch.ones_like(pivot))
        U[:, :, k] = col / safe.unsqueeze(1) * live.unsqueeze(1)
        V[:, :, k] = row * live.unsqueeze(1)
        used[rows, i] = True
        i = col.abs().masked_fill(used, -1.0).argmax(1)
    return (U[0], V[0]) if single else (U, V)


def _check_factor_input(X, Y, rank, mask):
    """Point clouds (B, m, d) or (m, d) of one floating dtype, rank >= 1, mask (B, m) of bool
    with at least one real point per block; returns X, Y, mask as (B, ...) and whether the
    input was a single block."""
    X, Y = torch.as_tensor(X), torch.as_tensor(Y)
    for name, t in (("X", X), ("Y", Y)):
        if not t.is_floating_point() or t.ndim not in (2, 3):
            raise ValueError(
                f"{name} must be a floating-point array of shape (m, d) or (batch, m, d), "
                f"got dtype {t.dtype} and shape {tuple(t.shape)}"
            )
    if Y.shape != X.shape:
        raise ValueError(f"Y must have the shape of X {tuple(X.shape)}, got {tuple(Y.shape)}")
    Y = Y.to(X.dtype)
    check_int("rank", rank, minimum=1)
    single = X.ndim == 2
    if single:
        X, Y = X.unsqueeze(0), Y.unsqueeze(0)
    batch, m, _ = X.shape
    if batch == 0 or m == 0:
        raise ValueError(f"X must hold at least one point per block, got shape {tuple(X.shape)}")
    if mask is None:
        return X, Y, torch.ones(batch, m, dtype=torch.bool), single
    valid = torch.as_tensor(mask)
    if valid.dtype != torch.bool or valid.numel() != batch * m:
        raise ValueError(f"mask must be a boolean array of shape ({batch}, {m})")
    valid = valid.reshape(batch, m)
    if not valid[:, 0].all():
        raise ValueError("mask must mark real points first in every block (padding rows last)")
    return X, Y, valid, single


def factor_error(
    A: torch.Tensor,
    B: torch.Tensor,
    X: torch.Tensor,
    Y: torch.Tensor,
    cost: str,
    mask: torch.Tensor,
    generator: torch.Generator,
    samples: int = 1024,
) -> float:
    """Relative error of ``A B^T`` against the cost on sampled real entries, worst block.

    ``sqrt(sum (A_i . B_j - c(x_i, y_j))^2 / sum c(x_i, y_j)^2)`` over ``samples`` random
    pairs ``(i, j)`` of real points per block. Shapes: A, B (B, m, k); X, Y (B, m, d);
    mask (B, m) with padding rows last.
    """
    batch = A.shape[0]
    sizes = mask.sum(1, keepdim=True)  # (B, 1)
    pick = torch.rand(2, batch, samples, generator=generator, dtype=torch.float64)
    i, j = (pick * sizes).long().clamp_max(sizes - 1).unbind(0)  # (B, s) each
    rows = torch.arange(batch).unsqueeze(1)
    approx = (A[rows, i].double() * B[rows, j].double()).sum(-1)  # (B, s)
    sq = (X[rows, i].double() - Y[rows, j].double()).square().sum(-1)
    exact = sq if cost == "sqeuclidean" else sq.sqrt()
    error = (approx - exact).square().sum(1).sqrt() / exact.square().sum(1).sqrt().clamp_min(1e-300)
    return float(error.max())
