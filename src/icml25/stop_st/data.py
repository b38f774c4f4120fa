"""A spatio-temporal generator on a random geometric sensor graph, with the shifts of STOP
(Ma et al., *Robust Spatio-Temporal Centralized Interaction for OOD Learning*, ICML 2025).

The paper's benchmarks (LargeST, TrafficStream, KnowAir) cannot be downloaded here; this
generator stands in for them with a known ground truth. ``n`` sensors sit uniformly in the unit
square; two sensors closer than ``radius`` are linked with the Gaussian-kernel weight
``W_ij = exp(-d_ij^2 / sigma^2)`` (the LargeST construction). Sensor ``i`` records

    x_t(i) = mu(p_i) + a(p_i) [sin(w t + phi(p_i)) + 0.4 sin(2 w t + 2 phi(p_i))] + e_t(i),
    e_{t+1} = rho [(1 - alpha) e_t + alpha P e_t] + s_t + sigma_eps eps_t,

with ``w = 2 pi / steps_per_day`` (daily periodicity), ``mu, a, phi`` smooth random fields of the
position ``p_i`` (sums of random cosines, so that neighbours look alike and an unseen sensor
resembles its neighbourhood), ``P`` the row-normalised adjacency (diffusion of the residual
``e`` over the graph), ``s_t`` sparse pulses (incidents) that then diffuse, and ``eps`` white
noise. The *later period* changes the dynamics: the phase field shifts (``phase_shift``), the
amplitude grows (``amplitude_scale``), a new smooth level field is added (``level_shift``), the
diffusion is faster (``alpha_shift``) and pulses are more frequent (``pulse_rate_shift``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real

MAX_FLOATS = 2**30  # an array of more float64s (8 GiB) is refused as a size typo
INF = float("inf")


def _check_size(name: str, floats: int) -> None:
    """ValueError naming ``name`` when an array it sizes would hold more than 2**30 floats."""
    if floats > MAX_FLOATS:
        raise ValueError(f"{name} is too large: an array of {floats} floats (at most 2**30)")


def _check_integer(name: str, value) -> int:
    """``value`` as an int of any sign (an offset), or ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return int(value)


def _real(name: str, value, ndim: int) -> np.ndarray:
    """``value`` as a non-empty float array of ``ndim`` dimensions holding finite numbers, or
    ValueError naming ``name`` (ragged, strings or objects, NaN or inf)."""
    try:
        array = np.asarray(value)
    except ValueError:
        raise ValueError(f"{name} must be a numeric array, got a ragged sequence") from None
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be a numeric array, got dtype {array.dtype}")
    if array.ndim != ndim or array.size == 0:
        raise ValueError(f"{name} must be a non-empty {ndim}-D array, got shape {array.shape}")
    array = np.asarray(array, dtype=float)
    if not np.isfinite(array).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return array


def _check_rng(rng) -> None:
    if not isinstance(rng, np.random.Generator | np.random.RandomState):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")


@dataclass(frozen=True)
class SensorGraph:
    """A sensor graph: positions (n, 2) and Gaussian-kernel adjacency (n, n), zero diagonal.

    Parameters
    ----------
    positions : numpy.ndarray
        Sensor positions (n, 2) in the unit square.
    adjacency : numpy.ndarray
        Edge weights (n, n), non-negative, symmetric, with a zero diagonal.

    Notes
    -----
    ``subgraph(nodes)`` returns the adjacency among ``nodes`` in their order.
    """

    positions: np.ndarray
    adjacency: np.ndarray

    def subgraph(self, nodes: np.ndarray) -> np.ndarray:
        """The adjacency among ``nodes`` (in their order): (len(nodes), len(nodes))."""
        return self.adjacency[np.ix_(nodes, nodes)]


@dataclass(frozen=True)
class Periods:
    """The generated series of the two periods and their graph.

    Parameters
    ----------
    base : numpy.ndarray
        Series (T0, n) with the training dynamics, ``T0 = base_days * steps_per_day``.
    shifted : numpy.ndarray
        Series (T1, n) of the later period with the changed dynamics.
    graph : SensorGraph
        The sensor graph both periods were simulated on.
    steps_per_day : int
        Steps per day, the period of the daily pattern.
    shifted_start : int
        Time-of-day offset of ``shifted[0]``.
    """

    base: np.ndarray
    shifted: np.ndarray
    graph: SensorGraph
    steps_per_day: int
    shifted_start: int  # time-of-day offset of shifted[0]


