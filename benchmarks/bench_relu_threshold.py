"""relu_threshold: our batched gradient descent against the predecessor's official script and
against a plain ``torch.optim.SGD`` training of the same network.

1. Official (eboursier/early_alignment, ``early_alignment.py``, the code of the paper's
   predecessor on early alignment, reused by the paper): run as a subprocess in its own venv
   (it imports ``imageio`` and ``tqdm``; ``--official-python``), on our data and our
   initialisation, through its own command line only: ``--data load`` reads ``saves/x.pth`` and
   ``saves/y.pth``; ``-warm`` restarts from the last state dict in ``saves/nets.pth`` (we write our
   balanced initial weights there, with ``saves/iters.txt`` at step 0); ``--n_hidden``,
   ``--n_iterations`` (steps + 1: a warm restart starts at step 1), ``--init_scale``,
   ``--learning_rate``. Its network is fixed to one input feature plus a hidden bias, so this
   comparison uses 1-d inputs: our ``X = (x, 1)`` with ``W = (w, b)`` is its ``hidden`` layer. Its
   loss is ``MSELoss`` (mean of squares), twice ours (``1/(2n)``), so it gets half our step size:
   the same gradient descent. It trains in float32, ours in float64. Its final weights are read
   back from ``saves/nets.pth`` and scored with our loss. Its time is the subprocess's CPU time
   less that of a subprocess that only imports its modules (best of the repeats each).
2. ``torch.optim.SGD``: one ``nn.Sequential`` per run with autograd, one run after another, on
   the reproduction's inputs (``x = (U[-1, 1]^3, 1)``), float64.

Both anchors start from our initial weights on our data; results are the final training losses
(at a minimum the loss is flat, so the trained functions are compared too: the largest gap of
the predictions on the training inputs, relative to ours, over the seeds).
Times are CPU seconds (one thread everywhere), repeats interleaved with the anchor's.

    python benchmarks/bench_relu_threshold.py --official-src /tmp/anchors/relu_threshold \\
        --official-python /tmp/anchors/venv-relu_threshold/bin/python
"""

from __future__ import annotations

import argparse
import os
import pickle
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import interleaved, table  # noqa: E402

from icml25.relu_threshold import BETA_STAR, balanced_init, forward, linear_data, train  # noqa: E402

WIDTH, STEPS, LR, SCALE = 200, 2000, 0.05, 1e-3
BETA_1D = (0.5, 1.5)  # slope and intercept of the 1-d linear target


def child_cpu() -> float:
    """CPU seconds (user + system) of the finished subprocesses so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def problem(n: int, seed: int, beta):
    """One run's data and balanced initial weights: ``X (1, n, d)``, ``y (1, n)``, ``W0 (1, m,
    d)``, ``a0 (1, m)``."""
    g = torch.Generator().manual_seed(seed)
    X, y = linear_data(n, 1, beta=beta, generator=g)
    W0, a0 = balanced_init(1, WIDTH, X.shape[-1], SCALE, generator=g)
    return X, y, W0, a0


def fit(W, a, X, y) -> tuple[float, np.ndarray]:
    """The final training loss ``1/(2n) |f(X) - y|^2`` and the predictions ``f(X)`` (n,)."""
    f = forward(W, a, X)  # (1, n)
    return float(0.5 * ((f - y) ** 2).mean()), f[0].numpy()


def ours(n: int, seed: int, beta) -> tuple[float, np.ndarray]:
    X, y, W0, a0 = problem(n, seed, beta)
    run = train(W0, a0, X, y, lr=LR, steps=STEPS, record_at=[])
    return fit(run.W, run.a, X, y)


def official(src: Path, python: str, n: int, seed: int) -> tuple[float, np.ndarray, float]:
    """The official script on our 1-d data and start: final loss by our definition,
    predictions on the training inputs, CPU seconds."""
    X, y, W0, a0 = problem(n, seed, BETA_1D)
    with tempfile.TemporaryDirectory() as tmp:
        saves = Path(tmp) / "saves"
        saves.mkdir()
        torch.save(X[0, :, :1].float(), saves / "x.pth")  # (n, 1)
        torch.save(y[0, :, None].float(), saves / "y.pth")  # (n, 1)
        start = {
            "hidden.weight": W0[0, :, :1].float(),  # (m, 1)
            "hidden.bias": W0[0, :, 1].float(),  # (m,)
            "predict.weight": a0[0][None].float(),  # (1, m)
        }
        with open(saves / "nets.pth", "wb") as f:
            pickle.dump(start, f)
        (saves / "iters.txt").write_text("0\n0\n")
        command = [
            python,
            str(src / "early_alignment.py"),
            "--data",
            "load",
            "-warm",
            "--n_hidden",
            str(WIDTH),
            "--n_iterations",
            str(STEPS + 1),
            "--init_scale",
            str(SCALE),
            "--learning_rate",
            str(LR / 2),  # its MSELoss is twice our loss
        ]
        env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        begin = child_cpu()
        subprocess.run(command, cwd=tmp, env=env, check=True, capture_output=True)
        seconds = child_cpu() - begin
        with open(saves / "nets.pth", "rb") as f:
            states = []
            while True:
                try:
                    states.append(pickle.load(f))  # noqa: S301 - the state dicts we wrote/it wrote
                except EOFError:
                    break
    last = states[-1]
    W = torch.cat([last["hidden.weight"], last["hidden.bias"][:, None]], 1).double()[None]
    a = last["predict.weight"].double()
    return (*fit(W, a, X, y), seconds)


def startup(python: str) -> float:
    """CPU time of a subprocess that only imports the official script's modules."""
    begin = child_cpu()
    subprocess.run([python, "-c", "import torch, numpy, imageio, tqdm"], check=True)
    return child_cpu() - begin


