"""lrnn_dynamics: exact-loss gradient descent against plain torch training of the same network
(no official code could be had: aproca/LRNN_dynamics, the paper's repository, has no snapshot
here, and no other repository of the authors holds it).

Three ways to train the linear RNN h_t = W_h h_{t-1} + W_x x_t, y = W_y h_T on the
reproduction's exponential task (d_in = d_out = 4, s = (2, 1.5, 1, .5), lam = (.9, .8, .7, .6),
stretched to length T), same init (scale 0.1, seed 0), same step lr = 0.002, same number of
steps, all in float64:

- ``ours``: :func:`icml25.lrnn_dynamics.train`, closed-form gradients of the exact whitened loss
  (powers of W_h once per step, one Toeplitz gather for dL/dW_h), numpy;
- anchor ``torch.optim.SGD, sampled``: what one writes with torch and no theory: autograd
  through the recurrence on a fresh batch of B = 256 white-noise sequences each step
  (stochastic gradients of the same expected loss), ``torch.optim.SGD``; seeds = the batches;
- anchor ``torch.optim.SGD, exact loss``: autograd through the same exact loss written term by
  term (a loop over lags), ``torch.optim.SGD``: must give our weights to rounding.

Result: the final exact loss; also the relative distance of the final sequence maps to ours.
Times are CPU seconds of this process (one thread), repeats interleaved (best of them).

    python benchmarks/bench_lrnn_dynamics.py            # about 2 minutes alone
    python benchmarks/bench_lrnn_dynamics.py --quick    # without N = 256
    python benchmarks/bench_lrnn_dynamics.py --steps 2000    # the same steps for every size
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import interleaved, table  # noqa: E402

from icml25.lrnn_dynamics import (  # noqa: E402
    LinearRNN,
    exact_loss,
    init_random,
    make_task,
    random_orthogonal,
    sequence_maps,
    train,
)

SIZES = [
    (16, 6, 2000, 2),
    (16, 12, 2000, 2),
    (64, 12, 2000, 2),
    (256, 12, 1000, 1),
]  # N, T, steps, seeds
LR, BATCH = 0.002, 256  # lr below 2 / the largest Hessian eigenvalue at T = 12


def task(T: int) -> np.ndarray:
    U, V = random_orthogonal(4, 0), random_orthogonal(4, 1)
    lags = np.arange(T - 1, -1, -1, dtype=float)
    s = np.array([2.0, 1.5, 1.0, 0.5])[:, None] * np.array([0.9, 0.8, 0.7, 0.6])[:, None] ** lags
    return make_task(U, V, s)  # (T, 4, 4)


def torch_exact(net: LinearRNN, S: np.ndarray, steps: int) -> LinearRNN:
    W = [torch.tensor(w, requires_grad=True) for w in (net.W_x, net.W_h, net.W_y)]
    S_t = torch.tensor(S)
    T = S.shape[0]
    opt = torch.optim.SGD(W, lr=LR)
    for _ in range(steps):
        opt.zero_grad()
        loss, P = 0.0, torch.eye(net.hidden, dtype=torch.float64)
        for k in range(T):
            loss = loss + 0.5 * ((W[2] @ P @ W[0] - S_t[T - 1 - k]) ** 2).sum()
            P = P @ W[1]
        loss.backward()
        opt.step()
    return LinearRNN(*(w.detach().numpy() for w in W))


def torch_sampled(net: LinearRNN, S: np.ndarray, steps: int, seed: int = 0) -> LinearRNN:
    W = [torch.tensor(w, requires_grad=True) for w in (net.W_x, net.W_h, net.W_y)]
    S_t = torch.tensor(S)  # (T, d_out, d_in)
    T = S.shape[0]
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.SGD(W, lr=LR)
    for _ in range(steps):
        x = torch.randn(BATCH, T, 4, generator=gen, dtype=torch.float64)  # (B, T, d_in)
        y = torch.einsum("toi,bti->bo", S_t, x)  # (B, d_out)
        h = torch.zeros(BATCH, net.hidden, dtype=torch.float64)
        for t in range(T):
            h = h @ W[1].T + x[:, t] @ W[0].T
        loss = 0.5 * ((h @ W[2].T - y) ** 2).sum(dim=1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return LinearRNN(*(w.detach().numpy() for w in W))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="without N = 256")
    parser.add_argument("--steps", type=int, help="steps for every size (default: per size)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, torch 1")
    warm = init_random(4, 4, 16, 0.1, seed=0)
    torch_exact(warm, task(6), 5), torch_sampled(warm, task(6), 5)  # torch's first-call costs
    rows = []
    for N, T, steps, seeds in SIZES[:-1] if args.quick else SIZES:
        steps = args.steps or steps
        S = task(T)
        net = init_random(4, 4, N, 0.1, seed=0)
        best, results = interleaved(
            {
                "ours": lambda seed, S=S, net=net, n=steps: (
                    train(net, S, LR, n, record_every=n).net
                ),
                "sampled": lambda seed, S=S, net=net, n=steps: torch_sampled(net, S, n, seed),
                "exact": lambda seed, S=S, net=net, n=steps: torch_exact(net, S, n),
            },
            seeds,
        )
        ours = results["ours"][0]
        ref = sequence_maps(ours, T)
        loss_ours = exact_loss(ours, S)
        for name, label in (
            ("sampled", f"torch.optim.SGD, sampled B = {BATCH}"),
            ("exact", "torch.optim.SGD, exact loss"),
        ):
            losses = np.array([exact_loss(other, S) for other in results[name]])
            dist = max(
                np.linalg.norm(sequence_maps(other, T) - ref) / np.linalg.norm(ref)
                for other in results[name]
            )
            spread = (
                f"{losses.std():.1e} ({seeds} seeds)"
                if name == "sampled" and seeds > 1
                else ("1 seed" if name == "sampled" else "deterministic")
            )
            rows.append(
                [
                    f"N {N}, T {T}, {steps} steps",
                    label,
                    best["ours"],
                    best[name],
                    best[name] / best["ours"],
                    loss_ours,
                    float(losses.mean()),
                    float(loss_ours / losses.mean()),
                    spread,
                    float(dist),
                ]
            )
            print(table(HEADER, rows[-1:]), flush=True)
    print()
    print(table(HEADER, rows))


HEADER = [
    "setting",
    "anchor",
    "ours CPU s",
    "anchor CPU s",
    "time ratio (anchor / ours)",
    "ours final loss",
    "anchor final loss",
    "result ratio (ours / anchor)",
    "seed spread of the anchor's loss (std)",
    "max map distance to ours",
]

if __name__ == "__main__":
    main()
