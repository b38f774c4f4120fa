"""DeFoG's sampler: a CTMC from ``p_0`` to the data, with knobs chosen after training.

Qin, Madeira et al., ICML 2025, Sec. 3.2 and 4. At time ``t`` the denoiser gives
``p_theta(x_1 | G_t)``; one ``x_1`` is drawn from it for every node and edge, and the rate
matrix from the current state ``x_t`` to a state ``j != x_t`` is

    R_t(x_t, j | x_1) = R*_t + eta R^DB_t + R^TG_t,
    R*_t    = ReLU(d_t p_t(j | x_1) - d_t p_t(x_t | x_1)) / (Z_t p_t(x_t | x_1)),
    R^DB_t  = p_t(j | x_1)                       (the "general" detailed-balance design),
    R^TG_t  = omega delta(j, x_1) / (Z_t p_t(x_t | x_1))     (for x_t != x_1),

with ``Z_t`` the number of states with ``p_t(. | x_1) > 0`` (Eq. 4, Prop. 3.2, Eq. 6 of the
paper; the forms are those of ``src/flow_matching/rate_matrix.py`` of the official code).
An Euler step of length ``dt`` moves to ``j`` with probability ``R_t(x_t, j) dt`` and stays
with ``1 - sum_j R_t(x_t, j) dt`` (clamped at 0, the row renormalised). The step grid is
``t_k = f(k / K)`` for a time distortion ``f``; the last step draws ``G_1`` from
``p_theta`` itself. Edges are drawn on the upper triangle and mirrored (diagonal empty), and the
number of nodes of each graph is drawn from the training distribution.
"""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import torch
from torch import nn

from icml25.common.validate import check_int, check_real
from icml25.defog._checks import (
    check_distribution,
    check_entries,
    check_labels,
    check_nodes,
    check_times,
)
from icml25.defog.noise import DISTORTIONS, _distort, _dt_p_t, _p_t
from icml25.defog.train import DeFoGModel, sample_edges

__all__ = ["euler_step_probs", "rate_matrices", "sample", "to_networkx"]

MAX_STEPS = 10**6


def rate_matrices(x_t, x1, t, p0, *, eta: float = 0.0, omega: float = 0.0):
    """The three rate terms ``(R*, eta R^DB, R^TG)`` from ``x_t`` to every state ``j``.

    Parameters
    ----------
    x_t : torch.Tensor of int64, shape (...)
        Current states, in ``[0, S)``.
    x1 : torch.Tensor of int64, shape (...)
        Predicted clean states, in ``[0, S)``, the shape of ``x_t``.
    t : float or torch.Tensor
        Current time in ``[0, 1]``: a number or a tensor broadcastable to ``x1.shape``.
    p0 : torch.Tensor, shape (S,)
        The prior, a floating-point probability vector.
    eta : float, default 0.0
        Stochasticity, finite and ``>= 0``: the weight of ``R^DB``.
    omega : float, default 0.0
        Target guidance, finite and ``>= 0``.

    Returns
    -------
    R_star : torch.Tensor, shape (..., S)
        ``R*_t(x_t, j | x_1)``.
    R_db : torch.Tensor, shape (..., S)
        ``eta R^DB_t(x_t, j | x_1)``.
    R_tg : torch.Tensor, shape (..., S)
        ``R^TG_t(x_t, j | x_1)``.

    Notes
    -----
    The entry at ``j = x_t`` is meaningless (the Euler step overwrites it). Non-finite rates,
    rates above 1e5, and rates out of states with ``p_t(x_t | x_1) = 0`` or into states with
    ``p_t(j | x_1) = 0``, are set to 0 (as the official code stabilises them).
    """
    check_distribution("p0", p0)
    check_labels("x1", x1, p0.numel())
    check_labels("x_t", x_t, p0.numel())
    if x_t.shape != x1.shape:
        raise ValueError(f"x_t must have the shape of x1 {tuple(x1.shape)}, got {tuple(x_t.shape)}")
    check_times("t", t, x1.shape)
    check_real("eta", eta, low=0.0, high=float("inf"), high_open=True)
    check_real("omega", omega, low=0.0, high=float("inf"), high_open=True)
    return _rate_matrices(x_t, x1, t, p0, eta=eta, omega=omega)


