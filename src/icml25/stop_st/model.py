"""STOP's networks (Ma et al., *Robust Spatio-Temporal Centralized Interaction for OOD
Learning*, ICML 2025; official code ``LargeST/src/models/stop.py``), and the two baselines.

Every model maps a normalised input window ``x`` (B, L, N) and the time-of-day index ``tod``
(B,) of its last step to a forecast (B, H, N). None has node embeddings, so every model is
inductive: it runs on any node set.

- :class:`Backbone` (the official ``MLP``): series decomposition ``x = seasonal + trend``
  (moving average of width ``kernel_size``), ``h = [W_s seasonal + W_t trend, E_tod]`` per node,
  ``z = FFN^l(h)`` (residual feed-forward layers), ``y = W_o z``. No spatial interaction.
- :class:`ContextUnits` (the official ``Core_Adaptive``, the Context-Aware Units): ``C``
  learnable cores per head ``c_k``; the affinity ``A_{kn} = c_k . (W_v z_n) / sqrt(d)``;
  node-to-core weights ``softmax_n A`` and core-to-node weights ``softmax_k A``; each core
  gathers ``g_k = sum_n softmax_n(A)_{kn} z_n`` and each node receives
  ``v_n = sum_k softmax_k(A)_{kn} g_k``; out ``BN(FFN([z - v, v]) + z)``. Nodes meet only in
  the cores: no node-to-node message. The message perturbation masks node-to-core messages:
  a dropped node's affinity is ``-inf`` in ``softmax_n``, so it sends nothing to the cores
  (it still receives).
- :class:`STOP`: ``h, z, y = Backbone(x)``; ``h_res = ContextUnits(z)``;
  ``y + Decoder(FFN'^l(h - h_res))`` with ``FFN'`` a separate copy of the encoder (the
  official ``same=0``) and the decoder ``Linear-GELU-Linear``.
- :class:`GCN`: the same temporal embedding and encoder, each encoder layer preceded by a
  graph convolution ``A_hat h`` on the sensor graph, ``A_hat = D^-1/2 (W + I) D^-1/2``:
  node-to-node messages along edges, dense as in LargeST's GCN-family baselines.

The feed-forward layers' dropout is :class:`~icml25.common.dropout.UniformDropout`: the law of
the official ``nn.Dropout``, its mask drawn at half the cost on a CPU.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import torch
from torch import nn

from icml25.common.dropout import UniformDropout
from icml25.common.validate import check_int, check_real


@dataclass(frozen=True)
class ModelConfig:
    """Sizes. The official code uses ``model_dim=64, prompt_dim=32, num_layer=3, cores=8,
    heads=8, hid_dim=256``; ours are smaller for one CPU thread.

    Parameters
    ----------
    input_len : int, default 12
        Input window length ``L``, ``>= 1``.
    horizon : int, default 12
        Forecast horizon ``H``, ``>= 1``.
    steps_per_day : int, default 24
        Rows of the time-of-day embedding, ``>= 1``.
    model_dim : int, default 32
        Width of the series embedding, ``>= 1``.
    tod_dim : int, default 16
        Width of the time-of-day embedding, ``>= 1`` (the official ``prompt_dim``).
    num_layer : int, default 2
        Residual feed-forward layers of each encoder, ``>= 1``.
    kernel_size : int, default 3
        Width of the moving average of the series decomposition, ``>= 1`` and odd (checked when
        a model is built).
    cores : int, default 8
        Learnable cores per head of the context units, ``>= 1``.
    heads : int, default 4
        Heads of the context units, ``>= 1``; must divide ``model_dim + tod_dim``.
    hid_dim : int, default 64
        Hidden width of STOP's decoder, ``>= 1``.
    dropout : float, default 0.15
        Dropout in the encoders' feed-forward layers, in ``[0, 1)``.
    cau_dropout : float, default 0.3
        Dropout in the context units' feed-forward layer, in ``[0, 1)``.
    mix_heads_across_batch : bool, default False
        True reproduces the official output reshape of ``Core_Adaptive``, which mixes heads of
        different samples; False computes the intended function.

    Notes
    -----
    Property ``hidden``: the feature width ``F = model_dim + tod_dim``.
    """

    input_len: int = 12
    horizon: int = 12
    steps_per_day: int = 24
    model_dim: int = 32
    tod_dim: int = 16
    num_layer: int = 2
    kernel_size: int = 3
    cores: int = 8
    heads: int = 4
    hid_dim: int = 64
    dropout: float = 0.15
    cau_dropout: float = 0.3
    # the official Core_Adaptive's output reshape: (B, h, d, N) transposed to (h, B, d, N) and
    # read back as (B, h d, N), so a sample's features come from other samples' heads; False
    # computes the intended function (each sample's heads concatenated)
    mix_heads_across_batch: bool = False

    def __post_init__(self) -> None:
        for name in ("input_len", "horizon", "steps_per_day", "model_dim", "tod_dim"):
            check_int(name, getattr(self, name), minimum=1)
        for name in ("num_layer", "kernel_size", "cores", "heads", "hid_dim"):
            check_int(name, getattr(self, name), minimum=1)
        for name in ("dropout", "cau_dropout"):
            check_real(name, getattr(self, name), low=0.0, high=1.0, high_open=True)

    @property
    def hidden(self) -> int:
        return self.model_dim + self.tod_dim


def _kind(value) -> str:
    """A short description of ``value`` for an error message: its type and dtype."""
    return f"{type(value).__name__} of dtype {getattr(value, 'dtype', None)}"


def _check_config(cfg) -> None:
    if not isinstance(cfg, ModelConfig):
        raise TypeError(f"cfg must be a ModelConfig, got {type(cfg).__name__}")


class SeriesDecomp(nn.Module):
    """``x = seasonal + trend``, trend = moving average over time with replicated ends.

    ``forward`` maps ``x`` (B, L, N) to ``(seasonal, trend)``, both (B, L, N).

    Parameters
    ----------
    kernel_size : int
        Width of the moving average, a positive odd integer.
    """

    def __init__(self, kernel_size: int):
        super().__init__()
        integer = isinstance(kernel_size, numbers.Integral) and not isinstance(kernel_size, bool)
        if not integer or kernel_size < 1 or kernel_size % 2 == 0:
            raise ValueError(f"kernel_size must be a positive odd integer, got {kernel_size}")
        self.kernel_size = kernel_size

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pad = (self.kernel_size - 1) // 2  # x: (B, L, N)
        padded = torch.cat([x[:, :1].expand(-1, pad, -1), x, x[:, -1:].expand(-1, pad, -1)], 1)
        trend = padded.unfold(1, self.kernel_size, 1).mean(-1)  # (B, L, N)
        return x - trend, trend


class FeedForward(nn.Module):
    """``z + W2 dropout(GELU(W1 z))``, width 4x, per node (the official 1x1 convolutions)."""

    def __init__(self, dim: int, dropout: float):
        super().__init__()
        self.fc = nn.Sequential(
            nn.Linear(dim, 4 * dim), nn.GELU(), UniformDropout(dropout), nn.Linear(4 * dim, dim)
        )

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return z + self.fc(z)


class TemporalEmbedding(nn.Module):
    """``h = [W_s seasonal + W_t trend, E_tod[tod]]``: (B, L, N), (B,) -> (B, N, hidden)."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.decomp = SeriesDecomp(cfg.kernel_size)
        self.seasonal = nn.Linear(cfg.input_len, cfg.model_dim)
        self.trend = nn.Linear(cfg.input_len, cfg.model_dim)
        self.tod = nn.Parameter(torch.empty(cfg.steps_per_day, cfg.tod_dim))
        nn.init.xavier_uniform_(self.tod)

    def forward(self, x: torch.Tensor, tod: torch.Tensor) -> torch.Tensor:
        seasonal, trend = self.decomp(x)  # (B, L, N)
        series = self.seasonal(seasonal.transpose(1, 2)) + self.trend(trend.transpose(1, 2))
        tod_emb = self.tod[tod][:, None].expand(-1, x.shape[2], -1)  # (B, N, P)
        return torch.cat([series, tod_emb], -1)  # (B, N, hidden)


