"""Reproduction: OmniBal's data, model and memory balance, in a cost model and on real ranks.

Cells:
- ``balance`` (claim a): 50,000 synthetic samples per draw, 8 ranks; ISF with searched
  arguments against random mini-batches of 4 and first-fit-decreasing bin packing; plus ISF with
  only the language budget and with only the vision budget (how the two budgets trade off);
- ``partition`` (claims b, c): ``profile`` on a small ViT + decoder built here, then equal-layer,
  parameter-balanced, searched and brute-force partitions for 4 stages in the 1F1B cost model,
  and the adaptive recompute plan against full recomputation under a memory budget;
- ``ranks`` (claim d): a gloo job of 2 CPU processes training a smaller ViT + decoder on the
  same samples, random batches and ISF batches alternately, ``repeats`` times; idle time at the
  all-reduce and samples per second, next to the cost model's prediction from single-process
  timings.

At smoke scale the ``partition`` and ``ranks`` cells run on a FLOP clock (FLOPs counted by
torch instead of seconds) so that two runs give equal numbers; their verdicts are no evidence.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch
from scipy.optimize import nnls

from icml25.omnibal.balance import first_fit_decreasing, isf, random_batches
from icml25.omnibal.data import synthetic_lengths
from icml25.omnibal.distributed import Layout, run_data_parallel
from icml25.omnibal.metrics import balance_metrics, group_loads
from icml25.omnibal.model import TinyVLM, VLMConfig, make_batch
from icml25.omnibal.partition import (
    brute_force_partition,
    equal_layer_partition,
    evaluate,
    param_balanced_partition,
    search_partition,
)
from icml25.omnibal.pipeline import one_f_one_b
from icml25.omnibal.profile import profile
from icml25.omnibal.recompute import adaptive_recompute, stage_memory
from icml25.omnibal.search import search_arguments

CELL_THREADS = 1


@dataclass(frozen=True)
class Config:
    # (a) data balance
    a_samples: int = 50_000
    a_ranks: int = 8
    a_micro_batch: int = 4
    a_iterations: int = 50
    a_draws: int = 3
    a_ffd: bool = True
    # (b, c) partition and recompute on a profiled model
    b_model: VLMConfig = VLMConfig(
        image=64, vit_width=192, vit_layers=12, llm_width=384, llm_layers=12, heads=6
    )
    b_images: tuple[int, ...] = (1, 3, 5)  # one micro-batch: images and text tokens per sample
    b_text: tuple[int, ...] = (150, 60, 200)
    b_stages: int = 4
    b_micro: int = 8
    b_repeats: int = 5
    b_memory_fraction: float = 0.6  # budget: this fraction of the largest stage's memory
    b_bytes_per_param: float = 16.0
    clock: str = "seconds"
    # (d) real ranks
    d_model: VLMConfig = VLMConfig(image=64)
    d_samples: int = 400
    d_world: int = 2
    d_repeats: int = 5
    d_text_scale: float = 0.25
    d_calibration: int = 32  # single-process batches timed to fit the cost model


SMALL = VLMConfig(image=32, vit_width=32, vit_layers=2, llm_width=32, llm_layers=2, heads=2)
SCALES = {
    "smoke": Config(
        a_samples=5000,
        a_iterations=10,
        a_draws=1,
        a_ffd=False,
        b_model=VLMConfig(
            image=32, vit_width=32, vit_layers=4, llm_width=64, llm_layers=4, heads=2
        ),
        b_micro=4,
        b_repeats=1,
        clock="flops",
        d_model=SMALL,
        d_samples=24,
        d_repeats=1,
        d_calibration=4,
    ),
    "default": Config(),
    "paper": Config(a_samples=1_200_000, a_draws=5, d_samples=2000, d_repeats=10),
}


def cells(config: Config) -> list[dict]:
    return (
        [{"part": "balance", "draw": d} for d in range(config.a_draws)]
        + [{"part": "partition"}]
        + [{"part": "ranks"}]
    )


def cell_cores(config: Config, cell: dict) -> int:
    """The ranks cell keeps ``d_world`` processes busy: it runs with no cell beside it, so that
    the idle time it measures is the ranks' own, not another cell's load."""
    return config.d_world if cell["part"] == "ranks" else 1


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "balance":
        return _balance(config, seed)
    if cell["part"] == "partition":
        return _partition(config)
    return _ranks(config, seed)


def _balance(config: Config, seed: int) -> dict:
    v, t = synthetic_lengths(config.a_samples, np.random.default_rng(seed))
    best, tried = search_arguments(
        v, t, micro_batch=config.a_micro_batch, n_ranks=config.a_ranks, iterations=10, seed=seed
    )
    kw = {"iterations": config.a_iterations, "n_ranks": config.a_ranks, "seed": seed + 1}
    ours = isf(v, t, best.vit_max, best.llm_max, vit_thresh=best.vit_thresh,
               llm_thresh=best.llm_thresh, **kw)  # fmt: skip
    big = int(max(v.sum(), t.sum()))  # a budget that never binds
    language_only = isf(v, t, big, best.llm_max, vit_thresh=big, llm_thresh=best.llm_thresh, **kw)
    vision_only = isf(v, t, best.vit_max, big, vit_thresh=best.vit_thresh, llm_thresh=big, **kw)
    rand = random_batches(len(v), config.a_micro_batch, config.a_ranks, seed=seed + 2)
    vis, used, _ = group_loads(ours, v, t)  # (G,) each
    # groups kept by the vision half of ISF's rule (``full_groups``) and not by the tokens: (G,)
    by_vision = (vis == best.vit_thresh) & (used < best.llm_thresh)
    out = {
        "isf": balance_metrics(ours, v, t, llm_max=best.llm_max),
        "language_only": balance_metrics(language_only, v, t, llm_max=best.llm_max),
        "vision_only": balance_metrics(vision_only, v, t),
        "random": balance_metrics(rand, v, t),
        "args": [best.vit_max, best.llm_max, best.vit_thresh, best.llm_thresh],
        "placed_once": float(np.mean(np.bincount(ours.members, minlength=len(v)) == 1)),
        "closed_by_vision": float(np.mean(by_vision)),
        "tokens_closed_by_vision": float(used[by_vision].mean()),
    }
    if config.a_ffd:
        ffd = first_fit_decreasing(v, t, best.vit_max, best.llm_max, config.a_ranks, seed=seed)
        out["ffd"] = balance_metrics(ffd, v, t, llm_max=best.llm_max)
    return out


def _partition(config: Config) -> dict:
    model = TinyVLM(config.b_model)
    batch = make_batch(config.b_model, config.b_images, config.b_text, packed=True, seed=0)
    prof = profile(model.chain(batch), batch.pixels, repeats=config.b_repeats)
    costs = prof.costs(config.clock)
    L, P, M = costs.n_layers, config.b_stages, config.b_micro
    plans = {
        "equal_layer": evaluate(costs, equal_layer_partition(L, P), M),
        "param_balanced": evaluate(costs, param_balanced_partition(costs, P), M),
        "searched": search_partition(costs, P, M),
    }
    optimum = brute_force_partition(costs, P, M)
    flops = prof.costs("flops")  # the same comparison on counted FLOPs, a clock without noise
    flops_times = [
        evaluate(flops, equal_layer_partition(L, P), M).time,
        search_partition(flops, P, M).time,
    ]
    # (c) memory: per-stage budget, adaptive plan against full recomputation, searched cuts
    bounds = [0, *plans["searched"].cuts, L]
    stages = [
        (lo, hi, config.b_bytes_per_param * costs.params[lo:hi].sum(), min(P - p, M))
        for p, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))
    ]  # (first layer, end, static bytes, micro-batches in flight) per stage
    none = [
        stage_memory(costs.act[lo:hi], costs.ckpt[lo:hi], s, k, np.zeros(hi - lo, bool))
        for lo, hi, s, k in stages
    ]
    budget = config.b_memory_fraction * max(none)
    ratio, fwd, bwd_adaptive, bwd_full, adaptive_s = [], [], [], [], 0.0
    for lo, hi, s, k in stages:
        f = costs.forward[lo:hi]
        plan = adaptive_recompute(f, costs.act[lo:hi], costs.ckpt[lo:hi], s, k, budget)
        if plan is None:
            ratio.append(np.inf)
            plan = np.ones(hi - lo, bool)
        else:
            ratio.append(stage_memory(costs.act[lo:hi], costs.ckpt[lo:hi], s, k, plan) / budget)
        adaptive_s += f[plan].sum()
        fwd.append(f.sum())
        bwd_adaptive.append(costs.backward[lo:hi].sum() + f[plan].sum())
        bwd_full.append(costs.backward[lo:hi].sum() + f.sum())
    return {
        "times": {k: p.time for k, p in plans.items()},
        "cuts": {k: list(p.cuts) for k, p in plans.items()},
        "optimum": optimum.time,
        "flops_times": flops_times,
        "ops": {k: p.schedule.ops for k, p in plans.items()},
        "bubble": {k: p.schedule.bubble_fraction() for k, p in plans.items()},
        "memory_ratio": np.array(ratio),
        "recompute_adaptive": adaptive_s,
        "recompute_full": float(np.sum(fwd)),
        "time_adaptive": one_f_one_b(fwd, bwd_adaptive, M).time,
        "time_full": one_f_one_b(fwd, bwd_full, M).time,
        "forward_seconds": prof.forward_seconds,
        "forward_flops": prof.forward_flops,
        "params": prof.params,
    }


def _features(images, text, per_image, packed) -> np.ndarray:
    """Cost-model features of one rank's batch: 1, images, tokens computed, attention area."""
    lengths = images * per_image + text
    if packed:
        tokens, area = lengths.sum(), lengths.sum() ** 2
    else:
        tokens, area = len(lengths) * lengths.max(), len(lengths) * lengths.max() ** 2
    return np.array([1.0, images.sum(), tokens, area], float)


