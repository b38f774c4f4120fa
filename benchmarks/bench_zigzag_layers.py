"""zigzag_layers: ours against the authors' pipeline (YuriGardinazzi/conferenceProject) on the
same hidden states.

The hidden states: all-MiniLM-L6-v2 (7 representations, mean pooling) of 300 and 1000 prompts of
the reproduction's 4 families, computed once by :func:`layer_representations` and written to an
``.npz`` that both sides read. Settings: k = 5 nearest neighbours, flag complexes up to
triangles (their ``dim = 2``, our ``max_dim = 2``), homology H0 and H1, pruning on H1 at
``p = 0.9`` and ``p = 0.8``.

The authors' side runs in its own interpreter (``--official-python``, a venv with their
dependencies: gudhi, dionysus 2.1.1, scikit-learn, natsort, tqdm, pandas, matplotlib) from
``--official-src`` (their checkout, never copied here):

- ``complexes``: ``src/zigzag/zigzag_DL.py``: ``ZIGZAG.generate_simplex_tree`` (k-NN graph, GUDHI
  expansion), ``compute_layers_with_intersection``, ``compute_filtration_times``;
- ``barcode``: their ``ZIGZAG.compute_zigzag_persistence`` (dionysus' zigzag). Their paper runs
  FastZigzag through ``pyfzz`` (``run_fast_zigzag.py``), which does not install here (README);
  their CSV convention is kept (1-based times, bars born and dying at one time dropped);
- ``descriptors``: ``src/benchmark/post_process.py``: ``POSTPROCESS.find_betti_layers``,
  ``find_ph_sim``, and ``similarity_persistance`` / ``layers_to_cut_given_r`` of
  ``src/benchmark/benchmark.py`` (read from that file's syntax tree: the file imports
  lm_eval and transformers at the top, which this comparison does not need).

Ours: :func:`zigzag_filtration`, :func:`zigzag_barcode` (``plain``: the same dionysus engine;
``fast``: dionysus' FastZigzag), :func:`betti_curves`, :func:`persistence_matrix`,
:func:`layer_scores`, :func:`prune_layers`. Ours and theirs alternate ``--repeat`` times (theirs
timed inside its interpreter, imports excluded); best CPU times (``time.process_time``, one
thread; the machine is shared). Results compared: the barcode in
stage units (equal as multisets), Betti curves, the H1 persistence-similarity matrix, the
pruning score ``r`` and the layers cut.

    python benchmarks/bench_zigzag_layers.py --official-src /tmp/anchors/zigzag_layers \\
        --official-python /tmp/anchors/venv-zigzag_layers/bin/python [--sizes 300 1000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.zigzag_layers import (  # noqa: E402
    betti_curves,
    build_prompts,
    layer_representations,
    layer_scores,
    load_minilm,
    persistence_matrix,
    prune_layers,
    zigzag_barcode,
    zigzag_filtration,
)

FAMILIES = ("docstring", "code", "cooking", "sport")
K, MAX_DIM, PS = 5, 2, (0.9, 0.8)

# Runs in the authors' interpreter: imports their modules from their checkout and times them.
ANCHOR = r"""
import ast, json, sys, time
import numpy as np
src, inp, out, k, dim = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
sys.path[:0] = [src + "/src/zigzag", src + "/src/benchmark"]
import zigzag_DL
import post_process
names = ("similarity_persistance", "layers_to_cut_given_r")
tree = ast.parse(open(src + "/src/benchmark/benchmark.py").read())
funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
space = {"np": np}
exec(compile(ast.Module(body=funcs, type_ignores=[]), "benchmark.py", "exec"), space)
reps = list(np.load(inp)["reps"])
n_stages = 2 * len(reps) - 1
t0 = time.process_time()
zz = zigzag_DL.ZIGZAG({"knn": k, "dim": dim}, reps=reps)
simplices, padded = zz.generate_simplex_tree(reps=reps)
layers = zz.compute_layers_with_intersection(padded)
f, times = zz.compute_filtration_times(simplices, layers)
t1 = time.process_time()
_, dgms, _ = zz.compute_zigzag_persistence(f, times)
t2 = time.process_time()
pds = [[] for _ in range(dim)]
for p, dgm in enumerate(dgms):
    for pt in dgm:
        death = min(pt.death, n_stages + 1)
        if p < dim and pt.birth != death:
            pds[p].append([int(pt.birth), int(death)])