class Backbone(nn.Module):
    """The light MLP backbone; ``forward`` returns ``(h, z, y)`` as the official ``MLP``.

    ``forward(x, tod)`` maps ``x`` (B, L, N) and ``tod`` (B,) to the embedding ``h`` (B, N, F),
    the encoding ``z`` (B, N, F) and the forecast ``y`` (B, H, N).

    Parameters
    ----------
    cfg : ModelConfig
        The sizes.
    """

    def __init__(self, cfg: ModelConfig):
        _check_config(cfg)
        super().__init__()
        self.cfg = cfg
        self.embed = TemporalEmbedding(cfg)
        self.encoder = nn.Sequential(
            *[FeedForward(cfg.hidden, cfg.dropout) for _ in range(cfg.num_layer)]
        )
        self.regression = nn.Linear(cfg.hidden, cfg.horizon)

    def forward(self, x: torch.Tensor, tod: torch.Tensor, **_) -> tuple[torch.Tensor, ...]:
        h = self.embed(x, tod)  # (B, N, F)
        z = self.encoder(h)
        return h, z, self.regression(z).transpose(1, 2)  # ..., (B, H, N)


class BackboneForecaster(nn.Module):
    """The backbone alone, without context units: a forecast (B, H, N).

    Parameters
    ----------
    cfg : ModelConfig
        The sizes.
    """

    def __init__(self, cfg: ModelConfig):
        _check_config(cfg)
        super().__init__()
        self.cfg = cfg
        self.backbone = Backbone(cfg)

    def forward(self, x: torch.Tensor, tod: torch.Tensor, **_) -> torch.Tensor:
        return self.backbone(x, tod)[-1]


