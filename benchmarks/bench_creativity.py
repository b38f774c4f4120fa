"""creativity: our scoring against the official evaluator on the same answers, the vectorised
task generator against a plain Python one, and batched decoding against decoding one prompt at
a time. One thread.

Scoring (the anchor): the official ``ntp/eval_qa.py`` of each task (ChenWu98/algorithmic-
creativity, a checkout outside this repository given by ``--official-src``; it imports seaborn
and pandas, so it runs in its own interpreter, ``--official-python``) scores the same answers
as ``creativity_score``: for each task (line, circle and sibling at the reproduction's default
sizes; triangle at 60 vertices), 3 scripts of 1024 answers (copies of training answers,
reshuffled ones, one-entity edits, random strings), written in the official string format.
Without ``--official-src`` the official columns are NaN.

Generation: the anchor builds each line-construction sequence as the official notebook does,
one at a time (``random.sample`` of the nodes, ``random.shuffle`` of the edges, a set of used
hashes); ours draws every sequence at once with numpy (``construction_task``).

Decoding: greedy decoding of N seed-conditioned prompts with the default network (3 layers,
d = 96), all at once (one forward pass per new token) against a loop over prompts. Both give the
same tokens.

    python benchmarks/bench_creativity.py --official-src /tmp/anchors/creativity \\
        --official-python /tmp/anchors/venv-creativity/bin/python
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
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
from icml25.creativity.metrics import _segments, creativity_score  # noqa: E402
from icml25.creativity.reproduce import Config, make_task  # noqa: E402
from icml25.creativity.tasks import EDGE, PAD, SPECIALS, TRI, TaskData, triangle_task  # noqa: E402


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


OFFICIAL_FOLDER = {
    "line": "line-construction",
    "circle": "circle-construction",
    "sibling": "sibling-discovery",
    "triangle": "triangle-discovery",
}

# Run in the anchor's interpreter: the official Evaluator of one task scores the items written
# under ``dir/run`` against ``dir/data/task``; prints a JSON line (scores, best-of-3 seconds).
OFFICIAL_DRIVER = """
import contextlib, io, json, sys, time
src, folder, tmp = sys.argv[1:4]
sys.path.insert(0, f"{src}/{folder}/ntp")
import eval_qa
best = float("inf")
for _ in range(3):
    begin = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        ev = eval_qa.Evaluator(f"{tmp}/run", "task", f"{tmp}/data")
        scores = dict(ev.eval_file()[0][1])
    best = min(best, time.perf_counter() - begin)
items = json.load(open(f"{tmp}/run/checkpoint-0-x/all_items.json"))
with contextlib.redirect_stdout(io.StringIO()):
    acc = ev.eval_items(items)  # eval_file rounds these means to 3 decimals
    valid = [ev.get_validity_score(item["model_output"]) for item in items]
for name in ("test_seen_score", "test_unseen_score"):
    scores[name] = sum(acc[name]) / len(acc[name])
scores["valid"] = sum(valid) / len(valid)
print(json.dumps({"scores": scores, "seconds": best}))
"""


def to_text(tokens) -> str:
    """Token ids in the official string format: entities ``<a_i>``, hash characters as
    characters, ``<tri>`` as the official ``tri:``."""
    out = []
    for t in tokens:
        t = int(t)
        if t >= ENTITY0:
            out.append(f"<a_{t - ENTITY0}>")
        elif t >= HASH0:
            out.append("abcdefghijklmnopqrstuvwxyz0123456789"[t - HASH0])
        elif t == TRI:
            out.append(" tri: ")
        elif t == EDGE:
            out.append("edge: ")
        elif t != PAD:
            out.append(SPECIALS[t])
    return "".join(out)


def scripted_answers(task, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, A) answers ending in ``</a>``: a quarter copies of training answers (memorised), a
    quarter training answers with their segments shuffled and some reversed (valid new shapes,
    or for sibling, permuted triples), a quarter with one entity replaced by a random one, a
    quarter random entity/``<sep>`` strings; this exercises every branch of the checks."""
    rows = [
        r[p:]
        for r, p in zip(task.train, task.prompt_len, strict=True)
        if task.name != "triangle" or p > 1
    ]
    width = max(int(np.flatnonzero(r == END)[0]) + 1 for r in rows)
    ents = np.arange(ENTITY0, ENTITY0 + task.structure["n_entities"])
    out = np.full((n, width), PAD, np.int64)
    for i in range(n):
        base = rows[rng.integers(len(rows))]
        answer = [int(t) for t in base[: np.flatnonzero(base == END)[0]]]
        kind = i % 4
        if kind == 1:
            segs = [s[::-1] if rng.random() < 0.5 else s for s in _segments(tuple(answer))]
            segs = [segs[k] for k in rng.permutation(len(segs))]
            answer = [t for s in segs for t in (*s, SEP)][:-1]
            if len(segs) == 1:  # sibling: a permuted triple
                answer = [answer[k] for k in rng.permutation(len(answer))]
        elif kind == 2:
            spots = [k for k, t in enumerate(answer) if t != SEP]
            answer[spots[rng.integers(len(spots))]] = int(rng.choice(ents))
        elif kind == 3:
            answer = [
                SEP if rng.random() < 0.25 else int(rng.choice(ents)) for _ in range(len(answer))
            ]
        out[i, : len(answer) + 1] = answer + [END]
    return out


