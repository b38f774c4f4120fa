"""timebridge: our TimeBridge against the official network on the same data and training, then
(``--throughput``) training and inference throughput of TimeBridge against DLinear and TimeBridge
without Cointegrated Attention, and peak memory of a training step as the number of series grows.

0. Anchor: the official ``Model`` (Hank0626/TimeBridge, ``model/TimeBridge.py``; a checkout
   outside this repository given by ``--official-src``, never copied here; it imports einops and
   reformer_pytorch, so it runs in its own interpreter, ``--official-python``, with this
   repository's ``src`` on its path) at our sizes (N = 8, input 192, horizon 96, patch 24,
   d = 64, 4 heads, d_ff 128, 1 IA + 1 PS (4 patches) + 1 CA layer), trained by our forecaster's
   loop (the same windows, Adam 1e-3 with cosine decay, the time-frequency loss alpha 0.35,
   batch 32, validation every 50 updates, patience 5) for ``STEPS`` updates on the
   reproduction's co-integrated series (data seeds 0 and 1, training seed = data seed); test MSE as
   the reproduction computes it. Plus the time of one training step and one inference batch of
   each network. Its own ``run.py`` needs its data loaders (ETT files), so it is not used.

1. Throughput at the reproduction's sizes (N = 8 series, input 192, horizon 96, d = 64): input
   windows per second for one Adam update on a batch of 32 (forward, time-frequency loss,
   backward, step), and for inference on a batch of 256 (no gradient).
2. Memory of one training step (batch 8) for N = 8 ... 1024 series, each in a fresh
   subprocess (torch allocates outside Python, so tracemalloc would not see it): the MB of
   activations autograd saves for the backward pass (distinct storages, counted by
   ``torch.autograd.graph.saved_tensors_hooks``), the MB of parameters, and the process's peak
   resident memory (``ru_maxrss``, which includes torch itself, about 300 MB).

    OMP_NUM_THREADS=1 python benchmarks/bench_timebridge.py \\
        --official-src /tmp/anchors/timebridge \\
        --official-python /tmp/anchors/venv-timebridge/bin/python
    OMP_NUM_THREADS=1 python benchmarks/bench_timebridge.py --throughput   # the other tables
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.timebridge import (  # noqa: E402
    DLinear,
    TimeBridge,
    TimeBridgeConfig,
    TimeBridgeForecaster,
    time_frequency_loss,
)
from icml25.timebridge.reproduce import Config, _series  # noqa: E402

MODELS = ("timebridge", "no_ca", "dlinear")
INPUT, HORIZON = 192, 96
STEPS = 300  # updates per fit in the anchor comparison (the reproduction: 1000)


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


class OfficialNetwork(torch.nn.Module):
    """The official TimeBridge ``Model`` (Hank0626/TimeBridge, ``model/TimeBridge.py``) at our
    sizes, behind our networks' interface ``x`` (B, I, N) -> (B, H, N). It is given no time
    marks (``x_mark_enc=None``: the official code then appends 4 zero variates, which take part
    in its Cointegrated Attention); attention dropout 0, as ours (its default is 0.15)."""

    def __init__(self, cfg: TimeBridgeConfig):
        super().__init__()
        from model.TimeBridge import Model  # noqa: PLC0415  (the official code)

        self.net = Model(
            SimpleNamespace(
                revin=True,
                enc_in=cfg.n_series,
                period=cfg.patch_len,
                seq_len=cfg.input_len,
                pred_len=cfg.horizon,
                num_p=cfg.sampled_patches,
                d_model=cfg.d_model,
                n_heads=cfg.n_heads,
                d_ff=cfg.d_ff,
                attn_dropout=0.0,
                dropout=0.0,
                stable_len=cfg.stable_len,
                activation="gelu",
                ia_layers=cfg.ia_layers,
                pd_layers=cfg.ps_layers,
                ca_layers=cfg.ca_layers,
            )
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x, None, None, None)


class OfficialForecaster(TimeBridgeForecaster):
    """Our forecaster (standardisation, windows, Adam with cosine decay, the time-frequency
    loss, early stopping) training the official network instead of ours."""

    def _network(self, n_series: int) -> torch.nn.Module:
        config = TimeBridgeConfig(
            n_series=n_series, input_len=self.input_len, horizon=self.horizon, **self.arch
        )
        torch.manual_seed(self.seed)  # the official modules draw from the global generator
        return OfficialNetwork(config)


def fit_and_score(official: bool, y: np.ndarray, seed: int) -> dict:
    """Fit on the reproduction's training split of ``y`` with its settings (but ``STEPS``
    updates), then: test MSE (standardised, every 8th window, as the reproduction), fit
    seconds, updates, and the best-of-3 seconds of one training step (batch 32) and of one
    inference batch (256 windows)."""
    c = Config()
    cls = OfficialForecaster if official else TimeBridgeForecaster
    f = cls(
        c.input_len,
        c.horizon,
        d_model=c.d_model,
        steps=STEPS,
        batch_size=c.batch_size,
        lr=c.lr,
        patience=c.patience,
        seed=seed,
        patch_len=c.patch_len,
        eval_every=c.eval_every,
    )
    begin = time.perf_counter()
    f.fit(y[: c.train_steps])
    fit_s = time.perf_counter() - begin
    test = y[c.train_steps - c.input_len :]
    span = c.input_len + c.horizon
    windows = np.lib.stride_tricks.sliding_window_view(test, span, axis=0)[:: c.eval_stride]
    windows = windows.transpose(0, 2, 1)  # (W, I + H, N)
    pred = f.predict_windows(windows[:, : c.input_len])
    scale = y[: c.train_steps].std(0)
    mse = float((((pred - windows[:, c.input_len :]) / scale) ** 2).mean())
    net = f.network_
    gen = torch.Generator().manual_seed(0)
    x, t = (
        torch.randn(32, c.input_len, y.shape[1], generator=gen),
        torch.randn(32, c.horizon, y.shape[1]),
    )
    xi = torch.randn(256, c.input_len, y.shape[1], generator=gen)
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    net.train()
    step_s = measure(lambda: train_step(net, opt, x, t), repeat=3)[0]
    net.eval()
    with torch.no_grad():
        infer_s = measure(lambda: net(xi), repeat=3)[0]
    params = sum(p.numel() for p in net.parameters())
    return {
        "mse": mse,
        "fit_s": fit_s,
        "updates": len(f.losses_),
        "step_s": step_s,
        "infer_s": infer_s,
        "params": params,
    }


def official_child(src: str, npz: str, seed: int) -> None:
    """In the anchor's interpreter: ``fit_and_score`` of the official network; prints JSON."""
    torch.set_num_threads(1)
    sys.path.insert(0, src)
    y = np.load(npz)["y"]
    print(json.dumps(fit_and_score(True, y, seed)))


