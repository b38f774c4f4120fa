"""relu_threshold: batched full-batch gradient descent against one torch.nn model per run.

The anchor is what a user writes by hand: an ``nn.Sequential`` two-layer ReLU net per seed,
trained by ``torch.optim.SGD`` on autograd gradients, one run after another. Ours trains all
runs as one batched tensor computation with the gradients written out. Both single-threaded.

    python benchmarks/bench_relu_threshold.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.relu_threshold import balanced_init, linear_data, train  # noqa: E402

RUNS, WIDTH, STEPS, LR = 5, 200, 2000, 0.05


def anchor(X, y, W0, a0) -> np.ndarray:
    """One nn.Module per run, autograd and SGD: the final training losses (runs,)."""
    losses = []
    for run in range(X.shape[0]):
        net = torch.nn.Sequential(
            torch.nn.Linear(X.shape[-1], WIDTH, bias=False),
            torch.nn.ReLU(),
            torch.nn.Linear(WIDTH, 1, bias=False),
        ).double()
        with torch.no_grad():
            net[0].weight.copy_(W0[run])
            net[2].weight.copy_(a0[run].unsqueeze(0))
        opt = torch.optim.SGD(net.parameters(), lr=LR)
        for _ in range(STEPS):
            opt.zero_grad()
            loss = 0.5 * (net(X[run]).squeeze(-1) - y[run]).pow(2).mean()
            loss.backward()
            opt.step()
        losses.append(0.5 * (net(X[run]).squeeze(-1) - y[run]).pow(2).mean().item())
    return np.array(losses)


def main() -> None:
    torch.set_num_threads(1)
    rows = []
    for n in (64, 256):
        g = torch.Generator().manual_seed(n)
        X, y = linear_data(n, RUNS, generator=g)
        W0, a0 = balanced_init(RUNS, WIDTH, X.shape[-1], 1e-3, generator=g)
        t_anchor, _, l_anchor = measure(
            lambda X=X, y=y, W0=W0, a0=a0: anchor(X, y, W0, a0), repeat=1
        )
        t_ours, _, run = measure(
            lambda X=X, y=y, W0=W0, a0=a0: train(W0, a0, X, y, lr=LR, steps=STEPS, record_at=[]),
            repeat=1,
        )
        rows.append(
            [
                n,
                RUNS,
                STEPS,
                t_anchor,
                t_ours,
                t_anchor / t_ours,
                float(np.abs(run.loss[-1] - l_anchor).max()),
            ]
        )
    print(table(["n", "runs", "steps", "anchor s", "ours s", "speed-up", "max |loss diff|"], rows))


if __name__ == "__main__":
    main()
