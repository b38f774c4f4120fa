"""Closed-form excess risks of weak-to-strong (W2S) ridgeless regression.

Dong, Li, Li, Lee & Lei, *Discrepancies are Virtue: Weak-to-Strong Generalization through Lens
of Intrinsic Dimension*, ICML 2025 (arXiv 2502.05075).

Setting (the paper's variance analysis, made exact for Gaussian features). Inputs
``x ~ N(0, I_D)``; the strong model's features are ``V_s^T x`` and the weak model's ``V_w^T x``
for orthonormal ``V_s`` (D, d_s) and ``V_w`` (D, d_w); the target ``f*(x) = x^T beta`` lies in
both spans ("sufficiently expressive" subspaces, so ridgeless least squares is unbiased) and
labels carry noise ``N(0, sigma^2)``. The correlation dimension is
``d_sw = ||V_s^T V_w||_F^2`` (the squared cosines of the principal angles). Then

- weak teacher, OLS on ``n`` labelled samples:      ``ER_w   = sigma^2 d_w / (n - d_w - 1)``
- strong baseline, OLS on the same ``n``:           ``ER_s   = sigma^2 d_s / (n - d_s - 1)``
- strong ceiling, OLS on ``n + N`` true labels:     ``ER_c   = sigma^2 d_s / (n + N - d_s - 1)``
- W2S student, OLS on ``N`` fresh inputs labelled by the weak teacher:

  ``ER_w2s = sigma^2 / (n - d_w - 1) * [ d_sw + (d_w - d_sw) * d_s / (N - d_s - 1) ]``

The last line is the paper's "virtue of discrepancy": the teacher's variance per direction,
``sigma^2 / (n - d_w - 1)``, is inherited in full on the ``d_sw`` directions the two subspaces
share, and shrunk by ``d_s / (N - d_s - 1)`` on the ``d_w - d_sw`` directions of discrepancy.
Derivation: the teacher's error ``delta_w = (X_w^T X_w)^{-1} X_w^T eps`` has
``E delta_w delta_w^T = sigma^2 I / (n - d_w - 1)`` (inverse-Wishart mean); the student
recovers the part ``V_s^T V_w delta_w`` exactly and sees the rest,
``(I - V_s V_s^T) V_w delta_w``, as label noise independent of its features, which OLS on ``N``
Gaussian samples passes on with factor ``d_s / (N - d_s - 1)``.

The paper states the leading-order form ``(sigma^2 / n) [d_sw + (d_s / N) (d_w - d_sw)]``
(``form="asymptotic"`` here); the finite-sample Gaussian form above (``form="exact"``, the
default) reduces to it when ``n >> d_w`` and ``N >> d_s``.

Performance gap recovery and outperforming ratio are ratios of the expected risks:
``PGR = (ER_w - ER_w2s) / (ER_w - ER_c)`` and ``OPR = ER_s / ER_w2s``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real

FORMS = ("exact", "asymptotic")


@dataclass(frozen=True)
class W2SRisks:
    """Expected excess risks (arrays broadcast over ``n`` and ``N``) and the two ratios.

    Parameters
    ----------
    weak : numpy.ndarray
        ER_w.
    strong : numpy.ndarray
        ER_s, the strong baseline trained on the n labels.
    ceiling : numpy.ndarray
        ER_c, the strong model trained on n + N true labels.
    w2s : numpy.ndarray
        ER_w2s.
    w2s_limit : numpy.ndarray
        ``lim_{N -> inf} ER_w2s = sigma^2 d_sw / (n - d_w - 1)``.
    pgr : numpy.ndarray
        ``(ER_w - ER_w2s) / (ER_w - ER_c)``.
    opr : numpy.ndarray
        ``ER_s / ER_w2s``.
    """

    weak: np.ndarray  # ER_w
    strong: np.ndarray  # ER_s, the strong baseline trained on the n labels
    ceiling: np.ndarray  # ER_c, the strong model trained on n + N true labels
    w2s: np.ndarray  # ER_w2s
    w2s_limit: np.ndarray  # lim_{N -> inf} ER_w2s = sigma^2 d_sw / (n - d_w - 1)
    pgr: np.ndarray  # (ER_w - ER_w2s) / (ER_w - ER_c)
    opr: np.ndarray  # ER_s / ER_w2s


def _check_sizes(name: str, value, *, above: int) -> np.ndarray:
    """A finite int or integer array, every entry > ``above``, or ValueError naming ``name``."""
    try:
        arr = np.asarray(value)
    except ValueError:
        raise ValueError(
            f"{name} must be an integer or an array of integers, got a ragged list"
        ) from None
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer)
        or (
            np.issubdtype(arr.dtype, np.floating)
            and np.all(np.isfinite(arr))
            and np.all(arr == np.round(arr))
        )
    ):
        raise ValueError(f"{name} must be an integer or an array of integers, got {value!r}")
    if arr.size == 0 or np.any(arr <= above):
        raise ValueError(
            f"{name} must be > {above} for the formula to be defined (the inverse-Wishart mean "
            f"needs more samples than dimensions + 1), got {value!r}"
        )
    return arr.astype(float)


def check_dimensions(d_s, d_w, d_sw) -> tuple[int, int, float]:
    """Validate ``(d_s, d_w, d_sw)``: positive integer dimensions, ``0 <= d_sw <= min``."""
    d_s = check_int("d_s", d_s, minimum=1)
    d_w = check_int("d_w", d_w, minimum=1)
    d_sw = check_real("d_sw", d_sw, low=0.0, high=float(min(d_s, d_w)))
    return d_s, d_w, d_sw


def w2s_risks(d_s, d_w, d_sw, n, N, sigma=1.0, *, form: str = "exact") -> W2SRisks:
    """Expected excess risks of weak, W2S, strong and ceiling models, with PGR and OPR.

    Parameters
    ----------
    d_s, d_w : int
        Intrinsic dimensions of the strong and weak feature subspaces.
    d_sw : float
        Correlation dimension ``||V_s^T V_w||_F^2`` in ``[0, min(d_s, d_w)]`` (need not be
        an integer).
    n : int or array_like of int
        Labelled samples for the weak teacher and the strong baseline (int or integer array);
        ``n > d_w + 1`` and ``n > d_s + 1``.
    N : int or array_like of int
        Pseudo-labelled samples for the W2S student (int or integer array, broadcast against
        ``n``); ``N > d_s + 1``.
    sigma : float, default 1.0
        Label noise standard deviation, > 0.
    form : {"exact", "asymptotic"}, default "exact"
        ``"exact"`` (finite-sample, Gaussian features) or ``"asymptotic"`` (the paper's
        leading order: ``n - d - 1 -> n``, ``N - d_s - 1 -> N``).

    Returns
    -------
    W2SRisks
        With arrays of the broadcast shape of ``n`` and ``N``.

    Raises
    ------
    ValueError
        If a dimension or sample size is out of range, ``form`` is unknown, or ``n`` and ``N``
        do not broadcast.
    """
    d_s, d_w, d_sw = check_dimensions(d_s, d_w, d_sw)
    sigma = check_real("sigma", sigma, low=0.0, high=np.inf, low_open=True, high_open=True)
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    n = _check_sizes("n", n, above=max(d_s, d_w) + 1)
    N = _check_sizes("N", N, above=d_s + 1)
    try:
        n, N = np.broadcast_arrays(n, N)
    except ValueError:
        raise ValueError(
            f"n and N must broadcast together, got shapes {n.shape} and {N.shape}"
        ) from None
    shift = {"exact": 1.0, "asymptotic": 0.0}[form]
    s2 = sigma**2

    def ols(d, m):  # sigma^2 d / (m - d - 1), the OLS excess risk with m Gaussian samples
        return s2 * d / (m - shift * (d + 1))

    weak = ols(d_w, n)
    strong = ols(d_s, n)
    ceiling = ols(d_s, n + N)
    per_direction = weak / d_w  # sigma^2 / (n - d_w - 1): the teacher's variance per direction
    reduction = d_s / (N - shift * (d_s + 1))  # the student's factor on discrepant directions
    w2s = per_direction * (d_sw + (d_w - d_sw) * reduction)
    return W2SRisks(
        weak=weak,
        strong=strong,
        ceiling=ceiling,
        w2s=w2s,
        w2s_limit=per_direction * d_sw,
        pgr=(weak - w2s) / (weak - ceiling),
        opr=strong / w2s,
    )