def random_geometric_graph(
    n: int, rng: np.random.Generator, radius: float = 0.2, sigma: float = 0.1
) -> SensorGraph:
    """Place ``n`` sensors uniformly in the unit square and link those within ``radius``.

    An edge between sensors at distance ``d < radius`` has weight ``exp(-d^2 / sigma^2)``.

    Parameters
    ----------
    n : int
        Number of sensors, ``>= 2``.
    rng : numpy.random.Generator
        The random generator drawn from.
    radius : float, default 0.2
        Largest distance of an edge, ``> 0``.
    sigma : float, default 0.1
        Width of the Gaussian kernel, ``> 0``.

    Returns
    -------
    SensorGraph
        Positions (n, 2) and adjacency (n, n) with a zero diagonal.
    """
    n = check_int("n", n, minimum=2)
    _check_size("n", 2 * n * n)
    _check_rng(rng)
    check_real("radius", radius, low=0.0, high=INF, low_open=True)
    check_real("sigma", sigma, low=0.0, high=INF, low_open=True)
    pos = rng.uniform(size=(n, 2))  # (n, 2)
    d2 = ((pos[:, None] - pos[None]) ** 2).sum(-1)  # (n, n)
    adj = np.exp(-d2 / sigma**2) * (d2 < radius**2)
    np.fill_diagonal(adj, 0.0)
    return SensorGraph(pos, adj)


def smooth_field(pos: np.ndarray, rng: np.random.Generator, terms: int = 4, freq: float = 4.0):
    """Evaluate a smooth random function of position, of roughly unit variance.

    The function is a sum of ``terms`` random cosines ``sqrt(2 / J) w_j cos(omega_j . p + b_j)``
    with ``omega_j ~ N(0, freq^2 I)``, ``b_j`` uniform in ``[0, 2 pi)`` and ``w_j ~ N(0, 1)``.

    Parameters
    ----------
    pos : numpy.ndarray
        Positions (n, 2), finite.
    rng : numpy.random.Generator
        The random generator drawn from.
    terms : int, default 4
        Number of cosines ``J``, ``>= 1``.
    freq : float, default 4.0
        Scale of the random frequencies, ``>= 0``; larger is rougher.

    Returns
    -------
    numpy.ndarray
        Values (n,) of the function at the positions.
    """
    pos = _real("pos", pos, 2)
    if pos.shape[1] != 2:
        raise ValueError(f"pos must have shape (n, 2), got {pos.shape}")
    _check_rng(rng)
    check_int("terms", terms, minimum=1)
    check_real("freq", freq, low=0.0, high=INF)
    omega = rng.normal(scale=freq, size=(terms, 2))  # (J, 2)
    shift = rng.uniform(0, 2 * np.pi, size=terms)
    weight = rng.normal(size=terms) * np.sqrt(2.0 / terms)
    return np.cos(pos @ omega.T + shift) @ weight  # (n,)


def _check_adjacency(adjacency) -> np.ndarray:
    adjacency = _real("adjacency", adjacency, 2)
    if adjacency.shape[0] != adjacency.shape[1] or (adjacency < 0).any():
        raise ValueError(
            f"adjacency must be a square non-negative matrix, got shape {adjacency.shape}"
        )
    return adjacency


def diffusion_matrix(adjacency: np.ndarray) -> np.ndarray:
    """Row-normalised adjacency ``P``, the diffusion operator of the residuals.

    Parameters
    ----------
    adjacency : numpy.ndarray
        Edge weights (n, n), square, finite and non-negative.

    Returns
    -------
    numpy.ndarray
        ``P`` (n, n) with rows summing to 1; the row of an isolated sensor is that of the
        identity, so it keeps its own value.
    """
    adjacency = _check_adjacency(adjacency)
    deg = adjacency.sum(1, keepdims=True)
    eye = np.eye(len(adjacency))
    return np.where(deg > 0, adjacency / np.maximum(deg, 1e-12), eye)


