"""lrnn_dynamics: exact-loss gradient descent against what a user would otherwise write.

Three ways to train the linear RNN h_t = W_h h_{t-1} + W_x x_t, y = W_y h_T on the
reproduction's exponential task (d_in = d_out = 4, s = (2, 1.5, 1, .5), lam = (.9, .8, .7, .6),
stretched to length T), same init (scale 0.1), same step lr = 0.002, same number of steps:

- ``ours``: :func:`icml25.lrnn_dynamics.train`, closed-form gradients of the exact whitened loss
  (powers of W_h once per step, one Toeplitz gather for dL/dW_h), numpy;
- ``torch exact``: torch autograd through the same exact loss written term by term (the naive
  loop over lags);
- ``torch sampled``: what one does without the whitened loss: autograd through the recurrence on a
  fresh batch of B = 256 white-noise sequences each step (stochastic gradients of the same
  expected loss).

Agreement: relative distance of the final sequence maps to ours, and the final exact loss.

    python benchmarks/bench_lrnn_dynamics.py [--steps 2000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.lrnn_dynamics import (  # noqa: E402
    LinearRNN,
    exact_loss,
    init_random,
    make_task,
    random_orthogonal,
    sequence_maps,
    train,
)

SIZES = [(16, 6), (16, 12), (64, 12), (256, 12)]  # (hidden N, T)
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
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    torch.set_num_threads(1)
    warm = init_random(4, 4, 16, 0.1, seed=0)
    torch_exact(warm, task(6), 5), torch_sampled(warm, task(6), 5)  # torch's first-call costs
    rows = []
    for N, T in SIZES:
        S = task(T)
        net = init_random(4, 4, N, 0.1, seed=0)
        t0 = time.perf_counter()
        ours = train(net, S, LR, args.steps, record_every=args.steps).net
        t_ours = time.perf_counter() - t0
        ref = sequence_maps(ours, T)
        row = [N, T, t_ours, exact_loss(ours, S)]
        for fn in (torch_exact, torch_sampled):
            t0 = time.perf_counter()
            other = fn(net, S, args.steps)
            elapsed = time.perf_counter() - t0
            dist = np.linalg.norm(sequence_maps(other, T) - ref) / np.linalg.norm(ref)
            row += [elapsed / t_ours, float(dist), exact_loss(other, S)]
        rows.append(row)
        print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


HEADER = [
    "N",
    "T",
    "ours s",
    "ours loss",
    "torch exact time x",
    "torch exact map dist",
    "torch exact loss",
    "torch sampled time x",
    "torch sampled map dist",
    "torch sampled loss",
]

if __name__ == "__main__":
    main()