def _rate_matrices(x_t, x1, t, p0, *, eta: float = 0.0, omega: float = 0.0):
    pt = _p_t(x1, t, p0)  # (..., S)
    dtp = _dt_p_t(x1, p0)  # (..., S)
    pt_at = pt.gather(-1, x_t[..., None])  # (..., 1)
    dtp_at = dtp.gather(-1, x_t[..., None])
    Z = (pt > 0).sum(-1, keepdim=True).to(pt.dtype)  # (..., 1)
    denom = Z * pt_at
    r_star = torch.relu(dtp - dtp_at) / denom
    r_db = eta * pt
    target = nn.functional.one_hot(x1, p0.numel()).to(pt.dtype)
    r_tg = omega * target * (x1 != x_t)[..., None] / denom
    out = []
    for R in (r_star, r_db, r_tg):
        R = torch.nan_to_num(R, nan=0.0, posinf=0.0, neginf=0.0)
        R = torch.where((R > 1e5) | (pt_at == 0) | (pt == 0), torch.zeros_like(R), R)
        out.append(R)
    return tuple(out)


def euler_step_probs(R: torch.Tensor, x_t: torch.Tensor, dt: float) -> torch.Tensor:
    """Transition probabilities of one Euler step of the CTMC.

    Parameters
    ----------
    R : torch.Tensor, shape (..., S)
        Finite non-negative rates from ``x_t`` to every state (the entry at ``x_t`` is
        ignored).
    x_t : torch.Tensor of int64, shape (...)
        Current states, in ``[0, S)``; the shape of ``R`` without its last axis.
    dt : float
        Step length, finite and ``>= 0``.

    Returns
    -------
    torch.Tensor, shape (..., S)
        ``P(x_{t+dt} = j) = R(x_t, j) dt`` for ``j != x_t`` and
        ``max(0, 1 - sum_{j != x_t} R(x_t, j) dt)`` for ``j = x_t``, each row renormalised to
        sum 1.
    """
    if not isinstance(R, torch.Tensor) or not R.is_floating_point() or R.ndim == 0:
        raise TypeError("R must be a floating-point torch tensor of rates (..., S)")
    if not torch.isfinite(R).all() or (R < 0).any():
        raise ValueError("R must hold finite non-negative rates")
    check_labels("x_t", x_t, R.shape[-1])
    if x_t.shape != R.shape[:-1]:
        raise ValueError(
            f"x_t must have shape {tuple(R.shape[:-1])} (R without its last axis), "
            f"got {tuple(x_t.shape)}"
        )
    check_real("dt", dt, low=0.0, high=float("inf"), high_open=True)
    return _euler_step_probs(R, x_t, dt)


def _euler_step_probs(R: torch.Tensor, x_t: torch.Tensor, dt: float) -> torch.Tensor:
    step = (R * dt).scatter(-1, x_t[..., None], 0.0)
    stay = (1.0 - step.sum(-1, keepdim=True)).clamp(min=0.0)
    step = step.scatter(-1, x_t[..., None], stay)
    return step / step.sum(-1, keepdim=True)


def to_networkx(model: DeFoGModel, X: torch.Tensor, E: torch.Tensor, n: int) -> nx.Graph:
    """One generated graph as a networkx graph, from its node and edge labels.

    Parameters
    ----------
    model : DeFoGModel
        The trained model, whose categories and attribute names are used.
    X : torch.Tensor of int64, shape (n_max,)
        Node labels, in ``[0, len(model.node_classes))``.
    E : torch.Tensor of int64, shape (n_max, n_max)
        Edge labels, in ``[0, len(model.p0_e))``; only the upper triangle is read.
    n : int
        Number of real nodes, ``0 <= n <= n_max``; nodes ``0..n-1`` are kept.

    Returns
    -------
    networkx.Graph
        Nodes ``0..n-1``; an edge ``(i, j)`` wherever ``0 < E[i, j] < len(model.edge_classes)``
        (the virtual absorbing state is no edge); node and edge attributes named as in
        training where the model has them.
    """
    if not isinstance(model, DeFoGModel):
        raise ValueError(f"model must be a trained DeFoGModel, got {type(model).__name__}")
    check_labels("X", X, len(model.node_classes))
    check_labels("E", E, len(model.p0_e))
    if X.ndim != 1 or E.shape != (len(X), len(X)):
        raise ValueError(
            f"X must be (n_max,) and E (n_max, n_max), got {tuple(X.shape)} and {tuple(E.shape)}"
        )
    n = check_int("n", n, minimum=0)
    if n > len(X):
        raise ValueError(f"n must be at most the {len(X)} labels of X, got {n}")
    return _to_networkx(model, X, E, n)