def simulate(
    graph: SensorGraph,
    steps: int,
    rng: np.random.Generator,
    *,
    steps_per_day: int,
    level: np.ndarray,
    amplitude: np.ndarray,
    phase: np.ndarray,
    start: int = 0,
    rho: float = 0.9,
    alpha: float = 0.5,
    pulse_rate: float = 0.01,
    pulse_size: float = 2.0,
    noise: float = 0.25,
    burn_in: int = 50,
) -> np.ndarray:
    """Run the diffusion recursion of the module for ``steps`` steps and add the daily pattern.

    The residual follows ``e_{t+1} = rho [(1 - alpha) e_t + alpha P e_t] + s_t + noise eps_t``
    from ``e = 0``, with pulses ``s_t`` exponential of mean ``pulse_size`` at each sensor with
    probability ``pulse_rate``; the first ``burn_in`` steps are dropped.

    Parameters
    ----------
    graph : SensorGraph
        The sensor graph, of ``n`` sensors.
    steps : int
        Number of steps returned, ``>= 1``.
    rng : numpy.random.Generator
        The random generator drawn from.
    steps_per_day : int
        Period of the daily pattern in steps, ``>= 1``.
    level : numpy.ndarray
        Level ``mu`` (n,) of each sensor, finite.
    amplitude : numpy.ndarray
        Amplitude ``a`` (n,) of each sensor's daily pattern, finite.
    phase : numpy.ndarray
        Phase ``phi`` (n,) of each sensor's daily pattern, finite.
    start : int, default 0
        Time index of the first returned step (any integer), which sets its time of day.
    rho : float, default 0.9
        Persistence of the residual, in ``[-1, 1]``.
    alpha : float, default 0.5
        Share of the residual diffused over the graph each step, in ``[0, 1]``.
    pulse_rate : float, default 0.01
        Probability of a pulse at a sensor and step, in ``[0, 1]``.
    pulse_size : float, default 2.0
        Mean size of a pulse, ``>= 0``.
    noise : float, default 0.25
        Standard deviation ``sigma_eps`` of the white noise, ``>= 0``.
    burn_in : int, default 50
        Steps of the recursion run and dropped before the first returned one, ``>= 0``.

    Returns
    -------
    numpy.ndarray
        Series (steps, n): ``level + amplitude * daily pattern + residual``.
    """
    if not isinstance(graph, SensorGraph):
        raise TypeError(f"graph must be a SensorGraph, got {type(graph).__name__}")
    n = len(_check_adjacency(graph.adjacency))
    for name, value in (("level", level), ("amplitude", amplitude), ("phase", phase)):
        if _real(name, value, 1).shape != (n,):
            raise ValueError(f"{name} must have shape ({n},), one per sensor: {np.shape(value)}")
    check_int("steps", steps, minimum=1)
    check_int("steps_per_day", steps_per_day, minimum=1)
    check_int("burn_in", burn_in, minimum=0)
    _check_size("steps", steps * n)
    _check_integer("start", start)
    _check_rng(rng)
    check_real("rho", rho, low=-1.0, high=1.0)
    for name, value in (("alpha", alpha), ("pulse_rate", pulse_rate)):
        check_real(name, value, low=0.0, high=1.0)
    for name, value in (("pulse_size", pulse_size), ("noise", noise)):
        check_real(name, value, low=0.0, high=INF)
    P = diffusion_matrix(graph.adjacency)  # (n, n)
    M = rho * ((1 - alpha) * np.eye(n) + alpha * P)  # (n, n)
    e = np.zeros(n)
    resid = np.empty((steps, n))
    for t in range(burn_in + steps):  # a recursion in time: one (n, n) product per step
        pulses = (rng.uniform(size=n) < pulse_rate) * rng.exponential(pulse_size, size=n)
        e = M @ e + pulses + noise * rng.normal(size=n)
        if t >= burn_in:
            resid[t - burn_in] = e
    w = 2 * np.pi / steps_per_day
    t = (start + np.arange(steps))[:, None]  # (steps, 1)
    daily = np.sin(w * t + phase) + 0.4 * np.sin(2 * w * t + 2 * phase)  # (steps, n)
    return level + amplitude * daily + resid


