"""creativity: the vectorised task generator against a plain Python one, and batched decoding
against decoding one prompt at a time. One thread.

Generation: the anchor builds each line-construction sequence as the official notebook does,
one at a time (``random.sample`` of the nodes, ``random.shuffle`` of the edges, a set of used
hashes); ours draws every sequence at once with numpy (``construction_task``).

Decoding: greedy decoding of N seed-conditioned prompts with the default network (3 layers,
d = 96), all at once (one forward pass per new token) against a loop over prompts. Both give the
same tokens.

    python benchmarks/bench_creativity.py
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.common.transformer import Transformer, TransformerConfig  # noqa: E402
from icml25.creativity import (  # noqa: E402
    END,
    ENTITY0,
    HASH0,
    SEP,
    Q,
    construction_task,
    generate,
)


def python_line_task(n, n_entities, n_nodes, hash_len, seed):
    """The official generator's loop, on token ids: (n, T) training sequences."""
    rnd = random.Random(seed)
    used, rows = set(), []
    for _ in range(n):
        nodes = rnd.sample(range(ENTITY0, ENTITY0 + n_entities), n_nodes + 1)
        edges = [(nodes[i], nodes[i + 1]) for i in range(n_nodes)]
        rnd.shuffle(edges)
        while True:
            h = tuple(HASH0 + rnd.randrange(36) for _ in range(hash_len))
            if h not in used:
                used.add(h)
                break
        answer = []
        for u, v in edges:
            answer += [u, v, SEP]
        answer[-1] = END
        rows.append(list(h) + [Q] + answer)
    return np.array(rows)


def decode_one_at_a_time(model, prompts, n_new):
    return np.concatenate([generate(model, p[None], n_new) for p in prompts])


def main() -> None:
    torch.set_num_threads(1)
    gen_rows = []
    for n in (2_000, 10_000, 50_000):
        t_py, m_py, a = measure(lambda n=n: python_line_task(n, 10, 9, 10, 0), repeat=1)
        t_np, m_np, b = measure(
            lambda n=n: construction_task("line", 10, 9, n, 1, 10, np.random.default_rng(0)),
            repeat=3,
        )
        assert a.shape == b.train.shape
        gen_rows.append([n, t_py, n / t_py, t_np, n / t_np, t_py / t_np, m_py, m_np])
    print(table(GEN_HEADER, gen_rows), flush=True)
    dec_rows = []
    task = construction_task("line", 8, 7, 10, 256, 4, np.random.default_rng(0))
    cfg = TransformerConfig(task.vocab_size, 32, n_layer=3, n_head=4, n_embd=96)
    model = Transformer(cfg, seed=0).eval()
    n_new = task.answer_len
    for n in (32, 128, 256):
        prompts = task.test_prompts[:n]
        t_one, m_one, a = measure(lambda p=prompts: decode_one_at_a_time(model, p, n_new), 1)
        t_bat, m_bat, b = measure(lambda p=prompts: generate(model, p, n_new), 3)
        assert (a == b).all()
        tokens = n * n_new
        dec_rows.append([n, t_one, tokens / t_one, t_bat, tokens / t_bat, t_one / t_bat, m_bat])
    print(table(DEC_HEADER, dec_rows))


GEN_HEADER = [
    "sequences",
    "python loop s",
    "python seq/s",
    "numpy s",
    "numpy seq/s",
    "speed-up",
    "python peak MB",
    "numpy peak MB",
]
DEC_HEADER = [
    "prompts",
    "one at a time s",
    "one at a time tok/s",
    "batched s",
    "batched tok/s",
    "speed-up",
    "batched peak MB",
]

if __name__ == "__main__":
    main()
