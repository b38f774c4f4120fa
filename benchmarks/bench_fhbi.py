"""fhbi: our FHBI step and training against the official FHBI optimiser (tranquyenbk173/FHVI).

The anchor is the official ``FHBI`` optimiser class (``src/utils.py``: ``step1`` perturbs,
``step2`` applies the kernelised update), imported from ``--official-src`` (a checkout outside
this repository; never copied here). It is written for LoRA-ViT particles and walks the
network's parameters by name (``blocks.<layer>.…proj_q.w_a.layer.<particle>``, ``proj_v``,
``fc``); it calls ``.cuda()`` on its buffers. Here it drives a small network with exactly that
naming: per particle ``logits = fc(relu(qB qA x + vB vA x))`` (rank-8 factors, 32 hidden units,
``fc`` with a bias), i.e. one "layer" of six blocks, and ``Tensor.cuda`` is made the identity
while it runs (no file of theirs is changed). Ours runs the same network as one flat parameter
vector per particle (``ParticleEnsemble``). Both start from the same particles and see the same
mini-batches; the loss is each particle's mean cross-entropy (the official training module
averages the particles' logits first, see the README).

1. exactness: one step of each from the same particles on the same batch, max |ours - theirs|,
   at settings where the two algorithms coincide (rho = 0 and sigma = 1e-3: K = I, no
   repulsion) and at the paper's settings (rho = 0.03, sigma = 1), where they differ by design
   (their kernel and perturbation norm per block, and the sign of their repulsive term); and
   our reading of the official update (``reading``: per-block kernel and norm, autograd of
   ``sum K`` added) against the official optimiser, to show what it computes;
2. speed: one FHBI step (both gradients, kernel, update), interleaved, best of 20;
3. training: 10 particles, ``STEPS`` steps of batch 64, lr 1, rho 0.03, sigma 1 (the official
   configs' fixed bandwidth) on moons (20% label noise), breast_cancer and digits; test NLL and
   accuracy of the particles' averaged probabilities, mean ± sd over 3 seeds;
4. the calibration table of every method, read from the committed default-scale summary.

One thread (``torch.set_num_threads(1)``).

    python benchmarks/bench_fhbi.py --official-src /tmp/anchors/fhbi
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import grad, vmap

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.fhbi import ParticleEnsemble, fhbi_step  # noqa: E402
from icml25.fhbi.data import load  # noqa: E402
from icml25.fhbi.ensemble import batch_indices  # noqa: E402
from icml25.fhbi.metrics import accuracy, nll  # noqa: E402
from icml25.lab import store  # noqa: E402

PARTICLES, RANK, HIDDEN, BATCH, LR, RHO, SIGMA = 10, 8, 32, 64, 1.0, 0.03, 1.0
STEPS, SEEDS = 300, 3


class LowRankNet(nn.Module):
    """One particle: ``fc(relu(qB qA x + vB vA x))``; parameter order qA, qB, vA, vB, fc."""

    def __init__(self, inputs: int, classes: int):
        super().__init__()
        self.qA = nn.Linear(inputs, RANK, bias=False)
        self.qB = nn.Linear(RANK, HIDDEN, bias=False)
        self.vA = nn.Linear(inputs, RANK, bias=False)
        self.vB = nn.Linear(RANK, HIDDEN, bias=False)
        self.fc = nn.Linear(HIDDEN, classes)

    def forward(self, x):
        return self.fc(torch.relu(self.qB(self.qA(x)) + self.vB(self.vA(x))))


class _Cluster(nn.Module):
    """m linear maps named ``layer.<i>`` (the official ``ParticleCluster`` naming)."""

    def __init__(self, m, d_in, d_out, bias=False):
        super().__init__()
        self.layer = nn.ModuleList(nn.Linear(d_in, d_out, bias=bias) for _ in range(m))


class _Branch(nn.Module):
    def __init__(self, m, inputs):
        super().__init__()
        self.w_a = _Cluster(m, inputs, RANK)
        self.w_b = _Cluster(m, RANK, HIDDEN)

    def forward(self, i, x):
        return self.w_b.layer[i](self.w_a.layer[i](x))


class _Attn(nn.Module):
    def __init__(self, m, inputs):
        super().__init__()
        self.proj_q, self.proj_v = _Branch(m, inputs), _Branch(m, inputs)


class _Block(nn.Module):
    def __init__(self, m, inputs):
        super().__init__()
        self.attn = _Attn(m, inputs)


class _Body(nn.Module):
    def __init__(self, m, inputs, classes):
        super().__init__()
        self.blocks = nn.ModuleList([_Block(m, inputs)])
        self.fc = _Cluster(m, HIDDEN, classes, bias=True)


class OfficialShaped(nn.Module):
    """All m particles of ``LowRankNet`` under the official LoRA-ViT parameter names."""

    def __init__(self, m, inputs, classes):
        super().__init__()
        self.m = m
        self.lora_vit = _Body(m, inputs, classes)

    def load(self, ens: ParticleEnsemble, theta: torch.Tensor) -> None:
        attn = self.lora_vit.blocks[0].attn
        for i in range(self.m):
            p = ens.unflatten(theta[i])
            with torch.no_grad():
                attn.proj_q.w_a.layer[i].weight.copy_(p["qA.weight"])
                attn.proj_q.w_b.layer[i].weight.copy_(p["qB.weight"])
                attn.proj_v.w_a.layer[i].weight.copy_(p["vA.weight"])
                attn.proj_v.w_b.layer[i].weight.copy_(p["vB.weight"])
                self.lora_vit.fc.layer[i].weight.copy_(p["fc.weight"])
                self.lora_vit.fc.layer[i].bias.copy_(p["fc.bias"])

    def flat(self) -> torch.Tensor:
        """The particles as ours lays them out: (m, d)."""
        attn = self.lora_vit.blocks[0].attn
        rows = []
        for i in range(self.m):
            parts = [
                attn.proj_q.w_a.layer[i].weight,
                attn.proj_q.w_b.layer[i].weight,
                attn.proj_v.w_a.layer[i].weight,
                attn.proj_v.w_b.layer[i].weight,
                self.lora_vit.fc.layer[i].weight,
                self.lora_vit.fc.layer[i].bias,
            ]
            rows.append(torch.cat([p.detach().reshape(-1) for p in parts]))
        return torch.stack(rows)

    def logits(self, X) -> torch.Tensor:
        attn = self.lora_vit.blocks[0].attn
        out = []
        for i in range(self.m):
            h = torch.relu(attn.proj_q(i, X) + attn.proj_v(i, X))
            out.append(self.lora_vit.fc.layer[i](h))
        return torch.stack(out)  # (m, n, C)


class _Trainer:
    """What the official optimiser needs of its Lightning module: ``manual_backward``."""

    @staticmethod
    def manual_backward(loss):
        loss.backward()


@contextlib.contextmanager
def cuda_is_cpu():
    """``Tensor.cuda`` as the identity while the official optimiser runs (it allocates its
    buffers with ``torch.empty(0).cuda()``)."""
    saved = torch.Tensor.cuda
    torch.Tensor.cuda = lambda self, *a, **k: self
    try:
        yield
    finally:
        torch.Tensor.cuda = saved


class OfficialRunner:
    def __init__(self, src: str, net: OfficialShaped, sigma: float, rho: float):
        sys.path.insert(0, str(Path(src) / "src"))
        import utils as official  # noqa: PLC0415  (the official code, outside this repository)

        self.net = net
        params = [p for p in net.parameters()]
        self.opt = official.FHBI(
            params, rho=rho, sigma=sigma, lr=LR, betas=(0.9, 0.999), weight_decay=0.0,
            num_particles=net.m, train_module=_Trainer(), net=net,
        )  # fmt: skip

    def _backward(self, X, y):
        self.opt.zero_grad()
        logits = self.net.logits(X)  # (m, n, C)
        loss = sum(F.cross_entropy(logits[i], y) for i in range(self.net.m))
        loss.backward()

    def step(self, X, y):
        """The official training step for FHBI (``model.py``): backward, ``step1``, backward at
        the perturbed particles, ``step2``."""
        with cuda_is_cpu():
            self._backward(X, y)
            weights, kernels = self.opt.step1()
            self._backward(X, y)
            self.opt.step2(weights, kernels)
            self.opt.zero_grad()


def setup(name: str, seed: int, sigma: float, rho: float, src: str):
    split = load(name, seed)
    X, y = torch.tensor(split.X_train), torch.tensor(split.y_train)
    inputs, classes = X.shape[1], split.classes
    ens = ParticleEnsemble(lambda: LowRankNet(inputs, classes), particles=PARTICLES, seed=seed)
    net = OfficialShaped(PARTICLES, inputs, classes)
    net.load(ens, ens.theta)
    assert torch.equal(net.flat(), ens.theta)
    return split, X, y, ens, OfficialRunner(src, net, sigma, rho)


def reading(ens: ParticleEnsemble, loss, rho: float, sigma: float) -> torch.Tensor:
    """Our reading of the official update, written from ``step1``/``step2``: per parameter
    block b (qA, qB, vA, vB, fc weight, fc bias) its own perturbation norm
    ``eps_b = rho g_b / ||g_b||``, its own RBF kernel ``K_b``, and the autograd of
    ``sum_kl K_b(kl)`` with respect to the particles *added*:
    ``theta_b += lr (-K_b g'_b + d/dtheta_b sum K_b) / m``. -> (m, d)."""
    theta = ens.theta
    g = vmap(grad(loss))(theta)  # (m, d)
    blocks = lambda x: torch.split(x, ens.sizes, 1)  # noqa: E731
    eps = torch.cat([rho * b / b.norm(dim=1, keepdim=True) for b in blocks(g)], 1)
    moved = []
    for t, gb in zip(blocks(theta), blocks(vmap(grad(loss))(theta + eps)), strict=True):
        diff = t[:, None, :] - t[None, :, :]  # (m, m, d_b)
        K = torch.exp(-(diff**2).sum(-1) / (2 * sigma**2))  # (m, m)
        grad_sum_K = -2 * (K[:, :, None] * diff).sum(1) / sigma**2  # (m, d_b)
        moved.append(t + LR * (-K @ gb + grad_sum_K) / len(t))
    return torch.cat(moved, 1)


def exactness(src: str) -> list:
    rows = []
    for rho, sigma, label in ((0.0, 1e-3, "coincide"), (RHO, SIGMA, "paper")):
        split, X, y, ens, off = setup("digits", 0, sigma, rho, src)
        Xb, yb = X[:BATCH], y[:BATCH]
        loss = ens.loss_fn(Xb, yb)
        ours = fhbi_step(ens.theta, loss, lr=LR, rho=rho, bandwidth=sigma)
        read = reading(ens, loss, rho, sigma)
        off.step(Xb, yb)
        theirs = off.net.flat()
        rows.append(
            [
                f"rho {rho}, sigma {sigma} ({label})",
                float((ours - theirs).abs().max()),
                float((read - theirs).abs().max()),
                float((ours - ens.theta).abs().max()),
                float((theirs - ens.theta).abs().max()),
            ]
        )
    return rows


def speed(src: str) -> list:
    _, X, y, ens, off = setup("digits", 0, SIGMA, RHO, src)
    Xb, yb = X[:BATCH], y[:BATCH]
    loss = ens.loss_fn(Xb, yb)
    best = {"ours": float("inf"), "official": float("inf")}
    for _ in range(20):
        for name, fn in (
            ("ours", lambda: fhbi_step(ens.theta, loss, lr=LR, rho=RHO, bandwidth=SIGMA)),
            ("official", lambda: off.step(Xb, yb)),
        ):
            begin = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - begin)
    return [
        f"one FHBI step, digits 64-8-32-10 (d = {ens.dim})",
        best["ours"] * 1e3,
        best["official"] * 1e3,
        best["official"] / best["ours"],
    ]


