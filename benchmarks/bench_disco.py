"""disco: our scoring of the released answers against the official metrics code, and the bootstrap.

Two tables, printed as markdown (one thread):

1. official: the official ``Code/metrics_utils.py`` of DIS-CO (github.com/avduarte333/DIS-CO;
   ``process_movie_data`` then ``compute_auc``, as its ``run_metrics.py`` calls them) run on its
   own ``Replicate_Results/`` spreadsheets, beside ours (``icml25.disco``) on the same answers
   converted to ``data/answers.csv.gz``: the 16 detection AUCs (4 models x main/neutral frames)
   for each of its three methods (``disco``: image answers; ``captions``: caption-only answers;
   ``disco_floor``: image hits whose caption answer is the same string removed). The official
   code takes each film's accepted titles from the benchmark's Hugging Face data set, which is
   not reachable here; both are given ours (``data/movies.csv``). It matches an answer by exact
   membership in that list; ours normalises titles (``titles.match_title``). A third column
   scores our answers with exact membership through our own film scores and AUC, which isolates
   the matching rule as the cause of any difference. Times: from the files to the 16 AUCs of one
   method (theirs reads 800 or 1,600 spreadsheets with pandas, ours one CSV), interleaved,
   best of ``--repeat``. The official code runs in a subprocess under ``--official-python``
   (pandas, openpyxl, scikit-learn), in a temporary folder; its top-level ``from datasets
   import load_dataset`` (used only by the Hugging Face loader we cannot call) is met by an
   empty stand-in module. Nothing of it is copied here.
2. bootstrap: the paired bootstrap of the AUC, ours (ranks of a chunk of resamples at once)
   against a loop of ``sklearn.metrics.roc_auc_score`` calls on the same draws.

    python benchmarks/bench_disco.py --official-src /tmp/anchors/disco \\
        --official-python /tmp/anchors/venv-disco/bin/python
    python benchmarks/bench_disco.py --quick      # no bootstrap sizes beyond the first
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.disco import (  # noqa: E402
    bootstrap_auc,
    detection_auc,
    film_scores,
    floor_hits,
    frame_hits,
    load_release,
)
from icml25.disco.data import load_release as _cached_release  # noqa: E402

SIZES = [(100, 1, 500), (100, 4, 1000), (400, 4, 300)]  # (films F, score rows K, resamples B)
METHODS = ("disco", "captions", "disco_floor")

# Run by --official-python in a temporary folder: argv = Code dir, input JSON, output JSON,
# method. Imports the official metrics module and calls its two functions.
DRIVER = """
import json, sys, time, types, warnings
warnings.simplefilter("ignore")
sys.modules["datasets"] = types.SimpleNamespace(load_dataset=None)
sys.path.insert(0, sys.argv[1])
import metrics_utils as mu
spec = json.load(open(sys.argv[2]))
method = sys.argv[4]
begin, cpu = time.perf_counter(), time.process_time()
suspect = mu.process_movie_data(spec["suspect"], spec["models"], spec["path"], method)
clean = mu.process_movie_data(spec["clean"], spec["models"], spec["path"], method)
auc = mu.compute_auc(clean, suspect)
seconds, cpu = time.perf_counter() - begin, time.process_time() - cpu
json.dump({"seconds": seconds, "cpu": cpu, "auc": auc}, open(sys.argv[3], "w"))
"""


def official_run(python: str, code_dir: Path, spec: Path, method: str, work: Path) -> dict:
    out = work / f"out_{method}.json"
    subprocess.run(
        [python, str(work / "driver.py"), str(code_dir), str(spec), str(out), method],
        check=True,
        cwd=work,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        capture_output=True,
    )
    return json.loads(out.read_text())


def ours(method: str, exact: bool = False) -> dict[tuple[str, str], float]:
    """The 16 AUCs of one method from the packaged CSV (read anew: ``load_release`` uncached);
    ``exact`` matches by exact membership in the accepted list, as the official code does."""
    release = _cached_release.__wrapped__()
    labels = release.labels()
    n = len(release.movies)

    def hits(answers, films):
        if exact:
            accepted = [set(a) for a in release.accepted]
            return np.array([a in accepted[f] for a, f in zip(answers, films, strict=True)])
        return frame_hits(answers, films, release.accepted)

    aucs = {}
    for model in release.models:
        for frame_type in ("main", "neutral"):
            rows = release.rows(model, frame_type)
            films = release.movie_index[rows]
            image, caption = release.image_answer[rows], release.caption_answer[rows]
            if method == "disco":
                h = hits(image, films)
            elif method == "captions":
                h = hits(caption, films)
            else:
                image_hits = hits(image, films)
                if exact:  # the official rule on raw strings: same answer, removed
                    h = image_hits & (image.astype(str) != caption.astype(str))
                else:
                    h = floor_hits(image_hits, hits(caption, films), image, caption, "same_answer")
            aucs[(model, frame_type)] = detection_auc(film_scores(h, films, n), labels)
    return aucs


def official(src: str, python: str, repeat: int) -> str:
    code_dir = Path(src) / "Code"
    results = Path(src) / "Replicate_Results"
    if not (code_dir / "metrics_utils.py").exists() or not results.is_dir():
        raise SystemExit(
            f"--official-src must hold Code/metrics_utils.py and Replicate_Results/: {src}"
        )
    release = load_release()
    labels = release.labels()
    accepted = {m: list(a) for m, a in zip(release.movies, release.accepted, strict=True)}
    spec = {
        "models": list(release.models),
        "path": str(results),
        "suspect": {m: accepted[m] for m, y in zip(release.movies, labels, strict=True) if y},
        "clean": {m: accepted[m] for m, y in zip(release.movies, labels, strict=True) if not y},
    }
    times, rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "driver.py").write_text(DRIVER)
        (work / "spec.json").write_text(json.dumps(spec))
        for method in METHODS:
            best = {"ours": [np.inf, np.inf], "official": [np.inf, np.inf]}  # wall, CPU
            for _ in range(repeat):  # interleaved, best of repeat
                theirs = official_run(python, code_dir, work / "spec.json", method, work)
                best["official"] = np.minimum(best["official"], [theirs["seconds"], theirs["cpu"]])
                begin, cpu = time.perf_counter(), time.process_time()
                mine = ours(method)
                spent = [time.perf_counter() - begin, time.process_time() - cpu]
                best["ours"] = np.minimum(best["ours"], spent)
            exact = ours(method, exact=True)
            auc_theirs = {
                (model, frames): theirs["auc"][model][f"AUC_{frames}"] for model, frames in mine
            }
            diff = max(abs(mine[k] - auc_theirs[k]) for k in mine)
            diff_exact = max(abs(exact[k] - auc_theirs[k]) for k in mine)
            (t_ours, c_ours), (t_theirs, c_theirs) = best["ours"], best["official"]
            times.append(
                [method, t_ours, t_theirs, t_theirs / t_ours, c_ours, c_theirs, diff, diff_exact]
            )
            for (model, frames), auc in mine.items():
                a = auc_theirs[(model, frames)]
                rows.append([method, model, frames, auc, a, auc / a, exact[(model, frames)]])
    header_times = [
        "method (16 AUCs)",
        "ours s",
        "official s",
        "time ratio official/ours",
        "ours CPU s",
        "official CPU s",
        "max abs AUC diff",
        "max abs AUC diff, ours with exact matching",
    ]
    header = [
        "method",
        "model",
        "frames",
        "AUC ours",
        "AUC official",
        "ratio ours/official",
        "AUC ours, exact matching",
    ]
    return table(header_times, times) + "\n\n" + table(header, rows)


def sklearn_loop(scores, labels, n_resamples, rng):
    """One resample at a time with sklearn, the same draws as ``bootstrap_auc``. -> (B, K)."""
    pos, neg = scores[:, labels == 1], scores[:, labels == 0]
    i_pos = rng.integers(0, pos.shape[1], size=(n_resamples, pos.shape[1]))
    i_neg = rng.integers(0, neg.shape[1], size=(n_resamples, neg.shape[1]))
    y = np.r_[np.ones(pos.shape[1]), np.zeros(neg.shape[1])]
    out = np.empty((n_resamples, len(scores)))
    for b in range(n_resamples):
        for k in range(len(scores)):
            out[b, k] = roc_auc_score(y, np.r_[pos[k, i_pos[b]], neg[k, i_neg[b]]])
    return out


def bootstrap(sizes) -> str:
    rows = []
    for F, K, B in sizes:
        data = np.random.default_rng(0)
        labels = np.repeat([0, 1], F // 2)
        scores = np.round(data.random((K, F)) + 0.3 * labels, 2)  # (K, F), with ties
        t_loop, _, a = measure(
            lambda s=scores, y=labels, n=B: sklearn_loop(s, y, n, np.random.default_rng(1)),
            repeat=1,
        )
        t_ours, m_ours, o = measure(
            lambda s=scores, y=labels, n=B: bootstrap_auc(s, y, n, np.random.default_rng(1)),
            repeat=3,
        )
        rows.append([F, K, B, t_loop, t_ours, t_loop / t_ours, m_ours, float(np.abs(a - o).max())])
    header = [
        "films",
        "rows",
        "resamples",
        "sklearn loop s",
        "ours s",
        "speed-up",
        "ours peak MB",
        "max abs diff",
    ]
    return table(header, rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-src", help="a checkout of avduarte333/DIS-CO")
    parser.add_argument("--official-python", default=sys.executable)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.official_src:
        print(official(args.official_src, args.official_python, args.repeat), flush=True)
    else:
        print(
            "official rows skipped: fetch github.com/avduarte333/DIS-CO (Code/ and "
            "Replicate_Results/) outside this repository and pass --official-src PATH and "
            "--official-python PYTHON (with pandas, openpyxl, scikit-learn)"
        )
    print()
    print(bootstrap(SIZES[:1] if args.quick else SIZES))


if __name__ == "__main__":
    main()
