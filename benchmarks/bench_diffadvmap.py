"""diffadvmap: attack time per image of DiffAdvMAP against the anchor, PGD-Linf.

PGD (20 steps) costs 20 forward and backward passes of the classifier; DiffAdvMAP at t* with
one gradient step per reverse step costs, per step, a forward and backward pass through the
denoiser and the classifier plus one more denoiser call, so it is expected to be slower by
roughly (denoiser cost / classifier cost) x (t* + 1) / 20. Both run on the same classifier (the
reproduction's SmallCNN) and the shared U-Net (weights do not change the time); one thread.
Peak memory is the rise of the resident set's high-water mark over one call, in a fresh
process per attack, the mark reset just before the call (Linux ``/proc/self/clear_refs``;
torch's CPU tensors are not seen by tracemalloc).

    python benchmarks/bench_diffadvmap.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.common.diffusion import NoiseSchedule, UNet  # noqa: E402
from icml25.diffadvmap import SmallCNN, attack, pgd_linf  # noqa: E402

SIZES = [  # (channels, side, batch, t_star, unet width)
    (1, 8, 1, 20, 16),
    (1, 8, 64, 20, 16),
    (1, 8, 64, 40, 16),
    (3, 32, 16, 20, 32),
]


def _call(size: int, method: str):
    """The attack ``method`` ("pgd" or "diffadvmap") on the inputs of ``SIZES[size]``."""
    c, side, batch, t_star, width = SIZES[size]
    gen = torch.Generator().manual_seed(0)
    x = torch.rand((batch, c, side, side), generator=gen) * 2 - 1
    y = torch.randint(10, (batch,), generator=gen)
    model = SmallCNN(c, 10, 16, seed=0).eval().requires_grad_(False)
    if method == "pgd":
        return lambda: pgd_linf(model, x, y, epsilon=0.3, steps=20)
    unet = UNet(c, width, seed=0).eval().requires_grad_(False)
    schedule = NoiseSchedule(100)
    return lambda: attack(model, unet, x, y, t_star=t_star, schedule=schedule, kappa=-5.0)


def _status_kb(field: str) -> int:
    """A memory field of /proc/self/status, in kB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _peak_mb(size: int, method: str) -> float:
    """Rise of the peak resident memory over one call, measured in a fresh process."""
    args = [sys.executable, __file__, "--peak", str(size), method]
    return float(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def main() -> None:
    torch.set_num_threads(1)
    rows = []
    for i, (c, side, batch, t_star, _) in enumerate(SIZES):
        t_pgd, _, _ = measure(_call(i, "pgd"), repeat=3)
        t_dam, _, out = measure(_call(i, "diffadvmap"), repeat=1)
        m_pgd, m_dam = _peak_mb(i, "pgd"), _peak_mb(i, "diffadvmap")
        assert out.shape == (batch, c, side, side)
        rows.append(
            [
                f"{c}x{side}x{side}",
                batch,
                t_star,
                1e3 * t_pgd / batch,
                1e3 * t_dam / batch,
                t_dam / t_pgd,
                m_pgd,
                m_dam,
                torch.get_num_threads(),
            ]
        )
    header = [
        "image",
        "batch",
        "t*",
        "PGD-20 ms/img",
        "DiffAdvMAP ms/img",
        "ratio",
        "PGD peak MB",
        "DiffAdvMAP peak MB",
        "threads",
    ]
    print(table(header, rows))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--peak"]:
        torch.set_num_threads(1)
        fn = _call(int(sys.argv[2]), sys.argv[3])
        Path("/proc/self/clear_refs").write_text("5")  # Linux: reset the peak (VmHWM) to now
        before = _status_kb("VmRSS")
        fn()
        print((_status_kb("VmHWM") - before) / 1024)
    else:
        main()
