"""apt_tabular: against the official APT (yulun-rayn/APT), and zero-shot APT against
HistGradientBoosting and random forest.

Official section (``--official-src`` = a checkout of the official repository, outside this one;
its code is imported, never copied). Its pre-trained checkpoint is not in the repository (its
``APTClassifier`` downloads it from osf.io, which this machine cannot reach), so both models are
pre-trained here, at equal settings, on the same batches: 3 blocks, d_model 64, d_ff 128, 4
heads, patches of 100 features, dropout 0 (the official constructor's argument; ours has none),
plain pre-training (no adversarial makers: ``n_adversarial = 0``) on datasets of 200 rows (150
context rows) from our random-MLP prior, 8 per batch, AdamW lr 1e-3 with our warm-up + cosine
schedule, gradient clipping 1, ``STEPS`` steps; each model's own loss (ours ``class_loss``, the
official ``APT.loss`` with the same split). Then each is used through its own wrapper (ours
``APTClassifier``; the official ``APTPredictor.fit(tune=False)`` + ``predict_proba``) on splits
0-2 of iris, wine, breast_cancer and digits: ROC AUC (mean ± sd over 2 pre-training seeds x 3
splits), pre-training seconds per step, and fit + predict seconds. The official code imports
``inspect.getargspec`` (removed in Python 3.11); it is set to ``inspect.getfullargspec`` for
the import (no file of theirs is changed).

Library section: zero-shot APT (shipped weights; fit = store the context, predict_proba = one
forward pass) against HistGradientBoosting and random forest (scikit-learn defaults), split 0
of each data set (at most 500 rows, half train, half test). Time is fit + predict_proba (best
of 3); AUC one-vs-rest; peak MB is Python-traced memory (tracemalloc, not torch's allocator).
One thread throughout.

    OMP_NUM_THREADS=1 python benchmarks/bench_apt_tabular.py --official-src /tmp/anchors/apt
"""

from __future__ import annotations

import argparse
import inspect
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.apt_tabular import APTClassifier  # noqa: E402
from icml25.apt_tabular.evaluate import DATASETS, auc, baseline, real_split  # noqa: E402
from icml25.apt_tabular.model import APT, ModelConfig  # noqa: E402
from icml25.apt_tabular.pretrain import (  # noqa: E402
    PretrainConfig,  # noqa: E402
    _maker,
    _state,
    class_loss,
)
from icml25.apt_tabular.prior import make_batch  # noqa: E402

STEPS, SEEDS, SPLITS = 200, 2, 3

METHODS = {
    "APT": lambda: APTClassifier(),
    "HGB": lambda: baseline("hist_gb", 0),
    "RF": lambda: baseline("random_forest", 0),
}


def fit_predict(make, X_train, y_train, X_test):
    return make().fit(X_train, y_train).predict_proba(X_test)


def library_section() -> None:
    rows = []
    for name in DATASETS:
        X_tr, X_te, y_tr, y_te = real_split(name, 0)
        row = [name, len(y_tr), X_tr.shape[1]]
        times = {}
        for method, make in METHODS.items():
            seconds, peak, P = measure(
                lambda make=make, d=(X_tr, y_tr, X_te): fit_predict(make, *d)
            )
            times[method] = seconds
            row += [auc(y_te, P), seconds, len(y_te) / seconds, peak]
        row += [times["HGB"] / times["APT"], times["RF"] / times["APT"]]
        rows.append(row)
        print(table(HEADER, rows[-1:]), flush=True)
    print(table(HEADER, rows))


HEADER = [
    "data set",
    "train rows",
    "features",
    *(f"{m} {q}" for m in METHODS for q in ("AUC", "s", "test rows/s", "peak MB")),
    "HGB s / APT s",
    "RF s / APT s",
]

# --------------------------------------------------------------------------- the official code


def official_apt(src: str):
    """The official ``APT`` and ``APTPredictor`` classes."""
    if not hasattr(inspect, "getargspec"):
        inspect.getargspec = inspect.getfullargspec  # removed in Python 3.11; they import it
    sys.path.insert(0, src)
    from apt.model import APT as OfficialAPT  # noqa: PLC0415  (official, outside this repo)
    from apt.model import APTPredictor  # noqa: PLC0415

    return OfficialAPT, APTPredictor


