"""Monte Carlo of weak-to-strong ridgeless regression on random subspaces (Dong et al., 2025).

One trial of :func:`simulate_w2s` is the paper's pipeline in its synthetic setting:

1. draw ``n`` labelled samples ``x ~ N(0, I_D)``, ``y = x^T beta + eps``, ``eps ~ N(0, sigma^2)``;
2. the weak teacher is OLS of ``y`` on the weak features ``V_w^T x`` (d_w of them); the strong
   baseline is OLS on the strong features ``V_s^T x`` (d_s) with the same samples;
3. draw ``N`` fresh inputs; the W2S student is OLS of the teacher's pseudo-labels on their
   strong features; the strong ceiling is OLS of true labels on all ``n + N`` samples;
4. every model's excess risk ``E_x (f(x) - f*(x))^2`` is computed exactly, as the squared norm
   of its coefficient error in the ambient space (the inputs are isotropic).

``V_s`` and ``V_w`` are random orthonormal bases sharing exactly ``d_sw`` directions and
orthogonal otherwise, so ``||V_s^T V_w||_F^2 = d_sw``; ``beta`` is a random unit vector of their
intersection (zero when ``d_sw = 0``), so both models are well specified as the paper assumes.

By default the inputs are drawn in coordinates of the union ``span(V_s) + span(V_w)``
(dimension ``d_s + d_w - d_sw``): an isotropic Gaussian's directions outside that union touch
no feature and no label, so this is the same distribution as drawing in any ambient ``R^D``,
which ``ambient_dim=D`` does literally (slower; the tests check the two agree).

Vectorised: trials are a leading batch dimension (in chunks that bound memory), each fit is one
batched ``solve`` of normal equations. For a list of ``N`` values the pseudo-labelled samples
are nested (the first ``N_1`` of the ``N_2``, ...) and the student's Gram matrix is accumulated,
so a whole curve costs one fit at the largest ``N`` and its points share random numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real
from icml25.w2s_intrinsic.theory import check_dimensions

MAX_FLOATS = 2**30  # one array of more float64s (8 GiB) is refused as a size typo


@dataclass(frozen=True)
class W2SCurves:
    """Per-trial excess risks of the four models of a W2S pipeline, and their ratios.

    Shapes: ``T`` trials, ``K`` values of ``N``.

    Parameters
    ----------
    N : numpy.ndarray of int, shape (K,)
        Increasing numbers of pseudo-labelled samples.
    weak : numpy.ndarray, shape (T,)
        ER of each trial's weak teacher.
    strong : numpy.ndarray, shape (T,)
        ER of the strong baseline (n true labels).
    w2s : numpy.ndarray, shape (T, K)
        ER of the W2S student.
    ceiling : numpy.ndarray, shape (T, K)
        ER of the strong ceiling (n + N true labels).
    """

    N: np.ndarray  # (K,) increasing numbers of pseudo-labelled samples
    weak: np.ndarray  # (T,) ER of each trial's weak teacher
    strong: np.ndarray  # (T,) ER of the strong baseline (n true labels)
    w2s: np.ndarray  # (T, K) ER of the W2S student
    ceiling: np.ndarray  # (T, K) ER of the strong ceiling (n + N true labels)

    @property
    def trials(self) -> int:
        return self.weak.shape[0]

    def mean(self, name: str) -> np.ndarray:
        """Monte Carlo mean of ``weak``, ``strong``, ``w2s``, ``ceiling`` or ``w2s_limit``."""
        return getattr(self, name).mean(axis=0)

    def se(self, name: str) -> np.ndarray:
        """Standard error of :meth:`mean`."""
        return getattr(self, name).std(axis=0, ddof=1) / np.sqrt(self.trials)

    @property
    def pgr(self) -> np.ndarray:
        """(K,) PGR of the mean risks: (ER_w - ER_w2s) / (ER_w - ER_c)."""
        w, w2s, c = self.mean("weak"), self.mean("w2s"), self.mean("ceiling")
        return (w - w2s) / (w - c)

    @property
    def pgr_se(self) -> np.ndarray:
        """(K,) delta-method standard error of :attr:`pgr`."""
        w, c = self.mean("weak"), self.mean("ceiling")
        resid = (self.weak[:, None] - self.w2s) - self.pgr * (self.weak[:, None] - self.ceiling)
        return resid.std(axis=0, ddof=1) / np.abs(w - c) / np.sqrt(self.trials)

    @property
    def opr(self) -> np.ndarray:
        """(K,) OPR of the mean risks: ER_s / ER_w2s."""
        return self.mean("strong") / self.mean("w2s")

    @property
    def opr_se(self) -> np.ndarray:
        """(K,) delta-method standard error of :attr:`opr`."""
        resid = self.strong[:, None] - self.opr * self.w2s  # (T, K)
        return resid.std(axis=0, ddof=1) / self.mean("w2s") / np.sqrt(self.trials)


@dataclass(frozen=True)
class W2SSimulation(W2SCurves):
    """:class:`W2SCurves` of :func:`simulate_w2s`, with each trial's ``N -> inf`` limit.

    Parameters
    ----------
    N : numpy.ndarray of int, shape (K,)
        Increasing numbers of pseudo-labelled samples.
    weak : numpy.ndarray, shape (T,)
        ER of each trial's weak teacher.
    strong : numpy.ndarray, shape (T,)
        ER of the strong baseline (n true labels).
    w2s : numpy.ndarray, shape (T, K)
        ER of the W2S student.
    ceiling : numpy.ndarray, shape (T, K)
        ER of the strong ceiling (n + N true labels).
    w2s_limit : numpy.ndarray, shape (T,)
        ER of the student as N -> inf: the teacher projected on V_s.
    """

    w2s_limit: np.ndarray  # (T,) ER of the student as N -> inf: the teacher projected on V_s


def subspace_pair(D: int, d_s: int, d_w: int, d_sw: int, seed=None) -> tuple[np.ndarray, ...]:
    """Random orthonormal ``V_s`` (D, d_s), ``V_w`` (D, d_w) sharing exactly ``d_sw`` directions.

    Returns ``(V_s, V_w, Q)`` where ``Q`` (D, d_s + d_w - d_sw) is an orthonormal basis of the
    union whose first ``d_s`` columns are ``V_s`` and columns ``d_s - d_sw`` to
    ``d_s - d_sw + d_w`` are ``V_w``.

    Parameters
    ----------
    D : int
        Ambient dimension, at least ``d_s + d_w - d_sw``.
    d_s : int
        Dimension of the strong subspace (at least 1).
    d_w : int
        Dimension of the weak subspace (at least 1).
    d_sw : int
        Number of shared directions, in ``[0, min(d_s, d_w)]``.
    seed : int, numpy.random.Generator or None, optional
        Anything ``numpy.random.default_rng`` takes.

    Returns
    -------
    V_s : numpy.ndarray, shape (D, d_s)
        Orthonormal basis of the strong subspace.
    V_w : numpy.ndarray, shape (D, d_w)
        Orthonormal basis of the weak subspace.
    Q : numpy.ndarray, shape (D, d_s + d_w - d_sw)
        Orthonormal basis of the union ``span(V_s) + span(V_w)``.

    Raises
    ------
    ValueError
        If a dimension is out of range, ``d_sw`` is not an integer, or the frame is too large.
    """
    d_s, d_w, _ = check_dimensions(d_s, d_w, d_sw)
    d_sw = _check_shared(d_sw)
    d_u = d_s + d_w - d_sw
    D = check_int("ambient_dim", D, minimum=d_u)
    _check_floats("ambient_dim", "the (D, d_s + d_w - d_sw) frame", D * d_u)
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((D, d_u)))  # (D, d_u), Haar-distributed frame
    return Q[:, :d_s], Q[:, d_s - d_sw : d_s - d_sw + d_w], Q


def _check_shared(d_sw) -> int:
    if isinstance(d_sw, bool) or not float(d_sw).is_integer():
        raise ValueError(f"d_sw must be an integer number of shared directions, got {d_sw!r}")
    return int(d_sw)


def _check_floats(name: str, what: str, count: int) -> None:
    if count > MAX_FLOATS:
        raise ValueError(f"{name} is too large: {what} would hold {count} floats (at most 2**30)")


def _ols(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Batched least squares by normal equations. X (B, m, d), y (B, m) -> (B, d)."""
    return np.linalg.solve(_gram(X, X), _gram(X, y[..., None]))[..., 0]


