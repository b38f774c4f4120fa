"""mdm_order: our Sudoku MDM and decoder against the official Sudoku code of HKUNLP/diffusion-vs-ar
(the MDM code the paper reuses) and of kulinshah98/llm-reasoning-logic-puzzles (the ARM).

The official code runs in subprocesses, from checkouts outside this repository (never copied
here), on the SAME puzzles (generated here, handed over in an .npz):

1. Decoder accuracy with the same model: our analytic model (uniform over each cell's legal
   digits, :func:`icml25.mdm_order.legal_candidates`) decoded by their
   ``CustomDiffusionTrainer.generate_samples`` (``--hk-src``, run by ``--hk-python``, an
   interpreter with transformers 4.37 and torch) and by ours (:func:`icml25.mdm_order.solve`),
   at the same number of reverse steps: their ``stochastic0.5-linear`` (their Sudoku script)
   against our ``top_prob`` with Gumbel 0.5, their ``deterministic-linear`` against ``top_prob``,
   their random unmasking (``topk_decoding False``) against ``vanilla``. The analytic model is
   wrapped in their token layout (``puzzle [SEP] solution [EOS]``, the output at position i
   scoring token i + 1). Their decoder calls ``.cuda()``: the driver makes ``.cuda()`` a no-op
   (no GPU here); it constructs no Trainer: ``generate_samples`` is called with a namespace
   holding ``model``, ``diff_args`` and the tokenizer's ``mask_token_id``.
2. Sampling speed at equal model size (untrained weights: the cost does not depend on them):
   their GPT-2 ``DiffusionModel`` (causal mask off) with our default model's width, depth,
   heads and MLP size, decoded by ``generate_samples``, against our ``SudokuMDM`` and ``solve``;
   and the autoregressive model of kulinshah98 (``--ks-src``, flax ``TransformerLMHeadModel`` of
   the same size, decoded by their ``evaluater.get_eval_metrics``, run by ``--ks-python``, an
   interpreter with jax and flax; the driver maps their ``jnp.reshape(newshape=)`` keyword,
   removed since their jax 0.4.26, to ``shape``).
3. Extra rows (naive, not an anchor): the uniqueness check against a textbook backtracking
   solver in pure Python, one puzzle at a time.

Threads: one (torch, XLA without its multi-threaded Eigen).

    python benchmarks/bench_mdm_order.py --hk-src /tmp/anchors/diffusion-vs-ar \\
        --hk-python /tmp/anchors/venv-mdm_order/bin/python \\
        --ks-src /tmp/anchors/llm-reasoning-logic-puzzles \\
        --ks-python /tmp/anchors/venv-supercollapse/bin/python
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

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

import icml25  # noqa: E402
from icml25.mdm_order import (  # noqa: E402
    SudokuMDM,
    accuracy,
    count_solutions,
    legal_candidates,
    make_puzzles,
    solve,
)
from icml25.mdm_order.reproduce import Config  # noqa: E402

HK_DRIVER = r'''
import json, sys, time, types
import numpy as np
src, data_path, out_path = sys.argv[1:4]
import torch
torch.set_num_threads(1)
torch.nn.Module.cuda = lambda self, *a, **k: self  # their decoder calls .cuda(): stay on the CPU
torch.Tensor.cuda = lambda self, *a, **k: self
for name in ("llmtuner", "llmtuner.tuner", "llmtuner.tuner.mdm"):  # skip their heavy __init__s
    pkg = types.ModuleType(name)
    pkg.__path__ = [src + "/src/" + name.replace(".", "/")]
    sys.modules[name] = pkg
from transformers import GPT2Config, GPT2LMHeadModel
from llmtuner.tuner.mdm.model import DiffusionModel
from llmtuner.tuner.mdm.trainer import CustomDiffusionTrainer
arrays = np.load(data_path)
spec = json.loads(str(arrays["spec"]))
puzzles, solutions = arrays["puzzles"], arrays["solutions"]  # (N, 81), 0 = blank
N = len(puzzles)
PAD, SEP, MASK, EOS, DIGIT0 = 0, 1, 2, 3, 5  # their CustomTokenizer: specials 0-4, "0" = 5
ids = np.concatenate([puzzles + DIGIT0, np.full((N, 1), SEP), solutions + DIGIT0,
                      np.full((N, 1), EOS)], axis=1)  # (N, 164) puzzle [SEP] solution [EOS]
src_mask = np.zeros_like(ids); src_mask[:, :82] = 1
inputs = {"input_ids": torch.as_tensor(ids), "src_mask": torch.as_tensor(src_mask)}


class Analytic(torch.nn.Module):
    """Our analytic model (uniform over legal digits) in their token layout; the output at
    position i scores the token at i + 1, as their decoder expects."""
    def __init__(self, fn):
        super().__init__(); self.fn = fn
        self.config = types.SimpleNamespace(vocab_size=31)
    def forward(self, x, t=None, attention_mask=None):
        x = x.numpy()
        given = x[:, :81] - DIGIT0
        sol = x[:, 82:163] - DIGIT0
        sol = np.where((sol >= 1) & (sol <= 9), sol, 0)
        board = np.where(given > 0, given, sol)
        probs = self.fn(board)  # (B, 81, 9)
        logits = np.full((x.shape[0], 164, 31), -1e4, dtype=np.float32)
        logits[:, 81:162, DIGIT0 + 1:DIGIT0 + 10] = np.log(probs + 1e-12)
        logits[:, 162, EOS] = 0.0
        return torch.as_tensor(logits)


def shim(model, steps, topk, strategy):
    return types.SimpleNamespace(
        model=model, is_in_train=True,  # is_in_train: no per-step printing
        diff_args=types.SimpleNamespace(diffusion_steps=steps, topk_decoding=topk,
                                        decoding_strategy=strategy),
        tokenizer=types.SimpleNamespace(mask_token_id=MASK, vocab_size=31))


def run(model, steps, topk, strategy, seed):
    torch.manual_seed(seed)
    t0 = time.perf_counter()
    with torch.no_grad():
        out = CustomDiffusionTrainer.generate_samples(shim(model, steps, topk, strategy), inputs)
    seconds = time.perf_counter() - t0
    grids = out[:, 82:163].numpy() - DIGIT0
    return seconds, float((grids == solutions).all(1).mean())


result = {"transformers": __import__("transformers").__version__}
if spec["mode"] == "size":
    c = spec["model"]
    config = GPT2Config(vocab_size=31, n_positions=164, n_embd=c["d_model"], n_layer=c["n_layer"],
                        n_head=c["n_head"], n_inner=c["d_ff"], resid_pdrop=0.0, embd_pdrop=0.0,
                        attn_pdrop=0.0, activation_function="gelu_new")
    torch.manual_seed(0)
    with torch.no_grad():
        model = DiffusionModel(GPT2LMHeadModel(config), config, None).eval()
    result["params"] = sum(p.numel() for p in model.parameters())
    result["seconds"], result["acc"] = run(model, spec["steps"], True, "stochastic0.5-linear", 0)
else:
    sys.path.insert(0, spec["ours_src"])
    from icml25.mdm_order import legal_candidates
    model = Analytic(legal_candidates)
    result["runs"] = {}
    for name, topk, strategy in (("stochastic0.5-linear", True, "stochastic0.5-linear"),
                                 ("deterministic-linear", True, "deterministic-linear"),
                                 ("vanilla", False, "")):
        result["runs"][name] = [run(model, spec["steps"], topk, strategy, s) for s in spec["seeds"]]
json.dump(result, open(out_path, "w"))
'''

KS_DRIVER = r"""
import json, sys, time, types
import numpy as np
src, data_path, out_path = sys.argv[1:4]
sys.path.insert(0, src + "/sudoku-code")
import jax, jax.numpy as jnp, functools
_reshape = jnp.reshape
def reshape(a, shape=None, newshape=None, **kw):  # their jax 0.4 keyword newshape
    return _reshape(a, newshape if shape is None else shape, **kw)
