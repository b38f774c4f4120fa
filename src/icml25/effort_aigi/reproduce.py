"""Reproduction: Effort's orthogonal rank-1 residual generalises to unseen generators better than
full fine-tuning and LoRA, and keeps the feature space higher-ranked (Yan et al., ICML 2025).

One cell per seed. Every cell builds the same world from ``Config.data_seed``: the digits split
into a generator/pre-training set (A), a detector training set of reals (B) and a test set of
reals (C); a small ViT pre-trained on A to classify digits (our stand-in for the vision foundation
model); three generators trained on A (the shared DDPM, loaded from its disk cache after the first
cell; a VAE; a PCA-Gaussian). The cell's seed draws the fakes and the fine-tuning: for each
training generator and each method (full, LoRA, Effort), a detector is fine-tuned on B against
that generator's fakes and scored on C against fresh fakes of every generator (AUC), and the
effective rank of its features on the whole test set is measured. The cell also measures the
check (c): Effort's adapted backbone against the original at initialisation, and whether any
non-residual parameter moved during Effort's fine-tuning.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch
from matplotlib.figure import Figure

from icml25.effort_aigi.data import GENERATORS, digits, reconstruction_mse, train_generators
from icml25.effort_aigi.detect import (
    METHODS,
    auc,
    build_detector,
    fine_tune,
    pretrain_backbone,
    scores_and_features,
)
from icml25.effort_aigi.rank import effective_rank, feature_spectrum
from icml25.effort_aigi.svd_residual import RESIDUAL_NAMES, count_trainable, effort_layers
from icml25.lab.reproduction import Summary

CELL_THREADS = 1


@dataclass(frozen=True)
class Config:
    data_seed: int = 0
    n_world: int = 1000  # reals for the generators and the backbone (split A)
    n_detector: int = 400  # reals for the detectors' training (split B); the rest is C
    ddpm_T: int = 100
    ddpm_width: int = 16
    ddpm_steps: int = 1500
    ddim_steps: int = 25
    vae_steps: int = 1500
    vae_latent: int = 8
    pca_components: int = 12
    patch: int = 2
    dim: int = 32
    depth: int = 3
    heads: int = 4
    pretrain_steps: int = 1000
    pretrain_lr: float = 2e-3
    seeds: int = 3
    train_generators: tuple[str, ...] = GENERATORS
    ft_steps: int = 600  # the first default run had 200 (see the README)
    ft_batch: int = 64  # half real, half fake
    ft_lr: float = 1e-3
    rank: int = 1
    n_fake_test: int = 397  # as many fakes per generator as test reals
    timing: bool = True  # wall-clock measurements (off at smoke: they never repeat)


SCALES = {
    "smoke": Config(
        n_world=600,
        n_detector=200,
        ddpm_width=8,
        ddpm_steps=30,
        ddim_steps=5,
        vae_steps=60,
        dim=16,
        depth=1,
        heads=2,
        pretrain_steps=40,
        seeds=1,
        ft_steps=25,
        n_fake_test=100,
        timing=False,
    ),
    "default": Config(),
    "paper": Config(  # the paper's protocol at our scale; not run here
        ddpm_width=32,
        ddpm_steps=5000,
        ddim_steps=50,
        vae_steps=5000,
        dim=64,
        depth=6,
        pretrain_steps=5000,
        seeds=5,
        ft_steps=1000,
    ),
}


def cells(config: Config) -> list[dict]:
    return [{"seed": s} for s in range(config.seeds)]


@lru_cache(maxsize=2)
def _world(config: Config):
    """The data splits, the pre-trained backbone and the generators: the same for every cell
    (from ``config.data_seed``), so computed once per process."""
    images, labels = digits()
    perm = np.random.default_rng(config.data_seed).permutation(len(images))
    A, B = perm[: config.n_world], perm[config.n_world : config.n_world + config.n_detector]
    C = perm[config.n_world + config.n_detector :]
    begin = time.perf_counter()
    backbone = pretrain_backbone(images[A], labels[A], config, seed=config.data_seed)
    pretrain_seconds = time.perf_counter() - begin
    with torch.no_grad():
        accuracy = float(
            (backbone(torch.as_tensor(images[C])).argmax(1).numpy() == labels[C]).mean()
        )
    backbone.head = torch.nn.Identity()
    gens = train_generators(images[A], config, seed=config.data_seed)
    info = {
        "pretrain_seconds": pretrain_seconds,
        "pretrain_test_accuracy": accuracy,
        "ddpm_train_seconds": gens.ddpm.train_seconds,
        "ddpm_final_loss": float(np.mean(gens.ddpm.losses[-100:])),
        "ddpm_losses": gens.ddpm.losses,
        "vae_reconstruction_mse": reconstruction_mse(gens.vae, images[A]),
    }
    return images[B], images[C], backbone, gens, info


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    real_train, real_test, backbone, gens, info = _world(config)
    out = dict(info)
    draws = np.random.SeedSequence(seed).generate_state(2 * len(GENERATORS) + 1)
    fake_train = {
        g: gens.sample(g, len(real_train), int(draws[i])) for i, g in enumerate(GENERATORS)
    }
    fake_test = {
        g: gens.sample(g, config.n_fake_test, int(draws[len(GENERATORS) + i]))
        for i, g in enumerate(GENERATORS)
    }
    test = np.concatenate([real_test, *fake_test.values()])  # (N_test, 1, 8, 8)
    n_real = len(real_test)
    ft_seed = int(draws[-1]) % 2**31
    out["samples"] = {g: fake_test[g][:8, 0] for g in GENERATORS} | {"real": real_test[:8, 0]}

    # the pre-trained backbone's feature space, and check (c) at initialisation
    original = build_detector(backbone, "full", seed=ft_seed)
    adapted = build_detector(backbone, "effort", rank=config.rank, seed=ft_seed)
    _, feats0 = scores_and_features(original, test)
    _, feats_init = scores_and_features(adapted, test)
    out["init_max_abs_diff"] = float(np.abs(feats_init - feats0).max())
    out["pretrained_erank"] = effective_rank(feats0)
    out["pretrained_erank_entropy"] = effective_rank(feats0, "entropy")
    out["pretrained_spectrum"] = feature_spectrum(feats0)

    runs = {}
    for g in config.train_generators:
        for method in METHODS:
            det = build_detector(backbone, method, rank=config.rank, seed=ft_seed)
            frozen = {  # every backbone parameter but Effort's residuals, whatever requires_grad
                n: p.detach().clone()
                for n, p in det.backbone.named_parameters()
                if n.rpartition(".")[2] not in RESIDUAL_NAMES
            }
            begin = time.perf_counter()
            losses = fine_tune(
                det,
                real_train,
                fake_train[g],
                steps=config.ft_steps,
                lr=config.ft_lr,
                seed=ft_seed,
                batch=config.ft_batch,
            )
            seconds = time.perf_counter() - begin
            scores, feats = scores_and_features(det, test)
            real_scores, start, aucs = scores[:n_real], n_real, {}
            for h in GENERATORS:
                aucs[h] = auc(real_scores, scores[start : start + config.n_fake_test])
                start += config.n_fake_test
            moved = max(
                (
                    float((p.detach() - frozen[n]).abs().max())
                    for n, p in det.backbone.named_parameters()
                    if n in frozen
                ),
                default=0.0,
            )
            runs[f"{g}/{method}"] = {
                "auc": aucs,
                "erank": effective_rank(feats),
                "erank_entropy": effective_rank(feats, "entropy"),
                "spectrum": feature_spectrum(feats),
                "trainable": count_trainable(det.backbone),
                "frozen_max_change": moved,
                "residual_layers": len(effort_layers(det)),
                "final_loss": float(np.mean(losses[-max(1, len(losses) // 10) :])),
                "loss_change_last_quarter": _plateau(losses),
                "losses": losses,
                "seconds": seconds,
            }
    out["runs"] = runs
    return out


def _plateau(losses: np.ndarray) -> float:
    """Relative change of the mean loss from the third to the last quarter of training."""
    q = max(1, len(losses) // 4)
    return float(1 - losses[-q:].mean() / losses[-2 * q : -q].mean())


def _mean(outs: list[dict], *path) -> float:
    """Mean over the cells of ``out[path[0]][path[1]]...``."""
    values = []
    for o in outs:
        for p in path:
            o = o[p]
        values.append(o)
    return float(np.mean(values))


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    outs = [o for _, o in results]
    m: dict[str, float] = {}
    unseen, seen, erank = {}, {}, {}
    for g in config.train_generators:
        others = [h for h in GENERATORS if h != g]
        for method in METHODS:
            key = f"{g}/{method}"
            for h in GENERATORS:
                m[f"auc_train_{g}_{method}_test_{h}"] = _mean(outs, "runs", key, "auc", h)
            unseen[key] = float(np.mean([m[f"auc_train_{g}_{method}_test_{h}"] for h in others]))
            seen[key] = m[f"auc_train_{g}_{method}_test_{g}"]
            erank[key] = _mean(outs, "runs", key, "erank")
            m[f"unseen_auc_train_{g}_{method}"] = unseen[key]
            m[f"erank_train_{g}_{method}"] = erank[key]
            m[f"erank_entropy_train_{g}_{method}"] = _mean(outs, "runs", key, "erank_entropy")
            m[f"final_loss_train_{g}_{method}"] = _mean(outs, "runs", key, "final_loss")
        best = max(unseen[f"{g}/full"], unseen[f"{g}/lora"])
        m[f"a_margin_train_{g}"] = unseen[f"{g}/effort"] - best
        m[f"b_erank_gap_train_{g}"] = erank[f"{g}/effort"] - erank[f"{g}/full"]
    gs = config.train_generators
    m["a_min_margin"] = min(m[f"a_margin_train_{g}"] for g in gs)
    m["b_min_erank_gap"] = min(m[f"b_erank_gap_train_{g}"] for g in gs)
    for method in METHODS:
        m[f"unseen_auc_mean_{method}"] = float(np.mean([unseen[f"{g}/{method}"] for g in gs]))
        m[f"seen_auc_mean_{method}"] = float(np.mean([seen[f"{g}/{method}"] for g in gs]))
        m[f"erank_mean_{method}"] = float(np.mean([erank[f"{g}/{method}"] for g in gs]))
        m[f"seen_minus_unseen_auc_{method}"] = (
            m[f"seen_auc_mean_{method}"] - m[f"unseen_auc_mean_{method}"]
        )
        m[f"loss_change_last_quarter_{method}"] = float(
            np.mean([_mean(outs, "runs", f"{g}/{method}", "loss_change_last_quarter") for g in gs])
        )
        m[f"trainable_{method}"] = float(outs[0]["runs"][f"{gs[0]}/{method}"]["trainable"])
    m["pretrained_erank"] = _mean(outs, "pretrained_erank")
    m["pretrained_erank_entropy"] = _mean(outs, "pretrained_erank_entropy")
    m["pretrain_test_accuracy"] = outs[0]["pretrain_test_accuracy"]
    m["ddpm_final_loss"] = outs[0]["ddpm_final_loss"]
    m["vae_reconstruction_mse"] = outs[0]["vae_reconstruction_mse"]
    m["c_init_max_abs_diff"] = max(o["init_max_abs_diff"] for o in outs)
    m["c_frozen_max_change"] = max(
        o["runs"][f"{g}/effort"]["frozen_max_change"] for o in outs for g in gs
    )
    if config.timing:
        m["ddpm_train_seconds"] = outs[0]["ddpm_train_seconds"]
        m["pretrain_seconds"] = outs[0]["pretrain_seconds"]
        for method in METHODS:
            m[f"finetune_seconds_{method}"] = float(
                np.mean([_mean(outs, "runs", f"{g}/{method}", "seconds") for g in gs])
            )
    figures = {
        "auc_unseen": _fig_auc(config, m),
        "feature_spectra": _fig_spectra(config, outs),
        "samples": _fig_samples(outs[0]),
        "training_curves": _fig_curves(config, outs),
    }
    captions = {
        "auc_unseen": "Test AUC of each detector against each generator (mean over seeds); "
        "the hatched bar is the generator it was trained on.",
        "feature_spectra": "Explained-variance spectrum of the test-set features, before "
        "(pre-trained backbone) and after fine-tuning, mean over seeds.",
        "samples": "Real digits and quantised fakes of the three generators.",
        "training_curves": "Fine-tuning loss per step (mean over seeds) and the DDPM's loss.",
    }
    return Summary(m, figures, captions)


COLORS = {"full": "tab:red", "lora": "tab:orange", "effort": "tab:blue"}


def _fig_auc(config: Config, m: dict) -> Figure:
    gs = config.train_generators
    fig = Figure(figsize=(4 * len(gs), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(gs), sharey=True))
    width = 0.27
    for ax, g in zip(axes, gs, strict=True):
        for j, method in enumerate(METHODS):
            for i, h in enumerate(GENERATORS):
                ax.bar(
                    i + (j - 1) * width,
                    m[f"auc_train_{g}_{method}_test_{h}"],
                    width,
                    color=COLORS[method],
                    hatch="//" if h == g else None,
                    label=method if i == 0 else None,
                )
        ax.set_xticks(range(len(GENERATORS)), GENERATORS)
        ax.set_title(f"trained on {g}")
        ax.set_ylim(0.4, 1.0)
        ax.axhline(0.5, color="k", lw=0.5)
    axes[0].set_ylabel("test AUC")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_spectra(config: Config, outs: list[dict]) -> Figure:
    gs = config.train_generators
    fig = Figure(figsize=(4 * len(gs), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(gs), sharey=True))
    before = np.mean([o["pretrained_spectrum"] for o in outs], axis=0)
    k = np.arange(1, len(before) + 1)
    for ax, g in zip(axes, gs, strict=True):
        ax.semilogy(k, before, "k--", label="pre-trained")
        for method in METHODS:
            spec = np.mean([o["runs"][f"{g}/{method}"]["spectrum"] for o in outs], axis=0)
            ax.semilogy(k, spec, color=COLORS[method], label=method)
        ax.set_title(f"trained on {g}")
        ax.set_xlabel("principal component")
        ax.set_ylim(1e-5, 1)
    axes[0].set_ylabel("explained variance ratio")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fig_samples(out: dict) -> Figure:
    rows = ["real", *GENERATORS]
    fig = Figure(figsize=(8, 4.4))
    axes = fig.subplots(len(rows), 8)
    for r, name in enumerate(rows):
        for c in range(8):
            axes[r, c].imshow(out["samples"][name][c], cmap="gray_r", vmin=-1, vmax=1)
            axes[r, c].set_xticks([])
            axes[r, c].set_yticks([])
        axes[r, 0].set_ylabel(name)
    return fig


def _fig_curves(config: Config, outs: list[dict]) -> Figure:
    gs = config.train_generators
    fig = Figure(figsize=(4 * (len(gs) + 1), 3.2))
    axes = fig.subplots(1, len(gs) + 1)
    for ax, g in zip(axes, gs, strict=False):
        for method in METHODS:
            curve = np.mean([o["runs"][f"{g}/{method}"]["losses"] for o in outs], axis=0)
            ax.plot(curve, color=COLORS[method], label=method, lw=0.8)
        ax.set_title(f"fine-tuning on {g}")
        ax.set_xlabel("step")
    axes[0].set_ylabel("BCE loss")
    axes[0].legend(fontsize=8)
    axes[-1].plot(outs[0]["ddpm_losses"], lw=0.5)
    axes[-1].set_title("DDPM training loss")
    axes[-1].set_xlabel("step")
    axes[-1].set_yscale("log")
    fig.tight_layout()
    return fig
