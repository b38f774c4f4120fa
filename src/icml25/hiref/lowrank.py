"""Low-rank optimal transport on a factored cost: the subsolver of Hierarchical Refinement.

HiRef (Halmos et al., ICML 2025) splits each pair of blocks with a low-rank coupling of rank
``r`` in the factored form of FRLC (Halmos et al., NeurIPS 2024),

    P = Q diag(1/g) T diag(1/g) R^T,   Q in Pi(a, g),  R in Pi(b, g),  T in Pi(g, g),

with the inner marginal ``g`` fixed. As in the official code's ``LR_mini`` variant, which the
refinement uses to co-cluster, we fix ``T = diag(g)``: X-cluster ``z`` is sent to Y-cluster
``z`` and

    P = Q diag(1/g) R^T,   cost <C, P> = sum_z (1/g_z) q_z^T C r_z.             (LR objective)

The cost is never formed: ``C = A B^T`` with factors ``A (m, k)``, ``B (m, k)``, so every
iteration costs ``O(m k r)`` time and ``O(m (k + r))`` memory. Mirror descent (the FRLC update):

    grad_Q = C R diag(1/g) = A (B^T R) diag(1/g)                       # (m, r)
    grad_R = C^T Q diag(1/g) = B (A^T Q) diag(1/g)                     # (m, r)
    Q <- Proj_{Pi(a, g)}( Q * exp(-gamma_k grad_Q) ),  gamma_k = gamma / ||grad_Q||_range

and the same for ``R``, both from the current ``(Q, R)`` (Jacobi order, so that identical clouds
get identical splits: see ``_solve``'s ``mix``); the projection is a few Sinkhorn iterations
on the ``m x r`` kernel ``Q * exp(-gamma_k grad_Q)``, whose previous scalings are already
inside ``Q`` (a warm start).
A last projection brings the column marginal to ``g`` within ``1e-5`` (relative, l1).
``||G||_range`` is ``max_i (max_z G_iz - min_z G_iz)``: a row-constant part of the gradient
(``|x_i|^2`` for the squared Euclidean cost) does not change the projection, so it must not
shrink the step either (FRLC normalises by ``||G||_inf`` instead). Everything is batched:
``A`` may be ``(batch, m, k)`` and all blocks of a HiRef level are solved as one tensor
computation; a row of zero mass (``a_i = 0``) is a padding row and stays out of the problem.
Inside, the solver holds ``Q``, ``R`` and the factors cluster-major, ``(batch, r, m)`` and
``(batch, k, m)``: with ``r`` and ``k`` of 2-16, every product then runs along the long axis.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from icml25.common.validate import check_int, check_real
from icml25.hiref.costs import _as_tensor

__all__ = ["lowrank_ot", "lowrank_cost"]

_TINY = 1e-30
_LOG_FLOOR = -30.0
_MASS_FLOOR = 1e-10


def _project(K, a, g, iters: int, u=None):
    """Sinkhorn projection of a positive kernel onto Pi(a, g), batched.

    Shapes (cluster-major, see ``_solve``): K (B, r, m), a (B, m), g (B, r); ``u``, if given,
    a (B, 1, m) scratch for the row scalings (the solver passes one, so that its iterations
    allocate no (B, m) vectors). Ends with the row scaling, so the point marginal ``a`` is exact.
    """
    a = a.unsqueeze(1)  # (B, 1, m)
    u = K.sum(1, keepdim=True) if u is None else torch.sum(K, 1, keepdim=True, out=u)
    torch.div(a, u.clamp_min_(_TINY), out=u)  # (B, 1, m)
    for _ in range(iters):
        col = torch.bmm(u, K.transpose(1, 2)).squeeze(1)  # (B, r) = K u
        v = g / col.clamp_min(_TINY)
        torch.bmm(v.unsqueeze(1), K, out=u).clamp_min_(_TINY)  # (B, 1, m) = K^T v
        torch.div(a, u, out=u)
    if iters == 0:
        v = torch.ones_like(g)
    return K.mul_(u).mul_(v.unsqueeze(-1))  # in place: K is the caller's scratch


def _products(A, B, Q, R):
    """``A^T Q`` and ``B^T R`` transposed, batched: Q, R (B, r, m), A, B (B, k, m) -> (B, r, k)."""
    return torch.bmm(Q, A.transpose(1, 2)), torch.bmm(R, B.transpose(1, 2))


def _mixed(P, mix):
    """``P M`` for the products P (B, r, k) and the symmetric ``mix`` M (k, k); P if M is None."""
    return P if mix is None else torch.matmul(P, mix)


def _objective_of(AtQ, BtR, g):
    """<C, Q diag(1/g) R^T> = sum_z (A^T q_z) . (B^T r_z) / g_z from the products: (B,).

    With a ``mix`` M (``C = A^T M B``), pass ``_mixed(AtQ, M)`` as ``AtQ``.
    """
    return ((AtQ * BtR).sum(-1) / g).sum(-1)


def _objective(A, B, Q, R, g, mix=None):
    """<C, Q diag(1/g) R^T> for C = A^T B (cluster-major factors (B, k, m)), or C = A^T M B
    with ``mix`` M (k, k), batched: (B,)."""
    AtQ, BtR = _products(A, B, Q, R)
    return _objective_of(_mixed(AtQ, mix), BtR, g)


def _mirror_step(G, P, a, floor, g, gamma: float, inner: int, u):
    """One mirror-descent step on Q (or R) with its gradient G; shapes (B, r, m).

    Allocates no (B, r, m) tensor: G is consumed (it becomes the new iterate) and P, the old
    iterate, is floored in place (``_solve`` reuses its buffer for the next gradient); ``floor``
    (B, 1, m) is ``a * 1e-10``, ``u`` a (B, 1, m) scratch. At n = 2^20 every (B, r, m) tensor
    is 16 MB, and a fresh one per step fragmented the heap (see the README).
    """
    # row (point) constants do not move the projection
    G.sub_(torch.amin(G, 1, keepdim=True, out=u))
    spread = G.flatten(1).amax(-1).clamp_min(_TINY)  # (B,)
    # floors keep every entry a normal float32 (subnormals are ~100x slower on CPUs): the
    # exponent is cut at -30 and Q at 1e-10 of its row mass, a negligible entropic floor
    K = G.mul_(-(gamma / spread).view(-1, 1, 1)).clamp_min_(_LOG_FLOOR).exp_()
    K.mul_(torch.maximum(P, floor, out=P))
    return _project(K, a, g, inner, u)


def random_start(batch: int, m: int, r: int, generator, dtype=torch.float32) -> torch.Tensor:
    """The subsolver's start: uniform draws in [0.5, 1.5), cluster-major (batch, r, m), drawn as
    (batch, m, r) on the CPU from ``generator`` (the same start on any device)."""
    start = torch.rand(batch, m, r, generator=generator, dtype=dtype) + 0.5
    return start.transpose(1, 2).contiguous()


def _solve(A, B, a, b, g, start, *, gamma, max_iter, min_iter, inner_iter, tol, mix=None):
    """The batched solver on torch tensors, in a cluster-major layout.

    A, B (Bt, k, m): the factors transposed, ``C = A^T B``, or ``C = A^T M B`` with ``mix`` M,
    a symmetric (k, k) matrix; a, b (Bt, m); g (Bt, r); start (Bt, r, m), positive, the same
    for Q and R. Returns Q, R of shape (Bt, r, m), i.e. the (m, r) factors transposed: with r
    of 2-16 columns, every product then runs along the long axis m (matrix-vector and k x m
    products), which on CPU is 3-4x faster than the same products on (m, r) row-major tensors.

    Every problem of the batch stops on its own: after ``min_iter`` iterations, at the first
    iteration whose relative change of its LR objective is below ``tol``, else at
    ``max_iter``. A stopped problem's iterates are kept and it leaves the batch (compacted
    once an eighth of the batch has stopped), so a problem's result does not depend on the
    problems batched with it: alone, among other blocks, or on a Dask worker, it is the same
    (on one thread torch's CPU kernels compute each batch entry alike, bit for bit:
    tests/hiref/test_lowrank.py checks it; with more threads a product may split its sum).

    With a ``mix``, ``Q``'s update is computed from ``(A, R)`` by exactly the operations that
    compute ``R``'s from ``(B, Q)`` (``grad_Q^T = (R B^T M) A``, ``grad_R^T = (Q A^T M) B``).
    So when ``A == B`` and ``a == b`` bit for bit (identical clouds, factored by
    ``costs.symmetric_factors``), ``Q == R`` bit for bit at every iteration, on any BLAS. The
    plain form ``C = A^T B`` cannot give that for a symmetric ``C`` with ``A != B``: its two
    gradients add the same terms in different orders, their float32 roundings differ (1e-8
    after 200 iterations), and a near-tie in the split then sends a point, or only the order
    of a child's points, differently on the two sides.

    Also returns ``history`` (per iteration, every problem's objective (Bt,); a stopped
    problem keeps its last value), ``iterations`` (Bt,) and ``converged`` (Bt,), tensors.
    """
    batch = A.shape[0]
    a_all, b_all, g_all = a, b, g
    R = _project(start.clone(), b, g, 4 * inner_iter)  # start is the caller's: not changed
    Q = _project(start.clone(), a, g, 4 * inner_iter)
    AtQ, BtR = _products(A, B, Q, R)  # (Bt, r, k) each
    AtQ = _mixed(AtQ, mix)  # with a mix, (A^T Q)^T M: what grad_R and the objective need
    previous = _objective_of(AtQ, BtR, g)
    history = [previous]
    Q_out, R_out = Q.clone(), R.clone()  # the stopped problems' iterates
    iterations = torch.zeros(batch, dtype=torch.int64, device=A.device)
    converged = torch.zeros(batch, dtype=torch.bool, device=A.device)
    rows = torch.arange(batch, device=A.device)  # the working batch, as indices into the batch
    live = torch.ones(batch, dtype=torch.bool, device=A.device)  # which still iterate
    inv_g = (1.0 / g).unsqueeze(-1)  # (Bt, r, 1)
    floor_a, floor_b = a.unsqueeze(1) * _MASS_FLOOR, b.unsqueeze(1) * _MASS_FLOOR  # (Bt, 1, m)
    spare_q, spare_r, u = torch.empty_like(Q), torch.empty_like(R), torch.empty_like(floor_a)
    for it in range(1, max_iter + 1):
        # Jacobi order: both gradients at the current (Q, R), as in FRLC; with A = B, a = b
        # and a mix, the iterates stay equal, so identical clouds are split identically.
        # grad_Q^T = diag(1/g) (B^T R)^T M A^T, grad_R^T = diag(1/g) (A^T Q)^T M B^T: (Bt, r, m)
        # Each gradient is written into the spare buffer, becomes the new iterate in place,
        # and the old iterate's buffer is the next spare: four (Bt, r, m) buffers in all.
        G_q = torch.bmm(_mixed(BtR, mix), A, out=spare_q).mul_(inv_g)
        G_r = torch.bmm(AtQ, B, out=spare_r).mul_(inv_g)
        Q, R, spare_q, spare_r = (
            _mirror_step(G_q, Q, a, floor_a, g, gamma, inner_iter, u),
            _mirror_step(G_r, R, b, floor_b, g, gamma, inner_iter, u),
            Q,
            R,
        )
        AtQ, BtR = _products(A, B, Q, R)  # the objective's products are the next gradients'
        AtQ = _mixed(AtQ, mix)
        value = _objective_of(AtQ, BtR, g)  # (working,)
        small = (value - previous).abs() < tol * previous.abs().clamp_min(_TINY)
        previous = value
        history.append(history[-1].clone().index_put_((rows[live],), value[live]))
        ok = small & live if it >= min_iter else torch.zeros_like(live)
        stop = live.clone() if it == max_iter else ok
        if not stop.any():
            continue
        done = rows[stop]
        Q_out[done], R_out[done] = Q[stop], R[stop]
        iterations[done], converged[done] = it, ok[stop]
        live &= ~stop
        if not live.any():
            break
        if 8 * int((~live).sum()) >= len(live):  # compact: the stopped problems leave
            A, B, a, b, g, inv_g, floor_a, floor_b, Q, R, AtQ, BtR, previous, rows = (
                t[live]
                for t in (A, B, a, b, g, inv_g, floor_a, floor_b, Q, R, AtQ, BtR, previous, rows)
            )
            spare_q, spare_r = torch.empty_like(Q), torch.empty_like(R)
            u = torch.empty_like(floor_a)
            live = live[live]
    # a final projection: the inner marginal g to tolerance, the rows exact
    Q = _project_to_tolerance(Q_out, a_all, g_all)
    R = _project_to_tolerance(R_out, b_all, g_all)
    return Q, R, history, iterations, converged


def _project_to_tolerance(P, a, g, tol: float = 1e-5, max_rounds: int = 50):
    """Sinkhorn rounds of 10 iterations on each problem until ``|P 1 - g|_1 <= tol |g|_1``
    (or max_rounds); P (B, r, m), projected in place. Only the problems above the tolerance
    take another round, so each problem's result is its own."""
    for _ in range(max_rounds):
        need = (P.sum(-1) - g).abs().sum(-1) > tol * g.sum(-1)  # (B,)
        if not need.any():
            break
        P[need] = _project(P[need], a[need], g[need], 10)
    return P


