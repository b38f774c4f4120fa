"""The denoiser of DeFoG: a graph transformer predicting ``p_theta(x_1 | G_t)``.

Qin, Madeira et al., ICML 2025, use the graph transformer of DiGress (Vignac et al., 2023): a
node stream ``X``, an edge stream ``E`` and a graph-level stream ``y``. In each layer the
attention scores between nodes ``i, j`` are modulated by the edge features
(``Y_ij = (Q_i * K_j / sqrt(d)) (1 + E1_ij) + E2_ij``), the modulated scores become the new edge
features, and ``y`` enters the node and edge streams by FiLM (``h <- h (1 + W_m y) + W_a y``).
The inputs are the noisy one-hot graph ``G_t`` plus structural features: RRWP, the relative
random-walk probabilities ``[I, M, M^2, ..., M^{k-1}]_ij`` with ``M = D^{-1} A`` (edges) and
their diagonals (nodes), and ``y = (t, n / n_max, closed 3- and 4-walks per node)``.

Ours is a small re-implementation in torch sized by :class:`ModelConfig` (the paper: 5-10
layers, ``dx = 256``, ``de = 64``, 8 heads, ``k = 12``; ours at CPU scale: 3 layers, 64, 16).
The per-dimension score modulation is kept (as DiGress); the graph-level stream is updated
from mean-pooled node and edge features.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from icml25.common.validate import check_int
from icml25.defog._checks import check_entries

__all__ = ["GraphTransformer", "ModelConfig", "rrwp"]


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of the graph transformer, checked on construction.

    Parameters
    ----------
    n_layers : int, default 3
        Number of transformer layers, ``>= 1``.
    dx : int, default 64
        Width of the node stream, ``>= 1`` and a multiple of ``n_heads``.
    de : int, default 16
        Width of the edge stream, ``>= 1``.
    dy : int, default 32
        Width of the graph-level stream, ``>= 1``.
    n_heads : int, default 4
        Number of attention heads, ``>= 1``.
    dim_ff_x : int, default 128
        Hidden width of the node feed-forward layer, ``>= 1``.
    dim_ff_e : int, default 32
        Hidden width of the edge feed-forward layer, ``>= 1``.
    rrwp_steps : int, default 8
        Number ``k`` of RRWP features (powers ``M^0 .. M^{k-1}``), ``>= 1``.
    """

    n_layers: int = 3
    dx: int = 64
    de: int = 16
    dy: int = 32
    n_heads: int = 4
    dim_ff_x: int = 128
    dim_ff_e: int = 32
    rrwp_steps: int = 8

    def __post_init__(self) -> None:
        for name in ("n_layers", "dx", "de", "dy", "n_heads", "dim_ff_x", "dim_ff_e"):
            check_int(name, getattr(self, name), minimum=1)
        check_int("rrwp_steps", self.rrwp_steps, minimum=1)
        if self.dx % self.n_heads:
            raise ValueError(f"dx must be a multiple of n_heads, got {self.dx}, {self.n_heads}")


def rrwp(adjacency: torch.Tensor, k: int) -> torch.Tensor:
    """Relative random-walk probabilities ``[I, M, ..., M^{k-1}]`` with ``M = D^{-1} A``.

    Parameters
    ----------
    adjacency : torch.Tensor, shape (B, n, n)
        Finite non-negative (weighted) adjacency matrices.
    k : int
        Number of powers, ``>= 1``; the result may hold at most 2**31 entries.

    Returns
    -------
    torch.Tensor, shape (B, n, n, k)
        Entry ``[b, i, j, s]`` is ``(M^s)_ij`` of graph b; rows of isolated nodes are 0 in
        ``M`` (degrees clamped below at 1).
    """
    if not isinstance(adjacency, torch.Tensor):
        raise TypeError(f"adjacency must be a torch tensor, got {type(adjacency).__name__}")
    if adjacency.ndim != 3 or adjacency.shape[1] != adjacency.shape[2]:
        raise ValueError(f"adjacency must have shape (B, n, n), got {tuple(adjacency.shape)}")
    if not torch.isfinite(adjacency).all() or (adjacency < 0).any():
        raise ValueError("adjacency must hold finite non-negative weights")
    k = check_int("k", k, minimum=1)
    check_entries("B x n x n x k of rrwp", adjacency.numel() * k)
    return _rrwp(adjacency, k)