jnp.reshape = reshape
from train import evaluater, model
arrays = np.load(data_path)
spec = json.loads(str(arrays["spec"]))
puzzles, solutions = arrays["puzzles"], arrays["solutions"]  # (N, 81), 0 = blank
N = len(puzzles)
rows, cols = np.divmod(np.arange(81), 9)
seqs, starts = [], []
for p, s in zip(puzzles, solutions):  # their layout: (row, col, value) triples, givens first
    order = np.concatenate([np.flatnonzero(p > 0), np.flatnonzero(p == 0)])
    seqs.append(np.stack([rows[order], cols[order], s[order]], 1).reshape(-1))
    starts.append((p > 0).sum())
seqs, starts = np.array(seqs, dtype=np.int32), np.array(starts)[:, None]
c = spec["model"]
cfg = model.TransformerConfig(vocab_size=11, dtype=jnp.float32, emb_dim=c["d_model"],
                              num_heads=c["n_head"], num_layers=c["n_layer"],
                              qkv_dim=c["d_model"], mlp_dim=c["d_ff"], seq_len=243,
                              dropout_rate=0.0, attention_dropout_rate=0.0, deterministic=True)
params = model.TransformerLMHeadModel(cfg).init(
    jax.random.PRNGKey(0), jnp.ones((1, 243), jnp.int32), training=False)["params"]