post = post_process.POSTPROCESS(pds=pds, num_layers=n_stages, start_ind=1, zigzag=True)
betti = post.find_betti_layers()
psim = post.find_ph_sim()
with np.errstate(divide="ignore", invalid="ignore"):
    r = space["similarity_persistance"](betti[1], psim[1])
cuts = {str(p): space["layers_to_cut_given_r"](r, p=p) for p in (0.9, 0.8)}
t3 = time.process_time()
bars = [[p, b - 1, d - 1] for p in range(dim) for b, d in pds[p]]
result = {"seconds": [t1 - t0, t2 - t1, t3 - t2], "simplices": len(simplices), "bars": bars,
          "betti": betti.tolist(), "psim1": psim[1].tolist(), "r": np.nan_to_num(r, nan=-1.0,
          posinf=-2.0).tolist(), "cuts": cuts}
try:
    import run_fast_zigzag  # needs pyfzz
except ImportError as error:
    result["fzz"] = repr(error)
else:
    import os, tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for i, rep in enumerate(reps):
            np.save(os.path.join(tmp, f"rep_{i}.npy"), rep)
        t4 = time.process_time()
        run_fast_zigzag.run(reps_path=tmp, knn=k, dim=dim, output_folder=tmp, output_file="zz.csv")
        t5 = time.process_time()
        pds = post_process.read_pd_from_csv(os.path.join(tmp, "zz.csv"), max_dim=5)
    post = post_process.POSTPROCESS(pds=pds, num_layers=n_stages, start_ind=1, zigzag=True)
    betti = post.find_betti_layers()
    psim = post.find_ph_sim()
    with np.errstate(divide="ignore", invalid="ignore"):
        r = space["similarity_persistance"](betti[1], psim[1])
    fzz_bars = [[p, int(b) - 1, int(d) - 1] for p in range(dim) for b, d in pds[p]]
    result["fzz"] = {"seconds": t5 - t4, "bars": fzz_bars, "betti": betti[:dim].tolist(),
                     "psim1": psim[1].tolist(), "r": np.nan_to_num(r, nan=-1.0).tolist(),
                     "cuts": {str(p): space["layers_to_cut_given_r"](r, p=p) for p in (0.9, 0.8)}}