def check_solver_options(gamma, max_iter, min_iter, inner_iter, tol, seed) -> tuple:
    """The subsolver's options, checked (ValueError naming the argument) and converted."""
    positive = {"low": 0.0, "high": float("inf"), "low_open": True}
    return (
        check_real("gamma", gamma, **positive),
        check_int("max_iter", max_iter, minimum=1),
        check_int("min_iter", min_iter, minimum=0),
        check_int("inner_iter", inner_iter, minimum=1),
        check_real("tol", tol, **positive),
        check_int("seed", seed, minimum=0),
    )


def _as_batch(name: str, value, ndim: int) -> tuple[torch.Tensor, bool]:
    t = _as_tensor(name, value)
    if not (t.is_floating_point()):
        raise ValueError(f"{name} must be a floating-point array, got dtype {t.dtype}")
    if t.ndim == ndim:
        return t.unsqueeze(0), True
    if t.ndim == ndim + 1:
        return t, False
    raise ValueError(
        f"{name} must have {ndim} or {ndim + 1} dimensions, got shape {tuple(t.shape)}"
    )


def lowrank_ot(
    A,
    B,
    rank: int,
    *,
    a=None,
    b=None,
    g=None,
    gamma: float = 1.0,
    max_iter: int = 200,
    min_iter: int = 20,
    inner_iter: int = 5,
    tol: float = 1e-6,
    seed: int = 0,
    log: bool = False,
):
    """Rank-``r`` optimal transport between two point sets of equal size on a factored cost.

    Minimises the LR objective ``<A B^T, Q diag(1/g) R^T>`` over ``Q in Pi(a, g)`` and
    ``R in Pi(b, g)`` by mirror descent (module docstring; HiRef's LR_mini / FRLC update).

    Parameters
    ----------
    A, B : array_like or torch.Tensor, shape (m, k) or (batch, m, k)
        Floating-point, finite factors of the cost ``C = A B^T``, ``m, k >= 1``
        (``costs.sqeuclidean_factors(X, Y)`` for the squared Euclidean cost, exact;
        ``costs.euclidean_factors(X, Y, rank)`` for the Euclidean cost, approximate).
    rank : int
        The rank ``r`` of the coupling (number of co-clusters), ``1 <= r <= m``.
    a, b : array_like or None, shape (m,) or (batch, m), default None
        The marginals, non-negative, uniform by default; a zero entry is a padding row.
    g : array_like or None, shape (r,) or (batch, r), default None
        The inner marginal, positive, uniform ``1/r`` by default; sums like ``a`` (whose
        total mass must be positive).
    gamma : float, default 1.0
        The mirror-descent step, relative to the gradient's spread, positive.
    max_iter : int, default 200
        The most outer iterations, ``>= 1``.
    min_iter : int, default 20
        The minimum outer iterations before the stopping test on the relative change of the
        objective (each problem of a batch stops on its own), ``>= 0``.
    inner_iter : int, default 5
        The Sinkhorn iterations per projection, ``>= 1``.
    tol : float, default 1e-6
        The tolerance of the stopping test on the objective's relative change, positive.
    seed : int, default 0
        The seed of the random initialisation (a ``torch.Generator``), ``>= 0``.
    log : bool, default False
        Also return a dict with ``objective`` (per iteration, ``(batch,)`` each),
        ``iterations`` and ``converged`` (per problem: each stops on its own) and the final
        marginal errors.

    Returns
    -------
    Q, R : numpy.ndarray or torch.Tensor, shape (m, r) or (batch, m, r)
        The coupling's factors, numpy if ``A`` was numpy; the coupling is
        ``Q diag(1/g) R^T``.
    info : dict
        Only with ``log=True`` (then the return is ``(Q, R, info)``): the log described under
        ``log``.

    Raises
    ------
    ValueError
        If the factors, the rank, the marginals or the solver options are invalid.

    Warns
    -----
    RuntimeWarning
        If some problem did not converge within ``max_iter`` iterations.
    """
    numpy_in = isinstance(A, np.ndarray)
    At, single = _as_batch("A", A, 2)
    Bt, _ = _as_batch("B", B, 2)
    if Bt.shape != At.shape:
        raise ValueError(f"B must have the shape of A {tuple(At.shape)}, got {tuple(Bt.shape)}")
    Bt = Bt.to(At.dtype)
    if not (torch.isfinite(At).all() and torch.isfinite(Bt).all()):
        raise ValueError("A and B must be finite")
    batch, m, k = At.shape
    if batch == 0 or m == 0 or k == 0:
        raise ValueError(f"A must have at least one row and one column, got {tuple(At.shape)}")
    if isinstance(rank, bool) or not isinstance(rank, int | np.integer) or not 1 <= rank <= m:
        raise ValueError(f"rank must be an integer in [1, {m}], got {rank!r}")
    rank = int(rank)

    def marginal(name, value, size):
        if value is None:
            return torch.full((batch, size), 1.0 / size, dtype=At.dtype)
        _as_tensor(name, value)
        t, _ = _as_batch(name, torch.as_tensor(value, dtype=At.dtype), 1)
        if t.shape[-1] != size or t.shape[0] not in (1, batch):
            raise ValueError(f"{name} must have length {size}, got shape {tuple(t.shape)}")
        if not torch.isfinite(t).all() or (t < 0).any():
            raise ValueError(f"{name} must be finite and non-negative")
        return t.expand(batch, size).contiguous()

    at, bt, gt = marginal("a", a, m), marginal("b", b, m), marginal("g", g, rank)
    mass = at.sum(-1)
    if not bool((mass > 0).all()):
        raise ValueError("a must have a positive total mass")
    if not bool((gt > 0).all()):
        raise ValueError("g must be positive: a zero entry is an empty co-cluster")
    for name, t in (("b", bt), ("g", gt)):
        if not torch.allclose(t.sum(-1), mass, rtol=1e-4, atol=1e-6):
            raise ValueError(f"{name} must have the total mass of a")
    gamma, max_iter, min_iter, inner_iter, tol, seed = check_solver_options(
        gamma, max_iter, min_iter, inner_iter, tol, seed
    )

    start = random_start(batch, m, rank, torch.Generator().manual_seed(seed), At.dtype)
    Q, R, history, iterations, converged = _solve(
        At.transpose(1, 2).contiguous(),  # (batch, k, m): the solver's cluster-major layout
        Bt.transpose(1, 2).contiguous(),
        at,
        bt,
        gt,
        start,
        gamma=gamma,
        max_iter=max_iter,
        min_iter=min_iter,
        inner_iter=inner_iter,
        tol=tol,
    )
    Q, R = Q.transpose(1, 2).contiguous(), R.transpose(1, 2).contiguous()  # (batch, m, r)
    if not bool(converged.all()):
        warnings.warn(
            f"lowrank_ot did not converge in max_iter = {max_iter} iterations (tol = {tol})"
            f" on {int((~converged).sum())} of {batch} problems",
            RuntimeWarning,
            stacklevel=2,
        )
    info = {
        "objective": [h.numpy() for h in history],
        "iterations": iterations.numpy()[0] if single else iterations.numpy(),
        "converged": bool(converged[0]) if single else converged.numpy(),
        "marginal_error_a": float((Q.sum(-1) - at).abs().sum(-1).max()),
        "marginal_error_g": float((Q.sum(-2) - gt).abs().sum(-1).max()),
        "marginal_error_b": float((R.sum(-1) - bt).abs().sum(-1).max()),
        "marginal_error_g_R": float((R.sum(-2) - gt).abs().sum(-1).max()),
    }
    if single:
        Q, R = Q[0], R[0]
    if numpy_in:
        Q, R = Q.numpy(), R.numpy()
    return (Q, R, info) if log else (Q, R)


