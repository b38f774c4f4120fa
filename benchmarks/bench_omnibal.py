"""omnibal: ISF balancing and the ISF argument search against the official OmniBal code.

The anchor is the official repository (ModelTC/OmniBal, ``dataset.py`` and
``test_balanced_dynamic_batch.py``), pointed to by ``--official-src`` (a checkout outside this
repository; never copied here). With it, on the same per-sample sizes and the same arguments:

1. ISF: ours (``isf``) against the official ``BalancedDataset.iter_random_groups`` (its
   per-sample Python walk), on the synthetic lengths of the reproduction (50,000 and 1,000,000
   samples, budgets ``V_max = 13``, ``T_max = 4416``, thresholds 13 and 4160, as the argument
   search picks them at 50,000) and on the four length files the official repository ships
   (ai2d, chartqa, docvqa, synthdog: 70,706 samples) with the arguments of its own test script
   (``vit_bs = 9``, ``llm_len = 4096``, ``thresh = 3968``); 50 iterations. Wall times are taken
   interleaved (ours, theirs, ours, ...; best of k). Both groupings are scored by the same
   functions: our ``balance_metrics`` (groups to 8 ranks by the same random assignment) and the
   official ``get_pad_dist_ratio`` (its DataLoader walk, 8 ranks, micro-batch 1). The two draw
   their shuffles from different generators (ours numpy ``default_rng``, theirs
   ``RandomState``), so the groups differ; the metrics are given as mean and standard deviation
   over 5 seeds.
2. argument search: ours (``search_arguments``) against the official ``search_arguments`` on
   the 50,000 synthetic samples (8 ranks, 50 iterations, micro-batch 4): the chosen budgets and
   the objective (pad ratio + vision + language imbalance) of each choice, scored by our
   metric (fixed-length pad ratio) and by the official one (its pad ratio, 0 for packed groups
   at micro-batch 1), ISF of each choice run by ours with seeds 0-2.

Without ``--official-src`` only our rows run, with a message saying what to fetch. Also:
first-fit-decreasing bin packing and random batches (no packing) as library-free references.

    python benchmarks/bench_omnibal.py --official-src /tmp/anchors/omnibal
    python benchmarks/bench_omnibal.py --official-src /tmp/anchors/omnibal --quick  # no 1M row
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.omnibal import (  # noqa: E402
    Batches,
    assign_steps,
    balance_metrics,
    first_fit_decreasing,
    isf,
    random_batches,
    search_arguments,
    synthetic_lengths,
)

SYNTH_ARGS = (13, 4416, 13, 4160)  # V_max, T_max, vision and token thresholds
REAL_ARGS = (9, 4096, 9, 3968)  # the official test script's fixed arguments
REAL_FILES = ("ai2d_train_12k", "chartqa_train_18k", "docvqa_train_10k", "synthdog_en")
ITERATIONS, RANKS, SEEDS = 50, 8, 5


class Official:
    """The official ``dataset.py`` / ``test_balanced_dynamic_batch.py``, imported from ``src``
    (their ``BalancedDataset`` reads the sizes from a JSON file in their format)."""

    def __init__(self, src: str, tmp: str):
        sys.path.insert(0, src)
        self.src, self.tmp = src, Path(tmp)
        with contextlib.redirect_stdout(io.StringIO()):
            import dataset  # noqa: PLC0415  (the official code, outside this repository)
            import test_balanced_dynamic_batch as script  # noqa: PLC0415
        self.dataset, self.script = dataset, script

    def write(self, v: np.ndarray, t: np.ndarray, name: str) -> str:
        """Sizes to the official JSON format; returns the wrapper file's path."""
        lengths = self.tmp / f"{name}_token_lengths.json"
        items = [
            {"vit_num": int(a), "token_num": int(b), "image_flags": int(a)}
            for a, b in zip(v, t, strict=True)
        ]
        lengths.write_text(json.dumps(items))
        wrap = self.tmp / f"{name}.json"
        wrap.write_text(json.dumps({name: {"token_lengths": str(lengths)}}))
        return str(wrap)

    def token_lengths(self, wrap: str) -> list:
        """``[[index, images, tokens], ...]`` as their loader builds it."""
        with contextlib.redirect_stdout(io.StringIO()):
            ds = self.dataset.BalancedDataset([wrap], init=False)
        return ds.token_lengths_list[0]

    def isf(self, items: list, args: tuple, seed: int) -> list:
        vit_max, llm_max, vit_thresh, llm_thresh = args
        ds = self.dataset.BalancedDataset.__new__(self.dataset.BalancedDataset)
        with contextlib.redirect_stdout(io.StringIO()):
            return ds.iter_random_groups(
                items, seed, vit_thresh, vit_max, llm_thresh, llm_max, iter_time=ITERATIONS
            )

    def metrics(self, groups: list) -> tuple[float, float, float]:
        """The official ``get_pad_dist_ratio`` (8 ranks, micro-batch 1) of a grouping given as
        lists of ``[index, images, tokens]``: (pad ratio, vision, language imbalance)."""
        ds = self.dataset.BalancedDataset.__new__(self.dataset.BalancedDataset)
        ds.pack_group, ds.sp_num = groups, 1
        ds.lengths = [sum(item[2] for item in g) for g in groups]
        with contextlib.redirect_stdout(io.StringIO()):
            return self.script.get_pad_dist_ratio(ds, "random", dp_size=RANKS, micro_bs=1)

    def search(self, wrap: str) -> tuple:
        cwd = os.getcwd()
        os.chdir(self.tmp)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                return tuple(self.script.search_arguments([wrap], RANKS, ITERATIONS, micro_bs=4))
        finally:
            os.chdir(cwd)