def _ranks(config: Config, seed: int) -> dict:
    mc = config.d_model
    R = config.d_world

    def draw(data_seed: int, best=None):
        """Samples, their text tokens, the searched ISF arguments and the two batch layouts."""
        v, t = synthetic_lengths(
            config.d_samples,
            np.random.default_rng(data_seed),
            tokens_per_image=mc.tokens_per_image,
            text_scale=config.d_text_scale,
            text_cap=4 * 64,
        )
        if best is None:
            base = int(5 * t.mean())
            best, _ = search_arguments(
                v, t, micro_batch=4, n_ranks=R, iterations=20, base_tokens=base, seed=data_seed
            )
        ours = isf(
            v, t, best.vit_max, best.llm_max, vit_thresh=best.vit_thresh,
            llm_thresh=best.llm_thresh, iterations=20, n_ranks=R, seed=data_seed + 1,
        )  # fmt: skip
        rand = random_batches(len(v), 4, R, seed=data_seed + 2)
        layouts = []
        for name, b in (("random", rand), ("isf", ours)):
            full = b.steps[(b.steps >= 0).all(axis=1)]  # (S, R): the last partial step is dropped
            layouts.append(Layout(name, [[b.group(g) for g in row] for row in full], b.packed))
        return v, t - v * mc.tokens_per_image, best, layouts

    # the ISF arguments are searched and the cost model fitted on a draw of their own, so that
    # neither sees the batches whose time the model then predicts
    cv, ctext, best, calib_layouts = draw(seed + 3)
    v, text, _, layouts = draw(seed, best)
    # cost model: per-batch compute fitted on single-process timings (or FLOPs)
    model = TinyVLM(mc)
    feats, cost = [], []
    calib = [
        (lay, step[r])
        for lay in calib_layouts
        for step in lay.steps[: config.d_calibration // (2 * R)]
        for r in range(R)
    ]
    for lay, idx in calib:
        batch = make_batch(mc, cv[idx], ctext[idx], packed=lay.packed, seed=int(idx[0]))
        feats.append(_features(cv[idx], ctext[idx], mc.tokens_per_image, lay.packed))
        cost.append(_measure(model, batch, config.clock))
    # non-negative least squares: a per-image, per-token or per-area cost cannot be negative,
    # and an unconstrained fit to timings taken under contention extrapolates wildly
    scale = np.array(feats).mean(axis=0)  # columns of comparable size for the solver
    coef = nnls(np.array(feats) / scale, np.array(cost))[0] / scale
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    begin = time.perf_counter()
    for _ in range(5):
        opt.step()
    opt_seconds = (time.perf_counter() - begin) / 5 if config.clock == "seconds" else 0.0
    predicted = {}
    for lay in layouts:
        c = np.array([[_features(v[i], text[i], mc.tokens_per_image, lay.packed) @ coef
                       for i in step] for step in lay.steps])  # fmt: skip
        predicted[lay.name] = c
    # control: every rank gets rank 0's ISF mini-batch, so any idle time is noise (the floor)
    same = Layout("identical", [[step[0]] * R for step in layouts[1].steps], True)
    job = run_data_parallel(
        mc, [*layouts, same], v, text, world=R, repeats=config.d_repeats, clock=config.clock
    )
    samples = {
        lay.name: int(sum(len(i) for step in lay.steps for i in step)) for lay in [*layouts, same]
    }
    return {
        "job": job,
        "predicted": predicted,
        "samples": samples,
        "opt_seconds": opt_seconds,
        "fit_rel_residual": float(
            np.abs(np.array(feats) @ coef - np.array(cost)).mean() / np.mean(cost)
        ),
        "args": [best.vit_max, best.llm_max, best.vit_thresh, best.llm_thresh],
        "coef": coef,
    }


def _measure(model: TinyVLM, batch, clock: str) -> float:
    """Forward + backward cost of one batch: the least seconds of 5 runs after a warm-up (the
    least is the run least disturbed by other processes), or FLOPs."""
    if clock == "flops":
        from torch.utils.flop_counter import FlopCounterMode

        with FlopCounterMode(display=False) as counter:
            model.loss(batch).backward()
        model.zero_grad(set_to_none=True)
        return float(counter.get_total_flops())
    runs = []
    for _ in range(6):
        begin = time.perf_counter()
        model.loss(batch).backward()
        runs.append(time.perf_counter() - begin)
        model.zero_grad(set_to_none=True)
    return float(np.min(runs[1:]))