def _to_networkx(model: DeFoGModel, X: torch.Tensor, E: torch.Tensor, n: int) -> nx.Graph:
    g = nx.Graph()
    node_attr, edge_attr = model.node_attr, model.edge_attr
    for i in range(n):
        g.add_node(i, **({node_attr: model.node_classes[int(X[i])]} if node_attr else {}))
    n_real = len(model.edge_classes)
    upper = torch.triu(E[:n, :n], diagonal=1)
    for i, j in torch.nonzero((upper > 0) & (upper < n_real)).tolist():
        attrs = {edge_attr: model.edge_classes[int(upper[i, j])]} if edge_attr else {}
        g.add_edge(i, j, **attrs)
    return g


@torch.no_grad()
def sample(
    model: DeFoGModel,
    n_graphs: int,
    *,
    steps: int,
    distortion: str = "identity",
    eta: float = 0.0,
    omega: float = 0.0,
    seed: int = 0,
    batch_size: int = 256,
    n_nodes: int | None = None,
    trace: dict | None = None,
) -> list[nx.Graph]:
    """Generate ``n_graphs`` graphs with ``steps`` Euler steps of the DeFoG CTMC.

    Sampling runs on the model's device and in its dtype: move a trained model with
    ``model.to(device, dtype)`` (or :meth:`DeFoG.to <icml25.defog.DeFoG.to>`) first.

    Parameters
    ----------
    model : DeFoGModel
        A trained model (from :func:`~icml25.defog.train.fit`).
    n_graphs : int
        Number of graphs to generate; at least 1.
    steps : int
        Number of Euler steps ``K``, in ``[1, MAX_STEPS]`` (``MAX_STEPS = 10**6``).
    distortion : {"identity", "polydec", "polyinc", "cos"}, default "identity"
        The sampling time distortion ``f``; the step grid is ``t_k = f(k / K)``.
    eta : float, default 0.0
        Stochasticity ``eta >= 0``, the weight of ``R^DB``.
    omega : float, default 0.0
        Target guidance ``omega >= 0``.
    seed : int, default 0
        Seeds a ``numpy.random.Generator`` (node counts) and a ``torch.Generator`` on the
        model's device (every draw of the CTMC).
    batch_size : int, default 256
        Graphs generated together in one batch.
    n_nodes : int or None, default None
        A fixed number of nodes for every graph (None: drawn from the training distribution);
        a ``UserWarning`` when it exceeds the largest training graph (the network has not seen
        such sizes: the RRWP features and the size feature ``n / n_max`` extrapolate).
    trace : dict or None, default None
        A dict to fill with the mean rate of each term per step over the real edge variables
        (``t``, ``R_star``, ``R_db``, ``R_tg``), for diagnostics.

    Returns
    -------
    graphs : list of networkx.Graph
        The generated graphs, with the model's node and edge attributes where it has them.

    Refused as too large: more than ``MAX_STEPS`` steps, more than 10**7 nodes in all, an
    ``n_nodes`` whose attention tensor would hold more than 2**31 entries.
    """
    if not isinstance(model, DeFoGModel):
        raise ValueError(f"model must be a trained DeFoGModel, got {type(model).__name__}")
    n_graphs = check_int("n_graphs", n_graphs, minimum=1)
    steps = check_int("steps", steps, minimum=1)
    if steps > MAX_STEPS:
        raise ValueError(f"steps must be at most {MAX_STEPS}, got {steps}")
    eta = check_real("eta", eta, low=0.0, high=float("inf"), high_open=True)
    omega = check_real("omega", omega, low=0.0, high=float("inf"), high_open=True)
    seed = check_int("seed", seed, minimum=0)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    if distortion not in DISTORTIONS:
        raise ValueError(f"distortion must be one of {DISTORTIONS}, got {distortion!r}")
    per_graph = model.max_nodes if n_nodes is None else check_int("n_nodes", n_nodes, minimum=1)
    check_nodes("n_graphs x nodes per graph", n_graphs * per_graph)
    if n_nodes is not None:
        batch = min(batch_size, n_graphs)
        check_entries(
            "batch x n_nodes^2 x dx (attention)", batch * per_graph**2 * model.config.model.dx
        )
    rng = np.random.default_rng(seed)
    if n_nodes is None:
        counts = model.node_counts.cpu().double().numpy()
        sizes = rng.choice(len(counts), size=n_graphs, p=counts / counts.sum())
    else:
        sizes = np.full(n_graphs, check_int("n_nodes", n_nodes, minimum=1))
        if n_nodes > model.max_nodes:
            warnings.warn(
                f"n_nodes = {n_nodes} is more than the largest training graph "
                f"({model.max_nodes} nodes): the model extrapolates",
                UserWarning,
                stacklevel=2,
            )
    gen = torch.Generator(device=model.p0_x.device).manual_seed(seed)
    model.eval()
    graphs = []
    for start in range(0, n_graphs, batch_size):
        part = sizes[start : start + batch_size]
        graphs += _sample_batch(model, part, steps, distortion, eta, omega, gen, trace)
    return graphs


