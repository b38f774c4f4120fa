"""Weak-to-strong linear probes on the frozen features of real models (Dong et al., ICML 2025).

The paper's experiments on real models (official code, ``domainbed/scripts2/coloredmnist_var.py``)
fine-tune linear heads on frozen features: a weak teacher on ``n`` labelled samples, the strong
baseline on the same samples, the W2S student on ``N`` fresh samples labelled by the teacher,
the strong ceiling on the ``n + N`` true labels; each is scored on held-out samples, and
``PGR = (ER_w - ER_w2s) / (ER_w - ER_c)``, ``OPR = ER_s / ER_w2s`` (ratios of mean risks).
The theory's variance analysis says where such fine-tuning happens: in the model's intrinsic
subspace, of dimension ``d`` (the smallest holding ``fraction`` of the squared singular values
of its features). :func:`w2s_linear_probe` makes that literal: each head is least squares on the
model's top-``d`` principal coordinates ``U_d diag(s_d)`` of its feature matrix (the features
projected on their top-``d`` principal directions, computed from the features of every sample,
no labels). The theory's dimensions come from the same features (:func:`feature_dimensions`,
in sample space), and :func:`predicted_pgr` is the paper's prediction from them.

Targets may be vectors (one-hot classes, regressed by squared loss as in the official code's
MSE evaluation); the risk of a head is the mean over test samples of the squared error summed
over outputs, against the clean targets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real
from icml25.w2s_intrinsic.dimensions import (
    _features,
    _nonzero,
    correlation_dimension,
    intrinsic_dimension,
)
from icml25.w2s_intrinsic.simulate import W2SCurves, _check_floats
from icml25.w2s_intrinsic.theory import w2s_risks


@dataclass(frozen=True)
class W2SProbe(W2SCurves):
    """Per-split test risks of the four linear heads, with the pair's measured dimensions.

    Shapes: ``T`` random splits (trials), ``K`` values of ``N``.

    Parameters
    ----------
    N : numpy.ndarray of int, shape (K,)
        Increasing numbers of pseudo-labelled samples.
    weak : numpy.ndarray, shape (T,)
        Test risk of each split's weak teacher.
    strong : numpy.ndarray, shape (T,)
        Test risk of the strong baseline (n true labels).
    w2s : numpy.ndarray, shape (T, K)
        Test risk of the W2S student.
    ceiling : numpy.ndarray, shape (T, K)
        Test risk of the strong ceiling (n + N true labels).
    d_s : int
        Intrinsic dimension of the strong features.
    d_w : int
        Intrinsic dimension of the weak features.
    d_sw : float
        Correlation dimension ``||U_s^T U_w||_F^2`` in sample space.
    n : int
        Labelled samples.
    """

    d_s: int  # intrinsic dimension of the strong features
    d_w: int  # intrinsic dimension of the weak features
    d_sw: float  # correlation dimension ||U_s^T U_w||_F^2 in sample space
    n: int  # labelled samples


def principal_coordinates(features, fraction: float) -> tuple[np.ndarray, np.ndarray]:
    """``(U_d diag(s_d), U_d)``: (m, d) coordinates and (m, d) sample-space basis, d intrinsic.

    Parameters
    ----------
    features : array_like, shape (m, D)
        Feature matrix, one row per sample.
    fraction : float
        Energy fraction that defines ``d`` (:func:`intrinsic_dimension`), in (0, 1].

    Returns
    -------
    coordinates : numpy.ndarray, shape (m, d)
        ``U_d diag(s_d)``, the features projected on their top-``d`` principal directions.
    basis : numpy.ndarray, shape (m, d)
        ``U_d``, the top-``d`` left singular vectors (orthonormal columns).

    Raises
    ------
    ValueError
        As :func:`intrinsic_dimension`.
    """
    d = intrinsic_dimension(features, fraction)
    U, s, _ = np.linalg.svd(np.asarray(features, dtype=float), full_matrices=False)
    return U[:, :d] * s[:d], U[:, :d]


def _fit(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Batched least squares: A (T, k, d), B (T, k, C) -> (T, d, C)."""
    gram = np.einsum("tkd,tke->tde", A, A, optimize=True)  # (T, d, d)
    return np.linalg.solve(gram, np.einsum("tkd,tkc->tdc", A, B, optimize=True))