class ContextUnits(nn.Module):
    """Context-Aware Units: node-to-core and core-to-node attention (module docstring).

    ``forward(z, drop)`` maps ``z`` (B, N, F) to (B, N, F); ``drop`` (B, N) bool marks the
    nodes whose messages to the cores are cut.

    Parameters
    ----------
    dim : int
        Feature width ``F``.
    cores : int
        Learnable cores per head, ``>= 1``.
    heads : int
        Number of heads, ``>= 1`` and dividing ``dim``.
    dropout : float
        Dropout in the feed-forward layer.
    mix_heads_across_batch : bool, default False
        True reproduces the official reshape that mixes heads of different samples.
    """

    def __init__(
        self, dim: int, cores: int, heads: int, dropout: float, mix_heads_across_batch=False
    ):
        super().__init__()
        self.mix_heads_across_batch = mix_heads_across_batch
        if cores < 1 or heads < 1 or dim % heads:
            raise ValueError(
                f"need cores >= 1, heads >= 1 dividing dim={dim}; got {cores}, {heads}"
            )
        self.heads, self.head_dim = heads, dim // heads
        self.cores = nn.Parameter(torch.randn(heads, cores, self.head_dim))
        self.value = nn.Linear(dim, dim)
        self.ffn = nn.Sequential(
            nn.Linear(2 * dim, 8 * dim), nn.GELU(), UniformDropout(dropout), nn.Linear(8 * dim, dim)
        )
        self.norm = nn.BatchNorm1d(dim)

    def affinity(self, z: torch.Tensor) -> torch.Tensor:
        """``A = c . W_v z / sqrt(d)``: (B, N, F) -> (B, heads, cores, N)."""
        B, N, _ = z.shape
        q = self.value(z).view(B, N, self.heads, self.head_dim)  # (B, N, h, d)
        return torch.einsum("hcd,bnhd->bhcn", self.cores, q) / self.head_dim**0.5

    def forward(self, z: torch.Tensor, drop: torch.Tensor | None = None) -> torch.Tensor:
        """``z`` (B, N, F); ``drop`` (B, N) bool, True where a node's messages to the cores are
        cut (the perturbation). -> (B, N, F)."""
        B, N, F = z.shape
        a = self.affinity(z)  # (B, h, C, N)
        a_in = a if drop is None else a.masked_fill(drop[:, None, None], float("-inf"))
        node_to_core = torch.softmax(a_in, dim=-1)  # over nodes
        core_to_node = torch.softmax(a, dim=-2)  # over cores
        v = z.view(B, N, self.heads, self.head_dim)  # (B, N, h, d)
        gathered = torch.einsum("bnhd,bhcn->bhcd", v, node_to_core)  # (B, h, C, d)
        back = torch.einsum("bhcd,bhcn->bhdn", gathered, core_to_node)  # (B, h, d, N)
        if self.mix_heads_across_batch:  # the official reshape, rows of other samples
            back = back.transpose(0, 1).reshape(B, F, N).transpose(1, 2)  # (B, N, F)
        else:
            back = back.permute(0, 3, 1, 2).reshape(B, N, F)
        out = self.ffn(torch.cat([z - back, back], -1)) + z  # (B, N, F)
        return self.norm(out.reshape(B * N, F)).view(B, N, F)


