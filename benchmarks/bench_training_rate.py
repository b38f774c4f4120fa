"""The slow papers' training steps against this core's matrix-multiply rate (issue 44).

For each paper whose default run is longer than 15 minutes of cell time, its own training
function runs at the default sizes for ``k1`` and ``k2`` steps (epochs for stop_st); the
difference gives the seconds and the floating-point operations of one step (forward, backward
and optimiser), the fixed costs (model construction, data) cancelling. FLOPs are counted by
``torch.utils.flop_counter.FlopCounterMode`` (matrix products, convolutions and attention; the
element-wise operations are not counted, so the rate is a lower bound of the work done). The
reference rate is a float32 ``1024 x 1024`` matrix product on the same thread, and a product at
the paper's own widest layer (``rows x d_in @ d_in x d_out``, ``layer`` column).

A step at a high share of its own layer's rate is bound by arithmetic: fewer seconds then
need fewer or smaller steps, which the issue rules out for the default run.

``--levers`` also times the generic ways to make such a step faster, on the default creativity
network (3 layers, d = 96, batch 32 of its 26-token sequences, AdamW): float32 eager (what
every paper runs), bfloat16 autocast, and ``torch.compile`` of the loss (its compile time
apart), and the attention kernels of ``scaled_dot_product_attention`` (flash, math) on the
creativity and APT shapes.

    OMP_NUM_THREADS=1 python benchmarks/bench_training_rate.py [--papers creativity defog] \
        [--levers]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F
from torch.utils.flop_counter import FlopCounterMode

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402


def _creativity():
    from icml25.common.transformer import TransformerConfig
    from icml25.creativity.reproduce import SCALES, make_task
    from icml25.creativity.training import TrainConfig, train

    c = SCALES["default"]
    task = make_task(c, "line", 0)
    net = TransformerConfig(vocab_size=1, block_size=1, n_layer=c.n_layer, n_head=c.n_head,
                            n_embd=c.n_embd)  # fmt: skip

    def run(k):
        opt = TrainConfig(steps=k, batch=c.batch, lr=c.lr, warmup=c.warmup, log_every=1)
        train(task, "ntp", net, opt, seed=0)

    T = task.train.shape[1]
    return run, (10, 60), (c.batch * T, c.n_embd, 4 * c.n_embd), "line NTP step"


def _apt_tabular():
    from icml25.apt_tabular.pretrain import pretrain
    from icml25.apt_tabular.reproduce import SCALES

    p = SCALES["default"].pretrain

    def run(k):
        pretrain(replace(p, steps=k))

    m = p.model
    return run, (10, 60), (p.batch_size * p.n_rows, m.d_model, m.d_ff), "adversarial step"


def _mdm_order():
    from icml25.mdm_order.generate import make_puzzles
    from icml25.mdm_order.model import train_mdm
    from icml25.mdm_order.reproduce import SCALES

    c = SCALES["default"]
    puzzles, solutions = make_puzzles(256, c.givens, "singles", 0, c.pool)

    def run(k):
        train_mdm(puzzles, solutions, config=c.mdm(), steps=k, batch=c.batch, lr=c.lr,
                  warmup=c.warmup, seed=0)  # fmt: skip

    return run, (5, 25), (c.batch * 81, c.d_model, c.d_ff), "MDM step"


def _defog():
    from icml25.defog.reproduce import SCALES, family_graphs
    from icml25.defog.train import DeFoGConfig, fit

    c = SCALES["default"]
    graphs = family_graphs(c, "sbm", c.n_train, 0)

    def run(k):
        fit(graphs, DeFoGConfig(model=c.model, train_steps=k, batch_size=c.batch_size, lr=c.lr,
                                seed=0))  # fmt: skip

    n = max(g.number_of_nodes() for g in graphs)
    m = c.model
    return run, (5, 25), (c.batch_size * n * n, m.de, m.dim_ff_e), "SBM step"


def _stop_st():
    from icml25.stop_st.reproduce import SCALES, _data, make_forecaster

    c = SCALES["default"]
    periods, split = _data(c, 0)
    y = periods.base[: c.train_days * c.steps_per_day, split.train]
    graph = periods.graph.subgraph(split.train)

    def run(k):
        make_forecaster(c, "stop", 0).set_params(epochs=k).fit(y, graph)

    dim = make_forecaster(c, "stop", 0).model_config.hidden
    return run, (1, 3), (32 * len(split.train), 2 * dim, 8 * dim), "STOP epoch"


def _timebridge():
    from icml25.timebridge.forecaster import TimeBridgeForecaster
    from icml25.timebridge.reproduce import SCALES, VARIANTS, _series

    c = SCALES["default"]
    y = _series(c, "cointegrated", 0)[: c.train_steps]
    options = {"lr": c.lr, "patch_len": c.patch_len, "eval_every": 10**9, "alpha": c.alpha,
               **VARIANTS["timebridge"]}  # fmt: skip

    def run(k):
        TimeBridgeForecaster(c.input_len, c.horizon, d_model=c.d_model, steps=k,
                             batch_size=c.batch_size, patience=10**9, seed=0,
                             **options).fit(y)  # fmt: skip

    n_patch = c.input_len // c.patch_len
    rows = c.batch_size * y.shape[1] * n_patch
    return run, (10, 60), (rows, c.d_model, 4 * c.d_model), "TimeBridge step"


PAPERS = {
    "creativity": _creativity,
    "apt_tabular": _apt_tabular,
    "mdm_order": _mdm_order,
    "defog": _defog,
    "stop_st": _stop_st,
    "timebridge": _timebridge,
}


def _seconds(run, k: int, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        begin = time.perf_counter()
        run(k)
        best = min(best, time.perf_counter() - begin)
    return best


def _flops(run, k: int) -> int:
    with FlopCounterMode(display=False) as counter:
        run(k)
    return counter.get_total_flops()


def matmul_rate(m: int, k: int, n: int, seconds: float = 1.0) -> float:
    """FLOP/s of a float32 ``(m, k) @ (k, n)`` product, best of a ``seconds``-long loop."""
    a, b = torch.randn(m, k), torch.randn(k, n)
    a @ b
    best, spent = np.inf, 0.0
    while spent < seconds:
        begin = time.perf_counter()
        a @ b
        took = time.perf_counter() - begin
        best, spent = min(best, took), spent + took
    return 2.0 * m * k * n / best


def _step_ms(mode: str, steps: int = 50) -> tuple[float, float]:
    """ms per training step of the creativity network in ``mode`` and the first 3 steps' s."""
    from icml25.common.transformer import Transformer, TransformerConfig

    net = Transformer(TransformerConfig(vocab_size=40, block_size=26, n_layer=3, n_embd=96))
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    x = torch.randint(0, 40, (32, 26), generator=torch.Generator().manual_seed(0))

    def loss_of(tokens):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=mode == "bfloat16 autocast"):
            logits = net(tokens)
        return torch.nn.functional.cross_entropy(logits.float().flatten(0, 1), tokens.flatten())

    loss_fn = torch.compile(loss_of) if mode == "torch.compile" else loss_of

    def step():
        loss = loss_fn(x)
        opt.zero_grad()
        loss.backward()
        opt.step()

    begin = time.perf_counter()
    for _ in range(3):
        step()
    first = time.perf_counter() - begin
    begin = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - begin) / steps * 1e3, first


