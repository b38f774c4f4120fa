"""ucgs_avr: generator throughput, solver throughput, and the generative solver's accuracy and
training time beside the discriminative baseline's, on the same generated matrices.

The anchor a user would otherwise pick is the discriminative solver (a RAVEN-style scorer of
context + candidate, trained on answers): it answers only the format it was trained on. Both run
on one thread at the same model size; accuracy is on held-out I-RAVEN matrices (chance 1/8).

    python benchmarks/bench_ucgs_avr.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import torch

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
    torch.set_num_threads(1)
    begin = time.perf_counter()
    print(table(["generator", "puzzles (panels) per s", "peak MB"], generator_rows()), flush=True)
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