def anchor(src: str | None, python: str, seeds: int) -> str:
    """Ours and the official network, alternated, on the reproduction's co-integrated series
    of data seeds 0..seeds-1 (training seed = data seed)."""
    rows = []
    for s in range(seeds):
        y = _series(Config(), "cointegrated", s)
        ours = fit_and_score(False, y, s)
        if src:
            with tempfile.TemporaryDirectory() as tmp:
                np.savez(f"{tmp}/y.npz", y=y)
                code = [python, __file__, "--child", src, f"{tmp}/y.npz", str(s)]
                env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
                out = subprocess.run(code, capture_output=True, text=True, check=True, env=env)
            theirs = json.loads(out.stdout.strip().splitlines()[-1])
        else:
            theirs = dict.fromkeys(ours, float("nan"))
        rows.append((ours, theirs))
    out = []
    for key, label in (
        ("step_s", "training step, batch 32 (s)"),
        ("infer_s", "inference, 256 windows (s)"),
        ("fit_s", f"fit, up to {STEPS} updates (s)"),
    ):
        a = np.array([r[0][key] for r in rows])
        b = np.array([r[1][key] for r in rows])
        out.append(
            [label, float(a.mean()), float(b.mean()), float(b.mean() / a.mean()), "", "", "", ""]
        )
    a = np.array([r[0]["mse"] for r in rows])
    b = np.array([r[1]["mse"] for r in rows])
    out.append(
        [
            "test MSE (standardised)",
            "",
            "",
            "",
            float(a.mean()),
            float(b.mean()),
            float(np.mean(a / b)),
            f"{a.std():.3g} / {b.std():.3g}",
        ]
    )
    for key in ("updates", "params"):
        out.append(
            [
                key,
                "",
                "",
                "",
                float(np.mean([r[0][key] for r in rows])),
                float(np.mean([r[1][key] for r in rows])),
                "",
                "",
            ]
        )
    return table(ANCHOR_HEADER, out)


ANCHOR_HEADER = [
    "measure (mean over data seeds)",
    "ours s",
    "official s",
    "time ratio (official / ours)",
    "ours",
    "official",
    "ratio (ours / official, mean of per-seed ratios)",
    "seed sd (ours / official)",
]


def throughput_tables() -> None:
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


def main() -> None:
    torch.set_num_threads(1)
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        official_child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\\n")[0])
    parser.add_argument("--official-src", help="a checkout of Hank0626/TimeBridge")
    parser.add_argument("--official-python", default=sys.executable, help="its interpreter")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--throughput", action="store_true", help="the other tables")
    args = parser.parse_args()
    if args.throughput:
        throughput_tables()
        return
    if not args.official_src:
        print(
            "no --official-src: the official columns are NaN; fetch Hank0626/TimeBridge (github)"
            " outside this repository, make a venv with torch, einops and reformer-pytorch, and"
            " pass both paths",
            flush=True,
        )
    print(f"threads: {torch.get_num_threads()}")
    print(anchor(args.official_src, args.official_python, args.seeds))


if __name__ == "__main__":
    main()