def generate(
    n: int,
    base_days: int,
    shifted_days: int,
    rng: np.random.Generator,
    *,
    steps_per_day: int = 24,
    phase_shift: float = 0.8,
    amplitude_scale: float = 1.3,
    level_shift: float = 0.6,
    alpha_shift: float = 0.85,
    pulse_rate_shift: float = 0.02,
) -> Periods:
    """Generate a sensor graph and two periods: base dynamics, then changed ones.

    The graph is :func:`random_geometric_graph` with its defaults; the level, amplitude and
    phase fields are ``5 + f_1``, ``1.5 + 0.5 f_2`` and ``1.5 f_3`` for smooth fields ``f``.
    The later period adds ``level_shift`` times a new smooth field to the level, multiplies the
    amplitude by ``amplitude_scale``, adds ``phase_shift`` to the phase and uses
    ``alpha_shift`` and ``pulse_rate_shift`` in :func:`simulate`.

    Parameters
    ----------
    n : int
        Number of sensors, ``>= 2``.
    base_days : int
        Days of the base period, ``>= 1``.
    shifted_days : int
        Days of the later period, ``>= 1``.
    rng : numpy.random.Generator
        The random generator drawn from.
    steps_per_day : int, default 24
        Steps per day, ``>= 1``.
    phase_shift : float, default 0.8
        Phase added in the later period, finite.
    amplitude_scale : float, default 1.3
        Factor on the amplitude in the later period, finite.
    level_shift : float, default 0.6
        Weight of the new level field in the later period, finite.
    alpha_shift : float, default 0.85
        Diffusion share ``alpha`` of the later period, in ``[0, 1]`` (the base uses 0.5).
    pulse_rate_shift : float, default 0.02
        Pulse rate of the later period, in ``[0, 1]`` (the base uses 0.01).

    Returns
    -------
    Periods
        ``base`` (base_days * steps_per_day, n), ``shifted`` (shifted_days * steps_per_day,
        n), the graph, ``steps_per_day`` and ``shifted_start`` 0.
    """
    for name, value in (("base_days", base_days), ("shifted_days", shifted_days)):
        check_int(name, value, minimum=1)
    check_int("n", n, minimum=2)
    check_int("steps_per_day", steps_per_day, minimum=1)
    _check_size("n", n * (base_days + shifted_days) * steps_per_day)
    for name, value in (
        ("phase_shift", phase_shift),
        ("amplitude_scale", amplitude_scale),
        ("level_shift", level_shift),
    ):
        check_real(name, value, low=-INF, high=INF, low_open=True)
    check_real("alpha_shift", alpha_shift, low=0.0, high=1.0)
    check_real("pulse_rate_shift", pulse_rate_shift, low=0.0, high=1.0)
    graph = random_geometric_graph(n, rng)
    pos = graph.positions
    level = 5.0 + smooth_field(pos, rng)
    amplitude = 1.5 + 0.5 * smooth_field(pos, rng)
    phase = 1.5 * smooth_field(pos, rng)
    common = dict(steps_per_day=steps_per_day)
    base = simulate(
        graph,
        base_days * steps_per_day,
        rng,
        level=level,
        amplitude=amplitude,
        phase=phase,
        **common,
    )
    shifted = simulate(
        graph,
        shifted_days * steps_per_day,
        rng,
        level=level + level_shift * smooth_field(pos, rng),
        amplitude=amplitude * amplitude_scale,
        phase=phase + phase_shift,
        alpha=alpha_shift,
        pulse_rate=pulse_rate_shift,
        **common,
    )
    return Periods(base, shifted, graph, steps_per_day, 0)


@dataclass(frozen=True)
class NodeSplit:
    """STOP's spatial split (official ``main.py``): train on ``train``; test on ``test`` =
    the training nodes less ``removed``, plus ``new`` nodes never seen in training.

    Parameters
    ----------
    train : numpy.ndarray
        Training node indices (n_train,).
    removed : numpy.ndarray
        Training nodes (k,) left out of the test set.
    new : numpy.ndarray
        Nodes (k,) never seen in training, added to the test set.

    Notes
    -----
    Property ``test`` (n_train,): the kept training nodes in training order, then ``new``.
    """

    train: np.ndarray
    removed: np.ndarray
    new: np.ndarray

    @property
    def test(self) -> np.ndarray:
        kept = np.setdiff1d(self.train, self.removed, assume_unique=True)
        kept = self.train[np.isin(self.train, kept)]  # keep the training order
        return np.concatenate([kept, self.new])


def node_split(
    n: int, rng: np.random.Generator, max_increase: float = 0.3, change: float = 0.1
) -> NodeSplit:
    """Shuffle the ``n`` sensors; ``n / (1 + max_increase)`` of them train; the test set drops
    ``change`` of those and adds as many new ones (the official code's defaults).

    Parameters
    ----------
    n : int
        Number of sensors, ``>= 2``.
    rng : numpy.random.Generator
        The random generator drawn from.
    max_increase : float, default 0.3
        The training set has ``int(n / (1 + max_increase))`` sensors, ``max_increase >= 0``.
    change : float, default 0.1
        Share of the training sensors replaced in the test set, in ``[0, 1]``; at least one is
        replaced.

    Returns
    -------
    NodeSplit
        ``train`` the first ``n_train`` shuffled sensors, ``removed`` the last
        ``k = max(1, int(n_train * change))`` of them and ``new`` the next ``k`` sensors;
        ValueError when ``n_train + k > n``.
    """
    check_int("n", n, minimum=2)
    _check_size("n", n)
    _check_rng(rng)
    check_real("max_increase", max_increase, low=0.0, high=INF)
    check_real("change", change, low=0.0, high=1.0)
    order = rng.permutation(n)
    n_train = int(n / (1 + max_increase))
    k = max(1, int(n_train * change))
    if n_train + k > n:
        raise ValueError(f"n={n} too small for max_increase={max_increase}, change={change}")
    train = order[:n_train]
    return NodeSplit(train=train, removed=train[n_train - k :], new=order[n_train : n_train + k])
