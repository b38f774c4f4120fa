"""icl_denoising: ours against the official code (mattsmart/in-context-denoising), same prompts.

The anchor is the authors' ``src/`` (from ``--official-src``, a checkout outside this repository;
nothing of it is copied here). It imports with our venv (torch, numpy, scipy, pandas, matplotlib)
and runs in this process; its ``settings.py`` creates ``output/ input/ models/ runs/`` beside
its ``src/``. Our generators draw the prompts once; the same arrays go to both sides (theirs as
``(B, n, L + 1)`` tensors, the query last). Three tables, each task with the paper's model
(linear attention on the linear task, softmax attention on the sphere and mixture tasks):

1. training: their ``train_model`` (``restart_dataset`` = our 800 training and 200 test prompts,
   their ``TransformerModelV1noresOmitLast`` / ``V2noresOmitLast``, Adam lr 1e-2, batch 80,
   lr x0.1 at 80% and 90% of the epochs through ``scheduler_kwargs``, ``seed_torch=0``, its
   plots off) against our ``train_attention`` at the same settings (``seed=0``). Both initialise
   ``U[-1/sqrt(n), 1/sqrt(n)]`` and shuffle batches, from different generators, so the seed
   spread over 3 seeds of each side is given. Result: test MSE over the oracle Bayes MSE. Their
   ``train_model`` also evaluates the full sets every ``full_loss_sample_interval`` batches (set
   to one evaluation per epoch here) and its case's baselines at the end (it cannot skip them):
   that is in its time. ``--epochs`` is the fraction of the paper's epochs (100 linear, 200
   sphere and mixture), 0.1 by default to keep the run to a few minutes;
2. forward pass: the weights our training found, loaded into their model class, against our
   ``attention_denoise`` on the 200 test prompts (float64 on both sides): must agree to rounding;
3. baselines against our closed-form posterior means on the test prompts: their
   ``loss_if_predict_linalg_shrunken`` (context-estimated subspace, true sigma_0^2) against
   ``bayes_linear``; ``loss_if_predict_subsphere_baseline(shrunken=True)`` (estimated subspace
   and radius) against ``bayes_sphere``; ``loss_if_predict_clustering_baseline`` (true centres,
   equal weights passed as its per-prompt dict) against ``bayes_gmm``. Result: MSE.

One torch thread. Ours and theirs alternate (best of k for the fast rows).

    python benchmarks/bench_icl_denoising.py --official-src /tmp/anchors/icl_denoising
    python benchmarks/bench_icl_denoising.py --official-src ... --epochs 1   # paper's epochs
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import interleaved_pair, table  # noqa: E402

import icml25.icl_denoising.reproduce as rep  # noqa: E402
from icml25.icl_denoising import attention_denoise, train_attention, vmf_mean_ratio  # noqa: E402

C = rep.SCALES["default"]
CASE = {"linear": 0, "gmm": 1, "sphere": 2}  # their datagen_case
MODEL = {"linear": "TransformerModelV1noresOmitLast", "softmax": "TransformerModelV2noresOmitLast"}


def as_theirs(p) -> tuple[torch.Tensor, torch.Tensor]:
    """Prompts -> their (B, n, L + 1) inputs, query last, and (B, n) targets (float64)."""
    x = np.concatenate([p.context, p.query[:, None]], axis=1).transpose(0, 2, 1)
    return torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(p.target)


def datagen_kwargs(task: str) -> dict:
    """Their per-case data settings, set to ours (read by its training for labels/baselines)."""
    common = dict(
        style_corruption_orthog=False,
        style_origin_subspace=True,
        num_W_in_dataset=C.prompts_train + C.prompts_test,
        context_examples_per_W=1,
        samples_per_context_example=1,
        test_ratio=C.prompts_test / (C.prompts_train + C.prompts_test),
        seed=0,
    )
    if task == "linear":
        return dict(
            common,
            sigma2_corruption=C.linear_sigma_z_sq,
            sigma2_pure_context=C.linear_sigma_0_sq,
            style_subspace_dimensions=C.linear_d,
        )
    if task == "sphere":
        return dict(
            common,
            sigma2_corruption=C.sphere_sigma_z_sq,
            radius_sphere=C.sphere_radius,
            style_subspace_dimensions=C.sphere_d + 1,
        )
    return dict(
        common,
        sigma2_corruption=C.gmm_sigma_z_sq,
        cluster_var=C.gmm_sigma_0_sq,
        num_cluster=C.gmm_components,
        style_cluster_mus="unit_norm",
        style_cluster_vars="isotropic",
        style_subspace_dimensions="full",
    )


def gmm_dicts(p) -> dict:
    """Their per-prompt mixture description: centres (n, K), equal weights, isotropic variance."""
    K, n = p.centers.shape[1:]
    return {
        b: {
            "sampled_mus": p.centers[b].T,
            "sampled_cluster_id": np.arange(K),  # one index per centre: equal weights, as ours
            "sigma_isotropic": C.gmm_sigma_0_sq * np.eye(n),
            "num_cluster": K,
        }
        for b in range(len(p.centers))
    }


class Official:
    """The official ``src/`` modules, imported from the checkout."""

    def __init__(self, src: str):
        sys.path.insert(0, str(Path(src).resolve() / "src"))
        import matplotlib

        matplotlib.use("Agg")
        with contextlib.redirect_stdout(io.StringIO()):
            import nn_loss_baselines
            import nn_model_base
            import nn_train_methods
        self.baselines, self.models, self.training = (
            nn_loss_baselines,
            nn_model_base,
            nn_train_methods,
        )
        self.runs = tempfile.mkdtemp(prefix="icl_official_runs_")

    def train(self, task, kind, train, test, epochs, seed=0) -> torch.nn.Module:
        """Their ``train_model`` on our prompts (``seed_torch=seed``); the trained network."""
        x_tr, y_tr = (a.float() for a in as_theirs(train))
        x_te, y_te = (a.float() for a in as_theirs(test))
        dicts = (gmm_dicts(train), gmm_dicts(test)) if task == "gmm" else (None, None)
        with contextlib.redirect_stdout(io.StringIO()):
            out = self.training.train_model(
                restart_dataset=(x_tr, y_tr, x_te, y_te, *dicts),
                nn_model=MODEL[kind],
                context_len=C.context_len + 1,
                dim_n=C.n,
                datagen_case=CASE[task],
                datagen_kwargs=datagen_kwargs(task),
                seed_torch=seed,
                epochs=epochs,
                batch_size=C.batch_size,
                optimizer_lr=C.lr,
                scheduler_kwargs=dict(milestones=[int(0.8 * epochs), int(0.9 * epochs)], gamma=0.1),
                train_plus_test_size=C.prompts_train + C.prompts_test,
                full_loss_sample_interval=C.prompts_train // C.batch_size,
                flag_vis_loss=False,
                flag_vis_weights=False,
                flag_vis_batch_perf=False,
                dir_runs=self.runs,
            )
        return out[0]

    def forward(self, kind, W_KQ, W_PV, test) -> np.ndarray:
        """Their model class with the given weights, float64. -> (B, n)."""
        net = self.models.MODEL_CLASS_FROM_STR[MODEL[kind]]["class"](C.context_len + 1, C.n)
        net.W_KQ.data = torch.from_numpy(W_KQ)
        net.W_PV.data = torch.from_numpy(W_PV)
        with torch.no_grad():
            return net(as_theirs(test)[0]).numpy()

    def baseline(self, task, test) -> float:
        """Their task baseline's MSE on the test prompts."""
        from torch.utils.data import DataLoader

        data = self.training.DatasetWrapper(*as_theirs(test))
        mse = torch.nn.MSELoss()
        with contextlib.redirect_stdout(io.StringIO()):
            if task == "linear":
                return self.baselines.loss_if_predict_linalg_shrunken(
                    mse, DataLoader(data, batch_size=C.batch_size), "test",
                    C.linear_sigma_0_sq, C.linear_sigma_z_sq,
                )  # fmt: skip
            if task == "sphere":
                return self.baselines.loss_if_predict_subsphere_baseline(
                    mse, DataLoader(data, batch_size=C.batch_size), "test", None,
                    C.sphere_sigma_z_sq, plot_some=False, shrunken=True,
                )  # fmt: skip
            return self.baselines.loss_if_predict_clustering_baseline(
                mse, DataLoader(data, batch_size=1, shuffle=False), "test", C.gmm_sigma_z_sq,
                gmm_dicts(test),
            )  # fmt: skip

    def sphere_ratio(self, m: int, kappa: np.ndarray) -> np.ndarray:
        """The shrink factor their sphere baseline uses for a sphere spanning ``m`` dimensions."""
        return self.baselines.bessel_ratio_subhalf_sub3half(m - 1, kappa)