def pretrain_both(src: str, seed: int) -> tuple[dict, dict, dict]:
    """Our model and the official one trained on the same batches; -> (our weights, the
    official state dict, seconds per step of each)."""
    OfficialAPT, _ = official_apt(src)
    c = PretrainConfig(steps=STEPS, n_adversarial=0, seed=seed)
    n_train = int(c.n_rows * c.train_fraction)
    ours = APT(c.model, seed=seed)
    torch.manual_seed(seed)  # the official modules initialise from the global generator
    theirs = OfficialAPT(
        c.model.n_blocks, d_patch=c.model.d_patch, d_model=c.model.d_model, d_ff=c.model.d_ff,
        n_heads=c.model.n_heads, dropout=0.0,
    )  # fmt: skip
    warmup = max(1, STEPS // 20)

    def schedule(s):
        return min(1.0, (s + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * s / STEPS))

    opts = {}
    for name, model in (("ours", ours), ("official", theirs)):
        opt = torch.optim.AdamW(model.parameters(), lr=c.lr)
        opts[name] = (opt, torch.optim.lr_scheduler.LambdaLR(opt, schedule))
        model.train()
    data_g, gate_g = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed + 1)
    secs = {"ours": 0.0, "official": 0.0}
    for _ in range(STEPS):
        makers = [_maker(c, data_g) for _ in range(c.batch_size)]
        x, y = make_batch(makers, c.n_rows, n_train, data_g)
        x = x.detach()  # the makers are modules: no graph into them (no adversary here)
        for name, model in (("ours", ours), ("official", theirs)):
            begin = time.perf_counter()
            if name == "ours":
                probs = model(x, y[:, :n_train], n_classes=c.max_classes, generator=gate_g)
                loss = class_loss(probs, y[:, n_train:])
            else:
                loss, _ = model.loss(x, y.clone(), split=n_train)
            opt, sched = opts[name]
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            secs[name] += time.perf_counter() - begin
    ours.eval()
    weights = {"config": ModelConfig().to_dict(), "state": _state(ours)}
    return weights, theirs.state_dict(), {k: v / STEPS for k, v in secs.items()}


def official_section(src: str) -> None:
    _, APTPredictor = official_apt(src)
    m = ModelConfig()
    aucs = {(d, k): [] for d in DATASETS for k in ("ours", "official")}
    step = {"ours": [], "official": []}
    pred = {(d, k): float("inf") for d in DATASETS for k in ("ours", "official")}
    for seed in range(SEEDS):
        weights, state, secs = pretrain_both(src, seed)
        for k in step:
            step[k].append(secs[k])
        theirs = APTPredictor(m.n_blocks, d_patch=m.d_patch, d_model=m.d_model, d_ff=m.d_ff,
                              n_heads=m.n_heads, dropout=0.0)  # fmt: skip
        theirs.load_state_dict(state)
        theirs.eval()
        for name in DATASETS:
            for split in range(SPLITS):
                X_tr, X_te, y_tr, y_te = real_split(name, split)
                for k in ("ours", "official"):
                    begin = time.perf_counter()
                    if k == "ours":
                        P = APTClassifier(weights=weights).fit(X_tr, y_tr).predict_proba(X_te)
                    else:
                        fitted = theirs.fit(X_tr.astype(np.float32), y_tr, tune=False)
                        P = fitted.predict_proba(X_te.astype(np.float32))  # float32 weights
                    pred[(name, k)] = min(pred[(name, k)], time.perf_counter() - begin)
                    aucs[(name, k)].append(auc(y_te, np.asarray(P, dtype=np.float64)))
    t_o, t_t = float(np.mean(step["ours"])), float(np.mean(step["official"]))
    rows = [
        ["pre-training step (batch 8 x 200 rows)", t_o * 1e3, t_t * 1e3, t_t / t_o, "-", "-", "-"]
    ]
    for name in DATASETS:
        a, b = np.array(aucs[(name, "ours")]), np.array(aucs[(name, "official")])
        p_o, p_t = pred[(name, "ours")], pred[(name, "official")]
        ours_auc = f"{a.mean():.4f} ± {a.std(ddof=1):.4f}"
        official_auc = f"{b.mean():.4f} ± {b.std(ddof=1):.4f}"
        label = f"{name}: zero-shot AUC, fit + predict"
        ratio = f"{a.mean() / b.mean():.4f}"
        rows.append([label, p_o * 1e3, p_t * 1e3, p_t / p_o, ours_auc, official_auc, ratio])
    header = ["quantity", "ours ms", "official ms", "time ratio official/ours", "ours AUC",
              "official AUC", "AUC ratio ours/official"]  # fmt: skip
    print(
        f"official section: {STEPS} pre-training steps, {SEEDS} seeds x {SPLITS} splits, one thread"
    )
    print(table(header, rows), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-src", default=None, help="checkout of yulun-rayn/APT")
    parser.add_argument("--skip-library", action="store_true", help="only the official section")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.official_src:
        official_section(args.official_src)
    else:
        print(
            "no --official-src: the official rows are skipped. Fetch github:yulun-rayn/APT "
            "into a folder outside this repository and pass its root (the one holding apt/)."
        )
    if not args.skip_library:
        library_section()


if __name__ == "__main__":
    main()
