"""ucgs_avr: the generative solver against the official UCGS-T reasoner (FudanVI/
generative-abstract-reasoning, ``ucgs/model_ucgst/main.py`` and ``ucgs/function_anp/hanp.py``)
trained on the same tokenised matrices; generator throughput; and (``--discriminative``) the
discriminative baseline.

1. official (needs ``--official-src``, the repository's ``ucgs`` folder): the same 10,000
   generated I-RAVEN-style training matrices and 500 test matrices, tokenised by our
   ``PatchCodebook`` (128 codes, 2 x 2 cells per 24 x 24 panel). The official ``MainNet`` reads
   panels through a trained VQ-VAE (a checkpoint it loads in its constructor) and hard-codes
   three 12-layer transformers and a 4 x 4 code grid; no VQ-VAE is trained here, so the
   benchmark builds a ``MainNet`` without its constructor: its own ``DeterHANP`` reasoner (slot
   image encoder, panel encoder, autoregressive code decoder) at our model's width (64), heads
   (4) and depth (2 layers per stack), 8 slots, its learned panel positions, and a frozen
   stand-in for the VQ-VAE whose codes are our patch codes and whose code vectors are the
   codebook's centroids (pixels / 255). Its ``forward`` (the negative ELBO with every panel
   hidden in turn) is trained with its trainer's optimiser (Adam, no clipping) at our peak
   learning rate, for as many steps of 64 matrices as ours; its ``metric`` scores the eight
   candidates (the answer put first, as it expects). Ours: ``GenerativeSolver`` (AdamW, warm-up
   and cosine decay, clipping 1.0, 1 to 4 panels hidden at random). Training runs one after
   the other (ours, then the official), so load can differ between them; answering is
   interleaved, best of 3. ``lib/utils.py`` imports ``torchvision.utils.make_grid`` (for
   figures); where torchvision is absent it is stood in for by an empty module. Its files are
   read from ``--official-src`` and never copied here.
2. generator: puzzles generated and panels rendered per second.
3. discriminative (``--discriminative``): the RAVEN-style discriminative scorer beside ours.

One thread; time ratios under load are indicative.

    python benchmarks/bench_ucgs_avr.py --official-src <checkout>/ucgs
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import types
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.ucgs_avr import (  # noqa: E402
    BaselineConfig,
    DiscriminativeSolver,
    GenerativeSolver,
    PatchCodebook,
    SolverConfig,
    generate_analogies,
    generate_matrices,
    generate_odd_one_out,
    render,
)


def generator_rows() -> list[list[object]]:
    rows = []
    for name, make in (
        ("matrix (I-RAVEN candidates)", lambda: generate_matrices(500, seed=0)),
        ("matrix (RAVEN candidates)", lambda: generate_matrices(500, seed=0, style="raven")),
        ("odd-one-out", lambda: generate_odd_one_out(500, seed=0)),
        ("analogy", lambda: generate_analogies(500, seed=0)),
    ):
        seconds, peak, puzzles = measure(make, repeat=2)
        rows.append([name, 500 / seconds, peak])
    panels = generate_matrices(2000, seed=1).panels
    seconds, peak, _ = measure(lambda: render(panels), repeat=2)
    rows.append(["render 24x24 panels", panels[..., 0].size / seconds, peak])
    return rows


class CodeBackbone(nn.Module):
    """Stands in for the official VQ-VAE: ``encode`` takes code grids (N, 1, 2, 2) and returns
    the official triple (code vectors (N, D, 2, 2), None, codes (N, 2, 2)); ``embed_code`` maps
    codes (...) to vectors (..., D). ``table``: the vector of each code (K, D)."""

    def __init__(self, table: torch.Tensor):
        super().__init__()
        self.register_buffer("table", table)

    def encode(self, grids: torch.Tensor):
        codes = grids[:, 0]  # (N, 2, 2)
        return self.table[codes].permute(0, 3, 1, 2), None, codes

    def embed_code(self, codes: torch.Tensor) -> torch.Tensor:
        return self.table[codes]


def load_official(src: str) -> types.SimpleNamespace:
    """The official ``MainNet``, ``DeterHANP``, ``LearnedPositionalEmbedding1D`` and
    ``BaseNetwork`` from ``src`` (the repository's ``ucgs`` folder)."""
    if not (Path(src) / "model_ucgst" / "main.py").is_file():
        raise SystemExit(f"--official-src: {src}/model_ucgst/main.py not found")
    try:
        importlib.import_module("torchvision.utils")
    except ImportError:  # only its figure helper needs it
        for name in ("torchvision", "torchvision.utils"):
            sys.modules[name] = types.ModuleType(name)
        sys.modules["torchvision.utils"].make_grid = None
    sys.path.insert(0, str(src))
    main = importlib.import_module("model_ucgst.main")
    return types.SimpleNamespace(
        MainNet=main.MainNet,
        DeterHANP=main.DeterHANP,
        PE=main.LearnedPositionalEmbedding1D,
        BaseNetwork=main.BaseNetwork,
    )


def official_model(official, table: torch.Tensor, c: SolverConfig, seed: int) -> nn.Module:
    """A ``MainNet`` built from its parts at our model's sizes (see the module docstring)."""
    torch.manual_seed(seed)  # the official modules initialise from torch's global generator
    n_codes, dim = table.shape
    args = types.SimpleNamespace(
        latent_size=c.n_embd, rule_size=c.n_embd, dec_size=c.n_embd, n_embed=n_codes
    )
    net = official.MainNet.__new__(official.MainNet)
    nn.Module.__init__(net)
    official.BaseNetwork.__init__(net, args)
    net.device, net.args, net.h_pe = torch.device("cpu"), args, c.n_embd
    net.backbone = CodeBackbone(table)
    net.pe = official.PE(16, c.n_embd, dropout=0.0)
    layers = {f"{part}_layer": c.n_layer for part in ("image", "panel", "dec")}
    heads = {f"{part}_head": c.n_head for part in ("image", "panel", "dec")}
    net.reasoner = official.DeterHANP(
        c.n_embd,
        c.n_embd,
        dim,
        net.backbone,
        n_codes,
        2,
        **layers,
        **heads,
        dropout=0.0,
        num_slot=8,
        dec_hidden=c.n_embd,
    )
    return net


def grids(tokens: np.ndarray) -> torch.Tensor:
    """Our tokens (N, P, 4) as the official panel tensors (N, P, 1, 2, 2)."""
    return torch.as_tensor(tokens, dtype=torch.int64).reshape(*tokens.shape[:2], 1, 2, 2)


def official_rows(src: str, steps: int, seeds: int):
    official = load_official(src)
    train = generate_matrices(10000, seed=2)
    test = generate_matrices(500, seed=3)
    codebook = PatchCodebook(128, seed=0).fit(render(train.panels[:2000]))
    tok = codebook.encode(render(train.panels))  # (N, 9, 4)
    ctx = codebook.encode(render(test.panels[:, :8]))  # (n, 8, 4)
    cands = codebook.encode(render(test.candidates))  # (n, 8, 4)
    table = torch.as_tensor(codebook.kmeans.cluster_centers_ / 255.0, dtype=torch.float32)
    # the official metric expects the answer first, then the seven distractors
    n = len(cands)
    order = np.argsort(np.arange(8)[None] != test.answer[:, None], axis=1, kind="stable")
    first = np.take_along_axis(cands, order[..., None], axis=1)  # (n, 8, 4), answer at 0
    problem, answer, others = grids(ctx), grids(first[:, :1]), grids(first[:, 1:])
    config = SolverConfig(steps=steps, lr=3e-3, max_extra_hidden=3)
    results = {"ours": [], "official": []}
    train_s = {"ours": [], "official": []}
    answer_s = {"ours": float("inf"), "official": float("inf")}
    params, cpu_s = {}, {}
    for seed in range(seeds):
        cpu = time.process_time()
        ours = GenerativeSolver(codebook.n_codes, config, seed=seed).fit(tok)
        train_s["ours"].append(ours.train_seconds / steps)
        cpu_s["ours"] = (time.process_time() - cpu) / steps
        params["ours"] = sum(p.numel() for p in ours.net.parameters())
        net = official_model(official, table, config, seed)
        params["official"] = sum(p.numel() for p in net.parameters() if p.requires_grad)
        opt = torch.optim.Adam([p for p in net.parameters() if p.requires_grad], lr=config.lr)
        gen = torch.Generator().manual_seed(seed)
        full = grids(tok)
        blank = torch.zeros(config.batch, 0, 1, 2, 2, dtype=torch.int64)  # no distractors
        net.train()
        begin, cpu = time.perf_counter(), time.process_time()
        for _ in range(steps):
            batch = full[torch.randint(len(full), (config.batch,), generator=gen)]
            loss, _ = net(batch[:, :8], batch[:, 8:], blank)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        train_s["official"].append((time.perf_counter() - begin) / steps)
        cpu_s["official"] = (time.process_time() - cpu) / steps
        net.eval()
        for _ in range(3):  # interleaved, best of 3
            begin = time.perf_counter()
            scores = ours.answer_matrix(ctx, cands)
            answer_s["ours"] = min(answer_s["ours"], (time.perf_counter() - begin) / n)
            begin = time.perf_counter()
            with torch.no_grad():
                acc = float(net.metric(problem, answer, others)["ACC"])
            answer_s["official"] = min(answer_s["official"], (time.perf_counter() - begin) / n)
        results["ours"].append(float(np.mean(scores.argmax(1) == test.answer)))
        results["official"].append(acc)
        print(f"seed {seed}: ours {results['ours'][-1]:.3f}, official {acc:.3f}", flush=True)
    o, f = np.array(results["ours"]), np.array(results["official"])
    spread = lambda a: f"{a.mean():.3f} ({a.min():.3f}-{a.max():.3f})"  # noqa: E731
    rows = [
        [
            f"train step (64 matrices), {steps} steps",
            1e3 * min(train_s["ours"]),
            1e3 * min(train_s["official"]),
            min(train_s["official"]) / min(train_s["ours"]),
            "",
            "",
            "",
        ],
        [
            f"answer {n} test matrices (8 candidates): accuracy, {seeds} seeds",
            1e3 * answer_s["ours"],
            1e3 * answer_s["official"],
            answer_s["official"] / answer_s["ours"],
            spread(o),
            spread(f),
            float(o.mean() / f.mean()),
        ],
    ]
    facts = (
        f"trainable parameters: ours {params['ours']}, official reasoner {params['official']}; "
        f"CPU seconds per training step (last seed): ours {cpu_s['ours']:.3g}, official "
        f"{cpu_s['official']:.3g}"
    )
    return rows, facts


OFFICIAL_HEADER = [
    "setting",
    "ours ms",
    "official ms",
    "time ratio (official / ours)",
    "ours (seed range)",
    "official (seed range)",
    "ratio (ours / official)",
]


def solver_rows(steps: int = 3500) -> list[list[object]]:
    """The default scale's budget: the discriminative solver takes half the steps of twice the
    sequences (8 candidates of 16 puzzles against 64 matrices), the same panel vectors."""
    train = generate_matrices(10000, seed=2)
    test = generate_matrices(500, seed=3)
    codebook = PatchCodebook(128, seed=0).fit(render(train.panels[:2000]))
    tok = codebook.encode(render(train.panels))
    ctx, cands = (
        codebook.encode(render(test.panels[:, :8])),
        codebook.encode(render(test.candidates)),
    )
    gen = GenerativeSolver(
        codebook.n_codes, SolverConfig(steps=steps, lr=3e-3, max_extra_hidden=3), seed=0
    ).fit(tok)
    disc = DiscriminativeSolver(
        codebook.n_codes, BaselineConfig(steps=steps // 2, batch=16), seed=0
    )
    disc.fit(tok[:, :8], codebook.encode(render(train.candidates)), train.answer)
    rows = []
    for name, model, answer in (
        ("generative (UCGS)", gen, lambda: gen.answer_matrix(ctx, cands)),
        ("discriminative", disc, lambda: disc.score(ctx, cands)),
    ):
        seconds, peak, scores = measure(answer, repeat=3)
        accuracy = float(np.mean(scores.argmax(1) == test.answer))
        rows.append(
            [name, len(model.losses), model.train_seconds, accuracy, len(ctx) / seconds, peak]
        )
    odd = generate_odd_one_out(500, seed=4)
    odd_tok = codebook.encode(render(odd.panels))
    seconds, _, scores = measure(lambda: gen.answer_odd_one_out(odd_tok), repeat=3)
    rows.append(
        [
            "generative, odd-one-out",
            steps,
            gen.train_seconds,
            float(np.mean(scores.argmin(1) == odd.answer)),
            len(odd_tok) / seconds,
            float("nan"),
        ]
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--official-src", help="the ucgs folder of the official repository")
    parser.add_argument("--steps", type=int, default=10, help="training steps of both")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--discriminative", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"threads: 1, torch {torch.__version__}")
    begin = time.perf_counter()
    if args.official_src:
        rows, facts = official_rows(args.official_src, args.steps, args.seeds)
        print(table(OFFICIAL_HEADER, rows))
        print(facts, flush=True)
    else:
        print(
            "official rows skipped: fetch github:FudanVI/generative-abstract-reasoning and pass "
            "--official-src <checkout>/ucgs"
        )
    print(table(["generator", "puzzles (panels) per s", "peak MB"], generator_rows()), flush=True)
    if not args.discriminative:
        print(f"total {time.perf_counter() - begin:.0f} s")
        return
    rows = solver_rows()
    print(
        table(
            [
                "solver",
                "train steps",
                "train s",
                "matrix accuracy",
                "puzzles answered per s",
                "peak MB (answering)",
            ],
            rows,
        )
    )
    print(
        f"generative / discriminative training time: {rows[0][2] / rows[1][2]:.3g}; "
        f"answering speed: {rows[0][4] / rows[1][4]:.3g}; total {time.perf_counter() - begin:.0f} s"
    )


if __name__ == "__main__":
    main()
