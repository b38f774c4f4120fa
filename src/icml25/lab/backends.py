"""Map independent tasks over workers, and survive the workers that die.

The runner hands :func:`execute` a module-level function and one tuple of arguments per cell;
``execute`` yields each cell's result as it finishes, whatever the backend:

- ``loky`` (default): local worker processes (loky, as vendored by joblib), at most ``jobs``
  cells in flight. When a worker dies (a segfault, the kernel's out-of-memory killer), loky
  breaks the whole pool and fails every cell in flight, so each of those *suspects* is rerun
  alone, in a pool of its own: an innocent cell then finishes, and a cell that kills its worker
  a second time is reported failed. ``jobs=1`` runs the cells in this process, one by one.
- ``dask``: the ``dask.distributed`` cluster at ``address``, or a ``LocalCluster`` of ``jobs``
  single-threaded worker processes started here and closed after. The scheduler reruns a cell
  whose worker died and gives up with ``KilledWorker`` once its ``allowed-failures`` are spent:
  on a cluster started here after one retry; on a cluster at an address, by its own setting.
- ``ray``: Ray tasks (one CPU each, retried once if their worker crashes) on the session the
  caller started, or else on the cluster at ``address``, or a local one with ``jobs`` CPUs. A
  session started here is shut down after; the caller's is left running.

A cell whose worker died for good, or that the cluster cannot schedule, is yielded as
``(i, None, reason)`` and the other cells go on. Each cell gets a number of threads, the last
argument of ``fn``: its host's cores shared among the cells that host runs at once.

A task may keep more than one core busy (its own processes: the ranks of a distributed job).
On loky its ``cores`` take as many of the pool's ``jobs`` places, and a task that asks for all
of them runs with no other task beside it, so that what it times is its own work. On Dask and
Ray each task takes one place; give a cluster's workers the cores such a task needs.
"""

from __future__ import annotations

import logging
import os
import re
import uuid
from collections import deque
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any

BACKENDS = ("loky", "dask", "ray")

Outcome = tuple[int, Any, str | None]
"""``(i, result, None)`` for a finished task, ``(i, None, reason)`` for one that could not run."""

# What joblib sets in its loky workers, so that a native library loaded before a cell's own
# thread limit applies does not start one thread per core in every worker.
MAX_JOBS = 1024  # workers asked for beyond this are a typo, not a machine
_THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def execute(
    fn: Callable[..., Any],
    tasks: Sequence[tuple],
    *,
    backend: str = "loky",
    address: str | None = None,
    jobs: int | None = None,
    cores: Sequence[int] | None = None,
) -> Generator[Outcome, None, None]:
    """Run ``fn(*tasks[i], threads)`` for every ``i`` on ``backend``; yield outcomes as they finish.

    Parameters
    ----------
    fn
        A module-level function (workers import it by reference). It must not raise for a
        cell's own error: any exception other than a worker's death is re-raised here.
    tasks
        One tuple of picklable arguments per task.
    backend
        One of :data:`BACKENDS`.
    address
        The scheduler of a running cluster (``dask``: ``tcp://host:8786``; ``ray``:
        ``host:6379``, ``ray://host:10001``, or ``auto`` for the one ``ray start`` runs on this
        machine). ``None``: start a local one (Ray: unless ``RAY_ADDRESS`` is set, as in a job
        that ``ray job submit`` runs). Not for ``loky``.
    jobs
        Cells at once on a local pool or cluster started here: ``None`` or ``-1`` for every
        core, ``-2`` for all but one, like joblib. A cluster at an address, or a Ray session
        already running, uses all its workers instead.
    cores
        One positive int per task: the cores it keeps busy at once (default 1 each). On loky a
        task takes ``min(cores, jobs)`` of the pool's places; see the module's docstring.

    Yields
    ------
    tuple
        As a generator (arguments are checked, and a missing extra reported, at the call):
        ``(i, fn's result, None)``, or ``(i, None, reason)`` when the worker running task ``i``
        died (after one retry alone) or the cluster refused it; ``reason`` is one line.

    Notes
    -----
    ``threads`` is ``max(1, cores // cells)`` where ``cores`` is ``os.cpu_count()`` of the host
    running the cell and ``cells`` how many cells that host runs at once; ``1`` on Ray, whose
    tasks get one CPU each; ``None`` with ``jobs=1`` (the caller's own process and settings).
    Closing the generator early, or a ``KeyboardInterrupt``, cancels the pending tasks and stops
    the workers started here (loky's are killed, not waited for).
    """
    _check(backend, address, jobs)
    tasks = list(tasks)
    if not tasks:
        return (outcome for outcome in ())  # a generator too, to close like the others
    width = _width(jobs)
    weights = _cores(cores, len(tasks))
    if backend == "loky":
        return _run_loky(fn, tasks, width, weights)
    if backend == "dask":
        _require("distributed", "dask")
        return _run_dask(fn, tasks, address, width)
    _require("ray", "ray")
    return _run_ray(fn, tasks, address, width)


