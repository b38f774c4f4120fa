"""timebridge: training and inference throughput of TimeBridge against DLinear and TimeBridge
without Cointegrated Attention, and peak memory of a training step as the number of series grows.

1. Throughput at the reproduction's sizes (N = 8 series, input 192, horizon 96, d = 64): input
   windows per second for one Adam update on a batch of 32 (forward, time-frequency loss,
   backward, step), and for inference on a batch of 256 (no gradient).
2. Memory of one training step (batch 8) for N = 8 ... 1024 series, each in a fresh
   subprocess (torch allocates outside Python, so tracemalloc would not see it): the MB of
   activations autograd saves for the backward pass (distinct storages, counted by
   ``torch.autograd.graph.saved_tensors_hooks``), the MB of parameters, and the process's peak
   resident memory (``ru_maxrss``, which includes torch itself, about 300 MB).

    OMP_NUM_THREADS=1 python benchmarks/bench_timebridge.py
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.timebridge import DLinear, TimeBridge, TimeBridgeConfig, time_frequency_loss  # noqa: E402

MODELS = ("timebridge", "no_ca", "dlinear")
INPUT, HORIZON = 192, 96


def build(model: str, n_series: int) -> torch.nn.Module:
    if model == "dlinear":
        return DLinear(INPUT, HORIZON)
    ca = 0 if model == "no_ca" else 1
    return TimeBridge(TimeBridgeConfig(n_series=n_series, ca_layers=ca))


def train_step(net, opt, x, y) -> None:
    loss = time_frequency_loss(net(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


def throughput(model: str, n_series: int = 8, repeat: int = 30) -> tuple[float, float]:
    """Training and inference windows per second (best of 3 rounds of ``repeat`` calls)."""
    gen = torch.Generator().manual_seed(0)
    net = build(model, n_series)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x, y = torch.randn(32, INPUT, n_series, generator=gen), torch.randn(32, HORIZON, n_series)
    xi = torch.randn(256, INPUT, n_series, generator=gen)
    rates = []
    for fn, batch in ((lambda: train_step(net, opt, x, y), 32), (lambda: net(xi), 256)):
        with torch.set_grad_enabled(batch == 32):
            fn()
            best = float("inf")
            for _ in range(3):
                begin = time.perf_counter()
                for _ in range(repeat):
                    fn()
                best = min(best, (time.perf_counter() - begin) / repeat)
        rates.append(batch / best)
    return rates[0], rates[1]


def memory_child(model: str, n_series: int) -> None:
    """In a fresh process: saved-activation MB, parameter MB and peak RSS MB of one step."""
    torch.set_num_threads(1)
    net = build(model, n_series)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x, y = torch.randn(8, INPUT, n_series), torch.randn(8, HORIZON, n_series)
    saved: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        saved[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = time_frequency_loss(net(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    params = sum(p.numel() * p.element_size() for p in net.parameters())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"saved": sum(saved.values()) / 2**20, "params": params / 2**20, "rss": peak}))


def step_memory(model: str, n_series: int) -> dict:
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
        f"import bench_timebridge as b; b.memory_child({model!r}, {n_series})"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    torch.set_num_threads(1)
    rows, rates = [], {m: throughput(m) for m in MODELS}
    for m in MODELS:
        train, infer = rates[m]
        rows.append([m, train, infer, rates["dlinear"][0] / train, rates["dlinear"][1] / infer])
    print(
        table(
            [
                "model (N = 8)",
                "train windows/s",
                "inference windows/s",
                "DLinear / model (train)",
                "DLinear / model (inference)",
            ],
            rows,
        ),
        flush=True,
    )
    rows = []
    for n in (8, 64, 256, 1024):
        mem = {m: step_memory(m, n) for m in MODELS}
        rows.append(
            [n]
            + [mem[m]["saved"] for m in MODELS]
            + [mem["timebridge"]["params"]]
            + [mem[m]["rss"] for m in MODELS]
        )
    header = ["series N"] + [f"{m} activations MB" for m in MODELS]
    header += ["timebridge params MB"] + [f"{m} peak RSS MB" for m in MODELS]
    print(table(header, rows))


if __name__ == "__main__":
    main()