from typing import Any
from flax import jax_utils, struct
@struct.dataclass
class State:
    params: Any
state = jax_utils.replicate(State(params))  # as their train loop hands it to pmap
p_eval_step = jax.pmap(functools.partial(evaluater.eval_step, config=cfg), axis_name="batch")
run_cfg = types.SimpleNamespace(eval_epochs=1, seq_len=243)
t0 = time.perf_counter()
metrics = evaluater.get_eval_metrics(state, iter([(seqs, solutions, starts)]), p_eval_step, run_cfg)
seconds = time.perf_counter() - t0
n_params = sum(int(np.prod(x.shape)) for x in jax.tree_util.tree_leaves(params))
json.dump({"seconds": seconds, "acc": float(metrics["acc_complete_puzzle"][0]),
           "params": n_params, "jax": jax.__version__}, open(out_path, "w"))
"""

ENV = dict(os.environ, OMP_NUM_THREADS="1", XLA_FLAGS="--xla_cpu_multi_thread_eigen=false",
           JAX_PLATFORMS="cpu")  # fmt: skip


def official(python: str, driver: str, src: str, folder: Path, name: str, **arrays) -> dict:
    """Run a driver on ``arrays`` (saved to an .npz) in a subprocess; return its JSON output."""
    (folder / f"{name}.py").write_text(driver)
    np.savez(folder / f"{name}.npz", **arrays)
    out = folder / f"{name}.json"
    cmd = [python, str(folder / f"{name}.py"), src, str(folder / f"{name}.npz"), str(out)]
    run = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"official code failed:\n{run.stderr[-3000:]}")
    return json.loads(out.read_text())


def backtracking_count(puzzle: np.ndarray, limit: int = 2) -> tuple[int, np.ndarray | None]:
    """Recursive backtracking on one puzzle: (number of solutions up to ``limit``, first)."""
    g = [int(v) for v in puzzle]
    rows = [set(g[9 * r : 9 * r + 9]) - {0} for r in range(9)]
    cols = [{g[9 * r + c] for r in range(9)} - {0} for c in range(9)]
    boxes = [
        {g[9 * (3 * (b // 3) + i) + 3 * (b % 3) + j] for i in range(3) for j in range(3)} - {0}
        for b in range(9)
    ]
    found: list = []

    def rec() -> None:
        best, options = -1, None
        for i in range(81):
            if g[i] == 0:
                r, c = divmod(i, 9)
                b = 3 * (r // 3) + c // 3
                legal = set(range(1, 10)) - rows[r] - cols[c] - boxes[b]
                if options is None or len(legal) < len(options):
                    best, options = i, legal
                    if len(legal) <= 1:
                        break
        if options is None:
            found.append(list(g))
            return
        r, c = divmod(best, 9)
        b = 3 * (r // 3) + c // 3
        for v in options:
            g[best] = v
            rows[r].add(v), cols[c].add(v), boxes[b].add(v)
            rec()
            rows[r].discard(v), cols[c].discard(v), boxes[b].discard(v)
            g[best] = 0
            if len(found) >= limit:
                return

    rec()
    return len(found), (np.array(found[0]) if found else None)


def accuracy_rows(args, folder: Path) -> list[list]:
    """Same analytic model, their decoder against ours (see the module)."""
    pairs = (("stochastic0.5-linear", "top_prob", 0.5), ("deterministic-linear", "top_prob", 0.0),
             ("vanilla", "vanilla", 0.0))  # fmt: skip
    rows = []
    for kind in ("singles", "hard"):
        p, s = make_puzzles(args.n_acc, (30, 36), kind, seed=2, pool=16, min_guesses=2)
        spec = {"mode": "analytic", "steps": args.steps, "seeds": args.seeds,
                "ours_src": str(Path(icml25.__file__).parent.parent)}  # fmt: skip
        theirs = official(args.hk_python, HK_DRIVER, args.hk_src, folder, f"hk_{kind}",
                          puzzles=p, solutions=s, spec=json.dumps(spec))["runs"]  # fmt: skip
        for name, strategy, gumbel in pairs:
            seeds = args.seeds if gumbel > 0 or strategy == "vanilla" else args.seeds[:1]
            t_ours, acc_ours = [], []
            for seed in seeds:
                t0 = time.perf_counter()
                acc_ours.append(accuracy(solve(p, legal_candidates, strategy, args.steps, seed,
                                               gumbel), s))  # fmt: skip
                t_ours.append(time.perf_counter() - t0)
            t_theirs = [r[0] for r in theirs[name][: len(seeds)]]
            acc_theirs = [r[1] for r in theirs[name][: len(seeds)]]
            sd = f"{np.std(acc_ours, ddof=1):.3f} / {np.std(acc_theirs, ddof=1):.3f}" if len(
                seeds) > 1 else "deterministic"  # fmt: skip
            rows.append([f"{kind}, analytic model, {args.steps} steps, N={args.n_acc}",
                         f"ours {strategy}{' gumbel ' + str(gumbel) if gumbel else ''} vs "
                         f"HKUNLP {name}", min(t_ours), min(t_theirs),
                         min(t_theirs) / min(t_ours), float(np.mean(acc_ours)),
                         float(np.mean(acc_theirs)),
                         float(np.mean(acc_ours) - np.mean(acc_theirs)), sd])  # fmt: skip
            print(table(HEADER, rows[-1:]), flush=True)
    return rows


def speed_rows(args, folder: Path) -> list[list]:
    """Untrained models of our default size, N puzzles, ``steps`` reverse steps."""
    c = Config()
    size = {"d_model": c.d_model, "n_layer": c.n_layer, "n_head": c.n_head, "d_ff": c.d_ff}
    p, s = make_puzzles(args.n_speed, (30, 36), "singles", seed=1, pool=16)
    torch.manual_seed(0)
    model = SudokuMDM(c.mdm()).eval()
    n_ours = sum(q.numel() for q in model.parameters())
    label = f"speed, d={c.d_model} L={c.n_layer} H={c.n_head} ff={c.d_ff}, N={args.n_speed}"
    rows = []
    if args.hk_src:
        t_ours = measure(lambda: solve(p, model, "top_prob", args.steps, 0, 0.5), repeat=1)[0]
        spec = {"mode": "size", "steps": args.steps, "model": size}
        out = official(args.hk_python, HK_DRIVER, args.hk_src, folder, "hk_size", puzzles=p,
                       solutions=s, spec=json.dumps(spec))  # fmt: skip
        rows.append([f"{label}, {args.steps} steps", f"HKUNLP MDM decoder ({out['params']:,} "
                     f"params; ours {n_ours:,})", t_ours, out["seconds"],
                     out["seconds"] / t_ours, "-", "-", "-", "-"])  # fmt: skip
        print(table(HEADER, rows[-1:]), flush=True)
    if args.ks_src:
        t_ours = measure(lambda: solve(p, model, "top_prob", args.steps, 0, 0.5), repeat=1)[0]
        out = official(args.ks_python, KS_DRIVER, args.ks_src, folder, "ks_size", puzzles=p,
                       solutions=s, spec=json.dumps({"model": size}))  # fmt: skip
        rows.append([f"{label}, ours {args.steps} steps", f"kulinshah98 ARM decoding "
                     f"({out['params']:,} params, one token per pass)", t_ours, out["seconds"],
                     out["seconds"] / t_ours, "-", "-", "-", "-"])  # fmt: skip
        print(table(HEADER, rows[-1:]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hk-src", default=None, help="checkout of HKUNLP/diffusion-vs-ar")
    parser.add_argument("--hk-python", default=sys.executable)
    parser.add_argument("--ks-src", default=None, help="kulinshah98/llm-reasoning-logic-puzzles")
    parser.add_argument("--ks-python", default=sys.executable)
    parser.add_argument("--n-acc", type=int, default=100)
    parser.add_argument("--n-speed", type=int, default=20)
    parser.add_argument("--steps", type=int, default=20, help="their Sudoku script: T = 20")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--n", type=int, default=100, help="puzzles of the uniqueness rows")
    args = parser.parse_args()
    torch.set_num_threads(1)
    folder = Path(tempfile.mkdtemp(prefix="bench_mdm_order_"))
    rows = []
    if args.hk_src:
        rows += accuracy_rows(args, folder)
    else:
        print("No --hk-src: skipping the HKUNLP rows. Fetch HKUNLP/diffusion-vs-ar (git archive "
              "into /tmp/anchors/diffusion-vs-ar) and give --hk-python a venv with "
              "transformers==4.37.2 and torch.")  # fmt: skip
    if not args.ks_src:
        print("No --ks-src: skipping the ARM row. Fetch kulinshah98/llm-reasoning-logic-puzzles "
              "and give --ks-python a venv with jax and flax.")  # fmt: skip
    rows += speed_rows(args, folder)
    for kind in ("singles", "hard"):
        p, s = make_puzzles(args.n, (30, 36), kind, seed=0, pool=16)
        t_ours, _, (counts, first) = measure(lambda p=p: count_solutions(p, limit=2), repeat=1)
        t0 = time.perf_counter()
        theirs = [backtracking_count(q) for q in p]
        t_bt = time.perf_counter() - t0
        agree = all(c == 1 and (f == x).all() for (c, f), x in zip(theirs, s, strict=True))
        agree = agree and (counts == 1).all() and (first == s).all()
        rows.append([f"uniqueness (count to 2), {kind}, N={args.n}", "naive backtracking (extra)",
                     t_ours, t_bt, t_bt / t_ours, "-", "-", f"same solutions: {agree}",
                     "-"])  # fmt: skip
    print(table(HEADER, rows))


HEADER = ["setting", "anchor", "ours s", "anchor s", "time ratio (anchor/ours)", "ours acc",
          "anchor acc", "acc difference (ours - anchor)", "seed sd (ours / anchor)"]  # fmt: skip

if __name__ == "__main__":
    main()
