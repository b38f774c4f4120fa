"""A real data-parallel job: ``torch.distributed`` (gloo) CPU processes train ``TinyVLM`` on the
same samples batched two ways, and record when each rank finishes its backward and its gradient
all-reduce.

Each rank is a process with one thread. Per step, rank r reads the monotonic system clock at
the start (``t0``), after its backward (``t1``) and after the all-reduce of the flattened
gradients (``t2``), then takes an SGD step. On one machine ``CLOCK_MONOTONIC`` is shared by all
processes, so the idle time of rank r at the all-reduce is ``max_r' t1_r' - t1_r``: the time it
waits for the slowest rank (the transfer itself, ``t2 - max t1``, is recorded apart). With
``clock="flops"`` the ranks count the FLOPs of their forward and backward instead of reading the
clock (deterministic, for the smoke scale: no wall time is measured).

Before the timed epochs each rank does one untimed warm-up step per layout and, after a barrier,
times ``comm_trials`` all-reduces of the gradient buffer: the transfer time the cost model adds to
every step.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.flop_counter import FlopCounterMode

from icml25.omnibal.model import TinyVLM, VLMConfig, make_batch


@dataclass(frozen=True)
class Layout:
    """One way of batching: per step and rank, the sample indices of the rank's mini-batch.

    Parameters
    ----------
    name : str
        Name of the layout, the key prefix of its records in ``run_data_parallel``.
    steps : list of list of ndarray
        ``S x R`` arrays of sample indices: ``steps[s][r]`` is rank r's mini-batch at step s.
    packed : bool
        Whether each mini-batch is packed into one sequence (ISF) or padded.
    """

    name: str
    steps: list[list[np.ndarray]]  # S x R arrays of sample indices
    packed: bool


def _clock() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def _worker(rank, world, store, out, model_config, layouts, images, text, repeats, clock, trials):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    model = TinyVLM(model_config)
    params = [p for p in model.parameters()]
    opt = torch.optim.SGD(params, lr=1e-3)
    batches = {
        lay.name: [
            make_batch(model_config, images[idx], text[idx], packed=lay.packed, seed=int(idx[0]))
            for idx in (step[rank] for step in lay.steps)
        ]
        for lay in layouts
    }

    def step(batch) -> tuple[float, float, float, float]:
        t0 = _clock()
        if clock == "flops":
            with FlopCounterMode(display=False) as counter:
                model.loss(batch).backward()
            work = float(counter.get_total_flops())
        else:
            model.loss(batch).backward()
            work = 0.0
        t1 = _clock()
        flat = torch.cat([p.grad.reshape(-1) for p in params])
        dist.all_reduce(flat)
        t2 = _clock()
        opt.step()
        opt.zero_grad(set_to_none=False)
        return t0, t1, t2, work

    for lay in layouts:  # warm-up, untimed
        step(batches[lay.name][0])
    flat = torch.cat([p.grad.reshape(-1) for p in params])
    comm = []
    for _ in range(trials):
        dist.barrier()
        begin = _clock()
        dist.all_reduce(flat)
        comm.append(_clock() - begin)
    record = {"comm": np.array(comm)}
    for r in range(repeats):
        for lay in layouts:
            dist.barrier()
            rows = np.array([step(b) for b in batches[lay.name]])  # (S, 4)
            record[f"{lay.name}/{r}"] = rows
    np.savez(os.path.join(out, f"rank{rank}.npz"), **record)
    dist.barrier()
    dist.destroy_process_group()


def _entry(tmp: str, rank: str) -> None:
    """A rank's process: read the job's arguments, run the worker, and end the process without
    the interpreter's teardown. The rank's record is written and its process group destroyed
    by then; what the teardown would add is the destruction of gloo's C++ threads, which can
    abort the process ("terminate called without an active exception") after its work is done."""
    with open(os.path.join(tmp, "args.pkl"), "rb") as f:
        args = pickle.load(f)
    _worker(int(rank), *args)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def run_data_parallel(
    model_config: VLMConfig,
    layouts: list[Layout],
    images: np.ndarray,
    text: np.ndarray,
    *,
    world: int = 2,
    repeats: int = 3,
    clock: str = "seconds",
    comm_trials: int = 10,
) -> dict:
    """Run the job on ``world`` gloo processes; every layout is trained ``repeats`` times
    (alternating layouts). Returns, per layout and repeat, arrays (S, R) of ``t0``, ``t1``,
    ``t2`` (seconds) and ``work`` (FLOPs, with ``clock="flops"``), and the all-reduce trials.

    Parameters
    ----------
    model_config : VLMConfig
        The ``TinyVLM`` each rank trains.
    layouts : list of Layout
        The batchings to train; every step of each must hold ``world`` mini-batches.
    images : ndarray of int, shape (n,)
        Images per sample.
    text : ndarray of int, shape (n,)
        Text tokens per sample.
    world : int, default 2
        Number of gloo processes (ranks), ``>= 2``.
    repeats : int, default 3
        Times every layout is trained.
    clock : str, default "seconds"
        ``"seconds"`` reads the monotonic clock; ``"flops"`` also counts the FLOPs of each
        forward and backward (``work``).
    comm_trials : int, default 10
        Timed all-reduces of the gradient buffer before the epochs.

    Returns
    -------
    records : dict
        ``"comm"``: ndarray, shape (comm_trials, R), seconds of each all-reduce trial; and
        per ``"{layout.name}/{repeat}"`` a dict of ``t0``, ``t1``, ``t2``, ``work`` arrays, shape
        (S, R).
    """
    if clock not in ("seconds", "flops"):
        raise ValueError(f"clock must be 'seconds' or 'flops', got {clock!r}")
    if world < 2:
        raise ValueError(f"world must be >= 2 processes, got {world}")
    for lay in layouts:
        if any(len(s) != world for s in lay.steps):
            raise ValueError(f"layout {lay.name!r}: every step must hold {world} mini-batches")
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "store")
        args = (world, store, tmp, model_config, layouts, images, text, repeats, clock, comm_trials)
        with open(os.path.join(tmp, "args.pkl"), "wb") as f:
            pickle.dump(args, f)
        # fresh interpreters, not multiprocessing: the caller may itself be a pool worker
        code = "import sys; from icml25.omnibal.distributed import _entry; _entry(*sys.argv[1:])"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code, tmp, str(rank)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env={**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
            )
            for rank in range(world)
        ]
        errors = [p.communicate()[1].decode()[-2000:] for p in procs]
        failed = [
            (r, e) for r, (p, e) in enumerate(zip(procs, errors, strict=True)) if p.returncode
        ]
        if failed:
            raise RuntimeError(f"rank {failed[0][0]} of the gloo job failed:\n{failed[0][1]}")
        ranks = [dict(np.load(os.path.join(tmp, f"rank{r}.npz"))) for r in range(world)]
    out = {"comm": np.stack([rk["comm"] for rk in ranks], 1)}  # (trials, R)
    for key in ranks[0]:
        if key != "comm":
            rows = np.stack([rk[key] for rk in ranks], 1)  # (S, R, 4)
            out[key] = {k: rows[..., i] for i, k in enumerate(("t0", "t1", "t2", "work"))}
    return out


def idle_at_allreduce(t1: np.ndarray) -> np.ndarray:
    """Idle seconds of each rank at each step: (S, R) -> max over ranks of t1 minus t1.

    Parameters
    ----------
    t1 : ndarray, shape (S, R)
        Clock of each rank at the end of its backward, at each step.

    Returns
    -------
    idle : ndarray, shape (S, R)
        Time each rank waits at the all-reduce for the slowest rank, ``>= 0``.
    """
    return t1.max(axis=1, keepdims=True) - t1
