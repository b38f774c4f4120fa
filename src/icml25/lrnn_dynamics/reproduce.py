"""Reproduction: the learning dynamics of linear RNNs (Proca et al., ICML 2025).

Every network has ``d_in = d_out = 4``, ``N = 16`` hidden units, ``T = 6`` and is trained by
full-batch gradient descent (step ``lr = 0.005``) on the exact whitened loss. Cells:

- ``reduced``: an exponential task ``s_a(i) = s_a lam_a^{T-i}`` and a non-exponential (linear
  ramp) task, from a small random initialisation (``init = "random"``: the network's maps
  ``W_y W_h^{T-i} W_x`` against ``U diag(a b^{T-i} c) V^T`` from the scalar ODEs started at
  :func:`~icml25.lrnn_dynamics.reduced.matched_initial_condition`) and from the aligned one
  (``init = "aligned"``, ``a = b = c = 1e-3``: the four mode projections against the ODEs);
- ``order``: random small initialisation; a task with two active modes, each a single
  singular value ``sigma`` at one lag ``T - i``; learning time = first step at which the mode's
  projection reaches half its final value;
- ``extrapolation``: random small initialisation, exponential vs ramp task of the same size
  (same norm per mode); the trained network evaluated on sequences of length ``2T``;
- ``ntk``: the same initial weights trained as the recurrent network (``T = 6``, exponential
  task) and as the matched feedforward network ``W_y W_x`` (``T = 1``, the task's last step);
  relative change of the empirical NTK, ``||K_end - K_0||_F / ||K_0||_F``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.lrnn_dynamics.network import init_aligned, init_random, lag_maps, ntk, train
from icml25.lrnn_dynamics.reduced import (
    make_task,
    matched_initial_condition,
    mode_projections,
    random_orthogonal,
    reduced_flow,
    reduced_gd,
)

CELL_THREADS = 1


@dataclass(frozen=True)
class Config:
    d: int = 4
    hidden: int = 16
    T: int = 6
    lr: float = 0.005
    sizes: tuple[float, ...] = (2.0, 1.5, 1.0, 0.5)  # s_a
    lams: tuple[float, ...] = (0.9, 0.8, 0.7, 0.6)  # lam_a of the exponential task
    reduced_init: float = 1e-3
    reduced_steps: int = 16000
    reduced_seeds: int = 3
    random_init: float = 1e-3  # scale of init_random for the random-start reduced cells
    record_every: int = 40
    order_init: float = 0.1
    order_steps: int = 24000
    order_seeds: int = 3
    # (sigma_1, lag_1, sigma_2, lag_2, kind): theory says mode 1 is learned first
    order_pairs: tuple[tuple[float, int, float, int, str], ...] = (
        (2.0, 0, 1.0, 0, "size"),
        (2.0, 1, 1.0, 1, "size"),
        (2.0, 2, 1.0, 2, "size"),
        (1.5, 0, 1.5, 1, "time"),
        (1.5, 1, 1.5, 2, "time"),
        (1.5, 0, 1.5, 2, "time"),
    )
    extrap_init: float = 0.01
    extrap_steps: int = 32000
    extrap_seeds: int = 3
    ntk_scales: tuple[float, ...] = (0.5, 1.0)
    ntk_steps: int = 16000
    ntk_seeds: int = 3


SCALES = {
    "smoke": Config(
        reduced_steps=4000,
        reduced_seeds=1,
        order_steps=4000,
        order_seeds=1,
        order_pairs=((2.0, 0, 1.0, 0, "size"), (1.5, 0, 1.5, 1, "time")),
        extrap_steps=6000,
        extrap_seeds=1,
        ntk_scales=(1.0,),
        ntk_steps=4000,
        ntk_seeds=1,
    ),
    "default": Config(),
    "paper": Config(reduced_seeds=10, order_seeds=10, extrap_seeds=10, ntk_seeds=10),
}


def cells(config: Config) -> list[dict]:
    reduced = [
        {"part": "reduced", "init": i, "profile": p, "replicate": r}
        for i in ("random", "aligned")
        for p in ("exponential", "ramp")
        for r in range(config.reduced_seeds)
    ]
    order = [
        {"part": "order", "pair": i, "replicate": r}
        for i in range(len(config.order_pairs))
        for r in range(config.order_seeds)
    ]
    extrap = [
        {"part": "extrapolation", "profile": p, "replicate": r}
        for p in ("exponential", "ramp")
        for r in range(config.extrap_seeds)
    ]
    kernel = [
        {"part": "ntk", "scale": g, "replicate": r}
        for g in config.ntk_scales
        for r in range(config.ntk_seeds)
    ]
    return reduced + order + extrap + kernel


def profiles(config: Config, kind: str, T: int | None = None) -> np.ndarray:
    """Singular-value profiles ``(4, T)`` in time order. ``exponential``: ``s_a lam_a^{T-i}``;
    ``ramp``: ``c_a max(0, 1 - (T-i)/T_train)``, ``c_a`` giving it the exponential profile's
    norm over the training length (same size). ``T`` longer than ``config.T`` extends each
    rule to earlier time steps."""
    T = config.T if T is None else T
    lags = np.arange(T - 1, -1, -1, dtype=float)  # (T,) lag of each time step
    s, lam = np.array(config.sizes)[:, None], np.array(config.lams)[:, None]
    if kind == "exponential":
        return s * lam**lags
    train_lags = np.arange(config.T, dtype=float)
    ramp = np.maximum(0.0, 1.0 - lags / config.T)
    norm_exp = np.linalg.norm(s * lam**train_lags, axis=1, keepdims=True)
    norm_ramp = np.linalg.norm(1.0 - train_lags / config.T)
    return norm_exp / norm_ramp * ramp


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    rng_task, rng_net = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    U, V = random_orthogonal(config.d, rng_task), random_orthogonal(config.d, rng_task)
    if cell["part"] == "reduced" and cell["init"] == "random":
        return _reduced_random(config, profiles(config, cell["profile"]), U, V, rng_net)
    if cell["part"] == "reduced":
        return _reduced(config, profiles(config, cell["profile"]), U, V, rng_net)
    if cell["part"] == "order":
        return _order(config, config.order_pairs[cell["pair"]], U, V, rng_net)
    if cell["part"] == "extrapolation":
        return _extrapolation(config, cell["profile"], U, V, rng_net)
    return _ntk(config, cell["scale"], U, V, rng_net)


def _reduced(config: Config, s, U, V, rng) -> dict:
    """Aligned init, full-matrix GD, against the scalar ODE at times ``step * lr``."""
    eps = np.full(config.d, config.reduced_init)
    net = init_aligned(U, V, eps, eps, eps, config.hidden, rng)
    run = train(net, make_task(U, V, s), config.lr, config.reduced_steps, config.record_every)
    full = mode_projections(run.maps, U, V)  # (R, m, T)
    flow = reduced_flow(s, eps, eps, eps, config.lr * run.steps).maps  # (R, m, T)
    gd = reduced_gd(s, eps, eps, eps, config.lr, config.reduced_steps).maps[run.steps]
    return {
        "rel_error_flow": float(np.linalg.norm(full - flow) / np.linalg.norm(flow)),
        "rel_error_gd": float(np.linalg.norm(full - gd) / np.linalg.norm(gd)),
        "final_loss": float(run.loss[-1]),
        "steps": run.steps.tolist(),
        "full": full.tolist(),
        "flow": flow.tolist(),
    }


def _reduced_random(config: Config, s, U, V, rng) -> dict:
    """Small random init, full-matrix GD; the whole maps against the ODEs' ``U diag(.) V^T``."""
    net = init_random(config.d, config.d, config.hidden, config.random_init, rng)
    run = train(net, make_task(U, V, s), config.lr, config.reduced_steps, config.record_every)
    a0, b0, c0 = matched_initial_condition(net, U, V)
    flow = reduced_flow(s, a0, b0, c0, config.lr * run.steps).maps  # (R, m, T)
    predicted = np.einsum("om,rmt,im->rtoi", U, flow, V)  # (R, T, d_out, d_in)
    gap = np.linalg.norm((run.maps - predicted).reshape(len(run.steps), -1), axis=1)  # (R,)
    size = np.linalg.norm(predicted.reshape(len(run.steps), -1), axis=1)  # (R,)
    fixed_point = 0.5 * float(np.sum((flow[-1] - s) ** 2))  # the ODE's final loss
    return {
        "rel_error": float(np.linalg.norm(gap) / np.linalg.norm(size)),
        "rel_error_t": (gap / np.maximum(size, 1e-300)).tolist(),
        "final_loss": float(run.loss[-1]),
        "ode_final_loss": fixed_point,
        "W_h_rank": int(np.sum(np.linalg.svd(run.net.W_h, compute_uv=False) > 1e-3)),
        "steps": run.steps.tolist(),
        "full": mode_projections(run.maps, U, V).tolist(),
        "flow": flow.tolist(),
    }