def to_batches(groups: list, seed: int) -> Batches:
    """Official groups as our ``Batches``, groups assigned to ranks by ``assign_steps``."""
    members = np.array([item[0] for g in groups for item in g], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum([len(g) for g in groups])])
    steps = assign_steps(len(groups), RANKS, np.random.default_rng(seed))
    return Batches(members, offsets, steps, packed=True)


def to_groups(b: Batches, v, t) -> list:
    return [[[int(i), int(v[i]), int(t[i])] for i in b.group(g)] for g in range(b.n_groups)]


def ours_isf(v, t, args, seed):
    vit_max, llm_max, vit_thresh, llm_thresh = args
    return isf(
        v, t, vit_max, llm_max, vit_thresh=vit_thresh, llm_thresh=llm_thresh,
        iterations=ITERATIONS, n_ranks=RANKS, seed=seed,
    )  # fmt: skip


def interleaved(fns: dict, repeat: int) -> dict:
    """Best wall time of each callable, their calls alternated so that load hits all alike."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            begin = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - begin)
    return best


def ours_scores(b: Batches, v, t, llm_max) -> np.ndarray:
    m = balance_metrics(b, v, t, llm_max=llm_max)
    return np.array(
        [m["vision_imbalance"], m["language_imbalance"], m["fixed_length_pad_ratio"],
         m["mean_batch"]]
    )  # fmt: skip


def isf_rows(name, v, t, args, official, wrap, repeat, seeds) -> list:
    """Timing rows and score rows of one data set."""
    llm_max = args[1]
    rows = []
    if official is None:
        times = interleaved({"ours": lambda: ours_isf(v, t, args, 1)}, repeat)
        score = ours_scores(ours_isf(v, t, args, 1), v, t, llm_max)
        return [[name, "ISF wall s", times["ours"], "-", "-"]] + [
            [name, k, float(x), "-", "-"] for k, x in zip(METRICS, score, strict=True)
        ]
    items = official.token_lengths(wrap)
    times = interleaved(
        {"ours": lambda: ours_isf(v, t, args, 1), "official": lambda: official.isf(items, args, 1)},
        repeat,
    )
    ratio = f"{times['official'] / times['ours']:.3g} (official/ours)"
    rows.append([name, "ISF wall s", times["ours"], times["official"], ratio])
    ours_s, theirs_s, ours_o, theirs_o = [], [], [], []
    for seed in range(seeds):
        b = ours_isf(v, t, args, seed)
        g = official.isf(items, args, seed)
        assert sorted(i[0] for grp in g for i in grp) == list(range(len(v))), "official drops"
        ours_s.append(ours_scores(b, v, t, llm_max))
        theirs_s.append(ours_scores(to_batches(g, seed), v, t, llm_max))
        if official_metric_ok(len(v)):
            ours_o.append(official.metrics(to_groups(b, v, t)))
            theirs_o.append(official.metrics(g))
    ours_s, theirs_s = np.array(ours_s), np.array(theirs_s)
    for k, key in enumerate(METRICS):
        rows.append(score_row(name, key + " (our metric)", ours_s[:, k], theirs_s[:, k]))
    if ours_o:
        ours_o, theirs_o = np.array(ours_o), np.array(theirs_o)
        for k, key in ((1, "vision imbalance"), (2, "language imbalance")):
            rows.append(score_row(name, key + " (official metric)", ours_o[:, k], theirs_o[:, k]))
    return rows


METRICS = ("vision imbalance", "language imbalance", "pad ratio (fixed length)", "samples/group")


def official_metric_ok(n: int) -> bool:
    return n <= 100_000  # its DataLoader walk takes minutes at 1M samples


def score_row(name, key, ours, theirs) -> list:
    """Mean ± standard deviation over seeds (the mean alone for one seed), and the ratio."""

    def fmt(x):
        return f"{x.mean():.4g} ± {x.std(ddof=1):.2g}" if len(x) > 1 else f"{x.mean():.4g}"

    return [name, key, fmt(ours), fmt(theirs), f"{ours.mean() / theirs.mean():.4f}"]


def real_lengths(src: str) -> tuple[np.ndarray, np.ndarray]:
    v, t = [], []
    for f in REAL_FILES:
        items = json.loads(Path(src, "data/vision", f"{f}_wh_token_lengths.json").read_text())
        v += [x["vit_num"] for x in items]
        t += [x["token_num"] for x in items]
    return np.array(v, dtype=np.int64), np.array(t, dtype=np.int64)


def search_rows(v, t, official, wrap) -> list:
    begin = time.perf_counter()
    best, _ = search_arguments(v, t, micro_batch=4, n_ranks=RANKS, iterations=ITERATIONS, seed=1)
    t_ours = time.perf_counter() - begin
    ours_args = (best.vit_max, best.llm_max, best.vit_thresh, best.llm_thresh)
    rows = [["search (50k)", "ours: V_max, T_max, thresholds", str(ours_args), "-", "-"]]
    if official is None:
        return rows + [["search (50k)", "wall s", t_ours, "-", "-"]]
    begin = time.perf_counter()
    vit_bs, llm_len, thresh = (int(x) for x in official.search(wrap))
    t_off = time.perf_counter() - begin
    off_args = (vit_bs, llm_len, vit_bs, thresh)
    rows = [["search (50k)", "chosen V_max, T_max, thresholds", str(ours_args), str(off_args), "-"]]
    rows.append(["search (50k)", "wall s", t_ours, t_off, f"{t_off / t_ours:.3g} (off./ours)"])
    objective = []
    for args in (ours_args, off_args):
        scores = np.array([ours_scores(ours_isf(v, t, args, s), v, t, args[1]) for s in range(3)])
        objective.append(scores[:, 0] + scores[:, 1] + scores[:, 2])
    rows.append(score_row("search (50k)", "objective of the choice (our metric)", *objective))
    objective = []
    for args in (ours_args, off_args):
        runs = [official.metrics(to_groups(ours_isf(v, t, args, s), v, t)) for s in range(3)]
        objective.append(np.array([sum(r) for r in runs]))
    rows.append(score_row("search (50k)", "objective of the choice (official metric)", *objective))
    return rows


def references(v, t) -> list:
    """Library-free references at 50k: first-fit decreasing and random batches of 4."""
    rows = []
    begin = time.perf_counter()
    ffd = first_fit_decreasing(v, t, 13, 4416)
    sec = time.perf_counter() - begin
    rows.append(["synthetic 50k", "first-fit decreasing wall s", sec, "-", "-"])
    m = ours_scores(ffd, v, t, 4416)
    rows += [
        ["synthetic 50k", f"first-fit decreasing {k}", float(x), "-", "-"]
        for k, x in zip(METRICS, m, strict=True)
    ]
    m = balance_metrics(random_batches(len(v), 4, RANKS, seed=2), v, t)
    pair = f"{m['vision_imbalance']:.4g} / {m['language_imbalance']:.4g}"
    rows.append(
        ["synthetic 50k", "random batches of 4: vision / language imbalance", pair, "-", "-"]
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-src", default=None, help="checkout of ModelTC/OmniBal")
    parser.add_argument("--quick", action="store_true", help="skip the 1,000,000-sample rows")
    args = parser.parse_args()
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    print(f"threads: OMP_NUM_THREADS={threads} (numpy only; the official code is pure Python)")
    if args.official_src is None:
        print(
            "no --official-src: the official rows are skipped. Fetch github:ModelTC/OmniBal into "
            "a folder outside this repository and pass its root (dataset.py, data/vision/)."
        )
    with tempfile.TemporaryDirectory() as tmp:
        official = Official(args.official_src, tmp) if args.official_src else None
        rows = []
        sizes = (50_000,) if args.quick else (50_000, 1_000_000)
        for n in sizes:
            v, t = synthetic_lengths(n, np.random.default_rng(0))
            wrap = official.write(v, t, f"synthetic_{n}") if official else None
            small = n <= 50_000
            name = f"synthetic {n // 1000}k"
            rows += isf_rows(
                name, v, t, SYNTH_ARGS, official, wrap, 3 if small else 2, SEEDS if small else 1
            )
            if n == 50_000:
                rows += search_rows(v, t, official, wrap)
                rows += references(v, t)
        if official is not None:
            v, t = real_lengths(args.official_src)
            wrap = official.write(v, t, "shipped")
            rows += isf_rows("shipped 4 files (70.7k)", v, t, REAL_ARGS, official, wrap, 3, SEEDS)
    header = ["data", "quantity", "ours", "official", "ratio ours/official (times: official/ours)"]
    print(table(header, rows))


if __name__ == "__main__":
    main()
