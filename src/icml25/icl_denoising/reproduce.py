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
from matplotlib.figure import Figure

from icml25.icl_denoising.attention import attention_denoise, scalar_weights, train_attention
from icml25.icl_denoising.bayes import bayes_gmm, bayes_linear, bayes_sphere
from icml25.icl_denoising.energy import dam_descent
from icml25.icl_denoising.tasks import Prompts, gmm_prompts, linear_prompts, sphere_prompts
from icml25.lab.reproduction import Summary

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


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    nan = float("nan")
    m: dict[str, float] = {}
    main = [(c, o) for c, o in results if c["multiplier"] == 1]
    ablation = [(c, o) for c, o in results if c["multiplier"] > 1]

    def rows(task, kind, pool=main):
        return [o for c, o in pool if c["task"] == task and c["model"] == kind]

    for task, kind in MAIN:
        outs = rows(task, kind)
        if not outs:
            continue
        key = task if kind == PAPER_MODEL[task] else f"{task}_{kind}"
        ratios = [o["test_mse"] / o["bayes_mse"] for o in outs]
        m[f"mse_ratio_{key}"] = float(np.mean(ratios))
        m[f"mse_ratio_{key}_max"] = float(np.max(ratios))
        m[f"mse_ratio_{key}_min"] = float(np.min(ratios))
        # standard error of the seed mean: seed-to-seed spread (training and test prompts)
        m[f"mse_ratio_{key}_se"] = (
            float(np.std(ratios, ddof=1) / np.sqrt(len(ratios))) if len(ratios) > 1 else nan
        )
        m[f"mse_ratio_{key}_se_prompts"] = float(
            np.sqrt(np.mean([o["ratio_se_prompts"] ** 2 for o in outs]) / len(outs))
        )
        m[f"train_ratio_{key}"] = float(
            np.mean([o["train_loss"][-1] / o["train_bayes_mse"] for o in outs])
        )
        m[f"mse_ratio_{key}_best_scalar"] = float(
            np.mean([o["best_scalar_mse"] / o["bayes_mse"] for o in outs])
        )
        for name in ("test_mse", "bayes_mse", "query_mse", "zero_mse"):
            m[f"{name}_{key}"] = float(np.mean([o[name] for o in outs]))
        for name in ("alpha", "beta"):  # up to the sign flip (alpha, beta) -> (-alpha, -beta)
            m[f"abs_{name}_{key}"] = float(np.mean([abs(o[name]) for o in outs]))
        m[f"negative_scalars_{key}"] = float(sum(o["alpha"] < 0 for o in outs))
        steps = [o["trained_vs_one_step_rel"] for o in outs if "trained_vs_one_step_rel" in o]
        if steps:
            m[f"trained_vs_one_step_rel_{key}"] = float(np.mean(steps))
            m[f"trained_vs_one_step_rel_{key}_max"] = float(np.max(steps))
    for task in TASKS:
        outs = rows(task, PAPER_MODEL[task], ablation)
        if outs:
            ratios = [o["test_mse"] / o["bayes_mse"] for o in outs]
            m[f"mse_ratio_{task}_x{config.data_multiplier}"] = float(np.mean(ratios))
    target = 1.0 / (config.linear_sigma_0_sq + config.linear_sigma_z_sq)
    for kind in ("linear", "softmax"):
        products = [o["alpha"] * o["beta"] for o in rows("linear", kind)]
        if products:
            suffix = "" if kind == "linear" else "_softmax"
            m[f"alpha_beta{suffix}"] = float(np.mean(products))
            m[f"alpha_beta_rel_error{suffix}"] = float(
                np.max(np.abs(np.array(products) / target - 1))
            )
    m["offdiag_ratio_max"] = max(
        (max(o["offdiag_kq"], o["offdiag_pv"]) for _, o in main), default=nan
    )
    energy = [o for _, o in main if "descent_mse" in o]
    m["energy_step_max_abs_diff"] = max(
        (o["energy_step_max_abs_diff"] for o in energy), default=nan
    )
    m["trained_vs_one_step_rel_max"] = max(
        (o["trained_vs_one_step_rel"] for o in energy), default=nan
    )
    m["energy_cells"] = float(len(energy))
    m["energy_cells_reflected"] = float(sum(o["reflected"] for o in energy))
    m["further_steps_min_ratio"] = min(
        (min(o["descent_mse"][2:]) / o["descent_mse"][1] for o in energy), default=nan
    )
    figures = {}
    if main:
        figures["loss_curves"] = _fig_losses(config, main)
        figures["weights"] = _fig_weights(main)
    if energy:
        figures["energy_descent"] = _fig_descent(main)
    return Summary(m, figures)