def prompts(task: str, seed: int):
    seeds = np.random.SeedSequence(seed).spawn(2)
    return (
        rep.make_prompts(C, task, C.prompts_train, seeds[0]),
        rep.make_prompts(C, task, C.prompts_test, seeds[1]),
    )


def mse(a, b) -> float:
    return float(np.mean((np.asarray(a) - np.asarray(b)) ** 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official-src", help="checkout of mattsmart/in-context-denoising")
    parser.add_argument("--epochs", type=float, default=0.1, help="fraction of paper epochs")
    parser.add_argument("--seeds", type=int, default=3, help="seeds of each side (spread)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"threads: torch {torch.get_num_threads()}")
    if not args.official_src:
        print(
            "No --official-src: every row needs the official code. Fetch it with\n"
            "  git clone https://github.com/mattsmart/in-context-denoising /tmp/anchors/"
            "icl_denoising\nand pass --official-src /tmp/anchors/icl_denoising (it runs in this "
            "venv: torch, numpy, scipy, pandas, matplotlib)."
        )
        return
    official = Official(args.official_src)
    train_rows, forward_rows, base_rows = [], [], []
    for i, task in enumerate(rep.TASKS):
        kind = rep.PAPER_MODEL[task]
        train, test = prompts(task, i)
        bayes = rep.bayes(C, task, test)
        bayes_mse = mse(bayes, test.target)
        paper = C.epochs_linear if task == "linear" else C.epochs_nonlinear
        epochs = max(1, round(args.epochs * paper))

        def ours_train(seed=0, train=train, test=test, kind=kind, epochs=epochs):
            return train_attention(
                train, test, kind, epochs=epochs, batch_size=C.batch_size, lr=C.lr, seed=seed
            )

        t_ours, t_theirs, run, net = interleaved_pair(
            ours_train,
            lambda task=task, kind=kind, train=train, test=test, epochs=epochs: official.train(
                task, kind, train, test, epochs
            ),
            1,
        )
        runs = [run] + [ours_train(seed) for seed in range(1, args.seeds)]
        nets = [net] + [
            official.train(task, kind, train, test, epochs, s) for s in range(1, args.seeds)
        ]
        ours_r = [
            mse(attention_denoise(test.context, test.query, r.W_KQ, r.W_PV, kind), test.target)
            / bayes_mse
            for r in runs
        ]
        with torch.no_grad():
            x_test = as_theirs(test)[0].float()
            theirs_r = [mse(m(x_test).numpy(), test.target) / bayes_mse for m in nets]
        train_rows.append(
            [
                f"{task}, {kind} attention, {epochs} epochs: test MSE / Bayes, mean of "
                f"{args.seeds} seeds",
                t_ours,
                t_theirs,
                t_theirs / t_ours,
                float(np.mean(ours_r)),
                float(np.mean(theirs_r)),
                float(np.mean(ours_r) / np.mean(theirs_r)),
                f"{np.std(ours_r, ddof=1):.2g} / {np.std(theirs_r, ddof=1):.2g}",
            ]
        )
        print(table(TRAIN_HEADER, train_rows[-1:]), flush=True)

        t_ours, t_theirs, a, b = interleaved_pair(
            lambda test=test, run=run, kind=kind: attention_denoise(
                test.context, test.query, run.W_KQ, run.W_PV, kind
            ),
            lambda test=test, run=run, kind=kind: official.forward(kind, run.W_KQ, run.W_PV, test),
            5,
        )
        forward_rows.append(
            [
                f"{task}, {kind} attention, 200 prompts: test MSE",
                t_ours,
                t_theirs,
                t_theirs / t_ours,
                mse(a, test.target),
                mse(b, test.target),
                mse(a, test.target) / mse(b, test.target),
                f"{np.abs(a - b).max():.1e}",
            ]
        )

        t_ours, t_theirs, ours_b, theirs_b = interleaved_pair(
            lambda task=task, test=test: mse(rep.bayes(C, task, test), test.target),
            lambda task=task, test=test: official.baseline(task, test),
            2,
        )
        base_rows.append(
            [
                f"{task}: {BASELINE[task]}",
                t_ours,
                t_theirs,
                t_theirs / t_ours,
                ours_b,
                float(theirs_b),
                ours_b / theirs_b,
                "deterministic",
            ]
        )
    print(table(TRAIN_HEADER, train_rows), end="\n\n")
    print(table(FORWARD_HEADER, forward_rows), end="\n\n")
    print(table(BASE_HEADER, base_rows), end="\n\n")
    m = C.sphere_d + 1
    kappa = np.array([1.0, 5.0, 10.0, 20.0])
    print(f"sphere shrink factor at kappa = {kappa.tolist()} (S^{C.sphere_d} in R^{m}):")
    print(f"  von Mises-Fisher I_{m / 2}/I_{m / 2 - 1} (ours): {vmf_mean_ratio(m, kappa).round(4)}")
    print(f"  official bessel_ratio_subhalf_sub3half({m - 1}, .): "
          f"{np.asarray(official.sphere_ratio(m, kappa)).round(4)}")  # fmt: skip


BASELINE = {
    "linear": "ours bayes_linear vs their linalg_shrunken",
    "sphere": "ours bayes_sphere vs their subsphere (shrunken)",
    "gmm": "ours bayes_gmm vs their clustering baseline",
}
TRAIN_HEADER = [
    "setting",
    "ours s",
    "official s",
    "time ratio (official / ours)",
    "ours",
    "official",
    "result ratio (ours / official)",
    "seed spread (std, ours / official)",
]
FORWARD_HEADER = TRAIN_HEADER[:-1] + ["max abs diff of outputs"]
BASE_HEADER = [*TRAIN_HEADER[:-1], "seed spread"]
BASE_HEADER[4:6] = ["ours MSE", "official MSE"]

if __name__ == "__main__":
    main()
