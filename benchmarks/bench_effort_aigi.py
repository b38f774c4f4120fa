"""effort_aigi: Effort's SVD residual layers against the official ``SVDResidualLinear`` of
YZY-stack/Effort-AIGI-Detection (``DeepfakeBench/training/detectors/effort_detector.py``), and
the cost of a training step against full fine-tuning and LoRA.

1. official (needs ``--official-src``, the repository's ``DeepfakeBench/training`` folder): one
   small CLIP vision tower (``transformers.CLIPVisionModel``, random weights from one seed, the
   architecture the official detector adapts), copied twice: the official
   ``apply_svd_residual_to_self_attn(model, r=dim - 1)`` on one copy, our ``apply_effort`` on the
   other, the same 2-class head on both (the official ``nn.Linear(dim, 2)`` and cross-entropy).
   Both train on the same batches of real digits against fakes (the same digits with a fixed
   checkerboard of amplitude 0.1 added) with the official optimiser (Adam, lr 2e-4, weight
   decay 5e-4), in alternation (one step of each, so machine load hits both alike); then
   held-out AUC
   (``sklearn.metrics.roc_auc_score``), the largest logit difference between the two models, and
   the best time per step and per inference pass. The official module's imports that the two
   functions do not use (DeepfakeBench's registries, loss and network packages, ``loralib``,
   TensorBoard) are stood in for by empty modules; its file is read from ``--official-src`` and
   never copied here.
2. cost (``--cost``): for each method and ViT size, a fresh process builds the model and a batch
   stream, then runs Adam steps on a binary cross-entropy loss; seconds per step (best of 3
   repeats of ``steps`` steps) and the growth of the process's peak resident memory during
   training, measured with ``resource.getrusage`` (tracemalloc does not see torch's allocator).

One thread.

    python benchmarks/bench_effort_aigi.py --official-src <checkout>/DeepfakeBench/training
    python benchmarks/bench_effort_aigi.py --cost
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import resource
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import torch
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.effort_aigi import (  # noqa: E402
    TinyViT,
    apply_effort,
    build_detector,
    count_trainable,
    digits,
)

SIZES = [(64, 4, 16), (128, 6, 16), (256, 4, 16)]  # (dim, depth, image size)
METHODS = ("full", "lora", "effort")


def load_official(src: str) -> types.ModuleType:
    """The official ``detectors/effort_detector.py`` under ``src`` (DeepfakeBench/training), its
    unused imports stood in for by empty modules."""
    path = Path(src) / "detectors" / "effort_detector.py"
    if not path.is_file():
        raise SystemExit(f"--official-src: {path} not found (DeepfakeBench/training expected)")
    registry = types.SimpleNamespace(register_module=lambda **_: lambda cls: cls)
    stubs = {
        "metrics": {},
        "metrics.base_metrics_class": {"calculate_metrics_for_train": None},
        "detectors": {"DETECTOR": registry, "__path__": [str(path.parent)]},
        "networks": {"BACKBONE": registry},
        "loss": {"LOSSFUNC": registry},
        "loralib": {},
        "torch.utils.tensorboard": {"SummaryWriter": None},
    }
    for name, attrs in stubs.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        sys.modules.setdefault(name, module)
    spec = importlib.util.spec_from_file_location("detectors.effort_detector", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Detector(torch.nn.Module):
    """The official detector's shape: CLIP vision tower, ``pooler_output``, a 2-class head."""

    def __init__(self, tower: torch.nn.Module, head: torch.nn.Linear):
        super().__init__()
        self.tower, self.head = tower, head

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.tower(x).pooler_output)  # (B, 2)


