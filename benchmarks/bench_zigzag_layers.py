"""zigzag_layers: the pipeline's stages, FastZigzag vs the plain zigzag, vs per-layer GUDHI.

On all-MiniLM-L6-v2 (7 representations, mean pooling) for 300 and 1000 prompts of the
reproduction's 4 families, k = 5, flag complexes up to triangles:

- ``reps``: :func:`layer_representations` (the forward pass);
- ``complexes``: :func:`zigzag_filtration` (k-NN graphs, GUDHI flag complexes, global ids);
- ``fast`` / ``plain``: :func:`zigzag_barcode` with FastZigzag (dionysus cone) and with the
  classical zigzag algorithm; ``fast / plain`` is the ratio of their times (> 1: plain is
  faster);
- ``descriptors``: Betti curves, persistence matrix, birth frequency, persistence image and
  pruning scores from the barcode;
- ``per-layer GUDHI``: what a user would do without zigzag persistence, static persistent
  homology of every layer's complex on its own (GUDHI), which gives the Betti numbers but no
  correspondence of cycles across layers; ``betti equal`` checks that the zigzag's per-layer
  Betti numbers (H0, H1) are GUDHI's.

Wall times on one thread, best of ``--repeat``; peak memory traced by tracemalloc (Python
allocations only, not dionysus' C++ ones) of the fast zigzag in MB.

    python benchmarks/bench_zigzag_layers.py [--sizes 300 1000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.zigzag_layers import (  # noqa: E402
    betti_curves,
    birth_relative_frequency,
    build_prompts,
    layer_representations,
    layer_scores,
    load_minilm,
    persistence_image,
    persistence_matrix,
    static_betti,
    zigzag_barcode,
    zigzag_filtration,
)

FAMILIES = ("docstring", "code", "cooking", "sport")


def descriptors(bars: np.ndarray, L: int) -> None:
    betti_curves(bars, L)
    persistence_matrix(bars, L, 1)
    birth_relative_frequency(bars, L, 1)
    persistence_image(bars, L, 1)
    layer_scores(bars, L, 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(1)
    model = load_minilm()
    rows = []
    for n in args.sizes:
        texts, _ = build_prompts(FAMILIES, n // len(FAMILIES))
        t_reps, _, reps = measure(lambda t=texts: layer_representations(model, t, "mean"), 1)
        t_cx, _, zz = measure(lambda r=reps: zigzag_filtration(r, k=5, max_dim=2), args.repeat)
        t_fast, mem, bars = measure(lambda z=zz: zigzag_barcode(z, "fast"), args.repeat)
        t_plain, _, plain = measure(lambda z=zz: zigzag_barcode(z, "plain"), args.repeat)
        L = zz.n_layers
        t_desc, _, _ = measure(lambda b=bars, L=L: descriptors(b, L), args.repeat)
        t_gudhi, _, static = measure(
            lambda z=zz: (
                np.stack([static_betti(z.layer_simplices(i), 1) for i in range(z.n_layers)]).T
            ),
            args.repeat,
        )
        rows.append(
            [
                len(texts),
                int(zz.simplices.shape[0]),
                len(bars),
                t_reps,
                t_cx,
                t_fast,
                t_plain,
                t_fast / t_plain,
                t_desc,
                t_gudhi,
                mem,
                bool(np.array_equal(bars, plain)),
                bool(np.array_equal(betti_curves(bars, L), static)),
            ]
        )
        print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


HEADER = [
    "prompts",
    "simplices",
    "bars",
    "reps s",
    "complexes s",
    "fast s",
    "plain s",
    "fast / plain",
    "descriptors s",
    "per-layer GUDHI s",
    "fast MB",
    "fast = plain",
    "betti equal",
]

if __name__ == "__main__":
    main()
