"""Reproduction: in-context denoising with one attention layer (Smart, Bietti & Sengupta, ICML
2025).

Every cell trains one layer (``W_KQ``, ``W_PV``, n x n) on one task with the paper's protocol:
``n = 16``, ``L = 499`` context tokens + 1 noisy query, 800 training / 200 test prompts (the
test prompts are only monitored; the layer is scored on ``prompts_eval`` fresh prompts), a fresh
subspace, sphere or mixture per prompt, Adam ``lr = 1e-2`` x0.1 at 80% and 90%, batch 80,
100 epochs (linear task) or 200 (sphere, mixture). Tasks: linear (``d = 8``, ``sigma_0^2 = 2``,
``sigma_Z^2 = 1``), sphere (``S^8``, ``R = 1``, ``sigma_Z^2 = 0.1``), mixture (``K = 8``
unit-norm centres, ``sigma_0^2 = 0.02``, ``sigma_Z^2 = 0.1``). Models: the paper's (linear
attention on the linear task, softmax on the others) and ``extra_models`` (softmax on the linear
task). Ablation cells repeat the paper's models with ``data_multiplier`` times more training
prompts (and as many fewer epochs: same step count).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.icl_denoising.attention import attention_denoise, scalar_weights, train_attention
from icml25.icl_denoising.bayes import bayes_gmm, bayes_linear, bayes_sphere
from icml25.icl_denoising.energy import dam_descent
from icml25.icl_denoising.tasks import Prompts, gmm_prompts, linear_prompts, sphere_prompts

TASKS = ("linear", "sphere", "gmm")
PAPER_MODEL = {"linear": "linear", "sphere": "softmax", "gmm": "softmax"}
MAIN = (("linear", "linear"), ("linear", "softmax"), ("sphere", "softmax"), ("gmm", "softmax"))
EXTRA = (("linear", "softmax"),)  # models the paper does not use for the task

# float sums identical whatever the worker count, and small products fastest: one thread
CELL_THREADS = 1


@dataclass(frozen=True)
class Config:
    n: int = 16
    context_len: int = 499
    prompts_train: int = 800
    prompts_test: int = 200  # monitored during training (the paper's test set)
    prompts_eval: int = 4000  # fresh prompts the trained layer is scored on
    batch_size: int = 80
    lr: float = 1e-2
    epochs_linear: int = 100
    epochs_nonlinear: int = 200  # sphere and mixture
    linear_d: int = 8
    linear_sigma_0_sq: float = 2.0
    linear_sigma_z_sq: float = 1.0
    sphere_d: int = 8
    sphere_radius: float = 1.0
    sphere_sigma_z_sq: float = 0.1
    gmm_components: int = 8
    gmm_sigma_0_sq: float = 0.02
    gmm_sigma_z_sq: float = 0.1
    seeds: int = 4
    extra_models: bool = False
    ablation_seeds: int = 0
    data_multiplier: int = 4
    energy_steps: int = 5


SCALES = {
    "smoke": Config(
        n=8,
        context_len=50,
        prompts_train=240,
        prompts_test=80,
        prompts_eval=200,
        batch_size=40,
        lr=0.02,
        epochs_linear=25,
        epochs_nonlinear=25,
        linear_d=4,
        sphere_d=4,
        gmm_components=4,
        seeds=2,  # two, so that the standard error is measured
    ),
    "default": Config(),
    "paper": Config(seeds=6, extra_models=True, ablation_seeds=6),
}


def cells(config: Config) -> list[dict]:
    main = [
        {"task": t, "model": m, "multiplier": 1, "replicate": r}
        for t, m in MAIN
        if config.extra_models or (t, m) not in EXTRA
        for r in range(config.seeds)
    ]
    ablation = [
        {"task": t, "model": PAPER_MODEL[t], "multiplier": config.data_multiplier, "replicate": r}
        for t in TASKS
        for r in range(config.ablation_seeds)
    ]
    return main + ablation


def make_prompts(config: Config, task: str, prompts: int, seed: np.random.SeedSequence) -> Prompts:
    """``prompts`` prompts of ``task`` with the config's sizes and noise levels."""
    c = config
    rng = np.random.default_rng(seed)
    if task == "linear":
        args = (c.linear_d, c.linear_sigma_0_sq, c.linear_sigma_z_sq)
        return linear_prompts(prompts, c.context_len, c.n, *args, rng)
    if task == "sphere":
        args = (c.sphere_d, c.sphere_radius, c.sphere_sigma_z_sq)
        return sphere_prompts(prompts, c.context_len, c.n, *args, rng)
    args = (c.gmm_components, c.gmm_sigma_0_sq, c.gmm_sigma_z_sq)
    return gmm_prompts(prompts, c.context_len, c.n, *args, rng)


