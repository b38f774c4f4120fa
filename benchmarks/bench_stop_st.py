"""stop_st: our STOP against the official STOP network on the same data and training, then
(``--throughput``) training and inference throughput of STOP against the baselines, and the
cost of one training step as the number of nodes grows (STOP's context units are linear in
nodes; the GCN's dense graph convolution is quadratic).

Anchor: the official network (PoorOtterBob/STOP, ``LargeST/src/models/stop.py``, a checkout
outside this repository given by ``--official-src``; its code is never copied here) is wrapped
behind our models' interface and trained by our training loop (Adam 2e-3, weight decay 1e-5,
clip 5, MAE, 20 epochs, best validation epoch), as plain STOP without perturbation and robust
loss (the public code has neither), at the reproduction's default sizes and data: replicate r
of the default run, seed r, the training nodes of the first 28 days; test MAE on the test
nodes (10% of the training nodes removed, 10% new ones) in the held-out days of the same
period and in the shifted period. Its own training engine needs LargeST's data loaders, so it
is not used. Without ``--official-src`` only ours runs.

Part 1, the reproduction's sizes (100 nodes, input 12, horizon 12, batch 32): milliseconds per
training step and per inference batch, and node-windows per second, for STOP with perturbation
and robust loss (K = 3 environments), STOP without them, the GCN and the backbone.

Part 2, nodes from 100 to 10,000 (batch 1): wall time of one forward + backward pass and its
peak resident memory above the process's resident memory before the step (each size in a fresh
subprocess; the peak ``VmHWM`` is reset through ``/proc/self/clear_refs``, so Linux only),
for STOP (plain) and the GCN on a random geometric graph whose radius shrinks as 1/sqrt(N)
(mean degree about 13, as in the reproduction).

    python benchmarks/bench_stop_st.py --official-src /tmp/anchors/stop_st   # one thread
    python benchmarks/bench_stop_st.py --quick ...        # one replicate (else all six)
    python benchmarks/bench_stop_st.py --throughput       # the throughput and scaling tables
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.stop_st import MODELS, ModelConfig, TrainConfig  # noqa: E402
from icml25.stop_st.reproduce import SCALES, _data, make_forecaster  # noqa: E402
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


class OfficialSTOP(torch.nn.Module):
    """The official STOP network (``LargeST/src/models/stop.py``: ``MLP`` backbone + ``STOP``
    with ``Core_Adaptive``, ``extra_type=1, same=0``) behind our models' interface: ``x``
    (B, L, N) and the time-of-day index ``tod`` (B,) -> (B, H, N). Its input is the official
    ``history_data`` (B, L, N, 3): value, time of day as a fraction (read at the last step), day
    of week (0: the simulated series has no weekly cycle). Its backbone always adds a day-of-week
    embedding; to keep the hidden width of ours (``model_dim + tod_dim``, so the same layer
    sizes), its two time embeddings get ``tod_dim / 2`` each (``prompt_dim``)."""

    def __init__(self, cfg):
        super().__init__()
        from src.models.stop import MLP, STOP  # noqa: PLC0415  (the official code)

        self.cfg = cfg
        hidden = cfg.model_dim + 2 * (cfg.tod_dim // 2)
        with contextlib.redirect_stdout(io.StringIO()):  # it prints its settings
            base = MLP(
                input_dim=3,
                output_dim=1,
                seq_len=cfg.input_len,
                horizon=cfg.horizon,
                num_layer=cfg.num_layer,
                model_dim=cfg.model_dim,
                prompt_dim=cfg.tod_dim // 2,
                tod_size=cfg.steps_per_day,
                kernel_size=cfg.kernel_size,
            )
            args = {"extra_type": 1, "same": 0, "hid_dim": cfg.hid_dim, "horizon": cfg.horizon}
            self.net = STOP(
                input_dim=3,
                output_dim=1,
                seq_len=cfg.input_len,
                horizon=cfg.horizon,
                model_args=args,
                stmodel=base,
                dim=[hidden, hidden],
                core=cfg.cores,
                ssie_dim=None,
                head=cfg.heads,
            )

    def forward(self, x: torch.Tensor, tod: torch.Tensor, **_) -> torch.Tensor:
        B, L, N = x.shape
        frac = ((tod.float() + 0.5) / self.cfg.steps_per_day)[:, None, None].expand(B, L, N)
        history = torch.stack([x, frac, torch.zeros_like(x)], dim=-1)  # (B, L, N, 3)
        return self.net(history).squeeze(-1)  # (B, H, N)


def anchor(replicates: int, official_src: str | None, seeds: int = 1) -> str:
    """Plain STOP (ours) and the official network, trained by the same loop on the same data
    (the reproduction's default cell, replicate r, training seeds r, r + 1, ... r + seeds - 1):
    training seconds and test MAE; spreads over all (replicate, seed) fits."""
    if official_src:
        sys.path.insert(0, str(Path(official_src) / "LargeST"))
        MODELS["official_stop"] = OfficialSTOP  # only in this process
    config = SCALES["default"]
    rows, got = [], {k: ([], []) for k in ("id", "shift")}
    t_all = ([], [])
    for r, k in [(r, k) for r in range(replicates) for k in range(seeds)]:
        periods, split = _data(config, r)
        t_train = config.train_days * config.steps_per_day
        graph = periods.graph
        fitted, seconds = [], []
        for name in ("stop", "official_stop"):
            if name == "official_stop" and not official_src:
                break
            f = make_forecaster(config, "stop_plain", r + k)  # plain: no perturbation, robust loss
            f.set_params(model=name)
            begin = time.perf_counter()
            f.fit(periods.base[:t_train, split.train], graph.subgraph(split.train))
            seconds.append(time.perf_counter() - begin)
            fitted.append(f)
        t_all[0].append(seconds[0])
        t_all[1].append(seconds[-1] if official_src else float("nan"))
        for period, (series, start) in {
            "id": (periods.base[t_train:], t_train),
            "shift": (periods.shifted, periods.shifted_start),
        }.items():
            maes = []
            for f in fitted:
                pred, truth = f.rolling(series[:, split.test], None, start)
                maes.append(float(np.abs(pred - truth).mean()))
            got[period][0].append(maes[0])
            got[period][1].append(maes[-1] if official_src else float("nan"))
    t_ours, t_off = float(np.mean(t_all[0])), float(np.mean(t_all[1]))
    for period, label in (("id", "in distribution"), ("shift", "shifted period")):
        a, b = np.array(got[period][0]), np.array(got[period][1])
        rows.append(
            [
                f"test-node MAE, {label}",
                f"{replicates} x {seeds}",
                t_ours,
                t_off,
                t_off / t_ours,
                float(a.mean()),
                float(b.mean()),
                float(a.mean() / b.mean()),
                float(a.std()),
                float(b.std()),
            ]
        )
    return table(ANCHOR_HEADER, rows)


ANCHOR_HEADER = [
    "setting",
    "replicates x seeds",
    "ours train s",
    "official train s",
    "time ratio (official / ours)",
    "ours MAE",
    "official MAE",
    "MAE ratio (ours / official)",
    "ours seed sd",
    "official seed sd",
]


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
        parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
        parser.add_argument("--official-src", help="a checkout of PoorOtterBob/STOP")
        parser.add_argument("--quick", action="store_true", help="one replicate, not all")
        parser.add_argument("--seeds", type=int, default=1, help="training seeds per replicate")
        parser.add_argument("--throughput", action="store_true", help="the other tables")
        args = parser.parse_args()
        if args.throughput:
            throughput()
            scaling()
        else:
            if not args.official_src:
                print(
                    "no --official-src: the official columns are NaN; fetch PoorOtterBob/STOP"
                    " (github) into a folder outside this repository and pass its path",
                    flush=True,
                )
            print(f"threads: {torch.get_num_threads()}")
            replicates = 1 if args.quick else SCALES["default"].replicates
            print(anchor(replicates, args.official_src, args.seeds))
