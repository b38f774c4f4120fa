"""``profile``: per-layer costs of a real torch model, the input of OmniBal's partition search.

For a chain of single-tensor layers and one micro-batch, each layer is run on the previous
layer's output: forward seconds, backward seconds (autograd from a random output gradient to the
layer's input and weights), the bytes autograd saves for the backward (counted with
``torch.autograd.graph.saved_tensors_hooks``, parameters excluded), the bytes of the layer's
input (what a recomputed layer keeps), parameters, and forward and backward FLOPs counted by
``torch.utils.flop_counter.FlopCounterMode``. Times are medians over ``repeats`` runs after one
warm-up; FLOPs are exact and repeat bit for bit.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from icml25.common.validate import check_int
from icml25.omnibal.partition import LayerCosts


@dataclass(frozen=True)
class LayerProfile:
    """Per-layer measurements (each (L,)): seconds, FLOPs, bytes and parameter counts.

    Parameters
    ----------
    forward_seconds : ndarray, shape (L,)
        Median forward seconds of each layer.
    backward_seconds : ndarray, shape (L,)
        Median backward seconds of each layer.
    forward_flops : ndarray, shape (L,)
        Forward FLOPs of each layer.
    backward_flops : ndarray, shape (L,)
        Backward FLOPs of each layer.
    act_bytes : ndarray, shape (L,)
        Bytes autograd saves for each layer's backward, parameters excluded.
    input_bytes : ndarray, shape (L,)
        Bytes of each layer's input (its checkpoint).
    params : ndarray, shape (L,)
        Parameters of each layer.
    """

    forward_seconds: np.ndarray
    backward_seconds: np.ndarray
    forward_flops: np.ndarray
    backward_flops: np.ndarray
    act_bytes: np.ndarray
    input_bytes: np.ndarray
    params: np.ndarray

    def costs(self, clock: str = "seconds") -> LayerCosts:
        """Costs for the partition search, timed in seconds or in FLOPs."""
        if clock not in ("seconds", "flops"):
            raise ValueError(f"clock must be 'seconds' or 'flops', got {clock!r}")
        f, b = (
            (self.forward_seconds, self.backward_seconds)
            if clock == "seconds"
            else (self.forward_flops, self.backward_flops)
        )
        return LayerCosts(f, b, self.act_bytes, self.input_bytes, self.params)


def _saved_bytes(layer: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, float]:
    params = {p.data_ptr() for p in layer.parameters()}
    seen: dict[int, int] = {}

    def pack(t: torch.Tensor):
        if t.data_ptr() not in params:
            seen[t.data_ptr()] = t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = layer(x)
    return y, float(sum(seen.values()))


def profile(layers: Sequence[nn.Module], x: torch.Tensor, *, repeats: int = 5) -> LayerProfile:
    """Profile each layer of the chain ``layers`` on input ``x`` (one micro-batch).

    Parameters
    ----------
    layers : sequence of torch.nn.Module
        Single-tensor layers, each run on the previous one's output.
    x : torch.Tensor
        Input of the first layer.
    repeats : int, default 5
        Timed runs per layer after one warm-up, ``>= 1``; times are their medians.

    Returns
    -------
    LayerProfile
        Seconds, FLOPs, bytes and parameters of each layer.
    """
    repeats = check_int("repeats", repeats, minimum=1)
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    rows = []
    for layer in layers:
        inp = x.detach().requires_grad_(x.is_floating_point())
        y, act = _saved_bytes(layer, inp)
        grad = torch.randn(y.shape, generator=torch.Generator().manual_seed(0))
        fwd, bwd = [], []
        for _ in range(repeats + 1):
            begin = time.perf_counter()
            out = layer(inp)
            mid = time.perf_counter()
            out.backward(grad)
            fwd.append(mid - begin)
            bwd.append(time.perf_counter() - mid)
        with FlopCounterMode(display=False) as counter:
            out = layer(inp)
        f_flops = counter.get_total_flops()
        with FlopCounterMode(display=False) as counter:
            out.backward(grad)
        rows.append(
            (
                float(np.median(fwd[1:])),
                float(np.median(bwd[1:])),
                float(f_flops),
                float(counter.get_total_flops()),
                act,
                float(inp.numel() * inp.element_size()),
                float(sum(p.numel() for p in layer.parameters())),
            )
        )
        layer.zero_grad(set_to_none=True)
        x = y.detach()
    return LayerProfile(*(np.array(col) for col in zip(*rows, strict=True)))
