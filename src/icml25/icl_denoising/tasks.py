"""The three in-context denoising tasks (Smart, Bietti & Sengupta, ICML 2025, Sec. 2).

A prompt is ``L`` clean context tokens ``x_1..x_L`` drawn i.i.d. from a distribution ``p_X``
that is itself random (a fresh subspace, sphere or mixture per prompt), and one query
``x~ = x_{L+1} + z`` with ``z ~ N(0, sigma_Z^2 I_n)``; the target is the clean ``x_{L+1}``:

- linear subspace: ``x = U c``, ``U`` an orthonormal ``n x d`` basis, ``c ~ N(0, sigma_0^2 I_d)``;
- sphere: ``x = R U g / |g|``, ``g ~ N(0, I_{d+1})``, ``U`` an ``n x (d+1)`` orthonormal basis
  (the ``d``-sphere of radius ``R`` in a random ``d + 1``-dimensional subspace);
- Gaussian mixture: ``x ~ sum_a w_a N(mu_a, sigma_0^2 I_n)``, ``K`` random unit-norm centres,
  equal weights ``w_a = 1/K``.

Tokens are rows here (the paper writes them as the columns of ``X``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real

MAX_FLOATS = 2**30  # an array of more float64s (8 GiB) is refused as a size typo


@dataclass(frozen=True)
class Prompts:
    """A batch of ``B`` denoising prompts.

    Parameters
    ----------
    context : numpy.ndarray
        (B, L, n), real and finite: the clean context tokens of each prompt, all sizes ``>= 1``.
    query : numpy.ndarray
        (B, n), real and finite: the noisy query ``x~ = x_{L+1} + z`` of each prompt.
    target : numpy.ndarray
        (B, n), real and finite: the clean query ``x_{L+1}``.
    basis : numpy.ndarray or None, default None
        (B, n, k), ``k <= n``: the orthonormal basis of each prompt's subspace (linear task:
        ``k = d``, sphere task: ``k = d + 1``).
    centers : numpy.ndarray or None, default None
        (B, K, n): the centres of each prompt's mixture (mixture task).
    """

    context: np.ndarray
    query: np.ndarray
    target: np.ndarray
    basis: np.ndarray | None = None
    centers: np.ndarray | None = None

    def __post_init__(self) -> None:
        arrays = {name: getattr(self, name) for name in ("context", "query", "target")}
        for name, value in arrays.items():
            if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu":
                raise TypeError(f"{name} must be a real numpy array, got {type(value).__name__}")
            if not np.all(np.isfinite(value)):
                raise ValueError(f"{name} must be finite")
        if self.context.ndim != 3 or min(self.context.shape) < 1:
            raise ValueError(f"context must have shape (B, L, n), got {self.context.shape}")
        B, _, n = self.context.shape
        for name in ("query", "target"):
            if arrays[name].shape != (B, n):
                raise ValueError(f"{name} must have shape ({B}, {n}), got {arrays[name].shape}")
        if self.basis is not None and (
            self.basis.ndim != 3 or self.basis.shape[:2] != (B, n) or self.basis.shape[2] > n
        ):
            raise ValueError(f"basis must have shape ({B}, {n}, k <= {n}), got {self.basis.shape}")
        if self.centers is not None and (
            self.centers.ndim != 3 or self.centers.shape[0] != B or self.centers.shape[2] != n
        ):
            raise ValueError(f"centers must have shape ({B}, K, {n}), got {self.centers.shape}")
        for name in ("basis", "centers"):
            if getattr(self, name) is not None:
                real_array(name, getattr(self, name))


def _check_size(name: str, floats: int) -> None:
    """ValueError naming ``name`` when an array it sizes would hold more than 2**30 floats."""
    if floats > MAX_FLOATS:
        raise ValueError(f"{name} is too large: an array of {floats} floats (at most 2**30)")


def _check_seed(seed) -> None:
    if not isinstance(seed, np.random.Generator):
        check_int("seed", seed, minimum=0)


def _check_common(prompts: int, context_len: int, n: int, sigma_z_sq: float, seed) -> None:
    check_int("prompts", prompts, minimum=1)
    check_int("context_len", context_len, minimum=1)
    check_int("n", n, minimum=1)
    check_real("sigma_z_sq", sigma_z_sq, low=0.0, high=np.inf, low_open=True, high_open=True)
    _check_size("prompts", prompts * (context_len + 1) * n)
    _check_seed(seed)


def random_bases(prompts: int, n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """Haar-random orthonormal ``n x k`` bases, from the QR of Gaussian matrices.

    Parameters
    ----------
    prompts : int
        Number of bases ``B``, ``>= 1``.
    n : int
        Ambient dimension, ``>= 1``.
    k : int
        Columns of each basis, ``1 <= k <= n``.
    rng : numpy.random.Generator
        The generator drawn from.

    Returns
    -------
    numpy.ndarray
        (B, n, k): orthonormal columns, the signs fixed so that the law is Haar.

    Raises
    ------
    ValueError
        If a size is out of range.
    TypeError
        If ``rng`` is not a ``numpy.random.Generator``.
    """
    check_int("prompts", prompts, minimum=1)
    check_int("n", n, minimum=1)
    check_int("k", k, minimum=1)
    if k > n:
        raise ValueError(f"k must be <= n = {n} (k orthonormal columns in R^n), got {k}")
    _check_size("prompts", prompts * n * k)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    q, r = np.linalg.qr(rng.standard_normal((prompts, n, k)))
    return q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]  # sign fix: Haar measure


def _split(
    tokens: np.ndarray, sigma_z_sq: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(B, L+1, n) clean tokens -> context (B, L, n), noisy query (B, n), clean target (B, n)."""
    target = tokens[:, -1]
    query = target + np.sqrt(sigma_z_sq) * rng.standard_normal(target.shape)
    return tokens[:, :-1], query, target