def _risk(A: np.ndarray, theta: np.ndarray, Y: np.ndarray, test: np.ndarray) -> np.ndarray:
    """(T,) mean over test samples of the squared error summed over outputs."""
    pred = np.einsum("tkd,tdc->tkc", A[test], theta, optimize=True)  # (T, k, C)
    return np.sum((pred - Y[test]) ** 2, axis=2).mean(axis=1)


def _targets(name: str, value, m: int) -> np.ndarray:
    Y = real_array(name, value, nonempty=False)
    Y = Y[:, None] if Y.ndim == 1 else Y
    if Y.ndim != 2 or Y.shape[0] != m or not np.all(np.isfinite(Y)):
        raise ValueError(f"{name} must be a finite (m,) or (m, C) array with m = {m} rows")
    return Y


def w2s_linear_probe(
    features_w,
    features_s,
    targets,
    n: int,
    N,
    *,
    train_targets=None,
    fraction: float = 0.99,
    trials: int = 100,
    seed=None,
) -> W2SProbe:
    """Weak teacher, strong baseline, W2S student and strong ceiling as linear probes.

    Parameters
    ----------
    features_w : array_like, shape (m, D_w)
        Frozen features of the weak model on ``m`` samples.
    features_s : array_like, shape (m, D_s)
        Frozen features of the strong model on the same samples (any width).
    targets : array_like, shape (m,) or (m, C)
        Clean targets, used to score every head on the test samples.
    n : int
        Labelled samples for the teacher and the strong baseline; ``n > max(d_s, d_w)``.
    N : int or sequence of int
        Int or increasing ints, pseudo-labelled samples for the student (nested: the first
        ``N_1`` of the ``N_2``...); ``N > d_s`` and ``n + max(N) < m``, the rest of each split
        is the test set.
    train_targets : array_like, optional
        The targets the heads are trained on, (m,) / (m, C) or (trials, m, C) for a
        fresh label noise per split; the clean ``targets`` by default.
    fraction : float, default 0.99
        Energy fraction of the intrinsic dimensions (the official script's 0.99).
    trials : int, default 100
        Random splits of the ``m`` samples into labelled, pseudo-labelled and test sets (>= 2).
    seed : int, numpy.random.Generator or None, optional
        Seed of the splits (int, numpy Generator or None).

    Returns
    -------
    W2SProbe
        Test risks ``weak``, ``strong`` of shape (trials,), ``w2s``, ``ceiling`` of shape
        (trials, len(N)), and the measured ``d_s``, ``d_w``, ``d_sw`` and ``n``.

    Raises
    ------
    ValueError
        If the features or targets have mismatched or invalid shapes, or ``n``, ``N``,
        ``fraction`` or ``trials`` is out of range.
    """
    Fw = _nonzero("features_w", _features("features_w", features_w))
    Fs = _nonzero("features_s", _features("features_s", features_s))
    if Fw.ndim != 2 or Fs.ndim != 2 or Fw.shape[0] != Fs.shape[0]:
        raise ValueError(
            f"features_w and features_s must be 2-d with the same rows (samples), got "
            f"{Fw.shape} and {Fs.shape}"
        )
    m = Fw.shape[0]
    Y = _targets("targets", targets, m)  # (m, C)
    trials = check_int("trials", trials, minimum=2)
    Yt = Y if train_targets is None else real_array("train_targets", train_targets)
    if train_targets is not None and Yt.ndim < 3:
        Yt = _targets("train_targets", Yt, m)
    if Yt.ndim > 3 or Yt.shape[-2:] != Y.shape or Yt.ndim == 3 and Yt.shape[0] != trials:
        raise ValueError(
            f"train_targets must have the shape of targets {Y.shape} or (trials, *that), "
            f"got {Yt.shape}"
        )
    Yt = np.broadcast_to(Yt, (trials, *Y.shape))  # (T, m, C)
    fraction = check_real("fraction", fraction, low=0.0, high=1.0, low_open=True)
    Aw, Uw = principal_coordinates(Fw, fraction)  # (m, d_w) each
    As, Us = principal_coordinates(Fs, fraction)  # (m, d_s) each
    d_w, d_s = Aw.shape[1], As.shape[1]
    n = check_int("n", n, minimum=max(d_s, d_w) + 1)
    _check_floats("trials", "the fits' design matrices", trials * m * max(d_s, d_w, Y.shape[1]))
    try:
        Ns = np.atleast_1d(np.asarray(N))
    except ValueError:
        raise ValueError(f"N must be an int or a 1-d sequence of ints, got {N!r}") from None
    if Ns.ndim != 1 or not np.issubdtype(Ns.dtype, np.integer) or np.any(np.diff(Ns) <= 0):
        raise ValueError(f"N must be an int or increasing ints, got {N!r}")
    if Ns[0] <= d_s or n + Ns[-1] >= m:
        raise ValueError(
            f"N must be > d_s = {d_s} and n + max(N) < m = {m} (a test set must remain), got {N!r}"
        )
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((trials, m)), axis=1)  # (T, m) random permutations
    lab, pool, test = order[:, :n], order[:, n : n + Ns[-1]], order[:, n + Ns[-1] :]
    rows = np.arange(trials)[:, None]
    Y_lab = Yt[rows, lab]  # (T, n, C)

    theta_w = _fit(Aw[lab], Y_lab)  # (T, d_w, C)
    weak = _risk(Aw, theta_w, Y, test)
    strong = _risk(As, _fit(As[lab], Y_lab), Y, test)
    w2s, ceiling = [], []
    for k in Ns:  # a few values of N
        unl = pool[:, :k]  # (T, k)
        pseudo = np.einsum("tkd,tdc->tkc", Aw[unl], theta_w, optimize=True)  # teacher's labels
        w2s.append(_risk(As, _fit(As[unl], pseudo), Y, test))
        both = np.concatenate([lab, unl], axis=1)  # (T, n + k)
        ceiling.append(_risk(As, _fit(As[both], Yt[rows, both]), Y, test))
    return W2SProbe(
        N=Ns.copy(),
        weak=weak,
        strong=strong,
        w2s=np.stack(w2s, axis=1),
        ceiling=np.stack(ceiling, axis=1),
        d_s=d_s,
        d_w=d_w,
        d_sw=correlation_dimension(Us, Uw),
        n=n,
    )