def scores(proba: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    return nll(proba, y), accuracy(proba, y)


def training(src: str, name: str) -> list:
    out = {"ours": [], "official": []}
    secs = {"ours": 0.0, "official": 0.0}
    for seed in range(SEEDS):
        split, X, y, ens, off = setup(name, seed, SIGMA, RHO, src)
        theta = ens.theta
        for idx in batch_indices(len(y), min(BATCH, len(y)), STEPS, seed):
            Xb, yb = X[idx], y[idx]
            begin = time.perf_counter()
            theta = fhbi_step(theta, ens.loss_fn(Xb, yb), lr=LR, rho=RHO, bandwidth=SIGMA)
            secs["ours"] += time.perf_counter() - begin
            begin = time.perf_counter()
            off.step(Xb, yb)
            secs["official"] += time.perf_counter() - begin
        ens.theta = theta
        Xt = torch.tensor(split.X_test)
        out["ours"].append(scores(ens.predict_proba(Xt), split.y_test))
        with torch.no_grad():
            p = torch.softmax(off.net.logits(Xt), -1).mean(0).numpy().astype(np.float64)
        out["official"].append(scores(p, split.y_test))
    ours, theirs = np.array(out["ours"]), np.array(out["official"])
    rows = []
    for k, metric in enumerate(("test NLL", "test accuracy")):
        rows.append(
            [
                name,
                metric,
                secs["ours"] / SEEDS,
                secs["official"] / SEEDS,
                secs["official"] / secs["ours"],
                f"{ours[:, k].mean():.4f} ± {ours[:, k].std(ddof=1):.4f}",
                f"{theirs[:, k].mean():.4f} ± {theirs[:, k].std(ddof=1):.4f}",
                ours[:, k].mean() / theirs[:, k].mean(),
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-src", default=None, help="checkout of tranquyenbk173/FHVI")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"threads: torch {torch.get_num_threads()}")
    if args.official_src is None:
        print(
            "no --official-src: nothing to compare. Fetch github:tranquyenbk173/FHVI into a "
            "folder outside this repository and pass its root (the one holding src/utils.py)."
        )
        return
    src = args.official_src
    print("\n### one step from the same particles\n")
    header = ["setting", "max abs(ours - official)", "max abs(reading - official)",
              "max abs(our step)", "max abs(official step)"]  # fmt: skip
    print(table(header, exactness(src)))
    print("\n### speed (one thread)\n")
    header = ["setting", "ours ms", "official ms", "time ratio official/ours"]
    print(table(header, [speed(src)]))
    print(f"\n### training ({STEPS} steps, {SEEDS} seeds, rho {RHO}, sigma {SIGMA})\n")
    rows = []
    for name in ("moons", "breast_cancer", "digits"):
        rows += training(src, name)
    header = ["data", "metric", "ours s/run", "official s/run", "time ratio official/ours",
              "ours", "official", "ratio ours/official"]  # fmt: skip
    print(table(header, rows))
    print()
    calibration_table()


def calibration_table() -> None:
    """ECE and NLL of every method, read from the committed default-scale summary."""
    path = store.summary_path(store.results_dir(), "fhbi", "default", 0)
    if not path.is_file():
        print(f"(no committed summary at {path})")
        return
    m = store.read_summary(path)["measurements"]
    methods = ["fhbi", "svgd", "ensemble", "ensemble_sam", "mc_dropout"]
    rows = []
    for d in ("moons", "breast_cancer", "digits"):
        for key in ("nll", "ece", "accuracy"):
            rows.append([d, key, *[m[f"{key}_{k}_{d}"] for k in methods]])
    print(table(["dataset", "metric", *methods], rows))


if __name__ == "__main__":
    main()