def linear_prompts(
    prompts: int,
    context_len: int,
    n: int,
    d: int,
    sigma_0_sq: float,
    sigma_z_sq: float,
    seed: int | np.random.Generator,
) -> Prompts:
    """Prompts of the linear-subspace task.

    Tokens are ``U c`` with ``c ~ N(0, sigma_0^2 I_d)`` and a new random ``U`` per prompt.

    Parameters
    ----------
    prompts : int
        Number of prompts ``B``, ``>= 1``.
    context_len : int
        Context tokens ``L`` per prompt, ``>= 1``.
    n : int
        Token dimension, ``>= 1``.
    d : int
        Subspace dimension, ``1 <= d <= n``.
    sigma_0_sq : float
        Variance ``sigma_0^2`` of the subspace coordinates, ``> 0``.
    sigma_z_sq : float
        Variance ``sigma_Z^2`` of the query noise, ``> 0``.
    seed : int or numpy.random.Generator
        Seed (``>= 0``) of a fresh numpy generator, or a generator to draw from.

    Returns
    -------
    Prompts
        Context (B, L, n), query and target (B, n), and ``basis`` (B, n, d).
    """
    _check_common(prompts, context_len, n, sigma_z_sq, seed)
    check_int("d", d, minimum=1)
    if d > n:
        raise ValueError(f"d must be <= n = {n}, got {d}")
    check_real("sigma_0_sq", sigma_0_sq, low=0.0, high=np.inf, low_open=True, high_open=True)
    rng = np.random.default_rng(seed)
    U = random_bases(prompts, n, d, rng)  # (B, n, d)
    c = np.sqrt(sigma_0_sq) * rng.standard_normal((prompts, context_len + 1, d))
    context, query, target = _split(c @ U.transpose(0, 2, 1), sigma_z_sq, rng)
    return Prompts(context, query, target, basis=U)


