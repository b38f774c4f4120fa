"""supercollapse: training seeds of the muP MLP against the official JAX code, and the L0 fit.

1. Official (anchor): ``train.train_and_evaluate`` of shikaiqiu/supercollapse (JAX/Flax NNX +
   optax), with ``--official-src`` a checkout outside this repository and ``--official-python``
   an interpreter that has jax, flax, optax and omegaconf (their code is never copied here). It
   runs in a subprocess on the SAME inputs: the same training batches and test set (our stream,
   handed over in an .npz through their ``data.make_loader``) and the same initial weights of
   each seed (set on their model after their ``mlp.create_sharded_model``), at the same settings
   (their ``configs/mlp.yaml`` with width ``D``, ``base_D``, ``N`` blocks, batch, ``lr``,
   linear decay, ``readout_lr_mult = 1`` as their ``experiments/mlp.yaml``). Their code logs
   only to wandb: a stub ``wandb`` module captures the logged ``test_loss``. Their last
   evaluation is taken before the last update, so both sides report the test loss after
   ``steps - 1`` updates. Their ``eval_step`` also computes gradient-noise traces (part of
   their cost; ``num_evals = 2`` keeps it to 3 evaluations). Their time per seed includes the
   JIT compilation that every run of their script pays.

   Ours: :func:`icml25.supercollapse.train_members`, all seeds as one batched model (torch,
   stacked Adam). Extra row: ``torch loop``, one model per seed with ``torch.optim.Adam`` and
   ``LambdaLR`` (the plain torch route).

2. Fitting ``L = L0 + a c^-b`` (Huber on log L) to five noisy end points: ours
   (:func:`fit_irreducible_loss`, ``least_squares``) against the official notebook's recipe as we
   read it (L-BFGS-B on the mean Huber loss from a grid of starts), re-written here: a naive
   re-implementation, not their code.

Times: ours and theirs alternate, best of ``--repeat`` (default 1: their runs are long); one
thread each (torch; XLA without its multi-threaded Eigen).

    python benchmarks/bench_supercollapse.py --official-src /tmp/anchors/supercollapse \\
        --official-python /tmp/anchors/venv-supercollapse/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from itertools import product
from pathlib import Path

import numpy as np
import torch
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).parent))
from harness import table  # noqa: E402

from icml25.supercollapse import (  # noqa: E402
    fit_irreducible_loss,
    fourier_targets,
    fourier_task,
    init_mlp,
    lr_schedule,
    mlp_forward,
    mup_learning_rates,
    sample_inputs,
    train_members,
)
from icml25.supercollapse.mlp import BETA1, BETA2, EPS  # noqa: E402
from icml25.supercollapse.reproduce import Config  # noqa: E402

SEEDS = [0, 1, 2]
DATA_SEED = 1

DRIVER = r"""
import json, sys, time, types
import numpy as np
src, data_path, out_path = sys.argv[1:4]
sys.path.insert(0, src)
logs = []
wandb = types.ModuleType("wandb")
wandb.init = lambda **kw: None
wandb.log = lambda metrics: logs.append({k: float(v) for k, v in metrics.items()})
wandb.finish = lambda: None
sys.modules["wandb"] = wandb
import jax, jax.numpy as jnp
from omegaconf import OmegaConf
import data, mlp, train
arrays = np.load(data_path)
spec = json.loads(str(arrays["spec"]))
W_in, W1 = arrays["W_in"], arrays["W1"]
member = {"m": 0}
def loader(ds_path, seq_len, batch_size, split, rng):
    if split == "train":
        xs, ys = arrays["x_train"], arrays["y_train"]
    else:
        xs = arrays["x_test"].reshape(-1, batch_size, spec["dim"])
        ys = arrays["y_test"].reshape(-1, batch_size)
    def gen():
        for x, y in zip(xs, ys):
            yield jnp.asarray(np.concatenate([x, y[:, None]], axis=1), dtype=jnp.float32)
    return gen(), 1e16
data.make_loader = loader
original = mlp.create_sharded_model
def create(model_cfg, mesh, seed):
    model = original(model_cfg, mesh, seed)
    if model_cfg.D == spec["width"]:
        m = member["m"]
        model.embed.kernel.value = jnp.asarray(W_in[m])
        for layer, block in enumerate(model.blocks):
            block.fc1.kernel.value = jnp.asarray(W1[m, layer])
    return model
mlp.create_sharded_model = create
load = lambda name: {k: v for k, v in OmegaConf.load(f"{src}/configs/{name}.yaml").items()
                     if k != "defaults"}