class STOP(nn.Module):
    """STOP: backbone + context units + a residual branch (module docstring).

    Parameters
    ----------
    cfg : ModelConfig
        The sizes.
    """

    def __init__(self, cfg: ModelConfig):
        _check_config(cfg)
        super().__init__()
        self.cfg = cfg
        self.backbone = Backbone(cfg)
        self.context = ContextUnits(
            cfg.hidden, cfg.cores, cfg.heads, cfg.cau_dropout, cfg.mix_heads_across_batch
        )
        self.encoder2 = nn.Sequential(
            *[FeedForward(cfg.hidden, cfg.dropout) for _ in range(cfg.num_layer)]
        )
        self.decoder = nn.Sequential(
            nn.Linear(cfg.hidden, cfg.hid_dim), nn.GELU(), nn.Linear(cfg.hid_dim, cfg.horizon)
        )

    def forward(
        self, x: torch.Tensor, tod: torch.Tensor, drop: torch.Tensor | None = None, **_
    ) -> torch.Tensor:
        """``x`` (B, L, N), ``tod`` (B,) -> (B, H, N). ``drop`` (K, N) bool: the masks of ``K``
        perturbed environments, one forecast each, (K, B, H, N); the backbone runs once."""
        h, z, y = self.backbone(x, tod)  # (B, N, F), (B, N, F), (B, H, N)
        if drop is None:
            h_res = self.context(z)
            return y + self.decoder(self.encoder2(h - h_res)).transpose(1, 2)
        K, (B, N, F) = len(drop), z.shape
        drop_b = drop[:, None].expand(K, B, N).reshape(K * B, N)
        h_res = self.context(z.repeat(K, 1, 1), drop_b).view(K, B, N, F)
        y_res = self.decoder(self.encoder2(h - h_res))  # (K, B, N, H)
        return y + y_res.transpose(2, 3)


def normalized_adjacency(adjacency: torch.Tensor) -> torch.Tensor:
    """Symmetrically normalised adjacency with self-loops, ``D^-1/2 (W + I) D^-1/2``.

    Parameters
    ----------
    adjacency : torch.Tensor
        Edge weights ``W`` (N, N), floating point, finite and non-negative.

    Returns
    -------
    torch.Tensor
        ``A_hat`` (N, N), ``D`` being the row sums of ``W + I``.
    """
    _check_tensor_adjacency(adjacency)
    return _normalized_adjacency(adjacency)


def _check_tensor_adjacency(adjacency, n: int | None = None) -> None:
    """ValueError (TypeError for a non-tensor) unless ``adjacency`` is a finite non-negative
    square floating-point tensor, (n, n) where ``n`` is given."""
    if not isinstance(adjacency, torch.Tensor) or not adjacency.is_floating_point():
        raise TypeError(f"adjacency must be a floating-point torch.Tensor, got {_kind(adjacency)}")
    square = adjacency.ndim == 2 and adjacency.shape[0] == adjacency.shape[1]
    if not square or (n is not None and adjacency.shape[0] != n):
        raise ValueError(
            f"adjacency must have shape ({n or 'N'}, {n or 'N'}), got {tuple(adjacency.shape)}"
        )
    if not torch.isfinite(adjacency).all() or (adjacency < 0).any():
        raise ValueError("adjacency must be finite and non-negative")


def _normalized_adjacency(adjacency: torch.Tensor) -> torch.Tensor:
    w = adjacency + torch.eye(len(adjacency), dtype=adjacency.dtype)
    d = w.sum(1).rsqrt()
    return d[:, None] * w * d[None]


class GCN(nn.Module):
    """The graph-convolution baseline: ``h <- h + FFN(A_hat h)`` per layer, on the sensor
    graph given to ``forward`` as ``adjacency`` (N, N), the raw weights.

    Parameters
    ----------
    cfg : ModelConfig
        The sizes.
    """

    def __init__(self, cfg: ModelConfig):
        _check_config(cfg)
        super().__init__()
        self.cfg = cfg
        self.embed = TemporalEmbedding(cfg)
        self.layers = nn.ModuleList(
            [FeedForward(cfg.hidden, cfg.dropout) for _ in range(cfg.num_layer)]
        )
        self.regression = nn.Linear(cfg.hidden, cfg.horizon)

    def forward(self, x: torch.Tensor, tod: torch.Tensor, adjacency=None, **_) -> torch.Tensor:
        if adjacency is None or adjacency.shape != (x.shape[2], x.shape[2]):
            raise ValueError(f"GCN needs adjacency of shape ({x.shape[2]}, {x.shape[2]})")
        a_hat = _normalized_adjacency(adjacency)  # (N, N)
        h = self.embed(x, tod)  # (B, N, F)
        for layer in self.layers:
            h = h + layer.fc(torch.einsum("nm,bmf->bnf", a_hat, h))
        return self.regression(h).transpose(1, 2)  # (B, H, N)


MODELS = {"stop": STOP, "gcn": GCN, "backbone": BackboneForecaster}
