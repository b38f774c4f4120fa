"""Reproduction: Effort's orthogonal rank-1 residual generalises to unseen generators better than
full fine-tuning and LoRA, and keeps the feature space higher-ranked (Yan et al., ICML 2025).

One cell per seed, and one probe cell at a larger learning rate. Every cell builds the same world
from ``Config.data_seed``: the digits split into a generator/pre-training set (A), a detector
training set of reals (B) and a test set of reals (C); a small ViT pre-trained on A to classify
digits (our stand-in for the vision foundation model); three generators trained on A (the shared
DDPM, loaded from its disk cache after the first cell; a VAE; a PCA-Gaussian). The cell's seed
draws the fakes and the fine-tuning: for each training generator and each method (full, LoRA,
Effort), a detector is fine-tuned on B against that generator's fakes until the convergence rule
(:class:`~icml25.effort_aigi.convergence.ConvergenceRule`, ``Config.rule``) stops it, then scored
on C against fresh fakes of every generator (AUC), and the effective rank of its features on the
whole test set is measured (Roy & Vetterli's entropy rank, and the official PCA-90% count). The
seed cells also measure the check (c): Effort's adapted backbone against the original at
initialisation, and whether any non-residual parameter moved during Effort's fine-tuning. The
probe cell (``{"seed": 0, "ft_lr": Config.probe_lr}``) does the same at the probe's learning rate.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from icml25.effort_aigi.convergence import ConvergenceRule
from icml25.effort_aigi.data import GENERATORS, digits, reconstruction_mse, train_generators
from icml25.effort_aigi.detect import (
    METHODS,
    auc,
    build_detector,
    fine_tune,
    pretrain_backbone,
    scores_and_features,
)
from icml25.effort_aigi.rank import entropy_effective_rank, feature_spectrum, pca_rank
from icml25.effort_aigi.svd_residual import RESIDUAL_NAMES, count_trainable, effort_layers

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
    # every fine-tuning runs until its smoothed loss (mean of the last ft_window steps) fell by at
    # most ft_rtol of itself + ft_atol over one window, checked every ft_every steps, or to the cap
    ft_window: int = 200
    ft_every: int = 50
    ft_rtol: float = 0.02
    ft_atol: float = 0.002  # nats of BCE, against ln 2 = 0.69 at chance
    ft_max_steps: int = 2000
    ft_batch: int = 64  # half real, half fake
    ft_lr: float = 1e-3
    probe_lr: float = 1e-2  # the probe cell: one seed, all methods, this learning rate
    rank: int = 1
    n_fake_test: int = 397  # as many fakes per generator as test reals
    timing: bool = True  # wall-clock measurements (off at smoke: they never repeat)

    @property
    def rule(self) -> ConvergenceRule:
        return ConvergenceRule(
            self.ft_window, self.ft_every, self.ft_rtol, self.ft_atol, self.ft_max_steps
        )


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
        ft_window=10,
        ft_every=5,
        ft_max_steps=40,
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
        ft_max_steps=5000,
    ),
}


def cells(config: Config) -> list[dict]:
    """One cell per seed at ``ft_lr``, then the probe cell at ``probe_lr``."""
    return [{"seed": s} for s in range(config.seeds)] + [{"seed": 0, "ft_lr": config.probe_lr}]


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
    lr = float(cell.get("ft_lr", config.ft_lr))
    rule = config.rule
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
    out["pretrained_entropy_erank"] = entropy_effective_rank(feats0)
    out["pretrained_pca90_rank"] = pca_rank(feats0)
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
                lr=lr,
                seed=ft_seed,
                batch=config.ft_batch,
                rule=rule,
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
                "entropy_erank": entropy_effective_rank(feats),
                "pca90_rank": pca_rank(feats),
                "spectrum": feature_spectrum(feats),
                "trainable": count_trainable(det.backbone),
                "frozen_max_change": moved,
                "residual_layers": len(effort_layers(det)),
                "steps": len(losses),
                "converged": rule.met(losses),
                "loss_rel_change": rule.relative_change(losses),
                "final_loss": float(losses[-rule.window :].mean()),
                "losses": losses,
                "seconds": seconds,
            }
    out["runs"] = runs
    return out