def require(backend: str) -> None:
    """Raise ImportError, naming the extra to install, when ``backend`` is not installed."""
    _check(backend, None, None)
    if backend == "dask":
        _require("distributed", "dask")
    elif backend == "ray":
        _require("ray", "ray")


def describe(backend: str, address: str | None, jobs: int | None) -> dict[str, Any]:
    """What :func:`execute` runs on, for provenance: backend, address and workers (cells at once).

    Nothing is started: a local pool or cluster is described from ``jobs``; a cluster at an
    address is asked, through a short connection (for Ray, unless a session is running already,
    a connection that is closed again).
    """
    _check(backend, address, jobs)
    if backend == "dask" and address is not None:
        _require("distributed", "dask")
        from distributed import Client

        with Client(address) as client:
            workers = sum(_slots_by_host(client).values())
    elif backend == "ray":
        _require("ray", "ray")
        import ray

        if ray.is_initialized():
            workers = _ray_cpus()
        elif _ray_local(address):
            workers = _width(jobs)
        else:
            _ray_init(address, _width(jobs))
            try:
                workers = _ray_cpus()
            finally:
                ray.shutdown()
    else:
        workers = _width(jobs)
    return {"backend": backend, "address": address, "workers": workers}


def _check(backend: str, address: str | None, jobs: int | None) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if address is not None and (backend == "loky" or not isinstance(address, str) or not address):
        raise ValueError(
            f"address must be a dask or ray scheduler address (or None), got {address!r}"
            f" with backend {backend!r}"
        )
    if jobs is not None and (
        isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0 or abs(jobs) > MAX_JOBS
    ):
        raise ValueError(
            f"jobs must be a non-zero integer from -{MAX_JOBS} to {MAX_JOBS} (-1 for all "
            f"cores), got {jobs!r}"
        )


def _width(jobs: int | None) -> int:
    """Cells at once for ``jobs``, counting negative ``jobs`` back from the cores like joblib."""
    cores = os.cpu_count() or 1
    if jobs is None:
        return cores
    return jobs if jobs > 0 else max(1, cores + 1 + jobs)