def _models(main) -> list[tuple[str, str]]:
    present = {(c["task"], c["model"]) for c, _ in main}
    return [pair for pair in MAIN if pair in present]


def _fig_losses(config: Config, main) -> Figure:
    models = _models(main)
    fig = Figure(figsize=(3.3 * len(models), 3.4))
    axes = np.atleast_1d(fig.subplots(1, len(models)))
    for ax, (task, kind) in zip(axes, models, strict=True):
        outs = [o for c, o in main if c["task"] == task and c["model"] == kind]
        if not outs:
            continue
        test = np.mean([o["test_loss"] for o in outs], axis=0)
        train = np.mean([o["train_loss"] for o in outs], axis=0)
        ax.plot(test, label="test", color="C0")
        ax.plot(train, label="train", color="C0", ls="--", lw=0.8)
        for name, label, color in (
            ("bayes_mse", "Bayes", "k"),
            ("query_mse", "x~ (no denoising)", "C3"),
            ("zero_mse", "0", "C2"),
        ):
            ax.axhline(np.mean([o[name] for o in outs]), color=color, ls=":", label=label)
        ax.set_yscale("log")
        ax.set_title(f"{task} task, {kind} attention", fontsize=9)
        ax.set_xlabel("epoch")
    axes[0].set_ylabel(f"MSE per coordinate (mean of {config.seeds} seeds)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_weights(main) -> Figure:
    models = _models(main)
    fig = Figure(figsize=(3 * len(models), 5.6))
    axes = fig.subplots(2, len(models), squeeze=False)
    for j, (task, kind) in enumerate(models):
        out = next((o for c, o in main if (c["task"], c["model"]) == (task, kind)), None)
        if out is None:
            continue
        for i, name in enumerate(("W_KQ", "W_PV")):
            W = np.array(out[name])
            lim = np.max(np.abs(W))
            im = axes[i, j].imshow(W, cmap="RdBu_r", vmin=-lim, vmax=lim)
            axes[i, j].set_title(f"{name}, {task} / {kind}", fontsize=9)
            axes[i, j].set_xticks([])
            axes[i, j].set_yticks([])
            fig.colorbar(im, ax=axes[i, j], fraction=0.046)
    fig.tight_layout()
    return fig


def _fig_descent(main) -> Figure:
    fig = Figure(figsize=(5, 3.6))
    ax = fig.subplots()
    for j, task in enumerate(TASKS):
        outs = [
            o
            for c, o in main
            if c["task"] == task and c["model"] == "softmax" and "descent_mse" in o
        ]
        if outs:
            curve = np.mean([np.array(o["descent_mse"]) / o["bayes_mse"] for o in outs], axis=0)
            ax.plot(range(len(curve)), curve, "o-", color=f"C{j}", label=task)
    ax.axhline(1.0, color="k", ls=":", lw=1, label="Bayes")
    ax.set_yscale("log")
    ax.set_xlabel("gradient steps on the energy from s(0) = x~ (step = alpha)")
    ax.set_ylabel("test MSE / Bayes MSE")
    ax.set_title("softmax attention = step 1", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
