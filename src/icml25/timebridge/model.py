"""TimeBridge (Liu et al., *TimeBridge: Non-Stationarity Matters for Long-term Time Series
Forecasting*, ICML 2025) and the DLinear baseline, as torch modules.

TimeBridge maps an input window ``x`` (B, I, N) of ``N`` series to a forecast (B, H, N):

1. per-series normalisation over the window, ``x~ = (x - mu) / (sigma + 1e-5)`` (undone at the
   end: ``y^ = y~ sigma + mu``);
2. patching: each series is cut into ``P = I / p`` patches of length ``p``, each embedded by one
   linear map ``R^p -> R^d`` (tokens (B, N, P, d));
3. Integrated Attention within each series over its ``P`` patches: the queries and keys are
   computed from period-normalised tokens ``z - MA_S(z)`` (the causal moving average of window
   ``S = stable_len`` subtracted, without gradient), the values from the raw tokens, so that the
   attention weights ignore short-term non-stationarity while the values keep it;
4. patch sampling: ``P`` tokens are mixed into ``P'`` by a 1x1 convolution over the patch axis
   (plus the mean token), which then attend to the ``P`` tokens;
5. Cointegrated Attention across the ``N`` series at every patch position, on tokens that are
   *not* period-normalised, so that the long-term (co-integrated) levels stay visible;
6. a linear head from the flattened ``P' d`` features of each series to the ``H`` steps.

Every attention is ``softmax(Q K^T / sqrt(d_head)) V`` with ``n_heads`` heads, followed by the
post-norm residual block ``x <- LN(x + Attn)``, ``x <- LN(x + FFN(x))`` of the official code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from icml25.common.validate import check_int

__all__ = ["DLinear", "TimeBridge", "TimeBridgeConfig", "period_norm", "seeded_init"]


@dataclass(frozen=True)
class TimeBridgeConfig:
    """Sizes of :class:`TimeBridge`, checked on construction.

    Parameters
    ----------
    n_series : int
        Number N of series, ``>= 1``.
    input_len : int, default 192
        Length I of an input window, ``>= 1`` and a multiple of ``patch_len``.
    horizon : int, default 96
        Length H of the forecast, ``>= 1``.
    patch_len : int, default 24
        Length p of a patch, ``>= 1``; ``P = I / p`` patches per series.
    d_model : int, default 64
        Width d of a token, ``>= 1`` and a multiple of ``n_heads``.
    n_heads : int, default 4
        Number of attention heads, ``>= 1``.
    d_ff : int, default 128
        Hidden width of each block's feed-forward layer, ``>= 1``.
    ia_layers : int, default 1
        Number of Integrated Attention layers, ``>= 0``.
    ps_layers : int, default 1
        Number of patch-sampling layers, ``>= 0``.
    sampled_patches : int, default 4
        Number ``P'`` of tokens after patch sampling, ``>= 1``.
    ca_layers : int, default 1
        Number of Cointegrated Attention layers, ``>= 0``; ``0`` is the ablation without it.
    stable_len : int, default 6
        Window S of the moving average of period normalisation, ``1 <= S <= d_model``.
    period_norm : bool, default True
        Compute Integrated Attention's queries and keys from period-normalised tokens;
        ``False`` is the ablation that uses the raw tokens.
    period_norm_axis : {"feature", "patch"}, default "feature"
        Axis of the moving average: ``"feature"``, each token's ``d`` features, as the official
        code does, or ``"patch"``, the same feature over the last ``stable_len`` patches (a
        variant of ours, which removes a level shared by neighbouring patches).
    """

    n_series: int
    input_len: int = 192
    horizon: int = 96
    patch_len: int = 24
    d_model: int = 64
    n_heads: int = 4
    d_ff: int = 128
    ia_layers: int = 1
    ps_layers: int = 1
    sampled_patches: int = 4
    ca_layers: int = 1
    stable_len: int = 6
    period_norm: bool = True
    period_norm_axis: str = "feature"

    def __post_init__(self) -> None:
        for name in ("n_series", "input_len", "horizon", "patch_len", "d_model", "n_heads"):
            check_int(name, getattr(self, name), minimum=1)
        for name in ("d_ff", "sampled_patches", "stable_len"):
            check_int(name, getattr(self, name), minimum=1)
        for name in ("ia_layers", "ps_layers", "ca_layers"):
            check_int(name, getattr(self, name), minimum=0)
        if self.period_norm_axis not in ("feature", "patch"):
            raise ValueError(
                f"period_norm_axis must be 'feature' or 'patch', got {self.period_norm_axis!r}"
            )
        if self.stable_len > self.d_model:
            raise ValueError(
                f"stable_len must be <= d_model, got stable_len={self.stable_len}, "
                f"d_model={self.d_model}"
            )
        if self.input_len % self.patch_len:
            raise ValueError(
                f"input_len must be a multiple of patch_len, got input_len={self.input_len}, "
                f"patch_len={self.patch_len}"
            )
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model must be a multiple of n_heads, got d_model={self.d_model}, "
                f"n_heads={self.n_heads}"
            )

    @property
    def n_patches(self) -> int:
        return self.input_len // self.patch_len


def period_norm(z: torch.Tensor, stable_len: int) -> torch.Tensor:
    """Period normalisation: subtract the causal moving average along the last axis.

    As the official ``PeriodNorm`` applies it to each patch token (its last axis being the
    token's ``d`` features).

    Parameters
    ----------
    z : torch.Tensor, shape (..., d)
        A floating-point tensor.
    stable_len : int
        Window S of the moving average, ``1 <= S <= d``.

    Returns
    -------
    torch.Tensor, shape (..., d)
        ``z - MA_S(z)``, ``MA_S(z)_j`` the mean of ``z[j - S + 1 .. j]``, its first ``S - 1``
        entries replicated from the first full window; all zeros when ``S = 1``.
    """
    if not isinstance(z, torch.Tensor) or not z.is_floating_point():
        raise TypeError(f"z must be a floating-point tensor, got {getattr(z, 'dtype', type(z))}")
    check_int("stable_len", stable_len, minimum=1)
    if stable_len > z.shape[-1]:
        raise ValueError(f"stable_len must be <= {z.shape[-1]}, the length of z's last axis")
    if stable_len == 1:
        return torch.zeros_like(z)
    kernel = torch.full((1, 1, stable_len), 1.0 / stable_len, dtype=z.dtype)
    flat = z.reshape(-1, 1, z.shape[-1])  # (M, 1, d)
    mean = F.conv1d(flat, kernel)  # (M, 1, d - S + 1): mean of z[j - S + 1 .. j]
    mean = F.pad(mean, (stable_len - 1, 0), mode="replicate")  # (M, 1, d)
    return z - mean.reshape(z.shape)


def _check_config(config) -> None:
    if not isinstance(config, TimeBridgeConfig):
        raise TypeError(f"config must be a TimeBridgeConfig, got {type(config).__name__}")


def _check_input(x) -> None:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor (batch, time, series), got {type(x).__name__}")


class _MultiHead(nn.Module):
    """``softmax(Q K^T / sqrt(d_head)) V`` with separate projections of the query, key and value
    inputs (the official ``TSMixer`` with ``ResAttention``)."""

    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        self.n_heads = n_heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        B, L, d = q.shape
        S, H = k.shape[1], self.n_heads
        q = self.q(q).view(B, L, H, -1).transpose(1, 2)  # (B, H, L, d_head)
        k = self.k(k).view(B, S, H, -1).transpose(1, 2)  # (B, H, S, d_head)
        v = self.v(v).view(B, S, H, -1).transpose(1, 2)
        out = F.scaled_dot_product_attention(q, k, v)  # (B, H, L, d_head)
        return self.out(out.transpose(1, 2).reshape(B, L, d))


class _Block(nn.Module):
    """The post-norm residual wrapper of every TimeBridge layer: a GELU feed-forward network."""

    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_ff)
        self.fc2 = nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)

    def finish(self, x: torch.Tensor) -> torch.Tensor:
        x = self.norm1(x)
        return self.norm2(x + self.fc2(F.gelu(self.fc1(x))))


class IntegratedAttention(_Block):
    """Integrated Attention: attention over the ``P`` patches within each series.

    Queries and keys come from period-normalised tokens (no gradient through the
    normalisation, as in the official code), values from the raw tokens; then the post-norm
    residual block. Maps tokens (B, N, P, d) to (B, N, P, d).

    Parameters
    ----------
    c : TimeBridgeConfig
        The sizes: ``d_model``, ``n_heads``, ``d_ff``, ``stable_len``, ``period_norm`` and
        ``period_norm_axis``.
    """

    def __init__(self, c: TimeBridgeConfig):
        _check_config(c)
        super().__init__(c.d_model, c.d_ff)
        self.attention = _MultiHead(c.d_model, c.n_heads)
        self.stable_len, self.period_norm = c.stable_len, c.period_norm
        self.axis = c.period_norm_axis

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, N, P, d = x.shape
        tokens = x.reshape(B * N, P, d)
        qk = tokens
        if self.period_norm and self.axis == "feature":
            with torch.no_grad():
                qk = period_norm(tokens, self.stable_len)
        elif self.period_norm:  # over the patch axis, window min(S, P)
            with torch.no_grad():
                qk = period_norm(tokens.transpose(1, 2), min(self.stable_len, P)).transpose(1, 2)
        new = self.attention(qk, qk, tokens).reshape(B, N, P, d)
        return self.finish(x + new)


class PatchSampling(_Block):
    """Patch sampling: mix the ``P`` tokens of each series into ``P'``.

    ``u = W1 z`` over the patch axis, ``u <- W2 [u; mean(z)] + u``, then
    ``u <- Attn(u, z, z) + u`` (queries ``u``, keys and values the ``P`` tokens), then the
    post-norm block. Maps tokens (B, N, P, d) to (B, N, P', d).

    Parameters
    ----------
    c : TimeBridgeConfig
        The sizes: ``d_model``, ``n_heads``, ``d_ff`` and ``sampled_patches`` (``P'``).
    in_patches : int
        Number ``P`` of input tokens per series, ``>= 1``.
    """

    def __init__(self, c: TimeBridgeConfig, in_patches: int):
        _check_config(c)
        check_int("in_patches", in_patches, minimum=1)
        super().__init__(c.d_model, c.d_ff)
        out = c.sampled_patches
        self.conv1 = nn.Conv1d(in_patches, out, 1, bias=False)
        self.conv2 = nn.Conv1d(out + 1, out, 1, bias=False)
        self.attention = _MultiHead(c.d_model, c.n_heads)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, N, P, d = x.shape
        z = x.reshape(B * N, P, d)
        u = self.conv1(z)  # (B N, P', d)
        u = self.conv2(torch.cat([u, z.mean(1, keepdim=True)], dim=1)) + u
        u = self.attention(u, z, z) + u
        return self.finish(u.reshape(B, N, -1, d))


class CointegratedAttention(_Block):
    """Cointegrated Attention: attention across the ``N`` series at each patch position.

    On tokens that are not period-normalised (the official code's ``full_attn``; its default
    ``axial`` form factorises the same attention over a sqrt(N) x sqrt(N) grid to save memory
    at large ``N``); then the post-norm residual block. Maps tokens (B, N, P, d) to
    (B, N, P, d).

    Parameters
    ----------
    c : TimeBridgeConfig
        The sizes: ``d_model``, ``n_heads``, ``d_ff``.
    """

    def __init__(self, c: TimeBridgeConfig):
        _check_config(c)
        super().__init__(c.d_model, c.d_ff)
        self.attention = _MultiHead(c.d_model, c.n_heads)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, N, P, d = x.shape
        tokens = x.transpose(1, 2).reshape(B * P, N, d)  # (B P, N, d)
        new = self.attention(tokens, tokens, tokens).reshape(B, P, N, d).transpose(1, 2)
        return self.finish(x + new)


class TimeBridge(nn.Module):
    """TimeBridge: (B, I, N) input windows -> (B, H, N) forecasts, in the input's units.

    Parameters
    ----------
    config : TimeBridgeConfig
        The sizes; the input ``x`` must be (B, I, N) with ``I = config.input_len`` and
        ``N = config.n_series``, the output is (B, H, N) with ``H = config.horizon``.
    seed : int, default 0
        Seed of the initial weights (``seeded_init``), ``>= 0``; they are drawn from it alone.
    """

    def __init__(self, config: TimeBridgeConfig, seed: int = 0):
        super().__init__()
        _check_config(config)
        check_int("seed", seed, minimum=0)
        c = self.config = config
        self.embed = nn.Linear(c.patch_len, c.d_model, bias=False)
        layers: list[nn.Module] = [IntegratedAttention(c) for _ in range(c.ia_layers)]
        patches = c.n_patches
        for _ in range(c.ps_layers):
            layers.append(PatchSampling(c, patches))
            patches = c.sampled_patches
        layers += [CointegratedAttention(c) for _ in range(c.ca_layers)]
        self.layers = nn.ModuleList(layers)
        self.head = nn.Linear(patches * c.d_model, c.horizon, bias=False)
        seeded_init(self, seed)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = self.config
        _check_input(x)
        if x.ndim != 3 or x.shape[1:] != (c.input_len, c.n_series):
            raise ValueError(
                f"x must have shape (batch, {c.input_len}, {c.n_series}), got {tuple(x.shape)}"
            )
        mu = x.mean(1, keepdim=True).detach()  # (B, 1, N)
        sigma = x.std(1, keepdim=True).detach() + 1e-5
        z = ((x - mu) / sigma).transpose(1, 2)  # (B, N, I)
        z = self.embed(z.reshape(*z.shape[:2], c.n_patches, c.patch_len))  # (B, N, P, d)
        for layer in self.layers:
            z = layer(z)
        out = self.head(z.flatten(2)).transpose(1, 2)  # (B, H, N)
        return out * sigma + mu


class DLinear(nn.Module):
    """DLinear baseline: two linear maps on a trend-seasonal split; (B, I, N) -> (B, H, N).

    Zeng et al., *Are Transformers Effective for Time Series Forecasting?*, AAAI 2023:
    ``x = trend + seasonal`` with ``trend`` the centred moving average of width ``kernel``
    (edges replicated); ``y^ = W_t trend + W_s seasonal``, two linear maps ``R^I -> R^H``
    (with bias) shared by all series.

    Parameters
    ----------
    input_len : int
        Length I of an input window, ``>= 1``.
    horizon : int
        Length H of the forecast, ``>= 1``.
    kernel : int, default 25
        Width of the moving average, odd and ``>= 1``.
    seed : int, default 0
        Seed of the initial weights (``seeded_init``).
    """

    def __init__(self, input_len: int, horizon: int, kernel: int = 25, seed: int = 0):
        super().__init__()
        check_int("input_len", input_len, minimum=1)
        check_int("horizon", horizon, minimum=1)
        check_int("kernel", kernel, minimum=1)
        if kernel % 2 == 0:
            raise ValueError(f"kernel must be odd, got {kernel}")
        self.input_len, self.horizon, self.kernel = input_len, horizon, kernel
        self.trend = nn.Linear(input_len, horizon)
        self.seasonal = nn.Linear(input_len, horizon)
        seeded_init(self, seed)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _check_input(x)
        if x.ndim != 3 or x.shape[1] != self.input_len:
            raise ValueError(
                f"x must have shape (batch, {self.input_len}, series), got {tuple(x.shape)}"
            )
        z = x.transpose(1, 2)  # (B, N, I)
        half = (self.kernel - 1) // 2
        padded = F.pad(z, (half, half), mode="replicate")
        trend = F.avg_pool1d(padded, self.kernel, stride=1)  # (B, N, I)
        out = self.trend(trend) + self.seasonal(z - trend)  # (B, N, H)
        return out.transpose(1, 2)


def seeded_init(module: nn.Module, seed: int) -> None:
    """Redraw a module's Linear and Conv1d weights in place from a seeded generator.

    Every weight and bias is drawn U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (torch's default scale)
    from a ``torch.Generator`` seeded by ``seed``, so the weights do not depend on the global
    random state (torch's constructors still advance it). LayerNorms keep (1, 0).

    Parameters
    ----------
    module : torch.nn.Module
        The module whose submodules are re-initialised, in place.
    seed : int
        Seed of the generator, ``>= 0``.
    """
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}")
    check_int("seed", seed, minimum=0)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.Linear | nn.Conv1d):
                bound = 1.0 / math.sqrt(m.weight[0].numel())
                m.weight.uniform_(-bound, bound, generator=generator)
                if m.bias is not None:
                    m.bias.uniform_(-bound, bound, generator=generator)
