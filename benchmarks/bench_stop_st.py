"""stop_st: training and inference throughput of STOP against the baselines, and the cost of
one training step as the number of nodes grows (STOP's context units are linear in nodes; the
GCN's dense graph convolution is quadratic).

Part 1, the reproduction's sizes (100 nodes, input 12, horizon 12, batch 32): milliseconds per
training step and per inference batch, and node-windows per second, for STOP with perturbation
and robust loss (K = 3 environments), STOP without them, the GCN and the backbone.

Part 2, nodes from 100 to 10,000 (batch 1): wall time of one forward + backward pass and its
peak resident memory above the process's resident memory before the step (each size in a fresh
subprocess; the peak ``VmHWM`` is reset through ``/proc/self/clear_refs``, so Linux only),
for STOP (plain) and the GCN on a random geometric graph whose radius shrinks as 1/sqrt(N)
(mean degree about 13, as in the reproduction).

    python benchmarks/bench_stop_st.py            # one torch thread
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.stop_st import MODELS, ModelConfig, TrainConfig  # noqa: E402
from icml25.stop_st.training import MessagePerturbation, robust_loss  # noqa: E402

CFG = ModelConfig()  # the reproduction's sizes
NODES = [100, 300, 1000, 3000, 10000]


def _inputs(n: int, batch: int, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, CFG.input_len, n, generator=g)
    y = torch.randn(batch, CFG.horizon, n, generator=g)
    tod = torch.randint(0, CFG.steps_per_day, (batch,), generator=g)
    pos = torch.rand(n, 2, generator=g)
    radius = 0.2 * (130 / n) ** 0.5  # mean degree ~13 at every size
    d2 = torch.cdist(pos, pos).square_()
    adj = torch.exp(-d2 / (radius / 2) ** 2) * (d2 < radius**2)
    adj.fill_diagonal_(0.0)
    return x, y, tod, adj


def _step(model, x, y, tod, adj, envs: int, masks, gen):
    drop = masks.sample(envs, gen) if envs > 1 else None
    pred = model(x, tod, adjacency=adj, drop=drop)
    losses = (pred.view(envs, *y.shape) - y).abs().mean((1, 2, 3))
    loss = robust_loss(losses, TrainConfig.beta) if envs > 1 else losses[0]
    loss.backward()


def throughput() -> None:
    n, batch, reps = 100, 32, 20
    x, y, tod, adj = _inputs(n, batch)
    rows = []
    for name, model_name, envs in (
        ("STOP (perturbation + robust loss, K = 3)", "stop", 3),
        ("STOP (plain)", "stop", 1),
        ("GCN", "gcn", 1),
        ("backbone", "backbone", 1),
    ):
        torch.manual_seed(0)
        model = MODELS[model_name](CFG)
        masks = MessagePerturbation(n, 0.2, adversarial=envs > 1)
        gen = torch.Generator().manual_seed(0)
        model.train()
        _step(model, x, y, tod, adj, envs, masks, gen)  # warm-up
        begin = time.perf_counter()
        for _ in range(reps):
            model.zero_grad()
            _step(model, x, y, tod, adj, envs, masks, gen)
        train_ms = 1000 * (time.perf_counter() - begin) / reps
        model.eval()
        with torch.no_grad():
            model(x, tod, adjacency=adj)
            begin = time.perf_counter()
            for _ in range(reps):
                model(x, tod, adjacency=adj)
            infer_ms = 1000 * (time.perf_counter() - begin) / reps
        params = sum(p.numel() for p in model.parameters())
        rows.append(
            [
                name,
                params,
                train_ms,
                batch * n / train_ms * 1000,
                infer_ms,
                batch * n / infer_ms * 1000,
            ]
        )
    header = [
        "model",
        "parameters",
        "train ms/step",
        "train node-windows/s",
        "inference ms/batch",
        "inference node-windows/s",
    ]
    print(f"## Throughput, {n} nodes, batch {batch}, {torch.get_num_threads()} thread(s)\n")
    print(table(header, rows), flush=True)


def one_size(model_name: str, n: int) -> dict:
    """Run in a subprocess: time and peak memory of one forward + backward at ``n`` nodes."""
    torch.manual_seed(0)
    model = MODELS[model_name](CFG).train()
    x, y, tod, adj = _inputs(n, 1)
    masks, gen = MessagePerturbation(n, 0.2, adversarial=False), torch.Generator()
    _step(model, x[:, :, :10], y[:, :, :10], tod, adj[:10, :10], 1, masks, gen)  # warm-up
    model.zero_grad()
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM) to the current RSS
    before = _status_kb("VmRSS")
    begin = time.perf_counter()
    _step(model, x, y, tod, adj, 1, masks, gen)
    seconds = time.perf_counter() - begin
    return {"seconds": seconds, "peak_mb": (_status_kb("VmHWM") - before) / 1024}


def _status_kb(field: str) -> int:
    """A memory field of /proc/self/status, in kB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def scaling() -> None:
    rows, base = [], {}
    for n in NODES:
        row = [n]
        for model_name in ("stop", "gcn"):
            out = subprocess.run(
                [sys.executable, __file__, "--one", model_name, str(n)],
                capture_output=True,
                text=True,
                check=True,
            )
            res = json.loads(out.stdout.strip().splitlines()[-1])
            base.setdefault(model_name, res["seconds"])
            row += [res["seconds"], res["peak_mb"]]
        row.append(row[3] / row[1])
        rows.append(row)
        print(table(HEADER, rows[-1:]), flush=True)
    print(f"\n## One training step (batch 1) as nodes grow, {torch.get_num_threads()} thread(s)\n")
    print(table(HEADER, rows))


HEADER = [
    "nodes",
    "STOP s",
    "STOP peak MB",
    "GCN s",
    "GCN peak MB",
    "GCN / STOP time",
]

if __name__ == "__main__":
    torch.set_num_threads(1)
    if len(sys.argv) == 4 and sys.argv[1] == "--one":
        print(json.dumps(one_size(sys.argv[2], int(sys.argv[3]))))
    else:
        throughput()
        scaling()