def _gram(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Batched A^T B. A (T, m, p), B (T, m, q) -> (T, p, q)."""
    return np.einsum("bmi,bmj->bij", A, B, optimize=True)


def simulate_w2s(
    d_s,
    d_w,
    d_sw,
    n,
    N,
    sigma=1.0,
    *,
    trials: int = 500,
    ambient_dim: int | None = None,
    seed=None,
    max_elements: int = 4_000_000,
) -> W2SSimulation:
    """Monte Carlo of weak, strong, ceiling and W2S excess risks (Dong et al., ICML 2025).

    Parameters
    ----------
    d_s, d_w : int
        Dimensions of the strong and weak feature subspaces.
    d_sw : int
        Number of directions they share (an integer in ``[0, min(d_s, d_w)]``).
    n : int
        Labelled samples, ``n > max(d_s, d_w) + 1``.
    N : int or sequence of int
        Pseudo-labelled samples, an int or an increasing sequence, each ``> d_s + 1``; for a
        sequence the samples are nested and the points share random numbers.
    sigma : float, default 1.0
        Label noise standard deviation, > 0.
    trials : int, default 500
        Independent repetitions (fresh data and noise; the subspaces are drawn once).
    ambient_dim : int, optional
        Draw ``x`` in ``R^D`` with random subspaces; ``None`` draws in coordinates of
        their union, which is the same distribution for every quantity computed here.
    seed : int, numpy.random.Generator or None, optional
        Anything ``numpy.random.default_rng`` takes.
    max_elements : int, default 4_000_000
        Memory bound: trials are processed in chunks of at most this many floats.

    Returns
    -------
    W2SSimulation
        With ``weak``, ``strong``, ``w2s_limit`` of shape (trials,) and ``w2s``,
        ``ceiling`` of shape (trials, len(N)).

    Raises
    ------
    ValueError
        If a dimension or sample size is out of range, ``N`` is not increasing, or an array
        would exceed 2**30 floats.
    """
    d_s, d_w, _ = check_dimensions(d_s, d_w, d_sw)
    d_sw = _check_shared(d_sw)
    n = check_int("n", n, minimum=max(d_s, d_w) + 2)
    try:
        Ns = np.atleast_1d(np.asarray(N))
    except ValueError:
        raise ValueError(f"N must be an integer or a 1-d sequence of integers, got {N!r}") from None
    if Ns.ndim != 1 or not np.issubdtype(Ns.dtype, np.integer) or Ns.size == 0:
        raise ValueError(f"N must be an integer or a 1-d sequence of integers, got {N!r}")
    if np.any(Ns <= d_s + 1) or np.any(np.diff(Ns) <= 0):
        raise ValueError(f"N must be increasing and every entry > d_s + 1 = {d_s + 1}, got {N!r}")
    sigma = check_real("sigma", sigma, low=0.0, high=np.inf, low_open=True, high_open=True)
    trials = check_int("trials", trials, minimum=2)
    max_elements = check_int("max_elements", max_elements, minimum=1)
    d_u = d_s + d_w - d_sw
    _check_floats("trials", "the risks", trials * (3 + 2 * Ns.size))
    width, name = d_u, "n + max(N)"
    if ambient_dim is not None:
        width = check_int("ambient_dim", ambient_dim, minimum=d_u)
        _check_floats("ambient_dim", "the (D, d_s + d_w - d_sw) frame", width * d_u)
        name = "n + max(N) or ambient_dim"
    _check_floats(name, "one trial's (n + max(N), width) inputs", (n + int(Ns[-1])) * width)
    rng = np.random.default_rng(seed)

    if ambient_dim is None:
        Q, width = None, d_u
    else:
        _, _, Q = subspace_pair(ambient_dim, d_s, d_w, d_sw, seed=rng)  # Q (D, d_u)
        width = Q.shape[0]
    strong, weak = slice(0, d_s), slice(d_s - d_sw, d_s - d_sw + d_w)
    beta = np.zeros(d_u)  # target coefficients in union coordinates, in span(V_s) ^ span(V_w)
    if d_sw:
        direction = rng.standard_normal(d_sw)
        beta[d_s - d_sw : d_s] = direction / np.linalg.norm(direction)

    def inputs(shape):  # (..., d_u): union coordinates of x ~ N(0, I_D)
        if Q is None:
            return rng.standard_normal((*shape, d_u))
        return rng.standard_normal((*shape, width)) @ Q

    N_max, K = int(Ns[-1]), Ns.size
    chunk = max(1, min(trials, max_elements // ((n + N_max) * width)))
    out = {k: np.empty(trials) for k in ("weak", "strong", "w2s_limit")}
    out["w2s"], out["ceiling"] = np.empty((trials, K)), np.empty((trials, K))
    bounds = np.concatenate([[0], Ns])
    for lo in range(0, trials, chunk):
        t = slice(lo, min(trials, lo + chunk))
        B = t.stop - t.start
        X = inputs((B, n))  # (B, n, d_u)
        y = X @ beta + sigma * rng.standard_normal((B, n))  # (B, n)
        theta_w = _ols(X[..., weak], y)  # (B, d_w)
        err_w = -np.broadcast_to(beta, (B, d_u)).copy()  # (B, d_u): teacher's coefficient error
        err_w[:, weak] += theta_w
        out["weak"][t] = (err_w**2).sum(-1)
        out["w2s_limit"][t] = (err_w[:, strong] ** 2).sum(-1)
        Xs = X[..., strong]  # (B, n, d_s)
        out["strong"][t] = ((_ols(Xs, y) - beta[strong]) ** 2).sum(-1)

        Z = inputs((B, N_max))  # (B, N_max, d_u)
        Zs = Z[..., strong]  # (B, N_max, d_s)
        pseudo = _gram(np.swapaxes(Z[..., weak], 1, 2), theta_w[:, :, None])  # (B, N_max, 1)
        truth = (Z @ beta + sigma * rng.standard_normal((B, N_max)))[..., None]  # (B, N_max, 1)
        G0 = _gram(Xs, Xs)  # (B, d_s, d_s)
        b0 = _gram(Xs, y[..., None])  # (B, d_s, 1)
        G = np.zeros_like(G0)
        b_w2s, b_true = np.zeros_like(b0), np.zeros_like(b0)
        for k in range(K):  # accumulate the nested samples N_{k-1} .. N_k
            seg = slice(bounds[k], bounds[k + 1])
            G += _gram(Zs[:, seg], Zs[:, seg])  # (B, d_s, d_s)
            b_w2s += _gram(Zs[:, seg], pseudo[:, seg])  # (B, d_s, 1)
            b_true += _gram(Zs[:, seg], truth[:, seg])
            theta = np.linalg.solve(G, b_w2s)[..., 0]  # (B, d_s)
            out["w2s"][t, k] = ((theta - beta[strong]) ** 2).sum(-1)
            theta = np.linalg.solve(G0 + G, b0 + b_true)[..., 0]
            out["ceiling"][t, k] = ((theta - beta[strong]) ** 2).sum(-1)
    return W2SSimulation(N=Ns.copy(), **out)