def predicted_pgr(probe: W2SProbe, form: str = "asymptotic") -> np.ndarray:
    """(K,) the theory's PGR from the pair's measured ``(d_s, d_w, d_sw)``, ``n`` and ``N``.

    ``form="asymptotic"`` is the paper's leading order; ``"exact"`` our Gaussian finite-sample
    form (undefined unless ``n > max(d_s, d_w) + 1`` and ``N > d_s + 1``). The noise level
    cancels in the PGR.

    Parameters
    ----------
    probe : W2SProbe
        Result of :func:`w2s_linear_probe`.
    form : {"asymptotic", "exact"}, default "asymptotic"
        Which closed form of :func:`~icml25.w2s_intrinsic.w2s_risks` to use.

    Returns
    -------
    numpy.ndarray, shape (K,)
        The predicted PGR for each ``N`` of the probe.

    Raises
    ------
    ValueError
        As :func:`~icml25.w2s_intrinsic.w2s_risks` (e.g. ``form="exact"`` with too few samples).
    """
    d_sw = min(probe.d_sw, probe.d_s, probe.d_w)  # rounding can exceed the bound by 1e-15
    return np.atleast_1d(w2s_risks(probe.d_s, probe.d_w, d_sw, probe.n, probe.N, form=form).pgr)
