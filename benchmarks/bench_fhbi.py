"""fhbi: the vectorised FHBI step against a Python loop over particles, and the calibration table.

1. Steps per second of one FHBI step for 10 particles of a one-hidden-layer MLP on a mini-batch
   of 64: ours (``torch.func`` ``vmap`` over the stacked particles) against the anchor a user
   would write, a Python loop over the particles' ``nn.Module``s (``torch.autograd.grad`` for the
   gradient, the SAM perturbation and the gradient at the perturbed point), with the same
   vectorised kernel. Both start from the same particles; the updated particles must agree.
2. ECE and NLL of FHBI, SVGD, deep ensembles (plain and SAM) and MC dropout on the three
   datasets, read from the reproduction's committed default-scale summary (not recomputed).

One thread (``torch.set_num_threads(1)``). Peak memory is the Python-heap peak of tracemalloc
(torch's own CPU allocations are not traced by it).

    python benchmarks/bench_fhbi.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.fhbi import ParticleEnsemble, fhbi_step, kernel_terms, svgd_direction  # noqa: E402
from icml25.fhbi.reference import module_gradient, set_flat_params  # noqa: E402
from icml25.lab import store  # noqa: E402

SIZES = [(2, 32, 2), (30, 32, 2), (64, 32, 10), (64, 256, 10)]  # (inputs, hidden, classes)
PARTICLES, BATCH, RHO, LR = 10, 64, 0.03, 1.0


def anchor(modules, theta, X, y):
    """FHBI step with a Python loop over particles for the gradients. -> (m, d)."""
    grads = []
    for module, t in zip(modules, theta, strict=True):
        set_flat_params(module, t)
        g = module_gradient(module, X, y)
        set_flat_params(module, t + RHO * g / g.norm())
        grads.append(module_gradient(module, X, y))
        set_flat_params(module, t)
    K, R = kernel_terms(theta)
    return theta + LR * svgd_direction(torch.stack(grads), K, R)


def one_size(inputs: int, hidden: int, classes: int) -> list:
    def model_fn():
        return torch.nn.Sequential(
            torch.nn.Linear(inputs, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, classes)
        )

    ens = ParticleEnsemble(model_fn, particles=PARTICLES, seed=0)
    gen = torch.Generator().manual_seed(0)
    X = torch.randn(BATCH, inputs, generator=gen)
    y = torch.randint(0, classes, (BATCH,), generator=gen)
    modules = [model_fn() for _ in range(PARTICLES)]
    loss = ens.loss_fn(X, y)
    t_ours, mem_ours, ours = measure(lambda: fhbi_step(ens.theta, loss, lr=LR, rho=RHO), 20)
    t_anchor, mem_anchor, ref = measure(lambda: anchor(modules, ens.theta, X, y), 20)
    return [
        f"{inputs}-{hidden}-{classes} (d = {ens.dim})",
        1 / t_ours,
        1 / t_anchor,
        t_anchor / t_ours,
        mem_ours,
        mem_anchor,
        float((ours - ref).abs().max()),
    ]


def main() -> None:
    torch.set_num_threads(1)
    rows = [one_size(*size) for size in SIZES]
    header = ["MLP", "ours steps/s", "loop steps/s", "speed-up", "ours MB", "loop MB", "max diff"]
    print(table(header, rows))
    print()
    calibration_table()


def calibration_table() -> None:
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