def _rrwp(adjacency: torch.Tensor, k: int) -> torch.Tensor:
    deg = adjacency.sum(-1, keepdim=True)  # (B, n, 1)
    M = adjacency / deg.clamp(min=1.0)  # (B, n, n)
    n = adjacency.shape[-1]
    eye = torch.eye(n, dtype=adjacency.dtype, device=adjacency.device).expand_as(adjacency)
    powers = [eye]
    for _ in range(k - 1):
        powers.append(powers[-1] @ M)
    return torch.stack(powers, dim=-1)


def _mlp(d_in: int, d_hidden: int, d_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_out))


class _FiLM(nn.Module):
    def __init__(self, dy: int, d: int):
        super().__init__()
        self.mul, self.add = nn.Linear(dy, d), nn.Linear(dy, d)

    def forward(self, h: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        shape = (y.shape[0],) + (1,) * (h.ndim - 2) + (-1,)
        return h * (1 + self.mul(y).view(shape)) + self.add(y).view(shape)


class _Layer(nn.Module):
    def __init__(self, c: ModelConfig):
        super().__init__()
        self.c = c
        self.q, self.k, self.v = (nn.Linear(c.dx, c.dx) for _ in range(3))
        self.e_mul, self.e_add = nn.Linear(c.de, c.dx), nn.Linear(c.de, c.dx)
        self.film_e, self.film_x = _FiLM(c.dy, c.dx), _FiLM(c.dy, c.dx)
        self.e_out, self.x_out = nn.Linear(c.dx, c.de), nn.Linear(c.dx, c.dx)
        self.y_in = nn.Linear(c.dy + 2 * c.dx, c.dy)
        self.norm_x1, self.norm_x2 = nn.LayerNorm(c.dx), nn.LayerNorm(c.dx)
        self.norm_e1, self.norm_e2 = nn.LayerNorm(c.de), nn.LayerNorm(c.de)
        self.norm_y = nn.LayerNorm(c.dy)
        self.ff_x = nn.Sequential(
            nn.Linear(c.dx, c.dim_ff_x), nn.ReLU(), nn.Linear(c.dim_ff_x, c.dx)
        )
        self.ff_e = nn.Sequential(
            nn.Linear(c.de, c.dim_ff_e), nn.ReLU(), nn.Linear(c.dim_ff_e, c.de)
        )

    def forward(self, X, E, y, node_mask):
        B, n, _ = X.shape
        H, dh = self.c.n_heads, self.c.dx // self.c.n_heads
        x_mask = node_mask[..., None].to(X.dtype)  # (B, n, 1)
        e_mask = (node_mask[:, :, None] & node_mask[:, None, :])[..., None].to(X.dtype)  # (B,n,n,1)
        Q = (self.q(X) * x_mask).view(B, n, 1, H, dh)
        K = (self.k(X) * x_mask).view(B, 1, n, H, dh)
        V = (self.v(X) * x_mask).view(B, 1, n, H, dh)
        Y = Q * K / dh**0.5  # (B, n, n, H, dh)
        E1 = (self.e_mul(E) * e_mask).view(B, n, n, H, dh)
        E2 = (self.e_add(E) * e_mask).view(B, n, n, H, dh)
        Y = Y * (1 + E1) + E2  # (B, n, n, H, dh)
        new_E = self.e_out(self.film_e(Y.flatten(3), y)) * e_mask  # (B, n, n, de)
        scores = Y.masked_fill(~node_mask[:, None, :, None, None], float("-inf"))
        attn = torch.softmax(scores, dim=2)  # over j
        new_X = (attn * V).sum(2).flatten(2)  # (B, n, dx)
        new_X = self.x_out(self.film_x(new_X, y)) * x_mask
        X = self.norm_x1(X + new_X)
        X = self.norm_x2(X + self.ff_x(X)) * x_mask
        E = self.norm_e1(E + new_E)
        E = self.norm_e2(E + self.ff_e(E)) * e_mask
        count = node_mask.sum(1, keepdim=True).clamp(min=1)  # (B, 1)
        pool_x = (X * x_mask).sum(1) / count  # (B, dx)
        pool_e = self.e_to_y_pool(Y.flatten(3), e_mask, count)  # (B, dx)
        y = self.norm_y(y + self.y_in(torch.cat([y, pool_x, pool_e], -1)))
        return X, E, y

    @staticmethod
    def e_to_y_pool(Y, e_mask, count):
        return (Y * e_mask).sum((1, 2)) / (count**2)


class GraphTransformer(nn.Module):
    """``p_theta(x_1 | G_t)``: logits over the real node and edge categories.

    Parameters
    ----------
    config : ModelConfig
        The sizes of the network.
    states_x : int
        Number ``Sx`` of node states of the noisy input (data categories, plus the virtual
        absorbing state for absorbing noise), ``>= 1``.
    states_e : int
        Number ``Se`` of edge states of the noisy input, ``>= 1``.
    classes_x : int
        Number of node categories predicted, ``>= 1``.
    classes_e : int
        Number of edge categories predicted (class 0: no edge), ``>= 1``.
    max_nodes : int
        ``n_max``, to normalise the graph size feature, ``>= 1``.

    Notes
    -----
    Shapes: ``forward(X_t (B, n, Sx), E_t (B, n, n, Se), t (B,), node_mask (B, n))`` ->
    ``(logits_X (B, n, classes_x), logits_E (B, n, n, classes_e))``, the edge logits symmetric.
    """

    def __init__(self, config, states_x, states_e, classes_x, classes_e, max_nodes):
        super().__init__()
        c = config
        if not isinstance(c, ModelConfig):
            raise ValueError(f"config must be a ModelConfig, got {type(c).__name__}")
        sizes = (states_x, states_e, classes_x, classes_e, max_nodes)
        for name, value in zip(
            ("states_x", "states_e", "classes_x", "classes_e", "max_nodes"), sizes, strict=True
        ):
            check_int(name, value, minimum=1)
        if c.dx % c.n_heads:
            raise ValueError(f"dx must be a multiple of n_heads, got {c.dx} and {c.n_heads}")
        self.config, self.max_nodes = c, max_nodes
        self.states_x, self.states_e = states_x, states_e
        self.classes_x, self.classes_e = classes_x, classes_e
        k = c.rrwp_steps
        self.in_x = nn.Sequential(nn.Linear(states_x + k, c.dx), nn.ReLU(), nn.Linear(c.dx, c.dx))
        self.in_e = nn.Sequential(nn.Linear(states_e + k, c.de), nn.ReLU(), nn.Linear(c.de, c.de))
        self.in_y = nn.Sequential(nn.Linear(4, c.dy), nn.ReLU(), nn.Linear(c.dy, c.dy))
        self.layers = nn.ModuleList(_Layer(c) for _ in range(c.n_layers))
        self.out_x = nn.Sequential(nn.Linear(c.dx, c.dx), nn.ReLU(), nn.Linear(c.dx, classes_x))
        self.out_e = nn.Sequential(nn.Linear(c.de, c.de), nn.ReLU(), nn.Linear(c.de, classes_e))

    def features(self, E_t, t, node_mask):
        """RRWP edge ``(B, n, n, k)`` and node ``(B, n, k)`` features, and ``y`` ``(B, 4)``."""
        edge_states = E_t[..., 1:].sum(-1)  # (B, n, n): any edge class (absorbing: not virtual)
        if self.states_e > self.classes_e:
            edge_states = edge_states - E_t[..., -1]
        A = edge_states * (node_mask[:, :, None] & node_mask[:, None, :])
        R = _rrwp(A, self.config.rrwp_steps)  # (B, n, n, k)
        diag = torch.diagonal(R, dim1=1, dim2=2).transpose(1, 2)  # (B, n, k)
        n = node_mask.sum(1).to(A.dtype).clamp(min=1)  # (B,)
        A2 = A @ A
        walks3 = torch.diagonal(A2 @ A, dim1=1, dim2=2).sum(1) / n  # closed 3-walks per node
        walks4 = torch.diagonal(A2 @ A2, dim1=1, dim2=2).sum(1) / n
        y = torch.stack([t, n / self.max_nodes, walks3 / 6, walks4 / 24], -1)  # (B, 4)
        return R, diag, y

    def forward(self, X_t, E_t, t, node_mask):
        R, diag, y = self.features(E_t, t, node_mask)
        x_mask = node_mask[..., None].to(X_t.dtype)
        e_mask = (node_mask[:, :, None] & node_mask[:, None, :])[..., None].to(X_t.dtype)
        X = self.in_x(torch.cat([X_t, diag], -1)) * x_mask  # (B, n, dx)
        E = self.in_e(torch.cat([E_t, R], -1))
        E = (E + E.transpose(1, 2)) / 2 * e_mask  # (B, n, n, de)
        y = self.in_y(y)  # (B, dy)
        for layer in self.layers:
            X, E, y = layer(X, E, y, node_mask)
        logits_x = self.out_x(X)  # (B, n, classes_x)
        logits_e = self.out_e(E)
        logits_e = (logits_e + logits_e.transpose(1, 2)) / 2  # (B, n, n, classes_e)
        return logits_x, logits_e
