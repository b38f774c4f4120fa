"""The two-label RCN learner: a noise-corrected statistical-query perceptron.

For ``k = 2`` the paper (Diakonikolas, Ma, Ren & Tzamos, ICML 2025, Section 1) recalls that
polynomial-time algorithms reach the optimal error (Blum, Frieze, Kannan & Vempala 1996;
Cohen 1997; Dunagan & Vempala 2004). Their common core is a perceptron whose update is a
*statistical query*, and under RCN every query linear in the clean label can be answered from
noisy labels (Kearns 1998). With signs ``s(y) = 2y - 1``,

    E[s(y~) | y] = a + b s(y),   a = (H_11 - H_10 - H_00 + H_01) / 2,   b = H_00 + H_11 - 1,

so ``E[g(x) s(y)] = (E[g(x) s(y~)] - a E[g(x)]) / b`` for any ``g`` (``b > 0`` when
``sigma > 0``). The perceptron's batch update is the mean mistake vector
``v(w) = E[x s(y) 1{h_w(x) != y}] = (E[x s(y)] - E[x s(h_w(x))]) / 2``, which therefore needs one
corrected query ``c = E[x s(y)]`` and one noise-free query ``E[x s(h_w(x))]``; ``<v, w*> >= 0``
for the target ``w*``, the perceptron argument.

Our implementation (choices where the cited algorithms are long):

1. rescaling: work in isotropic position ``z = Sigma^{-1/2} x`` (``Sigma`` the sample second
   moment), the role of BFKV's outlier removal / Dunagan-Vempala's rescaling (it is exact
   rescaling only for light-tailed marginals; we do not implement outlier removal);
2. start at ``w_0 = c`` (the averaging algorithm, itself one statistical query);
3. ``w_{t+1} = w_t / |w_t| + lr v(w_t) / |v(w_t)|`` with ``lr = lr0 / sqrt(t + 1)``;
4. return the iterate with the smallest noisy 0-1 error on the sample, which is minimised by the
   target under RCN with ``sigma > 0`` (see :mod:`icml25.mlc_rcn.noise`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real
from icml25.mlc_rcn.data import check_features
from icml25.mlc_rcn.noise import check_labels, check_noise_matrix, separation


@dataclass(frozen=True)
class BinaryFit:
    """Result of :func:`rcn_perceptron`.

    Parameters
    ----------
    W : numpy.ndarray
        (2, d): classifier weights in the original coordinates (row 0 zero, row 1 ``w``); it
        predicts 1 where ``w . x > 0``.
    W_init : numpy.ndarray
        (2, d): the averaging start ``w_0`` in the same form.
    train_error : numpy.ndarray
        (T,): noisy 0-1 error on the sample of every iterate, ``T = iters + 1`` (fewer when the
        mean mistake vector vanished and the loop stopped early).
    best_iter : int
        Index into ``train_error`` of the returned iterate (the smallest error, first one on
        ties).
    """

    W: np.ndarray
    W_init: np.ndarray
    train_error: np.ndarray
    best_iter: int


def clean_correlation(X, y_noisy, H) -> np.ndarray:
    """The clean correlation ``E[x s(y)]`` estimated from noisy labels.

    Parameters
    ----------
    X : array_like
        (n, d) finite real features, ``n >= 1``.
    y_noisy : array_like
        (n,) integer noisy labels in {0, 1}.
    H : array_like
        (2, 2) row-stochastic noise matrix with positive separation.

    Returns
    -------
    numpy.ndarray
        (d,): ``(E[x s(y~)] - a E[x]) / b`` with sample means, ``s(y) = 2y - 1``,
        ``a = (H_11 - H_10 - H_00 + H_01) / 2`` and ``b = H_00 + H_11 - 1`` (module docstring).
    """
    H = check_noise_matrix(H)
    if H.shape != (2, 2):
        raise ValueError(f"H must be (2, 2) for the binary learner, got {H.shape}")
    if separation(H) <= 0:
        raise ValueError("H must have positive separation for the binary learner")
    X = check_features(X)
    s = 2.0 * check_labels("y_noisy", y_noisy, 2, n=X.shape[0]) - 1.0  # (n,)
    a = 0.5 * (H[1, 1] - H[1, 0] - H[0, 0] + H[0, 1])
    b = H[0, 0] + H[1, 1] - 1.0
    return (X.T @ s / X.shape[0] - a * X.mean(axis=0)) / b


def rcn_perceptron(X, y_noisy, H, *, iters: int = 300, lr: float = 0.5) -> BinaryFit:
    """Learn a halfspace ``1{w . x > 0}`` from RCN labels with known ``H`` (2, 2).

    A noise-corrected perceptron in isotropic position, started at the averaging estimate; see
    the module docstring for the algorithm.

    Parameters
    ----------
    X : array_like
        (n, d) finite real features with a full-rank second-moment matrix (add a constant
        column for an offset).
    y_noisy : array_like
        (n,) integer noisy labels in {0, 1}.
    H : array_like
        (2, 2) row-stochastic noise matrix with positive separation.
    iters : int, default 300
        Perceptron updates, ``>= 0`` (0 returns the averaging start).
    lr : float, default 0.5
        Initial step ``lr0``, ``> 0``; step ``t`` is ``lr0 / sqrt(t + 1)``.

    Returns
    -------
    BinaryFit
        The iterate with the smallest noisy 0-1 error on the sample, as ``W`` (2, d), and
        the error of every iterate.
    """
    X = check_features(X)
    c_x = clean_correlation(X, y_noisy, H)  # (d,) validates H and y_noisy
    iters = check_int("iters", iters, minimum=0)
    lr = check_real("lr", lr, low=0.0, high=np.inf, low_open=True, high_open=True)
    n = X.shape[0]
    evals, evecs = np.linalg.eigh(X.T @ X / n)
    if evals[0] <= 1e-12 * evals[-1]:
        raise ValueError("X must have a full-rank second-moment matrix (no redundant columns)")
    A = evecs / np.sqrt(evals) @ evecs.T  # (d, d) Sigma^{-1/2}
    Z = X @ A  # (n, d) isotropic position
    c = A @ c_x  # (d,) E[z s(y)] = Sigma^{-1/2} E[x s(y)]
    y_n = np.asarray(y_noisy)
    w = c / np.linalg.norm(c)
    ws, errors = [], []
    for t in range(iters + 1):
        margin = Z @ w  # (n,)
        ws.append(w)
        errors.append(np.mean((margin > 0) != (y_n == 1)))
        if t == iters:
            break
        v = 0.5 * (c - Z.T @ np.sign(margin) / n)  # (d,) mean mistake vector
        norm_v = np.linalg.norm(v)
        if norm_v == 0.0:
            break
        w = w + lr / np.sqrt(t + 1.0) * v / norm_v
        w = w / np.linalg.norm(w)
    errors = np.array(errors)
    best = int(np.argmin(errors))

    def as_W(u):
        return np.vstack([np.zeros(X.shape[1]), A @ u])  # (2, d) original coordinates

    return BinaryFit(as_W(ws[best]), as_W(ws[0]), errors, best)