def torch_sgd(n: int, seed: int) -> tuple[float, np.ndarray]:
    """One ``nn.Sequential`` trained by autograd and ``torch.optim.SGD``: the final loss and
    the predictions on the training inputs."""
    X, y, W0, a0 = problem(n, seed, BETA_STAR)
    net = torch.nn.Sequential(
        torch.nn.Linear(X.shape[-1], WIDTH, bias=False),
        torch.nn.ReLU(),
        torch.nn.Linear(WIDTH, 1, bias=False),
    ).double()
    with torch.no_grad():
        net[0].weight.copy_(W0[0])
        net[2].weight.copy_(a0[0].unsqueeze(0))
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    for _ in range(STEPS):
        opt.zero_grad()
        loss = 0.5 * (net(X[0]).squeeze(-1) - y[0]).pow(2).mean()
        loss.backward()
        opt.step()
    with torch.no_grad():
        f = net(X[0]).squeeze(-1)  # (n,)
        return float(0.5 * (f - y[0]).pow(2).mean()), f.numpy()


def row(setting, anchor, best, results, seeds) -> list[object]:
    o = np.array([loss for loss, _ in results["ours"]])
    a = np.array([loss for loss, _ in results["anchor"]])
    gap = max(
        float(np.abs(fo - fa).max() / np.abs(fo).max())
        for (_, fo), (_, fa) in zip(results["ours"], results["anchor"], strict=True)
    )
    return [
        setting,
        anchor,
        best["ours"],
        best["anchor"],
        best["anchor"] / best["ours"],
        float(o.mean()),
        float(a.mean()),
        float(o.mean() / a.mean()),
        f"{o.std():.3g} / {a.std():.3g} ({seeds} seeds); max per-seed "
        f"|ours/anchor - 1| = {np.abs(o / a - 1).max():.1e}",
        gap,
    ]


def official_rows(src: Path, python: str, seeds: int = 3) -> list[list[object]]:
    rows = []
    for n in (16, 64):
        base = min(startup(python) for _ in range(seeds))
        best, results = interleaved(
            {
                "ours": lambda seed, n=n: ours(n, seed, BETA_1D),
                "anchor": lambda seed, n=n: official(src, python, n, seed),
            },
            seeds,
        )
        best["anchor"] = min(s for _, _, s in results["anchor"]) - base
        results["anchor"] = [(loss, f) for loss, f, _ in results["anchor"]]
        rows.append(
            row(
                f"1-d, n {n}, width {WIDTH}, {STEPS} steps, lr {LR}",
                "early_alignment.py (float32)",
                best,
                results,
                seeds,
            )
        )
    return rows


def sgd_rows(seeds: int = 3) -> list[list[object]]:
    rows = []
    for n in (64, 256):
        best, results = interleaved(
            {
                "ours": lambda seed, n=n: ours(n, seed, BETA_STAR),
                "anchor": lambda seed, n=n: torch_sgd(n, seed),
            },
            seeds,
        )
        rows.append(
            row(
                f"d = 4, n {n}, width {WIDTH}, {STEPS} steps, lr {LR}",
                f"torch.optim.SGD (torch {torch.__version__}, float64)",
                best,
                results,
                seeds,
            )
        )
    return rows


HEADER = [
    "setting",
    "anchor",
    "ours CPU s",
    "anchor CPU s",
    "time ratio (anchor / ours)",
    "ours final loss",
    "anchor final loss",
    "result ratio (ours / anchor)",
    "seed spread (std over seeds, ours / anchor)",
    "max |f_ours - f_anchor| / max |f_ours| on the training inputs",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--official-src", type=Path, help="checkout of eboursier/early_alignment")
    parser.add_argument("--official-python", default=sys.executable, help="python with imageio")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, torch 1")
    rows = []
    if args.official_src is None:
        print(
            "official rows skipped: pass --official-src pointing at a checkout of "
            "github.com/eboursier/early_alignment (commit 3377874c) and --official-python at a "
            "python with torch, numpy, imageio and tqdm"
        )
    else:
        rows += official_rows(args.official_src, args.official_python)
        print(table(HEADER, rows), flush=True)
    rows += sgd_rows()
    print()
    print(table(HEADER, rows))


if __name__ == "__main__":
    main()