json.dump(result, open(out, "w"))
"""


def ours(reps: np.ndarray) -> tuple[list[float], dict]:
    L = reps.shape[0]
    t0 = time.process_time()
    zz = zigzag_filtration(reps, k=K, max_dim=MAX_DIM)
    t1 = time.process_time()
    bars = zigzag_barcode(zz, "plain")  # layer units, what the descriptors take
    t2 = time.process_time()
    betti = betti_curves(bars, L, 1)
    psim = persistence_matrix(bars, L, 1)
    r = layer_scores(bars, L, 1)
    cuts = {str(p): prune_layers(bars, L, p=p).tolist() for p in PS}
    t3 = time.process_time()
    stage_bars = zigzag_barcode(zz, "plain", units="stages")  # for the comparison, untimed
    begin = time.process_time()
    zigzag_barcode(zz, "fast", units="stages")
    fast = time.process_time() - begin
    out = {"simplices": zz.simplices.shape[0], "bars": stage_bars, "betti": betti}
    out |= {"psim1": psim, "r": r, "cuts": cuts, "fast": fast}
    return [t1 - t0, t2 - t1, t3 - t2], out


def anchor(python: str, src: Path, reps_path: Path, folder: Path) -> tuple[list[float], dict]:
    out = folder / "anchor.json"
    subprocess.run(
        [python, "-c", ANCHOR, str(src), str(reps_path), str(out), str(K), str(MAX_DIM)],
        check=True,
        capture_output=True,
    )
    result = json.loads(out.read_text())
    return result.pop("seconds"), result


def same_bars(a, b) -> bool:
    key = lambda x: sorted(map(tuple, np.asarray(x, dtype=np.int64).reshape(-1, 3).tolist()))  # noqa: E731
    return key(a) == key(b)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--official-src", type=Path, default=None)
    parser.add_argument("--official-python", default=None)
    args = parser.parse_args()
    run_anchor = args.official_src is not None and args.official_python is not None
    if not run_anchor:
        print(
            "no --official-src / --official-python: the authors' rows are skipped. Fetch "
            "github:YuriGardinazzi/conferenceProject outside this repository, make a venv with "
            "gudhi, dionysus==2.1.1 (binary wheel), scikit-learn, natsort, tqdm, pandas, "
            "matplotlib, and pass both."
        )
    torch.set_num_threads(1)
    model = load_minilm()
    stages = ("complexes", "barcode (dionysus zigzag)", "descriptors")
    header = ["prompts", "stage", "ours s", "authors s", "time ratio"]
    rows, checks = [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in args.sizes:
            texts, _ = build_prompts(FAMILIES, n // len(FAMILIES))
            reps = layer_representations(model, texts, "mean")  # (L, n, d)
            reps_path = folder / f"reps_{n}.npz"
            np.savez(reps_path, reps=reps)
            best_ours, best_anchor, best_fast, best_fzz = [np.inf] * 3, [np.inf] * 3, np.inf, np.inf
            for _ in range(args.repeat):
                t, mine = ours(reps)
                best_ours, best_fast = np.minimum(best_ours, t), min(best_fast, mine["fast"])
                if run_anchor:
                    t, theirs = anchor(args.official_python, args.official_src, reps_path, folder)
                    best_anchor = np.minimum(best_anchor, t)
                    if isinstance(theirs["fzz"], dict):
                        best_fzz = min(best_fzz, theirs["fzz"]["seconds"])
            for i, stage in enumerate(stages):
                row = [len(texts), stage, float(best_ours[i])]
                if run_anchor:
                    row += [float(best_anchor[i]), float(best_anchor[i] / best_ours[i])]
                else:
                    row += ["skipped", "skipped"]
                rows.append(row)
            ours_route = float(best_ours[0] + best_ours[1])
            row = [
                len(texts),
                "complexes + barcode (authors: pyfzz)",
                ours_route,
            ]
            if run_anchor and np.isfinite(best_fzz):
                row += [float(best_fzz), float(best_fzz / ours_route)]
            else:
                row += ["not run", ""]
            rows.append(row)
            rows.append([len(texts), "barcode, ours FastZigzag (dionysus)", best_fast, "", ""])
            if run_anchor:
                checks.append(compare(len(texts), "dionysus zigzag", mine, theirs))
                if isinstance(theirs["fzz"], dict):
                    checks.append(compare(len(texts), "pyfzz", mine, theirs["fzz"]))
                else:
                    print(f"authors' pyfzz route not run: {theirs['fzz']}")
            print(table(header, rows[-5:]), flush=True)
    print(f"\nthreads: 1 (torch); best of {args.repeat}; CPU seconds")
    print(table(header, rows))
    if checks:
        header = [
            "prompts",
            "authors' barcode",
            "simplices ours / authors",
            "bars ours / authors",
            "barcode equal",
            "Betti equal",
            "PHSim_1 equal",
            "max abs r diff",
            "layers cut ours / authors",
        ]
        print(table(header, checks))


def compare(prompts: int, route: str, mine: dict, theirs: dict) -> list:
    """One row of the results check: ours against one of the authors' routes."""
    r_ours, r_theirs = np.asarray(mine["r"]), np.asarray(theirs["r"])
    return [
        prompts,
        route,
        f"{mine['simplices']} / {theirs.get('simplices', '-')}",
        f"{len(mine['bars'])} / {len(theirs['bars'])}",
        same_bars(mine["bars"], theirs["bars"]),
        bool(np.array_equal(mine["betti"], theirs["betti"])),
        bool(np.array_equal(mine["psim1"], theirs["psim1"])),
        f"{np.abs(r_ours - r_theirs).max():.2e}",
        " ".join(f"{p}: {mine['cuts'][str(p)]} / {theirs['cuts'][str(p)]}" for p in PS),
    ]


if __name__ == "__main__":
    main()