steps, B = spec["steps"], spec["batch"]
over = {"T": steps * B, "T_eval": spec["eval_size"], "num_evals": 2, "wandb_project": "stub",
        "model": {"D": spec["width"], "base_D": spec["base_width"], "N": spec["depth"], "L": 1,
                  "V": spec["dim"], "mlp_expansion": 1},
        "opt": {"B": B, "B_max": None, "lr": spec["lr"], "readout_lr_mult": 1.0,
                "schedule": "linear", "decay_frac": 1.0, "warmup_tokens": 0}}
out = []
for m in range(W_in.shape[0]):
    member["m"] = m
    logs.clear()
    cfg = OmegaConf.merge(load("default"), load("mlp"), over)
    t0 = time.perf_counter()
    train.train_and_evaluate(cfg)
    seconds = time.perf_counter() - t0
    evals = [r for r in logs if "test_loss" in r]
    out.append({"seconds": seconds, "step": evals[-1]["step"], "loss": evals[-1]["test_loss"]})
json.dump({"runs": out, "jax": jax.__version__}, open(out_path, "w"))
"""


def stream(task, steps: int, batch: int, eval_size: int):
    """The inputs ``train_members`` draws for ``data_seed = DATA_SEED``: test set, then batches."""
    gen = torch.Generator().manual_seed(DATA_SEED)
    x_test = sample_inputs(eval_size, task.dim, gen)  # (E, d)
    x_train = torch.stack([sample_inputs(batch, task.dim, gen) for _ in range(steps)])  # (T, B, d)
    return x_test, x_train


def official(args, task, cfg: Config, width: int, steps: int, folder: Path) -> dict:
    """Run the official ``train_and_evaluate`` once per seed in a subprocess (see the module)."""
    x_test, x_train = stream(task, steps, cfg.batch, cfg.eval_size)
    params = init_mlp(width, cfg.depth, SEEDS, task.dim)
    spec = {"width": width, "base_width": cfg.base_width, "depth": cfg.depth, "dim": task.dim,
            "steps": steps, "batch": cfg.batch, "eval_size": cfg.eval_size,
            "lr": cfg.base_lr}  # fmt: skip
    data = folder / f"w{width}.npz"
    with torch.no_grad():
        np.savez(
            data,
            spec=json.dumps(spec),
            W_in=params["W_in"].numpy(),
            W1=params["W1"].numpy(),
            x_train=x_train.numpy(),
            y_train=fourier_targets(task, x_train.reshape(-1, task.dim)).reshape(steps, -1).numpy(),
            x_test=x_test.numpy(),
            y_test=fourier_targets(task, x_test).numpy(),
        )
    (folder / "driver.py").write_text(DRIVER)
    env = dict(os.environ, XLA_FLAGS="--xla_cpu_multi_thread_eigen=false", OMP_NUM_THREADS="1",
               JAX_PLATFORMS="cpu")  # fmt: skip
    out = folder / f"w{width}.json"
    cmd = [args.official_python, str(folder / "driver.py"), args.official_src, str(data), str(out)]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"official code failed:\n{run.stderr[-3000:]}")
    return json.loads(out.read_text())


def torch_loop(task, cfg: Config, width: int, steps: int) -> np.ndarray:
    """Each seed on its own: a model, torch.optim.Adam, LambdaLR with the linear decay."""
    finals = []
    factor = lr_schedule("linear", np.arange(steps + 1), steps)
    for seed in SEEDS:
        params = init_mlp(width, cfg.depth, [seed])
        params = {k: v.clone().requires_grad_(True) for k, v in params.items()}
        rates = mup_learning_rates(width, cfg.base_width, cfg.base_lr)
        opt = torch.optim.Adam(
            [{"params": [params[k]], "lr": rates[k]} for k in params], betas=(BETA1, BETA2), eps=EPS
        )
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: float(factor[t]))
        x_test, x_train = stream(task, steps, cfg.batch, cfg.eval_size)
        y_test = fourier_targets(task, x_test)
        for x in x_train[: steps - 1]:
            loss = 0.5 * (mlp_forward(params, x)[0] - fourier_targets(task, x)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        with torch.no_grad():
            finals.append(0.5 * (mlp_forward(params, x_test)[0] - y_test).pow(2).mean().item())
    return np.array(finals)


def minimize_grid(c: np.ndarray, L: np.ndarray, n: int, delta: float = 1e-3) -> float:
    u = c / c.min()

    def objective(theta):
        r = np.log(theta[0] + theta[1] * u ** -theta[2]) - np.log(L)
        return np.mean(np.where(np.abs(r) <= delta, 0.5 * r**2, delta * (np.abs(r) - delta / 2)))

    starts = product(
        np.linspace(0.1 * L.min(), L.min(), n), np.linspace(0.1, 1, n), np.linspace(0.01, 0.3, n)
    )
    fits = [minimize(objective, s, method="L-BFGS-B", bounds=[(0, None)] * 3) for s in starts]
    return float(min(fits, key=lambda r: r.fun).x[0])


def training_rows(args, task, cfg: Config) -> list[list]:
    rows = []
    folder = Path(tempfile.mkdtemp(prefix="bench_supercollapse_"))
    for width in args.widths:
        steps = args.steps
        t_ours, t_theirs, theirs = np.inf, np.inf, None
        for _ in range(args.repeat):  # alternate ours and theirs, best of repeat
            t0 = time.perf_counter()
            run = train_members(
                task, width, SEEDS, ["linear"] * len(SEEDS), steps, depth=cfg.depth,
                batch=cfg.batch, base_width=cfg.base_width, base_lr=cfg.base_lr,
                eval_steps=[steps - 1], eval_size=cfg.eval_size, data_seed=DATA_SEED,
            )  # fmt: skip
            t_ours = min(t_ours, time.perf_counter() - t0)
            ours = run.loss[:, list(run.steps).index(steps - 1)]  # (M,) after steps - 1 updates
            if args.official_src:
                result = official(args, task, cfg, width, steps, folder)
                t_theirs = min(t_theirs, sum(r["seconds"] for r in result["runs"]))
                theirs = np.array([r["loss"] for r in result["runs"]])
        label = f"D={width}, {steps} steps, {len(SEEDS)} seeds"
        spread = float(ours.std(ddof=1))
        if theirs is not None:
            rel = float(np.max(np.abs(ours - theirs) / theirs))
            rows.append([label, "official (JAX)", t_ours, t_theirs, t_theirs / t_ours,
                         float(ours.mean()), float(theirs.mean()),
                         float(ours.mean() / theirs.mean()), spread, rel])  # fmt: skip
        if not args.skip_loop:
            t0 = time.perf_counter()
            loop = torch_loop(task, cfg, width, steps)
            t_loop = time.perf_counter() - t0
            rows.append([label, "torch loop (extra)", t_ours, t_loop, t_loop / t_ours,
                         float(ours.mean()), float(loop.mean()), float(ours.mean() / loop.mean()),
                         spread, float(np.max(np.abs(ours - loop) / loop))])  # fmt: skip
        print(table(TRAIN_HEADER, rows[-2:]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--official-src", default=None, help="checkout of shikaiqiu/supercollapse")
    parser.add_argument("--official-python", default=sys.executable)
    parser.add_argument("--widths", type=int, nargs="+", default=[16, 24])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--grid", type=int, default=3, help="starts per parameter (notebook: 10)")
    parser.add_argument("--skip-loop", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if not args.official_src:
        print("No --official-src: skipping the official rows. Fetch shikaiqiu/supercollapse "
              "(e.g. the fetch tool, then git archive into /tmp/anchors/supercollapse) and give "
              "--official-python a venv with jax, flax, optax, omegaconf.")  # fmt: skip
    cfg = Config()
    task = fourier_task(cfg.dim, cfg.n_modes, cfg.alpha, seed=cfg.task_seed)
    print(f"task: {cfg.n_modes} modes, alpha {cfg.alpha}; depth {cfg.depth}, batch {cfg.batch}, "
          f"base width {cfg.base_width}, base lr {cfg.base_lr}; torch {torch.__version__}, "
          f"threads {torch.get_num_threads()}")  # fmt: skip
    rows = training_rows(args, task, cfg)
    print("\nTraining (test loss after steps - 1 updates, mean over seeds):")
    print(table(TRAIN_HEADER, rows))

    rng = np.random.default_rng(0)
    c = np.geomspace(1e10, 3e11, 5)
    fit_rows = []
    for noise in (0.0, 0.005, 0.02):
        L = (0.15 + 2.0 * c**-0.08) * np.exp(noise * rng.normal(size=5))
        t0 = time.perf_counter()
        ours = fit_irreducible_loss(c, L)
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        L0_grid = minimize_grid(c, L, args.grid)
        t_grid = time.perf_counter() - t0
        fit_rows.append([noise, t_ours, t_grid, t_grid / t_ours, ours["L0"], L0_grid,
                         ours["L0"] - L0_grid])  # fmt: skip
    print("\nL0 fit against the notebook's recipe re-written (naive, not their code):")
    print(table(FIT_HEADER, fit_rows))


TRAIN_HEADER = ["setting", "anchor", "ours s", "anchor s", "time ratio (anchor/ours)",
                "ours loss", "anchor loss", "result ratio (ours/anchor)", "seed sd (ours)",
                "max rel. diff per seed"]  # fmt: skip
FIT_HEADER = ["noise (log sd)", "ours s", "grid s", "time ratio (grid/ours)", "ours L0 (true 0.15)",
              "grid L0", "L0 difference"]  # fmt: skip

if __name__ == "__main__":
    main()