def _check_cost_input(At, Bt, Qt, Rt) -> None:
    """Shapes and values of ``lowrank_cost``'s batched A, B (Bt, m, k) and Q, R (Bt, m, r)."""
    if Bt.shape != At.shape:
        raise ValueError(f"B must have the shape of A {tuple(At.shape)}, got {tuple(Bt.shape)}")
    if 0 in At.shape:
        raise ValueError(f"A must not be empty, got shape {tuple(At.shape)}")
    if Qt.shape[:2] != At.shape[:2] or Rt.shape != Qt.shape:
        raise ValueError(
            f"Q and R must have shape (m, r) with the m = {At.shape[1]} rows of A, "
            f"got {tuple(Qt.shape)} and {tuple(Rt.shape)}"
        )
    for name, t in (("A", At), ("B", Bt), ("Q", Qt), ("R", Rt)):
        if not bool(torch.isfinite(t).all()):
            raise ValueError(f"{name} must be finite: it holds NaN or inf")
    for name, t in (("Q", Qt), ("R", Rt)):
        if bool((t < 0).any()):
            raise ValueError(f"{name} must be non-negative (a coupling factor)")


def lowrank_cost(A, B, Q, R, g=None) -> float | np.ndarray:
    """The LR objective ``<A B^T, Q diag(1/g) R^T>`` (the coupling's transport cost).

    A, B ``(m, k)`` and Q, R ``(m, r)`` (or all with a leading batch), finite, Q and R
    non-negative; g ``(r,)`` positive (by default Q's column sums); else ValueError.

    Parameters
    ----------
    A, B : array_like or torch.Tensor, shape (m, k) or (batch, m, k)
        Floating-point, finite factors of the cost ``C = A B^T``.
    Q, R : array_like or torch.Tensor, shape (m, r) or (batch, m, r)
        The coupling's non-negative, finite factors.
    g : array_like or None, shape (r,), default None
        The inner marginal, positive; None for the column sums of ``Q``.

    Returns
    -------
    float or numpy.ndarray, shape (batch,)
        The cost ``<A B^T, Q diag(1/g) R^T>``: a float for unbatched input, else one per
        problem.

    Raises
    ------
    ValueError
        If a shape does not match, an entry is not finite, ``Q`` or ``R`` has a negative entry,
        or ``g`` is not positive.
    """
    At, single = _as_batch("A", A, 2)
    Bt, _ = _as_batch("B", B, 2)
    _as_tensor("Q", Q)
    _as_tensor("R", R)
    Qt, _ = _as_batch("Q", torch.as_tensor(Q, dtype=At.dtype), 2)
    Rt, _ = _as_batch("R", torch.as_tensor(R, dtype=At.dtype), 2)
    _check_cost_input(At, Bt, Qt, Rt)
    if g is not None:
        _as_tensor("g", g)
    gt = Qt.sum(-2) if g is None else torch.as_tensor(g, dtype=At.dtype).expand(Qt.shape[0], -1)
    if gt.shape != (Qt.shape[0], Qt.shape[2]):
        raise ValueError(f"g must have length r = {Qt.shape[2]}, got shape {tuple(gt.shape)}")
    if not bool(torch.isfinite(gt).all() and (gt > 0).all()):
        raise ValueError("g must be finite and positive (the inner marginal)")
    cluster_major = [t.transpose(1, 2) for t in (At, Bt.to(At.dtype), Qt, Rt)]
    value = _objective(*cluster_major, gt).numpy()
    return float(value[0]) if single else value
