"""Map the cells of one or many papers over workers, store each result, then summarise and judge.

The runner is paper-agnostic: it finds each reproduction by its module path. Cells of all the
papers asked for go into one pool of workers (:mod:`icml25.lab.backends`: loky processes here,
a Dask or Ray cluster).

Each cell's seed is derived from (master seed, paper, cell), so the numbers are the same
whatever the backend or the order in which cells finish. The parent process writes each
finished cell to disk, atomically, the moment it arrives: a run killed mid-way loses nothing
already finished, and a rerun skips it (``force=True`` recomputes). A cell that raises, or
whose worker dies, is recorded as failed with the reason; the other cells go on, and the next
run retries it. When any cell of a paper failed, its claims are all ``incomplete``: a verdict
is never computed from part of the evidence.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import importlib.metadata
import math
import os
import platform
import shlex
import signal
import subprocess
import sys
import threading
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

from icml25.common.llm import Endpoint, usage_total
from icml25.common.progress import reporting_to
from icml25.lab import backends, catalog, store
from icml25.lab.claims import Claim, evaluate
from icml25.lab.progress import RunProgress, duration
from icml25.lab.reproduction import (
    SCALE_NAMES,
    Reproduction,
    cell_key,
    cell_seed,
    code_fingerprint,
    config_fingerprint,
    dependency_fingerprint,
    dependency_versions,
    load,
    module_path,
    summary_fingerprint,
)
from icml25.lab.run_summary import RunSummary

BACKENDS = backends.BACKENDS
PROVENANCE_PACKAGES = ("numpy", "scipy", "torch", "POT", "joblib")


@dataclass
class _Paper:
    """The bookkeeping of one paper during a run."""

    repro: Reproduction
    config: Any
    cells: list[dict]
    paths: list[Path]
    records: dict[int, dict] = field(default_factory=dict)
    cached: set[int] = field(default_factory=set)
    pending: int = 0
    model_cells: frozenset[int] = frozenset()  # the cells that exist only because of the model
    keys: list[str] = field(default_factory=list)  # each cell's seed and fingerprints
    model: str | None = None  # the tag of the model it runs against (its run folder's suffix)


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
    on_paper: Callable[[dict], None] | None = None,
    on_message: Callable[[str], None] | None = None,
    command: str | None = None,
    llm: Endpoint | None = None,
    llm_required: bool = True,
    cell_timeout_s: float | None = None,
    llm_server: Mapping[str, Any] | None = None,
    llm_budget: str | None = None,
) -> dict[str, dict]:
    """Run the reproductions of ``slugs`` at ``scale`` and write their summaries under ``out``.

    Returns ``{slug: summary}``, the same dicts as the ``summary.json`` files written.
    ``llm``: the model endpoint for the papers that can use one (their config has a field
    ``llm``, which it replaces: the endpoint is then part of the config's fingerprint, so cells
    of an offline run are never reused for a model run); the other papers run as without it.
    ``llm_required=False`` (a model named only in the environment): no error when none of the
    papers uses one. ``llm_server``: what serves ``llm`` where this process started it (the
    embedded llama.cpp server's model file and SHA-256), recorded in the provenance of the papers
    that use the model. ``llm_budget``: a scale whose model budget (the config's ``llm_*``
    fields: requests, steps, tokens of the model cells) replaces this scale's, for a slow model
    in a run of a larger scale; it is recorded in the provenance and the config.
    ``cell_timeout_s``: a cell still running after this many seconds (or after its module's
    ``CELL_TIMEOUT_S``, whichever is shorter) is stopped and recorded as failed, with the
    reason; the other cells go on.
    ``on_paper(summary)`` is called as soon as each paper's summary is written; ``on_message``
    receives one line for what a user should know (a corrupt cell file recomputed, a wait on
    another run's lock, the cells about to be computed and the time their committed runs took,
    and, without a bar, how far the run is, at most every 30 s). ``progress``: a bar on stderr
    (``None``: when stderr is a terminal; see :mod:`icml25.lab.progress`).
    ``command`` is recorded in the provenance (default: ``sys.argv``).
    """
    repros = check_arguments(
        slugs, scale=scale, seed=seed, jobs=jobs, backend=backend, llm=llm, required=llm_required
    )
    if llm_budget is not None and llm_budget not in SCALE_NAMES:
        raise ValueError(
            f"llm_budget must be one of {', '.join(SCALE_NAMES)} or None, got {llm_budget!r}"
        )
    if cell_timeout_s is not None and not (
        isinstance(cell_timeout_s, int | float) and cell_timeout_s > 0
    ):
        raise ValueError(
            f"cell_timeout_s must be a positive number or None, got {cell_timeout_s!r}"
        )
    out = Path(out)
    tell = on_message or (lambda line: None)
    context = {
        "command": command or shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        **backends.describe(backend, address, jobs),  # backend, address, workers
        "jobs": jobs,
        "started": _now(),
    }
    if llm_server is not None:
        context["llm_server"] = dict(llm_server)
    if llm_budget is not None and llm is not None:
        context["llm_budget"] = llm_budget
    slugs = list(dict.fromkeys(slugs))
    tags = {slug: model_tag_of(repro, scale, llm) for slug, repro in repros.items()}
    with contextlib.ExitStack() as stack:
        for slug in sorted(slugs):  # one order for every run: two runs never deadlock
            folder = store.run_dir(out, slug, scale, seed, tags[slug])
            stack.enter_context(store.locked(folder, lambda f: tell(f"waiting for {f}: in use")))
        papers, tasks = _prepare(
            repros, scale, seed, out, force, tell, llm, cell_timeout_s, llm_budget
        )
        summaries = {}
        for slug, paper in papers.items():
            if paper.pending == 0:
                summaries[slug] = _finish(out, scale, seed, paper, context, on_paper)
        if tasks:
            expected = {slug: expected_cell_seconds(slug, scale, tags[slug]) for slug in papers}
            pending = {slug: paper.pending for slug, paper in papers.items() if paper.pending}
            if any(expected.values()):  # nothing to tell of a run no committed run timed
                tell(_plan_line(pending, expected, context["workers"]))
            cores = [papers[t[0]].repro.cell_cores(t[2], t[3]) for t in tasks]
            outcomes = backends.execute(
                _execute, tasks, backend=backend, address=address, jobs=jobs, cores=cores
            )
            display = RunProgress(
                pending,
                expected,
                context["workers"],
                files={(t[0], t[1]): Path(t[7]) for t in tasks},
                bar=sys.stderr.isatty() if progress is None else progress,
                write=tell,
                desc=f"icml25 {scale}",
            )
            with contextlib.closing(outcomes), contextlib.closing(display):
                for k, result, reason in outcomes:
                    slug, index = tasks[k][0], tasks[k][1]
                    paper = papers[slug]
                    record = result[2] if reason is None else _died(paper, index, reason)
                    record = {**record, "key": paper.keys[index]}
                    paper.records[index] = store.write_cell(paper.paths[index], record)
                    Path(tasks[k][7]).unlink(missing_ok=True)  # a dead worker's progress file
                    paper.pending -= 1
                    display.cell_done(slug, index, record["seconds"])
                    if paper.pending == 0:
                        summaries[slug] = _finish(out, scale, seed, paper, context, on_paper)
    return {slug: summaries[slug] for slug in papers}


def expected_cell_seconds(slug: str, scale: str, model: str | None = None) -> float | None:
    """The mean seconds a cell of ``slug`` at ``scale`` took in its committed run, or ``None``
    when none is committed (see :func:`icml25.lab.store.committed_cell_time`)."""
    found = store.committed_cell_time(slug, scale, model)
    return None if found is None or found[0] == 0 else found[1] / found[0]


def _plan_line(pending: dict[str, int], expected: dict[str, float | None], workers: int) -> str:
    """What a run is about to compute, and how long its committed runs took for as much."""
    cells = sum(pending.values())
    known = {s: n * expected[s] for s, n in pending.items() if expected.get(s) is not None}
    line = (
        f"{cells} cells of {len(pending)} {'paper' if len(pending) == 1 else 'papers'} to compute"
    )
    if not known:
        return line
    seconds = sum(known.values())
    unknown = len(pending) - len(known)
    line += (
        f": about {duration(seconds)} of cell time by the committed runs, "
        f"{duration(seconds / max(1, workers))} on {workers} "
        f"{'worker' if workers == 1 else 'workers'}"
    )
    return line + (f" ({unknown} without a committed run not counted)" if unknown else "")


def _prepare(
    repros: dict[str, Reproduction],
    scale: str,
    seed: int,
    out: Path,
    force: bool,
    tell: Callable[[str], None],
    llm: Endpoint | None,
    cell_timeout_s: float | None = None,
    llm_budget: str | None = None,
) -> tuple[dict[str, _Paper], list[tuple]]:
    """Load each paper, find its cells on disk, and list the ones left to compute."""
    papers: dict[str, _Paper] = {}
    tasks = []
    for slug, repro in repros.items():
        config = repro.config(scale)
        model_cells: frozenset[int] = frozenset()
        tag = model_tag_of(repro, scale, llm)
        text_only = llm is not None and llm.reads_images is False and repro.model_needs_images
        if text_only and uses_llm(config):
            instead = (
                f"it runs its text-only variant: {repro.text_only_variant}"
                if tag is not None
                else f"{slug} runs without the model"
            )
            tell(
                f"{slug} sends images to its model, and the server at {llm.base_url} says "
                f"{llm.model} reads text only: {instead}"
            )
        if tag is not None:
            offline = {cell_key(c) for c in repro.cells(config)}
            config = replace(config, llm=llm)
            if llm_budget is not None:
                config = with_model_budget(config, repro.config(llm_budget))
            model_cells = frozenset(
                i for i, c in enumerate(repro.cells(config)) if cell_key(c) not in offline
            )
        code = code_fingerprint(slug)
        key = f"{config_fingerprint(config)}|{code}|{dependency_fingerprint(slug)}"
        cells = list(repro.cells(config))
        seeds = [cell_seed(seed, slug, cell) for cell in cells]
        keys = [f"{s}|{key}" for s in seeds]
        paths = [
            store.cell_path(out, slug, scale, seed, c, k, tag)
            for c, k in zip(cells, keys, strict=True)
        ]
        paper = _Paper(repro, config, cells, paths, model_cells=model_cells, keys=keys, model=tag)
        for i, (cell, seed_i, path) in enumerate(zip(cells, seeds, paths, strict=True)):
            record = None
            if not force:
                try:
                    record = store.read_cell(path)
                except store.Unreadable as err:
                    tell(f"cannot read {err.path} ({err.reason}): computing that cell again")
                ok = record is not None and record["status"] == "ok"
                if ok and not _record_matches(record, cell, seed_i, keys[i]):
                    tell(f"{path} holds the record of another cell: computing that cell again")
                    record = None
            if record is not None and record["status"] == "ok":
                paper.records[i] = record
                paper.cached.add(i)
            else:
                progress_file = str(path.with_suffix(".progress"))
                tasks.append((slug, i, config, cell, seed_i, code, cell_timeout_s, progress_file))
        paper.pending = len(cells) - len(paper.records)
        papers[slug] = paper
    return papers, tasks


def _record_matches(record: dict, cell: dict, seed: int, key: str) -> bool:
    """Whether a record read from a cell's file is that cell's: its cell, its seed, and (in
    records that carry one) its seed-and-fingerprints key."""
    try:
        same_cell = cell_key(record.get("cell")) == cell_key(cell)
    except (TypeError, ValueError):
        return False
    return same_cell and record.get("seed") == seed and record.get("key", key) == key


def uses_llm(config: Any) -> bool:
    """Whether a reproduction's config can take a model endpoint (it has a field ``llm``)."""
    return any(f.name == "llm" for f in fields(config))


def with_model_budget(config: Any, budget: Any) -> Any:
    """``config`` with the model budget of ``budget`` (another scale's config of the same
    paper): every ``llm_*`` field but the endpoint itself."""
    names = [f.name for f in fields(config) if f.name.startswith("llm_")]
    return replace(config, **{name: getattr(budget, name) for name in names})


def model_tag_of(repro: Reproduction, scale: str, llm: Endpoint | None) -> str | None:
    """The model tag of a paper's run folder with ``llm`` (:func:`icml25.lab.store.model_tag`),
    or None where the paper runs without it: no endpoint, a config without ``llm``, or a paper
    that sends images (``MODEL_NEEDS_IMAGES``) to a model whose server says it reads text only
    and has no ``TEXT_ONLY_VARIANT``."""
    if llm is None or not uses_llm(repro.config(scale)):
        return None
    if llm.reads_images is False and repro.model_needs_images and not repro.text_only_variant:
        return None
    return store.model_tag(llm.model)


def check_arguments(
    slugs: Sequence[str],
    *,
    scale: str,
    seed: int,
    jobs: int | None,
    backend: str,
    llm: Endpoint | None = None,
    required: bool = True,
) -> dict[str, Reproduction]:
    """Raise ValueError, naming the argument, for anything the runner cannot take; return the
    papers' reproductions, loaded once (``{slug: Reproduction}``, in the order given, without
    repeats). ``required``: with ``llm``, some paper must use a language model."""
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
    if jobs is not None and (
        isinstance(jobs, bool)
        or not isinstance(jobs, int)
        or jobs == 0
        or abs(jobs) > backends.MAX_JOBS
    ):
        raise ValueError(
            f"jobs must be a non-zero integer from -{backends.MAX_JOBS} to {backends.MAX_JOBS} "
            f"(-1 for all cores), got {jobs!r}"
        )
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    try:
        backends.require(backend)
    except ImportError as err:
        raise ValueError(f"backend {backend}: {err}") from None
    if llm is not None and not isinstance(llm, Endpoint):
        raise ValueError(f"llm must be an icml25.common.llm.Endpoint or None, got {llm!r}")
    repros = {slug: load(slug) for slug in dict.fromkeys(slugs)}
    if llm is not None and required:
        if not any(uses_llm(r.config(scale)) for r in repros.values()):
            able = [s for s in catalog.implemented() if uses_llm(load(s).config(scale))]
            raise ValueError(
                f"llm: none of the papers asked for ({', '.join(slugs)}) uses a language "
                f"model; those that can: {', '.join(able) or 'none yet'}"
            )
    return repros


def _execute(
    slug: str,
    index: int,
    config: Any,
    cell: dict,
    seed: int,
    code: str,
    timeout_s: float | None,
    progress_file: str | None,
    threads: int | None,
) -> tuple[str, int, dict]:
    """Run one cell on a worker; never raises, a failure becomes a record.

    What the cell reports with ``report_progress`` goes to ``progress_file`` (see
    :mod:`icml25.common.progress`), which the client reads for its bar.

    ``code`` is the client's fingerprint of the paper's code: a worker whose installed icml25
    differs refuses the cell, so that no result is stored under a key its code does not match.
    ``timeout_s`` (or the module's ``CELL_TIMEOUT_S``, whichever is shorter): the cell is
    stopped with ``CellTimeout`` when it runs longer (see ``_time_limit``).
    """
    begin, started = time.perf_counter(), time.time()
    times: list[float] = []
    with warnings.catch_warnings(record=True) as caught:  # kept in the record, not printed
        warnings.simplefilter("default")
        try:
            mine = _worker_fingerprint(slug)
            if mine != code:
                raise RuntimeError(
                    f"this worker's icml25 code for {slug} has fingerprint {mine}, the client's "
                    f"{code}: install the same icml25 on every worker"
                )
            module = importlib.import_module(module_path(slug))
            limits = [t for t in (threads, getattr(module, "CELL_THREADS", None)) if t]
            times = [t for t in (timeout_s, getattr(module, "CELL_TIMEOUT_S", None)) if t]
            with _thread_limit(min(limits) if limits else None), reporting_to(progress_file):
                with _time_limit(min(times) if times else None):
                    record = {"status": "ok", "output": module.run_cell(config, cell, seed)}
            store.encode(record)  # an output the store cannot hold fails here, in its cell
        except Exception as err:  # a failed cell must not stop the others
            if isinstance(err, CellTimeout) and not str(err):  # raised asynchronously
                err = CellTimeout(f"the cell passed its {min(times):g} s time limit")
            record = {
                "status": "failed",
                "reason": f"{type(err).__name__}: {err}".splitlines()[0][:300],
                "traceback": traceback.format_exc(),
            }
    record.update(
        cell=cell,
        seed=seed,
        seconds=time.perf_counter() - begin,
        started=started,
        ended=time.time(),
        warnings=sorted({f"{w.category.__name__}: {w.message}" for w in caught}),
    )
    return slug, index, record


class CellTimeout(Exception):
    """A cell ran past its time limit."""


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Raise ``CellTimeout`` in this thread once ``seconds`` have passed. In the main thread
    (loky workers, ``--jobs 1``) by ``SIGALRM``, which also ends a wait in a system call
    (``sleep``, a pipe, a subprocess); in another thread (dask, ray) by an exception set
    asynchronously, raised at the thread's next Python instruction. Neither stops a C call
    that never returns to the interpreter: that worker's cell then ends when the call does."""
    if seconds is None:
        yield
        return
    message = f"the cell passed its {seconds:g} s time limit"
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):

        def alarm(signum, frame):
            raise CellTimeout(message)

        previous = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return
    target, done = threading.get_ident(), threading.Event()

    def interrupt() -> None:
        if not done.wait(seconds):
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(target), ctypes.py_object(CellTimeout)
            )

    watcher = threading.Thread(target=interrupt, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


@cache
def _worker_fingerprint(slug: str) -> str:
    return code_fingerprint(slug)


def _died(paper: _Paper, index: int, reason: str) -> dict:
    """The record of a cell whose worker died, or that the cluster refused."""
    now = time.time()
    return {
        "status": "failed",
        "reason": reason,
        "traceback": reason,
        "cell": paper.cells[index],
        "seed": None,
        "seconds": 0.0,
        "started": now,
        "ended": now,
        "warnings": [],
    }


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


def _finish(
    out: Path,
    scale: str,
    seed: int,
    paper: _Paper,
    context: dict,
    on_paper: Callable[[dict], None] | None,
) -> dict:
    """Summarise the cells of one paper, judge its claims, draw its figures, write
    summary.json.

    When a cell failed, nothing is summarised: every claim is ``incomplete``; except when every
    failed cell is a model cell (one that the paper runs only with a model endpoint): then the
    other cells are summarised as an offline run would be, the claims they measure keep their
    verdicts, and the claims that needed the model's cells are ``incomplete``. The figures are
    drawn after the measurements are taken: a figure that raises is recorded in
    ``figure_errors`` and the verdicts stand."""
    repro = paper.repro
    records = [paper.records[i] for i in range(len(paper.cells))]
    failed = {i for i, r in enumerate(records) if r["status"] != "ok"}
    failures = [
        {"cell": r["cell"], "reason": r.get("reason", ""), "traceback": r["traceback"]}
        for i, r in enumerate(records)
        if i in failed
    ]
    partial = bool(failed) and failed <= paper.model_cells
    measurements: dict[str, float | None] = {}
    model_made: list[str] = []
    result = None
    error = None
    begin = time.perf_counter()
    if not failed or partial:
        try:
            finished = [
                (cell, r["output"])
                for i, (cell, r) in enumerate(zip(paper.cells, records, strict=True))
                if not (partial and i in paper.model_cells)
            ]
            result = repro.summarize(paper.config, finished)
            measurements = {k: _as_float(v) for k, v in result.measurements.items()}
            if paper.model_cells and not partial:
                offline = [f for i, f in enumerate(finished) if i not in paper.model_cells]
                model_made = _differing(
                    measurements, repro.summarize(paper.config, offline).measurements
                )
        except Exception:  # a broken summary leaves every claim "not measured", never a pass
            error = traceback.format_exc()
    summarize_seconds = time.perf_counter() - begin
    verdicts = [
        v.to_dict()
        for v in evaluate(repro.claims, measurements, complete=not failed, partial=partial)
    ]
    figures, figure_errors = (
        ([], []) if result is None else _draw(out, repro.slug, scale, seed, paper.model, result)
    )
    fresh = [r for i, r in enumerate(records) if i not in paper.cached]
    summary = RunSummary(
        slug=repro.slug,
        title=catalog.card(repro.slug).title,
        scale=scale,
        seed=seed,
        complete=not failures and error is None,
        config=asdict(paper.config),
        cells={
            "total": len(records),
            "ok": len(records) - len(failures),
            "failed": len(failures),
            "computed": len(records) - len(paper.cached),
            "cached": len(paper.cached),
        },
        failures=failures,
        measurements=measurements,
        claims=verdicts,
        figures=figures,
        figure_errors=figure_errors,
        warnings=dict(Counter(w for r in records for w in r.get("warnings", []))),
        llm_usage=_llm_usage(records),
        summary_error=error,
        model_measurements=model_made,
        model=paper.model,
        timing={
            "wall_seconds": round(_wall(fresh) + summarize_seconds, 3),
            "computed_cell_seconds": round(sum(r["seconds"] for r in fresh), 3),
            "cached_cell_seconds": round(sum(records[i]["seconds"] for i in paper.cached), 3),
            "summarize_seconds": round(summarize_seconds, 3),
        },
        provenance=_provenance(repro.slug, _paper_context(context, paper.config)),
    ).to_dict()
    store.write_summary(out, repro.slug, scale, seed, summary)
    if on_paper is not None:
        on_paper(summary)
    return summary


def rejudge(summary: dict, claims: Sequence[Claim]) -> dict:
    """``summary`` with its verdicts judged again by ``claims`` from its own measurements
    (claims are not part of a run's fingerprint: a new claims.py judges old cells). The time
    of the judgement is recorded in the provenance as ``judged``."""
    verdicts = [
        v.to_dict() for v in evaluate(claims, summary["measurements"], complete=summary["complete"])
    ]
    data = {**summary, "claims": verdicts, "schema": store.SCHEMA}
    data["provenance"] = {**summary["provenance"], "judged": _now()}
    return RunSummary.from_dict(data).to_dict()


def _llm_usage(records: list[dict]) -> dict | None:
    """The model calls, tokens and cost of the cells that used a model (each returns its
    client's ``usage()`` under ``llm_usage``, the protocol of ``icml25.common.llm``), summed;
    None for an offline run. Cached cells count the calls made when they were computed."""
    usages = [
        r["output"]["llm_usage"]
        for r in records
        if r["status"] == "ok" and isinstance(r["output"], dict) and "llm_usage" in r["output"]
    ]
    return usage_total(usages) if usages else None


def _wall(records: list[dict]) -> float:
    """From the first of these cells' start to the last one's end (0 when none ran)."""
    if not records:
        return 0.0
    return max(r["ended"] for r in records) - min(r["started"] for r in records)


def _as_float(value: Any) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def _draw(
    out: Path, slug: str, scale: str, seed: int, model: str | None, result: Any
) -> tuple[list, list]:
    """Draw and save each figure of ``result`` (a Figure, or a function returning one): the
    saved ones, and ``{name, error}`` for each that raised."""
    folder = store.run_dir(out, slug, scale, seed, model) / "figures"
    captions = getattr(result, "captions", {}) or {}
    saved, errors = [], []
    for name, figure in result.figures.items():
        try:
            figure = figure() if callable(figure) else figure
            store.save_figure_atomic(figure, folder / f"{name}.png")
        except Exception as err:  # a figure never decides a verdict
            errors.append({"name": name, "error": f"{type(err).__name__}: {err}"[:300]})
            continue
        saved.append(
            {"path": f"figures/{name}.png", "caption": captions.get(name) or _title(figure, name)}
        )
    return saved, errors


def _title(figure: Any, name: str) -> str:
    """A figure's caption when the reproduction gives none: its suptitle or axes titles."""
    suptitle = getattr(figure, "_suptitle", None)
    if suptitle is not None and suptitle.get_text():
        return suptitle.get_text()
    titles = [ax.get_title() for ax in figure.axes if ax.get_title()]
    return "; ".join(titles) if titles else name.replace("_", " ")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _differing(measurements: dict[str, float | None], offline: dict[str, Any]) -> list[str]:
    """The names of ``measurements`` that ``offline`` lacks or gives otherwise (non-finite
    values are ``None`` on both sides)."""
    return [
        name
        for name, value in measurements.items()
        if name not in offline or _as_float(offline[name]) != value
    ]


def _paper_context(context: dict, config: Any) -> dict:
    """The run's context without the model server for a paper that does not use it."""
    if uses_llm(config) and getattr(config, "llm", None) is not None:
        return context
    return {k: v for k, v in context.items() if k not in ("llm_server", "llm_budget")}


def _provenance(slug: str, context: dict) -> dict:
    commit, dirty = _git_state()
    return {
        **context,
        "finished": _now(),
        "commit": commit,
        "dirty": dirty,
        "cores": os.cpu_count(),
        "platform": platform.platform(terse=True),
        "cpu": _cpu(),
        "versions": _versions(),
        "code_fingerprint": code_fingerprint(slug),
        "summary_fingerprint": summary_fingerprint(slug),
        "dependencies": dependency_versions(slug),
    }


@cache
def _cpu() -> str | None:
    """The processor's model name and its widest vector extension (float results of trained
    models may differ between processors that differ in these), or None where unknown."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return platform.processor() or None
    fields = {}
    for line in text.splitlines():  # the first processor's block
        if not line.strip():
            break
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    name = " ".join(fields.get("model name", "").split())
    flags = set(fields.get("flags", "").split())
    vector = next((v for v in ("avx512f", "avx2", "avx", "sse4_2") if v in flags), None)
    parts = [part for part in (name, vector) if part]
    return ", ".join(parts) or platform.processor() or None


@cache
def _git_state() -> tuple[str | None, bool | None]:
    """The commit of the icml25 source tree and whether tracked files differ from it; (None,
    None) for an installed wheel, which has no git tree."""
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "."],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None, None
    return commit, bool(status.strip())


def _versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("icml25", *PROVENANCE_PACKAGES):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions
