"""effort_aigi: the cost of training Effort's rank-1 residual against full fine-tuning (and LoRA).

The anchor is full fine-tuning of the same ViT, what a user would otherwise run. For each method
and ViT size, a fresh process builds the model and a batch stream, then runs Adam steps on a
binary cross-entropy loss; we report seconds per step (best of 3 repeats of ``steps`` steps) and
the growth of the process's peak resident memory during training (gradients, Adam's moments,
activations kept for the backward pass), measured with ``resource.getrusage`` in that process,
since tracemalloc does not see torch's allocator. One thread.

    python benchmarks/bench_effort_aigi.py
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.effort_aigi import TinyViT, build_detector, count_trainable  # noqa: E402

SIZES = [(64, 4, 16), (128, 6, 16), (256, 4, 16)]  # (dim, depth, image size)
METHODS = ("full", "lora", "effort")


def child(method: str, dim: int, depth: int, size: int, steps: int = 10, batch: int = 64) -> dict:
    torch.set_num_threads(1)
    backbone = TinyViT(size, 2, 1, dim, depth, heads=4, seed=0)
    backbone.head = torch.nn.Identity()
    det = build_detector(backbone, method, seed=0)
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(batch, 1, size, size, generator=gen)
    y = (torch.rand(batch, generator=gen) > 0.5).float()
    opt = torch.optim.Adam([p for p in det.parameters() if p.requires_grad], lr=1e-3)

    def step():
        loss = torch.nn.functional.binary_cross_entropy_with_logits(det(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    with torch.no_grad():
        det(x)  # the forward alone, before any gradient exists
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    best = float("inf")
    for _ in range(3):
        begin = time.perf_counter()
        for _ in range(steps):
            step()
        best = min(best, (time.perf_counter() - begin) / steps)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": best, "peak_mb": (peak - base) / 1024, "trainable": count_trainable(det)}


def main() -> None:
    rows = []
    for dim, depth, size in SIZES:
        res = {}
        for method in METHODS:
            cmd = [sys.executable, __file__, "--child", method, str(dim), str(depth), str(size)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            res[method] = json.loads(out.strip().splitlines()[-1])
        f, lo, e = res["full"], res["lora"], res["effort"]
        rows.append(
            [
                dim,
                depth,
                f"{size}x{size}",
                f["trainable"],
                e["trainable"],
                lo["trainable"],
                1000 * f["seconds"],
                1000 * e["seconds"],
                1000 * lo["seconds"],
                f["seconds"] / e["seconds"],
                f["peak_mb"],
                e["peak_mb"],
                lo["peak_mb"],
            ]
        )
        print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


HEADER = [
    "dim",
    "depth",
    "image",
    "trainable full",
    "trainable Effort",
    "trainable LoRA",
    "full ms/step",
    "Effort ms/step",
    "LoRA ms/step",
    "full / Effort time",
    "full peak growth MB",
    "Effort peak growth MB",
    "LoRA peak growth MB",
]

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        method, dim, depth, size = sys.argv[2], *map(int, sys.argv[3:6])
        print(json.dumps(child(method, dim, depth, size)))
    else:
        main()