def official_rows(src: str, steps: int = 150, batch: int = 64, dim: int = 64, layers: int = 4):
    """Train the official and our Effort layers side by side on the same tower, data and steps."""
    from transformers import CLIPVisionConfig, CLIPVisionModel  # noqa: PLC0415

    official = load_official(src)
    torch.set_num_threads(1)
    torch.manual_seed(0)  # transformers initialises from torch's global generator
    config = CLIPVisionConfig(
        hidden_size=dim,
        intermediate_size=4 * dim,
        num_hidden_layers=layers,
        num_attention_heads=4,
        image_size=8,
        patch_size=2,
        num_channels=1,
    )
    tower = CLIPVisionModel(config).eval()
    head = torch.nn.Linear(dim, 2)
    theirs = Detector(official.apply_svd_residual_to_self_attn(copy.deepcopy(tower), dim - 1), head)
    ours = Detector(apply_effort(copy.deepcopy(tower)), copy.deepcopy(head))
    theirs.head = copy.deepcopy(head)
    models = {"official": theirs, "ours": ours}

    images, _ = digits()  # (n, 1, 8, 8) in [-1, 1]
    checker = 0.1 * (np.indices((8, 8)).sum(0) % 2 * 2 - 1).astype(np.float32)  # (8, 8)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(images))
    train, test = images[order[:1200]], images[order[1200:]]

    def labelled(x):  # real (0) and fake (1) copies of x -> (2 n, 1, 8, 8), (2 n,)
        fake = np.clip(x + checker, -1, 1)
        return torch.as_tensor(np.concatenate([x, fake])), torch.arange(2).repeat_interleave(len(x))

    x_train, y_train = labelled(train)
    x_test, y_test = labelled(test)

    with torch.no_grad():
        init_diff = float((ours(x_test) - theirs(x_test)).abs().max())
    opts = {
        k: torch.optim.Adam([p for p in m.parameters() if p.requires_grad], 2e-4, weight_decay=5e-4)
        for k, m in models.items()
    }
    gen = torch.Generator().manual_seed(0)
    best = dict.fromkeys(models, float("inf"))
    for _ in range(steps):
        idx = torch.randint(len(x_train), (batch,), generator=gen)
        for k, model in models.items():  # alternate: one step of each
            begin = time.perf_counter()
            loss = torch.nn.functional.cross_entropy(model(x_train[idx]), y_train[idx])
            opts[k].zero_grad(set_to_none=True)
            loss.backward()
            opts[k].step()
            best[k] = min(best[k], time.perf_counter() - begin)
    infer = dict.fromkeys(models, float("inf"))
    with torch.no_grad():
        for _ in range(5):
            for k, model in models.items():
                begin = time.perf_counter()
                logits = model(x_test)
                infer[k] = min(infer[k], time.perf_counter() - begin)
        logits = {k: m(x_test) for k, m in models.items()}
    auc = {k: roc_auc_score(y_test.numpy(), (v[:, 1] - v[:, 0]).numpy()) for k, v in logits.items()}
    trained_diff = float((logits["ours"] - logits["official"]).abs().max())
    rows = [
        [
            "train step (batch 64)",
            1e3 * best["ours"],
            1e3 * best["official"],
            best["official"] / best["ours"],
            "",
            "",
            "",
        ],
        [
            f"inference ({len(x_test)} images), held-out AUC after {steps} steps",
            1e3 * infer["ours"],
            1e3 * infer["official"],
            infer["official"] / infer["ours"],
            auc["ours"],
            auc["official"],
            auc["ours"] / auc["official"],
        ],
    ]
    facts = (
        f"trainable parameters: ours {count_trainable(ours)}, official {count_trainable(theirs)}; "
        f"max |logit difference|: {init_diff:.2g} at initialisation, {trained_diff:.2g} after "
        f"{steps} steps"
    )
    return rows, facts


OFFICIAL_HEADER = [
    "setting",
    "ours ms",
    "official ms",
    "time ratio (official / ours)",
    "ours AUC",
    "official AUC",
    "AUC ratio (ours / official)",
]


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


def cost_rows() -> None:
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--official-src", help="DeepfakeBench/training of the official repository")
    parser.add_argument("--cost", action="store_true", help="the full / LoRA / Effort cost table")
    args = parser.parse_args()
    print(f"threads: 1, torch {torch.__version__}")
    if args.official_src:
        rows, facts = official_rows(args.official_src)
        print(table(OFFICIAL_HEADER, rows))
        print(facts, flush=True)
    else:
        print(
            "official rows skipped: fetch github:YZY-stack/Effort-AIGI-Detection and pass "
            "--official-src <checkout>/DeepfakeBench/training"
        )
    if args.cost:
        cost_rows()


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