def sphere_prompts(
    prompts: int,
    context_len: int,
    n: int,
    d: int,
    radius: float,
    sigma_z_sq: float,
    seed: int | np.random.Generator,
) -> Prompts:
    """Prompts of the sphere task.

    Tokens are uniform on the ``d``-sphere of radius ``R`` in a random ``d + 1``-dimensional
    subspace of ``R^n``, a new subspace per prompt.

    Parameters
    ----------
    prompts : int
        Number of prompts ``B``, ``>= 1``.
    context_len : int
        Context tokens ``L`` per prompt, ``>= 1``.
    n : int
        Token dimension, ``>= 1``.
    d : int
        Sphere dimension, ``1 <= d <= n - 1``.
    radius : float
        Sphere radius ``R``, ``> 0``.
    sigma_z_sq : float
        Variance ``sigma_Z^2`` of the query noise, ``> 0``.
    seed : int or numpy.random.Generator
        Seed (``>= 0``) of a fresh numpy generator, or a generator to draw from.

    Returns
    -------
    Prompts
        Context (B, L, n), query and target (B, n), and ``basis`` (B, n, d + 1).
    """
    _check_common(prompts, context_len, n, sigma_z_sq, seed)
    check_int("d", d, minimum=1)
    if d + 1 > n:
        raise ValueError(f"d must be <= n - 1 = {n - 1} (the sphere spans d + 1 dims), got {d}")
    check_real("radius", radius, low=0.0, high=np.inf, low_open=True, high_open=True)
    rng = np.random.default_rng(seed)
    U = random_bases(prompts, n, d + 1, rng)  # (B, n, d+1)
    g = rng.standard_normal((prompts, context_len + 1, d + 1))
    g *= radius / np.linalg.norm(g, axis=-1, keepdims=True)
    context, query, target = _split(g @ U.transpose(0, 2, 1), sigma_z_sq, rng)
    return Prompts(context, query, target, basis=U)


def gmm_prompts(
    prompts: int,
    context_len: int,
    n: int,
    components: int,
    sigma_0_sq: float,
    sigma_z_sq: float,
    seed: int | np.random.Generator,
) -> Prompts:
    """Prompts of the Gaussian-mixture task.

    Each prompt has ``K = components`` random unit-norm centres, equal weights and isotropic
    variance ``sigma_0^2``.

    Parameters
    ----------
    prompts : int
        Number of prompts ``B``, ``>= 1``.
    context_len : int
        Context tokens ``L`` per prompt, ``>= 1``.
    n : int
        Token dimension, ``>= 1``.
    components : int
        Number of centres ``K``, ``>= 1``.
    sigma_0_sq : float
        Variance ``sigma_0^2`` of each component, ``>= 0``.
    sigma_z_sq : float
        Variance ``sigma_Z^2`` of the query noise, ``> 0``.
    seed : int or numpy.random.Generator
        Seed (``>= 0``) of a fresh numpy generator, or a generator to draw from.

    Returns
    -------
    Prompts
        Context (B, L, n), query and target (B, n), and ``centers`` (B, K, n).
    """
    _check_common(prompts, context_len, n, sigma_z_sq, seed)
    check_int("components", components, minimum=1)
    _check_size("components", prompts * components * n)
    check_real("sigma_0_sq", sigma_0_sq, low=0.0, high=np.inf, high_open=True)
    rng = np.random.default_rng(seed)
    mu = rng.standard_normal((prompts, components, n))
    mu /= np.linalg.norm(mu, axis=-1, keepdims=True)  # (B, K, n)
    labels = rng.integers(components, size=(prompts, context_len + 1))  # (B, L+1)
    tokens = np.take_along_axis(mu, labels[..., None], axis=1)  # (B, L+1, n)
    tokens = tokens + np.sqrt(sigma_0_sq) * rng.standard_normal(tokens.shape)
    context, query, target = _split(tokens, sigma_z_sq, rng)
    return Prompts(context, query, target, centers=mu)
