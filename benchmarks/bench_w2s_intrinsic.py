"""w2s_intrinsic: ours against the official code (MarCO-COrle0NE/weak-to-strong), same features.

The official repository has no synthetic-regression script; its real-feature experiment is
``domainbed/scripts2/coloredmnist_var.py`` (dimensions of frozen features, then weak teacher,
strong baseline, strong ceiling and W2S student as L-BFGS logistic probes, risks as the MSE of
the softmax probabilities). That file runs an experiment on precomputed ColoredMNIST features at
import; so the benchmark reads it from ``--official-src`` and executes only its imports,
functions and classes (nothing of it is copied here), sets its two module constants
(``num_classes = 5`` for our five digit classes, ``default_step = 20`` as in the file), and
hands it our features as torch tensors. Rows, on the same digits-5-9 features for both sides:

1. dimensions: ``get_intrinsic_dim`` (cutoff 0.99, the script's ``--cutoff``) against our
   ``intrinsic_dimension``; ``get_correlation_dim`` (random map of the wider features, then
   feature-space eigenvectors) against our ``match_feature_dim`` + ``principal_subspace`` +
   ``correlation_dimension`` (the same definition; the random maps come from different
   generators, so the spread over 5 seeds is given), and, as an extra column, the coordinate-free
   ``d_sw`` that ``feature_dimensions`` returns (our documented choice);
2. the W2S pipeline: the official ``W2S_UTKFace.run_simulation_`` (its object built around our
   features and clean labels, test split 300 by its own ``train_test_split``), split seeds
   0..T-1, against our ``w2s_linear_probe`` (least squares on principal coordinates) on T splits
   at the same ``n``, ``N``: PGR and OPR of mean risks (scale-free; the two heads' risks are on
   different scales: MSE of probabilities per element against squared error summed over the five
   one-hot outputs);
3. labelled "naive loop" (not an anchor): the Gaussian simulator and the probe against a Python
   loop of scikit-learn fits, one trial and one ``N`` at a time (our speed and agreement check).

BLAS and torch are pinned to one thread. Ours and theirs are timed alternately (best of k).
The dimension rows also time the official functions on float64 tensors (float64 random maps
too, by torch's default dtype), the precision ours computes in.

    python benchmarks/bench_w2s_intrinsic.py --official-src /tmp/anchors/w2s_intrinsic
    python benchmarks/bench_w2s_intrinsic.py --quick [--probe-only] [--official-src ...]
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from harness import interleaved, interleaved_pair, measure, table  # noqa: E402

from icml25.w2s_intrinsic import (  # noqa: E402
    W2SCurves,
    correlation_dimension,
    feature_dimensions,
    intrinsic_dimension,
    match_feature_dim,
    principal_coordinates,
    principal_subspace,
    simulate_w2s,
    subspace_pair,
    w2s_linear_probe,
    w2s_risks,
)
from icml25.w2s_intrinsic.digits import digits_split, model_features  # noqa: E402

D, D_S, D_W, D_SW, SIGMA = 120, 20, 40, 10, 1.0
FRACTION = 0.99  # the official script's --cutoff
PAIRS = [("pixels", "random:64:0"), ("pixels", "mlp:64:0"), ("random:16:0", "mlp:128x128:0")]
PIPELINE = ("random:16:0", "mlp:64:0", 60, (100, 400))  # weak, strong, n, N


def load_official(src: str) -> dict:
    """The functions and classes of the official ``coloredmnist_var.py`` (not its experiment)."""
    path = Path(src) / "domainbed" / "scripts2" / "coloredmnist_var.py"
    tree = ast.parse(path.read_text())
    kinds = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)
    body = [node for node in tree.body if isinstance(node, kinds)]
    namespace = {"__name__": "coloredmnist_var", "num_classes": 5, "default_step": 20}
    exec(compile(ast.Module(body=body, type_ignores=[]), str(path), "exec"), namespace)
    return namespace


def features():
    X_pre, y_pre, X_task, y_task = digits_split()
    names = {name for pair in PAIRS for name in pair} | set(PIPELINE[:2])
    return {name: model_features(name, X_pre, y_pre, X_task)[0] for name in names}, y_task


def dimension_rows(official, feats, seeds, repeats) -> list[list[object]]:
    import torch

    rows = []
    for weak, strong in PAIRS:
        Fw, Fs = feats[weak], feats[strong]
        tw, ts = (torch.tensor(F, dtype=torch.float32) for F in (Fw, Fs))  # as its features
        tw64, ts64 = (torch.tensor(F, dtype=torch.float64) for F in (Fw, Fs))  # our precision

        def ours(Fw=Fw, Fs=Fs):
            d_w, d_s = intrinsic_dimension(Fw, FRACTION), intrinsic_dimension(Fs, FRACTION)
            out = []
            for seed in range(seeds):
                Ms, Mw = match_feature_dim(Fs, Fw, seed=seed)
                Vs, Vw = principal_subspace(Ms, d_s), principal_subspace(Mw, d_w)
                out.append(correlation_dimension(Vs, Vw))
            return d_w, d_s, out

        def theirs(tw=tw, ts=ts):
            d_w = int(official["get_intrinsic_dim"](tw, FRACTION))
            d_s = int(official["get_intrinsic_dim"](ts, FRACTION))
            out = [
                float(official["get_correlation_dim"](tw, ts, d_w, d_s, seed=seed))
                for seed in range(seeds)
            ]
            return d_w, d_s, out

        def theirs64(tw=tw64, ts=ts64):  # the same code on float64 tensors (random maps too)
            default = torch.get_default_dtype()
            torch.set_default_dtype(torch.float64)
            try:
                return theirs(tw, ts)
            finally:
                torch.set_default_dtype(default)

        fns = {"ours": lambda _: ours(), "theirs": lambda _: theirs(), "64": lambda _: theirs64()}
        best, results = interleaved(fns, repeats, time.perf_counter)
        t_ours, t_theirs, t_64 = best["ours"], best["theirs"], best["64"]
        a, b, b64 = results["ours"][-1], results["theirs"][-1], results["64"][-1]
        assert b64[:2] == b[:2], (b64, b)  # float64 does not move the official dimensions
        free = feature_dimensions(Fs, Fw, FRACTION)[2]
        rows.append(
            [
                f"{weak} -> {strong} ({Fw.shape[1]} / {Fs.shape[1]} features)",
                t_ours,
                t_theirs,
                t_theirs / t_ours,
                t_64,
                t_64 / t_ours,
                f"{a[0]} / {a[1]}",
                f"{b[0]} / {b[1]}",
                "equal" if a[:2] == b[:2] else "DIFFER",
                float(np.mean(a[2])),
                float(np.mean(b[2])),
                float(np.mean(a[2]) / np.mean(b[2])),
                f"{np.std(a[2], ddof=1):.2g} / {np.std(b[2], ddof=1):.2g}",
                free,
            ]
        )
        print(table(DIM_HEADER, rows[-1:]), flush=True)
    return rows


def pipeline_rows(official, feats, y, trials) -> list[list[object]]:
    import torch
    from sklearn.model_selection import train_test_split

    weak, strong, n, Ns = PIPELINE
    Fw, Fs, Y = feats[weak], feats[strong], np.eye(5)[y]
    sim = object.__new__(official["W2S_UTKFace"])  # its __init__ reads files from disk
    sim.fea_w = torch.tensor(Fw, dtype=torch.float32)
    sim.fea_s = torch.tensor(Fs, dtype=torch.float32)
    sim.labels = torch.from_numpy(y)
    sim.idx_train, sim.idx_test = train_test_split(
        range(len(y)), test_size=300, random_state=42, shuffle=True
    )

    def theirs():
        # its heads start from nn.Linear's default init, drawn from torch's global generator
        # (its seed argument only picks the split): seeded here so that reruns agree
        torch.manual_seed(0)
        out = np.array(  # (trials, K, 4): w2s, weak, strong, ceiling per split seed and N
            [
                [
                    sim.run_simulation_(n, N, seed=seed, verbose=False, lr=0.1, history_size=100)[
                        :4
                    ]
                    for N in Ns
                ]
                for seed in range(trials)
            ]
        )
        return W2SCurves(
            N=np.array(Ns),
            weak=out[:, 0, 1],
            strong=out[:, 0, 2],
            w2s=out[:, :, 0],
            ceiling=out[:, :, 3],
        )

    def ours():
        return w2s_linear_probe(Fw, Fs, Y, n, list(Ns), fraction=FRACTION, trials=trials, seed=0)

    t_ours, t_theirs, a, b = interleaved_pair(ours, theirs, 1)
    rows = []
    for k, N in enumerate(Ns):
        for name in ("pgr", "opr"):
            va, vb = getattr(a, name)[k], getattr(b, name)[k]
            sa, sb = getattr(a, name + "_se")[k], getattr(b, name + "_se")[k]
            first = k == 0 and name == "pgr"
            rows.append(
                [
                    f"{weak} -> {strong}, n={n}, N={N}, {trials} splits: {name.upper()}",
                    t_ours if first else "",
                    t_theirs if first else "",
                    t_theirs / t_ours if first else "",
                    float(va),
                    float(vb),
                    float(va - vb),
                    f"{sa:.2g} / {sb:.2g}",
                ]
            )
    return rows


def _fitter():
    try:
        from sklearn.linear_model import LinearRegression
    except ImportError:  # pragma: no cover
        return "numpy lstsq", lambda A, b: np.linalg.lstsq(A, b, rcond=None)[0]

    def fit(A, b):
        return LinearRegression(fit_intercept=False).fit(A, b).coef_

    return "sklearn", fit


def naive_loop(n, Ns, trials, seed):
    """ER_w2s (trials, len(Ns)) and ER_w (trials,), one trial and one N at a time."""
    _, fit = _fitter()
    rng = np.random.default_rng(seed)
    Vs, Vw, Q = subspace_pair(D, D_S, D_W, D_SW, seed=rng)
    beta = Q[:, D_S - D_SW : D_S] @ (np.ones(D_SW) / np.sqrt(D_SW))
    er_w2s, er_w, er_c = np.empty((trials, len(Ns))), np.empty(trials), np.empty((trials, len(Ns)))
    for t in range(trials):
        X = rng.standard_normal((n, D))
        y = X @ beta + SIGMA * rng.standard_normal(n)
        theta_w = fit(X @ Vw, y)
        er_w[t] = np.sum((Vw @ theta_w - beta) ** 2)
        for k, N in enumerate(Ns):
            Z = rng.standard_normal((N, D))
            theta = fit(Z @ Vs, Z @ Vw @ theta_w)
            er_w2s[t, k] = np.sum((Vs @ theta - beta) ** 2)
            truth = Z @ beta + SIGMA * rng.standard_normal(N)
            theta = fit(np.vstack([X, Z]) @ Vs, np.concatenate([y, truth]))
            er_c[t, k] = np.sum((Vs @ theta - beta) ** 2)
    return er_w2s, er_w, er_c


def probe_problem(trials: int, seed: int = 0):
    """Digits 5-9: pixel and random-net features, one-hot targets, 30% noisy training labels."""
    X_pre, y_pre, X_task, y_task = digits_split()
    Fw = model_features("pixels", X_pre, y_pre, X_task)[0]
    Fs = model_features("random:64:0", X_pre, y_pre, X_task)[0]
    Y = np.eye(5)[y_task]
    rng = np.random.default_rng(seed)
    flip = rng.random((trials, len(y_task), 1)) < 0.3
    Yt = np.where(flip, np.eye(5)[rng.integers(0, 5, (trials, len(y_task)))], Y[None])
    return Fw, Fs, Y, Yt


def probe_loop(Fw, Fs, Y, Yt, n, Ns, trials, seed, fraction=0.99):
    """ER_w2s (trials, len(Ns)) of the probe pipeline, one split and one N at a time; it fits the
    strong baseline and ceiling too (their risks unused), the same four heads as ours."""
    _, fit = _fitter()
    Aw, As = principal_coordinates(Fw, fraction)[0], principal_coordinates(Fs, fraction)[0]
    order = np.argsort(np.random.default_rng(seed).random((trials, len(Y))), axis=1)
    er = np.empty((trials, len(Ns)))
    for t in range(trials):
        lab, test = order[t, :n], order[t, n + Ns[-1] :]
        theta_w = fit(Aw[lab], Yt[t, lab]).T  # (d_w, C)
        fit(As[lab], Yt[t, lab])  # strong baseline
        for k, N in enumerate(Ns):
            unl = order[t, n : n + N]
            theta = fit(As[unl], Aw[unl] @ theta_w).T
            er[t, k] = np.mean(np.sum((As[test] @ theta - Y[test]) ** 2, axis=1))
            both = order[t, : n + N]
            fit(As[both], Yt[t, both])  # strong ceiling
    return er


def probe_case(trials: int, n: int = 60, Ns=(100, 200, 400)) -> list[object]:
    Ns = list(Ns)
    Fw, Fs, Y, Yt = probe_problem(trials)
    t_loop, _, er_loop = measure(lambda: probe_loop(Fw, Fs, Y, Yt, n, Ns, trials, 5), repeat=1)
    t_ours, _, probe = measure(
        lambda: w2s_linear_probe(Fw, Fs, Y, n, Ns, train_targets=Yt, trials=trials, seed=5),
        repeat=3,
    )
    gap = float(np.max(np.abs(probe.w2s - er_loop)))
    return [
        f"naive loop: probe, n={n}, N=100..400, {trials} splits: max abs diff of ER_w2s",
        t_ours,
        t_loop,
        t_loop / t_ours,
        f"{gap:.1e}",
    ]


def simulator_case(n, Ns, trials) -> list[object]:
    t_loop, _, (w2s_loop, _, _) = measure(lambda: naive_loop(n, Ns, trials, 1), repeat=1)
    t_ours, _, sim = measure(
        lambda: simulate_w2s(D_S, D_W, D_SW, n, Ns, SIGMA, trials=trials, ambient_dim=D, seed=2),
        repeat=3,
    )
    th = w2s_risks(D_S, D_W, D_SW, n, np.array(Ns), SIGMA).w2s
    se_loop = w2s_loop.std(0, ddof=1) / np.sqrt(trials)
    z_between = np.abs(sim.mean("w2s") - w2s_loop.mean(0)) / np.hypot(sim.se("w2s"), se_loop)
    z_loop = np.abs(w2s_loop.mean(0) - th) / se_loop
    z_ours = np.abs(sim.mean("w2s") - th) / sim.se("w2s")
    return [
        f"naive loop: Gaussian simulator R^{D}, n={n}, N={Ns[0]}..{Ns[-1]} ({len(Ns)}), "
        f"{trials} trials: max z of ER_w2s (ours vs loop; loop, ours vs closed form)",
        t_ours,
        t_loop,
        t_loop / t_ours,
        f"{z_between.max():.2f}; {z_loop.max():.2f}, {z_ours.max():.2f}",
    ]


DIM_HEADER = [
    "weak -> strong",
    "ours s",
    "official s",
    "time ratio (official / ours)",
    "official s, float64",
    "time ratio (official float64 / ours)",
    "ours d_w / d_s",
    "official d_w / d_s",
    "d_w, d_s",
    "ours d_sw (official definition)",
    "official d_sw",
    "result ratio (ours / official)",
    "seed spread (std, ours / official)",
    "ours coordinate-free d_sw",
]
PIPE_HEADER = [
    "setting",
    "ours s",
    "official s",
    "time ratio (official / ours)",
    "ours",
    "official",
    "difference (ours - official)",
    "standard error (ours / official)",
]
LOOP_HEADER = ["setting", "ours s", "loop s", "time ratio (loop / ours)", "agreement"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-src", help="checkout of MarCO-COrle0NE/weak-to-strong")
    parser.add_argument("--quick", action="store_true", help="fewer splits and trials")
    parser.add_argument("--probe-only", action="store_true", help="no Gaussian-simulator row")
    args = parser.parse_args()
    import torch
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    torch.set_num_threads(1)
    print(f"threads: BLAS 1, torch {torch.get_num_threads()}")
    if args.official_src:
        official = load_official(args.official_src)
        feats, y = features()
        dims = dimension_rows(official, feats, 3 if args.quick else 5, 5 if args.quick else 30)
        pipe = pipeline_rows(official, feats, y, 3 if args.quick else 8)
        print(table(PIPE_HEADER, pipe), flush=True)
    else:
        dims = pipe = None
        print(
            "No --official-src: the official rows are skipped. Fetch the code with\n"
            "  git clone https://github.com/MarCO-COrle0NE/weak-to-strong /tmp/anchors/"
            "w2s_intrinsic\nand pass --official-src /tmp/anchors/w2s_intrinsic (it runs in this "
            "venv: torch, numpy, scikit-learn, matplotlib)."
        )
    loop = [probe_case(20 if args.quick else 100)]
    print(table(LOOP_HEADER, loop[-1:]), flush=True)
    if not args.probe_only:
        Ns = [100, 200, 400, 1000, 2000, 4000]
        loop.append(simulator_case(100, Ns, 30 if args.quick else 100))
    print()
    if dims:
        print(table(DIM_HEADER, dims), end="\n\n")
        print(table(PIPE_HEADER, pipe), end="\n\n")
    print(table(LOOP_HEADER, loop))


if __name__ == "__main__":
    main()