def bayes(config: Config, task: str, p: Prompts) -> np.ndarray:
    """The oracle posterior mean of ``task`` on prompts ``p``, (B, n)."""
    c = config
    if task == "linear":
        return bayes_linear(p.query, p.basis, c.linear_sigma_0_sq, c.linear_sigma_z_sq)
    if task == "sphere":
        return bayes_sphere(p.query, p.basis, c.sphere_radius, c.sphere_sigma_z_sq)
    return bayes_gmm(p.query, p.centers, c.gmm_sigma_0_sq, c.gmm_sigma_z_sq)


def _mse(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.mean((a - b) ** 2))


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    task, kind, mult = cell["task"], cell["model"], cell["multiplier"]
    s_train, s_test, s_model, s_eval = np.random.SeedSequence(seed).spawn(4)
    train = make_prompts(config, task, config.prompts_train * mult, s_train)
    monitor = make_prompts(config, task, config.prompts_test, s_test)  # loss curve only
    epochs = config.epochs_linear if task == "linear" else config.epochs_nonlinear
    run = train_attention(
        train,
        monitor,
        kind,
        epochs=max(1, epochs // mult),
        batch_size=config.batch_size,
        lr=config.lr,
        seed=int(s_model.generate_state(1)[0]),
    )
    test = make_prompts(config, task, config.prompts_eval, s_eval)
    out_model = attention_denoise(test.context, test.query, run.W_KQ, run.W_PV, kind)
    errors = np.mean((out_model - test.target) ** 2, axis=1)  # (B,)
    errors_bayes = np.mean((bayes(config, task, test) - test.target) ** 2, axis=1)  # (B,)
    ratio = errors.mean() / errors_bayes.mean()
    beta, off_kq = scalar_weights(run.W_KQ)
    alpha, off_pv = scalar_weights(run.W_PV)
    out = {
        "test_mse": float(errors.mean()),
        "bayes_mse": float(errors_bayes.mean()),
        # delta-method standard error of this seed's ratio over its test prompts
        "ratio_se_prompts": float(
            np.std(errors - ratio * errors_bayes, ddof=1)
            / np.sqrt(errors.size)
            / errors_bayes.mean()
        ),
        "train_bayes_mse": _mse(bayes(config, task, train), train.target),
        "query_mse": _mse(test.query, test.target),  # naive: return x~
        "zero_mse": _mse(0.0, test.target),  # naive: return 0
        "alpha": alpha,
        "beta": beta,
        "offdiag_kq": off_kq,
        "offdiag_pv": off_pv,
        "train_loss": run.train_loss.tolist(),
        "test_loss": run.test_loss.tolist(),
        "W_KQ": run.W_KQ.tolist(),
        "W_PV": run.W_PV.tolist(),
        "best_scalar_mse": _best_scalar_layer(kind, train, test),
    }
    if kind == "softmax" and alpha * beta > 0:
        out.update(_energy(config, test, alpha, beta, out_model))
    return out


def _best_scalar_layer(kind: str, train: Prompts, test: Prompts) -> float:
    """Test MSE of the best scaled-identity layer ``W_PV = alpha I``, ``W_KQ = beta I`` fitted
    on the training prompts (least-squares ``alpha`` for each ``beta`` of a log grid; linear
    attention depends on ``alpha beta`` only): what the architecture can reach at this ``L``."""
    eye = np.eye(train.query.shape[1])
    betas = [1.0] if kind == "linear" else np.geomspace(0.1, 30.0, 31)
    best = (np.inf, 0.0, 0.0)
    for beta in betas:
        y = attention_denoise(train.context, train.query, beta * eye, eye, kind)  # (B, n)
        alpha = float(np.sum(y * train.target) / np.sum(y * y))
        best = min(best, (_mse(alpha * y, train.target), alpha, float(beta)))
    _, alpha, beta = best
    y = attention_denoise(test.context, test.query, beta * eye, alpha * eye, kind)
    return _mse(y, test.target)


def _energy(config: Config, test: Prompts, alpha: float, beta: float, trained) -> dict:
    """Descent on the DAM energy with the trained scalars against the attention layer.

    With both scalars negative (the sign flip ``(alpha, beta) -> (-alpha, -beta)`` is a symmetry
    of the centrally symmetric tasks) the layer is ``|alpha| (-X) softmax(|beta| (-X)^T x~)``:
    the same DAM with the reflected patterns ``-x_t``, which is what we descend on."""
    sign = float(np.sign(beta))
    patterns = sign * test.context  # (B, L, n)
    states = dam_descent(test.query, patterns, abs(alpha), abs(beta), config.energy_steps)
    eye = np.eye(test.query.shape[1])
    attention = attention_denoise(test.context, test.query, beta * eye, alpha * eye, "softmax")
    return {
        "energy_step_max_abs_diff": float(np.max(np.abs(states[1] - attention))),
        "trained_vs_one_step_rel": float(
            np.linalg.norm(trained - states[1]) / np.linalg.norm(states[1])
        ),
        "descent_mse": [_mse(s, test.target) for s in states],  # k = 0..steps
        "reflected": sign < 0,
    }