def _share(cells: int) -> int:
    """Threads for each of ``cells`` cells running at once on this host."""
    return max(1, (os.cpu_count() or 1) // max(1, cells))


def _require(module: str, extra: str) -> None:
    try:
        __import__(module)
    except ImportError as err:
        raise ImportError(
            f"the {extra} backend needs {module}: pip install 'icml25[{extra}]'"
        ) from err


def _one_line(error: BaseException, limit: int = 300) -> str:
    """``Type: first line of the message``, cut to ``limit`` characters."""
    lines = str(error).strip().splitlines()
    text = f"{type(error).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------------------------------- loky


def _cores(cores: Sequence[int] | None, n: int) -> list[int]:
    if cores is None:
        return [1] * n
    cores = list(cores)
    if len(cores) != n or not all(
        isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in cores
    ):
        raise ValueError(
            f"cores must be one positive int per task ({n} tasks), got {cores[:8]!r}"
            + ("..." if len(cores) > 8 else "")
        )
    return cores


def _run_loky(
    fn: Callable[..., Any], tasks: list[tuple], width: int, cores: list[int]
) -> Generator[Outcome, None, None]:
    if width == 1:
        for i, task in enumerate(tasks):
            yield i, fn(*task, None), None
        return

    from joblib.externals.loky import ProcessPoolExecutor
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    threads = _share(width)
    env = dict.fromkeys(_THREAD_VARIABLES, str(threads))
    queue = deque(range(len(tasks)))  # not yet submitted
    suspects: deque[int] = deque()  # in flight when a worker died: each reruns alone
    running: dict[Future, int] = {}  # at most one pool's width, so all of them are running
    ready: list[Outcome] = []  # finished, to yield once the workers have their next cells
    executor, size, alone = None, 0, False
    try:
        while queue or suspects or running:
            if not running:  # a new lane: the suspects one by one, else the full pool
                alone = bool(suspects)
                wanted = 1 if alone else min(width, len(tasks))  # no worker without a cell
                if executor is not None and size != wanted:
                    executor.shutdown(wait=True)
                    executor = None
                if executor is None:
                    executor = ProcessPoolExecutor(
                        max_workers=wanted,
                        env=env,
                        initializer=_die_with_parent,
                        initargs=(os.getpid(),),
                    )
                    size = wanted
            lane = suspects if alone else queue
            busy = sum(min(cores[i], size) for i in running.values())
            while lane and (not running or busy + min(cores[lane[0]], size) <= size):
                i = lane.popleft()
                running[executor.submit(fn, *tasks[i], threads)] = i
                busy += min(cores[i], size)
            yield from ready
            ready.clear()
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            if any(isinstance(f.exception(), TerminatedWorkerError) for f in done):
                done, _ = wait(running)  # a broken pool fails every future in flight at once
                executor.shutdown(wait=True, kill_workers=True)
                executor = None
            for future in done:
                i = running.pop(future)
                error = future.exception()
                if not isinstance(error, TerminatedWorkerError):
                    ready.append((i, future.result(), None))  # re-raises any other exception
                elif alone:
                    ready.append((i, None, _loky_reason(error)))
                else:
                    suspects.append(i)
        yield from ready
    finally:
        if executor is not None:  # idle workers exit cleanly; busy ones (interrupted) are killed
            if running:
                _kill_loky_workers(executor)
            executor.shutdown(wait=True)


def _kill_loky_workers(executor: Any) -> None:
    """Kill the workers of a loky pool whose cells are still in flight (the run is stopping):
    loky's manager thread then sees a broken pool, fails the futures it holds and exits.
    Neither ``Future.cancel`` nor ``shutdown(kill_workers=True)``: each races that thread
    (a future cancelled under it, a queued cell dropped under it), which then dies, with a
    traceback, or leaves ``shutdown`` waiting on it for ever."""
    from joblib.externals.loky.backend.utils import kill_process_tree

    for process in list(executor._processes.values()):
        try:
            kill_process_tree(process)
        except ProcessLookupError:
            pass


def _die_with_parent(parent: int) -> None:
    """In a loky worker: be killed when the process that started the pool dies (Linux's
    parent-death signal), so a SIGKILL of ``icml25 run`` leaves no worker behind; exit at once
    if it has already died."""
    import ctypes
    import signal
    import sys

    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


_SIGNAL_HINTS = {
    "SIGKILL": "killed: out of memory?",
    "SIGSEGV": "segmentation fault in native code",
    "SIGABRT": "aborted by native code",
    "SIGBUS": "bus error in native code",
}


def _loky_reason(error: BaseException) -> str:
    """One line for a cell that killed its loky worker twice, the second time alone."""
    codes = re.search(r"exit codes of the workers are \{(.*?)\}", str(error))
    detail = f"exit code {codes.group(1)}" if codes else "no exit code"
    hints = [hint for name, hint in _SIGNAL_HINTS.items() if codes and name in codes.group(1)]
    return (
        "the worker running this cell died twice, the second time running it alone "
        f"({type(error).__name__}: {', '.join([detail, *hints])})"
    )


# ---------------------------------------------------------------------------------------- dask


def _slots_by_host(client: Any) -> dict[str, int]:
    """Threads (cells at once) of a dask cluster's workers, added up per host."""
    slots: dict[str, int] = {}
    for worker in client.scheduler_info(n_workers=-1)["workers"].values():
        slots[worker["host"]] = slots.get(worker["host"], 0) + worker["nthreads"]
    return slots


def _on_dask_worker(fn: Callable[..., Any], slots: dict[str, int], *args: Any) -> Any:
    """Call ``fn(*args, threads)`` on a dask worker, with its host's cores shared among the
    cells its host runs at once (as the client saw them; this worker alone if it joined since)."""
    from distributed import get_worker
    from distributed.comm import get_address_host

    worker = get_worker()
    cells = slots.get(get_address_host(worker.address), worker.state.nthreads)
    return fn(*args, _share(cells))


def _run_dask(
    fn: Callable[..., Any], tasks: list[tuple], address: str | None, width: int
) -> Generator[Outcome, None, None]:
    import dask
    from distributed import Client, KilledWorker, LocalCluster, as_completed

    cluster = None
    if address is None:
        settings = {
            "distributed.scheduler.allowed-failures": 1,  # a cell that kills a worker: one retry
            "distributed.scheduler.worker-saturation": 1.0,  # a worker holds only its running cell
        }
        with dask.config.set(settings):
            cluster = LocalCluster(
                n_workers=min(width, len(tasks)),  # no worker without a cell
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                # no dashboard, and its health routes on a free port rather than on 8787
                scheduler_kwargs={"dashboard_address": ":0"},
            )
    futures: dict[Any, int] = {}
    stopped_early = False
    try:
        client = Client(cluster if cluster is not None else address)
        try:
            slots = _slots_by_host(client)
            run = f"{getattr(fn, '__name__', 'task')}-{uuid.uuid4().hex[:8]}"
            for i, task in enumerate(tasks):
                key = f"{run}-{i}"
                futures[client.submit(_on_dask_worker, fn, slots, *task, key=key)] = i
            for future in as_completed(list(futures)):
                i = futures.pop(future)
                if future.status == "error" and isinstance(future.exception(), KilledWorker):
                    yield i, None, _dask_reason(future.exception(), ours=cluster is not None)
                else:
                    yield i, future.result(), None  # re-raises any other exception
        finally:
            stopped_early = bool(futures)
            if stopped_early and cluster is not None:
                level = _quiet_distributed(client)
            if futures:
                client.cancel(list(futures))
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
            if stopped_early:
                logging.getLogger("distributed").setLevel(level)


def _quiet_distributed(client: Any) -> int:
    """Silence distributed's log on the workers of a cluster started here, and in this process
    until the cluster is closed: a stop with cells still running (an error, Ctrl-C) cancels them
    and closes their workers, and distributed logs each cancelled cell and each heartbeat that
    the shutdown cuts, with a traceback, about a stop that the runner reports in its own line.
    Returns this process's level before, for the caller to restore."""
    logger = logging.getLogger("distributed")
    before = logger.level
    logger.setLevel(logging.CRITICAL)
    client.run(_silence_distributed_log, on_error="ignore")
    return before


def _silence_distributed_log() -> None:
    logging.getLogger("distributed").setLevel(logging.CRITICAL)


def _dask_reason(error: Any, *, ours: bool) -> str:
    """One line for a cell on which the dask scheduler gave up after its workers died."""
    deaths = error.allowed_failures + 1
    times = "twice" if deaths == 2 else f"{deaths} times"
    where = "the dask worker's log" if ours else f"the log of {error.last_worker.address}"
    return (
        f"the worker running this cell died {times} and dask gave up on it (KilledWorker: "
        f"a segfault, or killed for memory: out of memory? {where} says which)"
    )


# ----------------------------------------------------------------------------------------- ray


def _ray_local(address: str | None) -> bool:
    """Whether a Ray for ``address`` is a new local one: no address, and no ``RAY_ADDRESS``
    (set for a driver that ``ray job submit`` runs)."""
    return address is None and not os.environ.get("RAY_ADDRESS")


def _ray_init(address: str | None, cpus: int) -> None:
    """Start a local Ray with ``cpus`` CPUs, or connect to the one at ``address``.

    A local one is always new: ``ray.init()`` alone would join a cluster that ``ray start``
    left on this machine (``address="auto"`` asks for that)."""
    import ray

    local = _ray_local(address)
    try:
        ray.init(
            address="local" if local else address,
            num_cpus=cpus if local else None,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
    except Exception as err:  # Ray's own processes failed (a full disk, no port): one line
        where = "a local Ray" if local else f"Ray at {address}"
        reason = (str(err).strip().splitlines() or [type(err).__name__])[0][:300]
        raise ConnectionError(f"{where} did not start: {reason}") from None


def _ray_cpus() -> int:
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _ray_failures() -> tuple[type[BaseException], ...]:
    """Ray's errors for a task that could not run: its worker or node died, or it cannot be
    scheduled on this cluster."""
    import ray.exceptions as errors

    return (
        errors.WorkerCrashedError,
        errors.OutOfMemoryError,
        errors.NodeDiedError,
        errors.TaskUnschedulableError,
    )


def _ray_reason(error: BaseException) -> str:
    import ray.exceptions as errors

    if isinstance(error, errors.TaskUnschedulableError):
        return f"the Ray cluster cannot schedule this cell ({_one_line(error)})"
    return f"the worker running this cell died twice ({_one_line(error)})"


def _run_ray(
    fn: Callable[..., Any], tasks: list[tuple], address: str | None, width: int
) -> Generator[Outcome, None, None]:
    import ray

    started = not ray.is_initialized()
    if started:
        _ray_init(address, width)
    failures = _ray_failures()
    refs: dict[Any, int] = {}
    try:
        remote = ray.remote(num_cpus=1, max_retries=1)(fn)
        refs = {remote.remote(*task, 1): i for i, task in enumerate(tasks)}
        pending = list(refs)
        while pending:
            [ref], pending = ray.wait(pending, num_returns=1)
            i = refs.pop(ref)
            try:
                result = ray.get(ref)
            except failures as error:
                yield i, None, _ray_reason(error)
            else:
                yield i, result, None
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
