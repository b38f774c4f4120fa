"""The dense-associative-memory energy of a prompt and gradient descent on it
(Smart, Bietti & Sengupta, ICML 2025, Sec. 4).

The context tokens are the stored patterns and the query the initial state ``s(0) = x~``:

    E(s) = |s|^2 / (2 alpha) - (1 / beta) log sum_t exp(beta x_t^T s),
    grad E(s) = s / alpha - X softmax(beta X^T s).

One step ``s(1) = s(0) - gamma grad E(s(0))`` with ``gamma = alpha`` is
``alpha X softmax(beta X^T x~)``: softmax attention with ``W_PV = alpha I``, ``W_KQ = beta I``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp, softmax

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real
from icml25.icl_denoising.tasks import _check_size


def _check(state, context, alpha: float, beta: float, name: str = "state"):
    """``state`` (B, n) and ``context`` (B, L, n) as non-empty finite float64 arrays, and the
    positive ``alpha``, ``beta``, or ValueError naming the argument."""
    state, context = real_array(name, state), real_array("context", context)
    if context.ndim != 3 or state.shape != (context.shape[0], context.shape[2]):
        raise ValueError(
            f"context must be (B, L, n) and {name} (B, n), got {context.shape} and {state.shape}"
        )
    alpha = check_real("alpha", alpha, low=0.0, high=np.inf, low_open=True, high_open=True)
    beta = check_real("beta", beta, low=0.0, high=np.inf, low_open=True, high_open=True)
    return state, context, alpha, beta


def dam_energy(state: np.ndarray, context: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """The dense-associative-memory energy ``E(s)`` of each prompt's state.

    Parameters
    ----------
    state : numpy.ndarray
        (B, n): the state ``s`` of each prompt, finite.
    context : numpy.ndarray
        (B, L, n): the context tokens ``x_t`` of each prompt, the stored patterns.
    alpha : float
        Weight ``alpha`` of the quadratic term ``|s|^2 / (2 alpha)``, ``> 0``.
    beta : float
        Inverse temperature ``beta`` of the log-sum-exp term, ``> 0``.

    Returns
    -------
    numpy.ndarray
        (B,): ``E(s) = |s|^2 / (2 alpha) - (1 / beta) log sum_t exp(beta x_t^T s)``.
    """
    s, X, alpha, beta = _check(state, context, alpha, beta)
    overlaps = np.einsum("bln,bn->bl", X, s)  # (B, L)
    return np.sum(s**2, axis=1) / (2 * alpha) - logsumexp(beta * overlaps, axis=1) / beta


def dam_gradient(state: np.ndarray, context: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """The gradient of the dense-associative-memory energy at each prompt's state.

    Parameters
    ----------
    state : numpy.ndarray
        (B, n): the state ``s`` of each prompt, finite.
    context : numpy.ndarray
        (B, L, n): the context tokens ``x_t`` of each prompt, the stored patterns.
    alpha : float
        Weight ``alpha`` of the quadratic term ``|s|^2 / (2 alpha)``, ``> 0``.
    beta : float
        Inverse temperature ``beta`` of the log-sum-exp term, ``> 0``.

    Returns
    -------
    numpy.ndarray
        (B, n): ``grad E(s) = s / alpha - X softmax(beta X^T s)``.
    """
    s, X, alpha, beta = _check(state, context, alpha, beta)
    return _gradient(s, X, alpha, beta)


def _gradient(s: np.ndarray, X: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    weights = softmax(beta * np.einsum("bln,bn->bl", X, s), axis=1)  # (B, L)
    return s / alpha - np.einsum("bl,bln->bn", weights, X)


def dam_descent(
    query: np.ndarray,
    context: np.ndarray,
    alpha: float,
    beta: float,
    steps: int,
    step_size: float | None = None,
) -> np.ndarray:
    """Gradient descent on the energy ``E`` from ``s(0) = x~``.

    Parameters
    ----------
    query : numpy.ndarray
        (B, n): the noisy queries ``x~``, the initial states.
    context : numpy.ndarray
        (B, L, n): the context tokens ``x_t`` of each prompt, the stored patterns.
    alpha : float
        Weight ``alpha`` of the quadratic term ``|s|^2 / (2 alpha)``, ``> 0``.
    beta : float
        Inverse temperature ``beta`` of the log-sum-exp term, ``> 0``.
    steps : int
        Gradient steps, ``>= 0``.
    step_size : float or None, default None
        Step size ``gamma``, ``> 0``; None for ``gamma = alpha``, the step that equals one
        softmax attention layer.

    Returns
    -------
    numpy.ndarray
        (steps + 1, B, n): the states ``s(0), ..., s(steps)``, ``s(k + 1) = s(k) - gamma
        grad E(s(k))``.
    """
    s, X, alpha, beta = _check(query, context, alpha, beta, "query")
    check_int("steps", steps, minimum=0)
    _check_size("steps", (steps + 1) * s.size)
    gamma = alpha if step_size is None else step_size
    check_real("step_size", gamma, low=0.0, high=np.inf, low_open=True, high_open=True)
    states = [s]
    for _ in range(steps):  # a loop over steps, not data: each step is one vectorised update
        states.append(states[-1] - gamma * _gradient(states[-1], X, alpha, beta))
    return np.stack(states)