def _order(config: Config, pair, U, V, rng) -> dict:
    s1, lag1, s2, lag2, kind = pair
    T = config.T
    s = np.zeros((config.d, T))
    s[0, T - 1 - lag1], s[1, T - 1 - lag2] = s1, s2
    net = init_random(config.d, config.d, config.hidden, config.order_init, rng)
    run = train(net, make_task(U, V, s), config.lr, config.order_steps, config.record_every)
    proj = mode_projections(run.maps, U, V)  # (R, m, T)
    curves = np.stack([proj[:, 0, T - 1 - lag1], proj[:, 1, T - 1 - lag2]])  # (2, R)
    times = [_half_time(curve, run.steps) for curve in curves]
    return {
        "kind": kind,
        "time_first": times[0],
        "time_second": times[1],
        "final": curves[:, -1].tolist(),
        "steps": run.steps.tolist(),
        "curves": curves.tolist(),
    }


def _half_time(curve: np.ndarray, steps: np.ndarray) -> float:
    """First recorded step at which ``curve`` reaches half its final value (nan if never)."""
    reached = np.flatnonzero(np.abs(curve) >= 0.5 * abs(curve[-1]))
    return float(steps[reached[0]]) if reached.size else float("nan")


def _extrapolation(config: Config, kind: str, U, V, rng) -> dict:
    net = init_random(config.d, config.d, config.hidden, config.extrap_init, rng)
    run = train(net, make_task(U, V, profiles(config, kind)), config.lr, config.extrap_steps, 400)
    T2 = 2 * config.T
    target = make_task(U, V, profiles(config, kind, T2))  # (2T, d, d)
    learned = lag_maps(run.net, T2)[::-1]  # (2T, d, d) in time order
    return {
        "error_2T": float(np.linalg.norm(learned - target) / np.linalg.norm(target)),
        # the unseen part alone (lags T..2T-1, the first T inputs), over the same norm
        "error_unseen": float(
            np.linalg.norm(learned[: config.T] - target[: config.T]) / np.linalg.norm(target)
        ),
        "spectral_radius": float(np.max(np.abs(np.linalg.eigvals(run.net.W_h)))),
        "final_loss": float(run.loss[-1]),
        "learned_modes": mode_projections(learned, U, V).tolist(),  # (m, 2T)
        "target_modes": mode_projections(target, U, V).tolist(),
    }


def _ntk(config: Config, scale: float, U, V, rng) -> dict:
    """Same initial weights; recurrent (T steps) against feedforward (T = 1, last step)."""
    net = init_random(config.d, config.d, config.hidden, scale, rng)
    S = make_task(U, V, profiles(config, "exponential"))  # (T, d, d)
    out = {}
    for name, task, T in (("rnn", S, config.T), ("ff", S[-1:], 1)):
        run = train(net, task, config.lr, config.ntk_steps, config.ntk_steps)
        K0, K1 = ntk(net, T), ntk(run.net, T)
        out[f"change_{name}"] = float(np.linalg.norm(K1 - K0) / np.linalg.norm(K0))
        out[f"final_loss_{name}"] = float(run.loss[-1] / run.loss[0])
    return out