def write_official_inputs(task, samples: np.ndarray, tmp: Path) -> None:
    """The official evaluator's inputs: ``data/task/train.json`` (+ the sibling children or
    triangle edge dictionaries) and ``run/checkpoint-0-x/all_items.json`` (the test items)."""
    data, run = tmp / "data" / "task", tmp / "run" / "checkpoint-0-x"
    data.mkdir(parents=True, exist_ok=True)
    run.mkdir(parents=True, exist_ok=True)
    train = [{"target_text": to_text(r)} for r in task.train]
    (data / "train.json").write_text(json.dumps(train))
    s = task.structure
    if task.name == "sibling":
        for kind, name in ((1, "b1"), (2, "b2")):
            d = {f"<a_{a}>": [] for a in np.flatnonzero(s["kind"] == 0)}
            for child in np.flatnonzero(s["kind"] == kind):
                d[f"<a_{s['parent'][child]}>"].append(f"<a_{child}>")
            (data / f"entities_{name}_dict.json").write_text(json.dumps(d))
    if task.name == "triangle":
        adj = s["adjacency"]
        edges = {f"<a_{u}>": [f"<a_{v}>" for v in np.flatnonzero(adj[u])] for u in range(len(adj))}
        (data / "edges.json").write_text(json.dumps(edges))
    prompts = task.test_prompts[np.arange(len(samples)) % len(task.test_prompts)]
    items = [
        {
            "type": "test",
            # the official decoding removes all whitespace and cuts after the first </a>
            "model_output": "".join(
                (to_text(p) + to_text(a[: np.flatnonzero(a == END)[0] + 1])).split()
            ),
            "target_text": "</a>",
        }
        for p, a in zip(prompts, samples, strict=True)
    ]
    (run / "all_items.json").write_text(json.dumps(items))


def official_scores(src: str, python: str, task, samples: np.ndarray) -> tuple[dict, float]:
    """The official evaluator (``ntp/eval_qa.py`` of the task) on the same answers."""
    with tempfile.TemporaryDirectory() as tmp:
        write_official_inputs(task, samples, Path(tmp))
        args = [python, "-c", OFFICIAL_DRIVER, src, OFFICIAL_FOLDER[task.name], tmp]
        out = subprocess.run(args, capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result["scores"], result["seconds"]


SCORE_PAIRS = (  # ours -> the official evaluator's name
    ("creativity", "test_creativity_score"),
    ("memorised", "test_seen_score"),
    ("novel_valid", "test_unseen_score"),
    ("diversity", "test_diversity_score"),
    ("valid", "valid"),
)


def task_for(name: str) -> TaskData:
    if name == "triangle":
        return triangle_task(60, 600, 128, 4, np.random.default_rng(0))
    return make_task(Config(), name, 0)


def official_table(src: str | None, python: str, n: int = 1024, seeds: int = 3) -> str:
    """Ours and the official evaluator on the same scripted answers: per task and score, the
    mean over ``seeds`` scripts, the seed spread (standard deviation) of ours, and the largest
    difference on one script; times are the mean over scripts of each one's best of 3."""
    rows = []
    for name in ("line", "circle", "sibling", "triangle"):
        task = task_for(name)
        got = {mine: ([], []) for mine, _ in SCORE_PAIRS}
        times = ([], [])
        for seed in range(seeds):
            samples = scripted_answers(task, n, np.random.default_rng(seed))
            t_ours, _, ours = measure(lambda s=samples, t=task: creativity_score(s, t), repeat=3)
            if src is None:
                theirs, t_off = {k: float("nan") for _, k in SCORE_PAIRS}, float("nan")
            else:
                theirs, t_off = official_scores(src, python, task, samples)
            times[0].append(t_ours)
            times[1].append(t_off)
            for mine, official in SCORE_PAIRS:
                got[mine][0].append(ours[mine])
                got[mine][1].append(theirs[official])
        t_ours, t_off = float(np.mean(times[0])), float(np.mean(times[1]))
        for mine, _ in SCORE_PAIRS:
            a, b = np.array(got[mine][0]), np.array(got[mine][1])
            rows.append(
                [
                    name,
                    mine,
                    t_ours,
                    t_off,
                    t_off / t_ours,
                    float(a.mean()),
                    float(b.mean()),
                    float(a.std()),
                    float(np.abs(a - b).max()),
                ]
            )
    return table(OFFICIAL_HEADER, rows)


OFFICIAL_HEADER = [
    "task",
    "score",
    "ours s",
    "official s",
    "time ratio (official / ours)",
    "ours (mean of 3)",
    "official (mean of 3)",
    "seed spread (sd, ours)",
    "max abs difference",
]


def decode_one_at_a_time(model, prompts, n_new):
    return np.concatenate([generate(model, p[None], n_new) for p in prompts])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\\n")[0])
    parser.add_argument("--official-src", help="a checkout of ChenWu98/algorithmic-creativity")
    parser.add_argument("--official-python", default=sys.executable, help="its interpreter")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.official_src is None:
        print(
            "no --official-src: the official scoring columns are NaN; fetch"
            " ChenWu98/algorithmic-creativity (github) outside this repository, make a venv with"
            " seaborn, pandas, matplotlib and tqdm, and pass both paths",
            flush=True,
        )
    print(official_table(args.official_src, args.official_python), flush=True)
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