def _sample_batch(model, sizes, steps, distortion, eta, omega, gen, trace):
    B, n = len(sizes), int(max(sizes))
    device, dtype = model.p0_x.device, model.p0_x.dtype  # where and how the model was put
    node_mask = (
        torch.arange(n, device=device)[None, :] < torch.as_tensor(sizes, device=device)[:, None]
    )  # (B, n)
    pair = node_mask[:, :, None] & node_mask[:, None, :]  # (B, n, n)
    upper = pair & torch.ones(n, n, dtype=torch.bool, device=device).triu(1)
    Sx, Se = len(model.p0_x), len(model.p0_e)
    cx, ce = len(model.node_classes), len(model.edge_classes)
    # G_0 ~ p_0: nodes (B, n), edges (B, n, n) symmetric, empty diagonal
    X = torch.multinomial(model.p0_x.expand(B * n, Sx), 1, generator=gen).view(B, n) * node_mask
    E = sample_edges(model.p0_e.expand(B, n, n, Se), gen) * pair
    grid = _distort(torch.arange(steps + 1) / steps, distortion)  # t_k = f(k / K)
    for k in range(steps):
        t, s = float(grid[k]), float(grid[k + 1])
        X_oh = nn.functional.one_hot(X, Sx).to(dtype) * node_mask[..., None]
        E_oh = nn.functional.one_hot(E, Se).to(dtype)
        logits_x, logits_e = model(
            X_oh, E_oh, torch.full((B,), t, dtype=dtype, device=device), node_mask
        )
        p1_x = _pad(torch.softmax(logits_x, -1), Sx)  # (B, n, Sx)
        p1_e = _pad(torch.softmax(logits_e, -1), Se)  # (B, n, n, Se)
        if k == steps - 1:  # the last step samples from p_theta
            prob_x, prob_e = p1_x, p1_e
        else:
            x1 = torch.multinomial(p1_x.reshape(-1, Sx), 1, generator=gen).view(B, n)
            e1 = sample_edges(p1_e, gen)
            rx = _rate_matrices(X, x1, t, model.p0_x, eta=eta, omega=omega)
            re = _rate_matrices(E, e1, t, model.p0_e, eta=eta, omega=omega)
            if trace is not None:
                _record(trace, t, re, E, upper)
            prob_x = _euler_step_probs(sum(rx), X, s - t)
            prob_e = _euler_step_probs(sum(re), E, s - t)
        X = torch.multinomial(prob_x.reshape(-1, Sx), 1, generator=gen).view(B, n) * node_mask
        E = sample_edges(prob_e, gen) * pair
    X, E = X.clamp(max=cx - 1).cpu(), E.masked_fill(E >= ce, 0).cpu()
    return [_to_networkx(model, X[b], E[b], int(sizes[b])) for b in range(B)]


def _pad(p: torch.Tensor, states: int) -> torch.Tensor:
    """Predictions over the data classes, padded with 0 for a virtual absorbing state."""
    if p.shape[-1] == states:
        return p
    return torch.cat([p, p.new_zeros(*p.shape[:-1], states - p.shape[-1])], -1)


def _record(trace, t, rates, E, upper):
    trace.setdefault("t", []).append(t)
    for name, R in zip(("R_star", "R_db", "R_tg"), rates, strict=True):
        off = R.scatter(-1, E[..., None], 0.0).sum(-1)  # (B, n, n) total rate out of x_t
        trace.setdefault(name, []).append(float(off[upper].mean()) if upper.any() else 0.0)