def _attention_ms(shape, backend, repeats: int = 30) -> float:
    from torch.nn.attention import sdpa_kernel

    B, H, n, n_kv, d = shape
    g = torch.Generator().manual_seed(0)
    q = torch.randn(B, H, n, d, generator=g, requires_grad=True)
    k, v = (torch.randn(B, H, n_kv, d, generator=g, requires_grad=True) for _ in range(2))
    with sdpa_kernel(backend):
        F.scaled_dot_product_attention(q, k, v).sum().backward()
        begin = time.perf_counter()
        for _ in range(repeats):
            F.scaled_dot_product_attention(q, k, v).sum().backward()
    return (time.perf_counter() - begin) / repeats * 1e3


def levers() -> str:
    """The step in float32, bfloat16 autocast and compiled; the attention kernels."""
    from torch.nn.attention import SDPBackend

    rows = []
    for mode in ("float32 eager", "bfloat16 autocast", "torch.compile"):
        ms, first = _step_ms(mode)
        rows.append([mode, f"{ms:.4g}", f"{first:.3g}"])
    out = table(["creativity step", "ms per step", "first 3 steps s"], rows) + "\n\n"
    rows = []
    for name, shape in (("creativity", (32, 4, 26, 26, 24)), ("apt_tabular", (8, 4, 200, 150, 16))):
        flash = _attention_ms(shape, SDPBackend.FLASH_ATTENTION)
        math_ = _attention_ms(shape, SDPBackend.MATH)
        rows.append([name, "x".join(map(str, shape)), f"{flash:.4g}", f"{math_:.4g}"])
    header = ["attention", "B x H x n x n_kv x d", "flash ms (fwd+bwd)", "math ms (fwd+bwd)"]
    return out + table(header, rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", nargs="+", choices=sorted(PAPERS), default=list(PAPERS))
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--levers", action="store_true", help="also time bf16, compile, SDPA")
    parser.add_argument("--only-levers", action="store_true", help="the levers alone")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if args.levers or args.only_levers:
        print(levers() + "\n", flush=True)
    if args.only_levers:
        return
    peak = matmul_rate(1024, 1024, 1024)
    rows = []
    for name in args.papers:
        run, (k1, k2), layer, what = PAPERS[name]()
        seconds = (_seconds(run, k2, args.repeats) - _seconds(run, k1, args.repeats)) / (k2 - k1)
        flops = (_flops(run, k2) - _flops(run, k1)) / (k2 - k1)
        own = matmul_rate(*layer)
        rate = flops / seconds
        rows.append([name, what, f"{seconds * 1e3:.4g}", f"{flops / 1e9:.4g}",
                     f"{rate / 1e9:.4g}", "x".join(map(str, layer)), f"{own / 1e9:.4g}",
                     f"{rate / own:.3f}", f"{rate / peak:.3f}"])  # fmt: skip
        print(rows[-1], flush=True)
    print(f"one thread; float32 1024^3 product: {peak / 1e9:.4g} GFLOP/s\n")
    header = ["paper", "unit", "ms per unit", "GFLOP per unit", "GFLOP/s", "layer",
              "layer GFLOP/s", "share of layer rate", "share of 1024^3 rate"]  # fmt: skip
    print(table(header, rows))


if __name__ == "__main__":
    main()
