"""Map the cells of one or many papers over joblib, cache each result, then summarise and judge.

The runner is paper-agnostic: it finds each reproduction by its module path. Cells of all the
papers asked for go into one pool of workers:

- ``loky`` (default): local processes;
- ``dask``: a dask.distributed cluster at ``address``, or a LocalCluster when none is given;
- ``ray``: a Ray cluster at ``address`` (or a local one).

Each cell's seed is derived from (master seed, paper, cell), so the numbers are the same
whatever the backend or the order in which cells finish. The parent process writes each
finished cell to disk, atomically, the moment it arrives: a run killed mid-way loses nothing
already finished, and a rerun skips it (``force=True`` recomputes). A cell that raises is
recorded as failed with its traceback; the other cells go on, and the next run retries it.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import platform
import sys
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import joblib
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from icml25.lab import catalog, store
from icml25.lab.claims import evaluate
from icml25.lab.reproduction import (
    SCALE_NAMES,
    Reproduction,
    cell_seed,
    code_fingerprint,
    config_fingerprint,
    load,
    module_path,
)

BACKENDS = ("loky", "dask", "ray")


@dataclass
class _Paper:
    """The bookkeeping of one paper during a run."""

    repro: Reproduction
    config: Any
    cells: list[dict]
    paths: list[Path]
    records: dict[int, dict] = field(default_factory=dict)
    pending: int = 0
    cached: int = 0


def run(
    slugs: Sequence[str],
    *,
    scale: str = "default",
    seed: int = 0,
    jobs: int | None = None,
    backend: str = "loky",
    address: str | None = None,
    out: str | os.PathLike = "runs",
    force: bool = False,
    progress: bool | None = None,
) -> dict[str, dict]:
    """Run the reproductions of ``slugs`` at ``scale`` and write their summaries under ``out``.

    Returns ``{slug: summary}``, the same dicts as the ``summary.json`` files written.
    """
    check_arguments(slugs, scale=scale, seed=seed, jobs=jobs, backend=backend)
    out = Path(out)
    n_workers = jobs if jobs and jobs > 0 else os.cpu_count() or 1
    started = time.perf_counter()
    stamp = datetime.now(UTC).isoformat(timespec="seconds")

    papers: dict[str, _Paper] = {}
    tasks = []
    for slug in dict.fromkeys(slugs):
        repro = load(slug)
        config = repro.config(scale)
        fingerprint = config_fingerprint(config) + code_fingerprint(slug)
        cells = list(repro.cells(config))
        seeds = [cell_seed(seed, slug, cell) for cell in cells]
        paths = [
            store.cell_path(out, slug, scale, c, s, fingerprint)
            for c, s in zip(cells, seeds, strict=True)
        ]
        paper = _Paper(repro, config, cells, paths)
        for i, (cell, seed_i, path) in enumerate(zip(cells, seeds, paths, strict=True)):
            record = None if force else store.read_record(path)
            if record is not None and record["status"] == "ok":
                paper.records[i] = record
                paper.cached += 1
            else:
                tasks.append((slug, i, config, cell, seed_i))
        paper.pending = len(cells) - len(paper.records)
        papers[slug] = paper

    summaries = {}
    for slug, paper in papers.items():
        if paper.pending == 0:
            summaries[slug] = _finish(out, scale, seed, paper, started, stamp)

    if tasks:
        threads = max(1, (os.cpu_count() or 1) // n_workers) if n_workers > 1 else None
        show = sys.stderr.isatty() if progress is None else progress
        bar = tqdm(total=len(tasks), desc=f"icml25 {scale}", unit="cell", disable=not show)
        with _backend(backend, address, n_workers):
            parallel = joblib.Parallel(n_jobs=n_workers, return_as="generator_unordered")
            outcomes = parallel(
                joblib.delayed(_execute)(slug, i, config, cell, seed_i, threads)
                for slug, i, config, cell, seed_i in tasks
            )
            for slug, i, record in outcomes:
                paper = papers[slug]
                store.write_record(paper.paths[i], record)
                paper.records[i] = record
                paper.pending -= 1
                bar.update(1)
                if paper.pending == 0:
                    summaries[slug] = _finish(out, scale, seed, paper, started, stamp)
        bar.close()
    return {slug: summaries[slug] for slug in papers}


def check_arguments(
    slugs: Sequence[str], *, scale: str, seed: int, jobs: int | None, backend: str
) -> None:
    """Raise ValueError, naming the argument, for anything the runner cannot take."""
    if isinstance(slugs, str) or not slugs:
        raise ValueError(f"slugs must be a non-empty list of paper slugs, got {slugs!r}")
    for slug in slugs:
        status = catalog.card(slug).status
        if status != catalog.IMPLEMENTED:
            raise ValueError(f"paper {slug!r} has no reproduction yet (status: {status})")
    if scale not in SCALE_NAMES:
        raise ValueError(f"scale must be one of {', '.join(SCALE_NAMES)}, got {scale!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0):
        raise ValueError(f"jobs must be a non-zero integer (-1 for all cores), got {jobs!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")


def _execute(
    slug: str, index: int, config: Any, cell: dict, seed: int, threads: int | None
) -> tuple[str, int, dict]:
    """Run one cell on a worker; never raises, a failure becomes a record."""
    begin = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:  # kept in the record, not printed
        warnings.simplefilter("default")
        try:
            module = importlib.import_module(module_path(slug))
            limits = [t for t in (threads, getattr(module, "CELL_THREADS", None)) if t]
            with _thread_limit(min(limits) if limits else None):
                record = {"status": "ok", "output": module.run_cell(config, cell, seed)}
        except Exception:  # a failed cell must not stop the others
            record = {"status": "failed", "traceback": traceback.format_exc()}
    record.update(
        cell=cell,
        seed=seed,
        seconds=time.perf_counter() - begin,
        warnings=sorted({f"{w.category.__name__}: {w.message}" for w in caught}),
    )
    return slug, index, record


@contextlib.contextmanager
def _thread_limit(threads: int | None) -> Iterator[None]:
    """At most ``threads`` threads for torch and for BLAS/OpenMP (threadpoolctl) while a cell
    runs, restored afterwards; ``None``: no limit. Workers side by side get a share each."""
    if threads is None:
        yield
        return
    import torch  # here, not at the top: a cell may import torch lazily, after this is set

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with threadpool_limits(threads):
            yield
    finally:
        torch.set_num_threads(before)


@contextlib.contextmanager
def _backend(backend: str, address: str | None, n_workers: int) -> Iterator[None]:
    if backend == "loky":
        with joblib.parallel_config(backend="loky"):
            yield
    elif backend == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as err:
            raise ImportError("the dask backend needs: pip install 'icml25[dask]'") from err
        if address:
            cluster = contextlib.nullcontext()
            client = Client(address)
        else:
            cluster = LocalCluster(
                n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None
            )
            client = Client(cluster)
        with cluster, client, joblib.parallel_config(backend="dask"):
            yield
    else:
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError as err:
            raise ImportError("the ray backend needs: pip install 'icml25[ray]'") from err
        register_ray()
        ray.init(address=address, ignore_reinit_error=True)
        try:
            with joblib.parallel_config(backend="ray"):
                yield
        finally:
            ray.shutdown()


def _finish(out: Path, scale: str, seed: int, paper: _Paper, started: float, stamp: str) -> dict:
    """Summarise the finished cells of one paper, judge its claims, write summary.json."""
    repro = paper.repro
    order = range(len(paper.cells))
    ok = [i for i in order if paper.records[i]["status"] == "ok"]
    failures = [
        {"cell": paper.records[i]["cell"], "traceback": paper.records[i]["traceback"]}
        for i in order
        if paper.records[i]["status"] != "ok"
    ]
    measurements: dict[str, float] = {}
    figures: list[str] = []
    error = None
    try:
        finished = [(paper.cells[i], paper.records[i]["output"]) for i in ok]
        result = repro.summarize(paper.config, finished)
        measurements = {k: _as_float(v) for k, v in result.measurements.items()}
        figures = _save_figures(out, repro.slug, scale, result.figures)
    except Exception:  # a broken summary leaves every claim "not measured", never a pass
        error = traceback.format_exc()
    summary = {
        "slug": repro.slug,
        "title": catalog.card(repro.slug).title,
        "scale": scale,
        "seed": seed,
        "config": asdict(paper.config),
        "code": code_fingerprint(repro.slug),
        "started": stamp,
        "wall_seconds": round(time.perf_counter() - started, 3),
        "cell_seconds": round(sum(paper.records[i]["seconds"] for i in order), 3),
        "cells": {
            "total": len(paper.cells),
            "ok": len(ok),
            "failed": len(failures),
            "cached": paper.cached,
        },
        "measurements": measurements,
        "claims": [v.to_dict() for v in evaluate(repro.claims, measurements)],
        "figures": figures,
        "failures": failures,
        "warnings": dict(Counter(w for i in order for w in paper.records[i].get("warnings", []))),
        "summary_error": error,
        "versions": _versions(),
    }
    store.write_summary(out, repro.slug, scale, summary)
    return summary


def _as_float(value: Any) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def _save_figures(out: Path, slug: str, scale: str, figures: dict[str, Any]) -> list[str]:
    folder = store.scale_dir(out, slug, scale) / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for name, figure in figures.items():
        figure.savefig(folder / f"{name}.png", dpi=110, bbox_inches="tight")
        names.append(f"figures/{name}.png")
    return names


def _versions() -> dict[str, str]:
    import numpy

    from icml25 import __version__

    versions = {
        "icml25": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
    }
    if "torch" in sys.modules:
        versions["torch"] = sys.modules["torch"].__version__
    return versions
