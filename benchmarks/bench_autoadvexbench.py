"""autoadvexbench: the batched EOT gradient against the loop over draws, and what the sandbox
costs per Python run.

EOT (Athalye et al. 2018) averages the input gradient over K draws of a randomised defence.
The anchor is what one writes first: K forward/backward passes, one per draw. Ours stacks the
K copies into one (K n)-row batch (``attacks.attack_loss``). Both take their draws from the same
seeded generator in the same order, so the gradients must agree.

The second table: a guarded sandbox run (rlimits, clean environment, Landlock and seccomp where
the kernel has them, audit hook, numpy and torch preloaded) of a script that imports torch,
against ``subprocess.run([python, script])``.

No memory column: the harness's tracemalloc does not see torch's allocator, and both sides
hold a few (K n, 64) float tensors (under 10 MB at the largest size).

    python benchmarks/bench_autoadvexbench.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.autoadvexbench import Limits, Sandbox, build_defense  # noqa: E402
from icml25.autoadvexbench.attacks import attack_loss  # noqa: E402

SIZES = [(100, 8), (250, 8), (250, 32), (500, 16)]  # (images n, draws K)


def anchor(defense, x, y, draws):
    """One draw at a time: K forward and backward passes. -> (n, 1, 8, 8)"""
    defense.reseed(0)
    x = x.clone().requires_grad_(True)
    total = torch.zeros_like(x)
    for _ in range(draws):
        loss = F.cross_entropy(defense(x), y, reduction="sum")
        total += torch.autograd.grad(loss, x)[0]
    return total / draws


def ours(defense, x, y, draws):
    """All K draws in one batch. -> (n, 1, 8, 8)"""
    defense.reseed(0)
    x = x.clone().requires_grad_(True)
    loss = attack_loss(defense, x, y, bpda=False, eot=draws, detector_weight=0.0)
    return torch.autograd.grad(loss, x)[0]


def eot_rows():
    torch.set_num_threads(1)
    defense = build_defense({"kind": "random_noise", "sigma": 0.5}, seed=0).eval()
    rows = []
    for n, draws in SIZES:
        g = torch.Generator().manual_seed(n)
        x = torch.rand(n, 1, 8, 8, generator=g)
        y = torch.randint(0, 10, (n,), generator=g)
        t_anchor, _, g_anchor = measure(lambda a=(defense, x, y, draws): anchor(*a), repeat=3)
        t_ours, _, g_ours = measure(lambda a=(defense, x, y, draws): ours(*a), repeat=3)
        diff = float((g_ours - g_anchor).abs().max() / g_anchor.abs().max())
        rows.append([n, draws, t_anchor, t_ours, t_anchor / t_ours, diff])
    return rows


def sandbox_rows():
    script = "import torch\nprint(torch.ones(3).sum().item())\n"
    with tempfile.TemporaryDirectory() as folder:
        box = Sandbox(folder, Limits())
        box.write_file("s.py", script)
        plain = [sys.executable, str(Path(folder, "s.py"))]
        t_plain, _, _ = measure(lambda: subprocess.run(plain, capture_output=True), repeat=3)
        t_box, _, run = measure(lambda: box.run_python("s.py"), repeat=3)
        assert run.returncode == 0 and not run.refusals, run
    return [[t_plain, t_box, t_box / t_plain]]


def main() -> None:
    print(
        table(
            [
                "n",
                "draws K",
                "loop over draws s",
                "batched s",
                "speed-up",
                "max rel. diff",
            ],
            eot_rows(),
        )
    )
    print()
    print(table(["plain subprocess s", "guarded sandbox s", "ratio"], sandbox_rows()))


if __name__ == "__main__":
    main()
