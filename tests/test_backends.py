"""The backends: a worker that dies fails its own cell only, an interrupt leaves no worker
behind, and dask (a cluster at an address) and Ray give the numbers loky gives.

The tasks run by real workers live in a module written to a temporary folder: the workers import
it from there (loky and dask's LocalCluster inherit ``sys.path``; dask's command-line workers
and Ray's workers get it through ``PYTHONPATH``).
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import textwrap
import threading
import time
from collections.abc import Iterator

import pytest

from icml25.lab import backends, runner

SLUG = "ipd_pavlov"
KILLER = 2  # the task that kills its own worker
TASKS = textwrap.dedent(
    """
    import os
    import signal
    import time
    from pathlib import Path


    def square(i, threads):
        return i * i, threads


    def die_if(i, killer, seconds, threads):
        if i == killer:  # dies early, while the cell beside it still runs
            time.sleep(seconds / 3)
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(seconds)
        return i * i


    def nap(i, seconds, folder, threads):
        Path(folder, f"{i}.pid").write_text(str(os.getpid()))
        time.sleep(seconds)
        return i


    def fail(i, threads):
        raise ValueError(f"not a worker death {i}")


    def clock(i, seconds, threads):
        began = time.time()
        time.sleep(seconds)
        return began, time.time()
    """
)


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """The task module, importable here and by every worker started after this fixture."""
    folder = tmp_path_factory.mktemp("tasks")
    (folder / "icml25_backend_tasks.py").write_text(TASKS)
    path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH")) if p)
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(folder))
        patch.setenv("PYTHONPATH", path)
        yield importlib.import_module("icml25_backend_tasks")
        sys.modules.pop("icml25_backend_tasks", None)


@pytest.fixture(scope="module")
def loky_summary(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The smoke run of SLUG on two loky workers, the reference for the other backends."""
    out = tmp_path_factory.mktemp("loky")
    return runner.run([SLUG], scale="smoke", out=out, jobs=2, progress=False)[SLUG]


def outcomes(iterator: Iterator) -> dict[int, tuple]:
    """``{i: (result, reason)}`` from execute's outcomes, checking that each i comes once."""
    found: dict[int, tuple] = {}
    for i, result, reason in iterator:
        assert i not in found
        found[i] = (result, reason)
    return found


# ------------------------------------------------------------------------ arguments, in-process


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"backend": "spark"}, "backend must be one of loky, dask, ray, got 'spark'"),
        ({"jobs": 0}, "jobs"),
        ({"jobs": 1.5}, "jobs"),
        ({"jobs": True}, "jobs"),
        ({"address": "tcp://here:8786"}, "address"),
        ({"backend": "dask", "address": ""}, "address"),
        ({"jobs": 10000}, "jobs must be a non-zero integer from -1024 to 1024"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, word):
    with pytest.raises(ValueError, match=word):
        backends.execute(divmod, [(1, 2)], **kwargs)
    with pytest.raises(ValueError, match=word):
        backends.describe(kwargs.get("backend", "loky"), kwargs.get("address"), kwargs.get("jobs"))


def test_one_job_runs_in_this_process_with_the_callers_threads():
    def where(i, threads):  # a closure: it could not be sent to a worker
        return os.getpid(), threads

    found = outcomes(backends.execute(where, [(i,) for i in range(3)], jobs=1))
    assert found == {i: ((os.getpid(), None), None) for i in range(3)}


def test_no_task_starts_nothing():
    running = backends.execute(divmod, [], backend="dask", address="tcp://nowhere:1")
    running.close()
    assert list(running) == []


def test_describe_a_local_pool():
    cores = os.cpu_count() or 1
    assert backends.describe("loky", None, 3) == {"backend": "loky", "address": None, "workers": 3}
    assert backends.describe("loky", None, None)["workers"] == cores
    assert backends.describe("dask", None, -1)["workers"] == cores
    assert backends.describe("loky", None, -cores - 5)["workers"] == 1


def test_a_missing_backend_is_refused_before_anything_runs(monkeypatch):
    def absent(module, extra):
        raise ImportError(f"the {extra} backend needs {module}: pip install 'icml25[{extra}]'")

    monkeypatch.setattr(backends, "_require", absent)
    with pytest.raises(ValueError, match=r"backend ray: .*pip install 'icml25\[ray\]'"):
        runner.check_arguments([SLUG], scale="smoke", seed=0, jobs=2, backend="ray")


def test_a_missing_extra_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"pip install 'icml25\[ray\]'"):
        backends.execute(divmod, [(1, 2)], backend="ray")


# ------------------------------------------------------------------------------------------ loky


def test_loky_a_cell_that_kills_its_worker_fails_alone(tasks):
    # the killer dies while another cell runs beside it: that one must be rerun, not blamed
    work = [(i, KILLER, 0.3) for i in range(6)]
    found = outcomes(backends.execute(tasks.die_if, work, jobs=2))
    assert {i: found[i] for i in found if i != KILLER} == {
        i: (i * i, None) for i in range(6) if i != KILLER
    }
    result, reason = found[KILLER]
    assert result is None
    assert "died twice" in reason and "SIGKILL" in reason and "\n" not in reason


def test_loky_shares_the_cores_and_reraises_other_errors(tasks):
    found = outcomes(backends.execute(tasks.square, [(i,) for i in range(3)], jobs=2))
    assert found == {i: ((i * i, max(1, (os.cpu_count() or 1) // 2)), None) for i in range(3)}
    with pytest.raises(ValueError, match="not a worker death"):
        list(backends.execute(tasks.fail, [(0,), (1,)], jobs=2))


@pytest.mark.parametrize("how", ["close", "interrupt"])
def test_loky_stopping_early_leaves_no_worker(tasks, tmp_path, how, alive, wait_for):
    work = [(0, 0.0, str(tmp_path))] + [(i, 60.0, str(tmp_path)) for i in range(1, 5)]
    running = backends.execute(tasks.nap, work, jobs=2)

    def pids() -> list[int]:
        return [int(p.read_text()) for p in tmp_path.glob("*.pid") if p.read_text()]

    def both_busy() -> bool:  # cell 0 has finished and two long ones are running
        return len(pids()) == 3

    began = time.monotonic()
    if how == "close":
        assert next(running) == (0, 0, None)
        wait_for(both_busy, 60, "two long cells running")
        running.close()
    else:
        main = threading.main_thread().ident

        def interrupt() -> None:
            wait_for(both_busy, 60, "two long cells running")
            signal.pthread_kill(main, signal.SIGINT)  # what Ctrl-C does

        # Python raises KeyboardInterrupt only if SIGINT was not ignored when it started, and a
        # shell ignores SIGINT in the commands it starts in the background: as in a foreground
        # session, then.
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            threading.Thread(target=interrupt, daemon=True).start()
            with pytest.raises(KeyboardInterrupt):
                list(running)
        finally:
            signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - began < 30  # the 60 s cells were not waited for
    wait_for(lambda: not any(alive(pid) for pid in pids()), 10, "the workers' end")


def test_loky_starts_no_more_workers_than_cells(tasks, tmp_path):
    work = [(i, 0.5, str(tmp_path)) for i in range(3)]
    assert sorted(r for r, _ in outcomes(backends.execute(tasks.nap, work, jobs=12)).values()) == [
        0,
        1,
        2,
    ]
    assert len({p.read_text() for p in tmp_path.glob("*.pid")}) <= 3


def test_loky_runs_a_task_that_asks_for_every_core_with_none_beside_it(tasks):
    work = [(i, 0.4) for i in range(5)]
    found = outcomes(backends.execute(tasks.clock, work, jobs=2, cores=[1, 1, 2, 1, 1]))
    spans = {i: result for i, (result, _) in found.items()}
    (began, ended), others = spans[2], [spans[i] for i in (0, 1, 3, 4)]
    assert all(end <= began or start >= ended for start, end in others)
    overlapping = [a for a in others for b in others if a < b and a[1] > b[0] and b[1] > a[0]]
    assert overlapping  # the one-core tasks still ran two at a time


@pytest.mark.parametrize("cores", [[1], [1, 0], [1, 1.5], [True, 1]])
def test_cores_must_be_one_positive_int_per_task(cores):
    with pytest.raises(ValueError, match=r"cores must be one positive int per task \(2 tasks\)"):
        backends.execute(divmod, [(1, 2), (3, 4)], cores=cores)


ORPHAN = """
import sys
from icml25.lab import backends
import icml25_backend_tasks as tasks
work = [(i, 120.0, sys.argv[1]) for i in range(4)]
for outcome in backends.execute(tasks.nap, work, jobs=2):
    pass
"""


def test_loky_workers_die_with_a_killed_parent(tasks, tmp_path, wait_for):
    """SIGKILL of the process running the pool (no cleanup can run in it): its workers get the
    parent-death signal instead of living on (a zombie left for init to reap counts as dead)."""
    import subprocess

    def alive(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    parent = subprocess.Popen([sys.executable, "-c", ORPHAN, str(tmp_path)])
    try:

        def pids() -> list[int]:
            return [int(p.read_text()) for p in tmp_path.glob("*.pid") if p.read_text()]

        wait_for(lambda: len(pids()) == 2, 60, "two workers running")
        parent.kill()
        parent.wait()
        wait_for(lambda: not any(alive(pid) for pid in pids()), 10, "the workers' end")
    finally:
        parent.kill()
        parent.wait()


# ------------------------------------------------------------------------------------------ dask


@pytest.fixture(scope="module")
def dask_address(tasks, dask_cluster) -> Iterator[str]:
    """A scheduler and two one-thread workers started from the command line, after ``tasks``
    (whose PYTHONPATH the workers need)."""
    with dask_cluster() as address:
        yield address


def test_dask_at_an_address_shares_each_hosts_cores(tasks, dask_address):
    # both workers are on this host: each cell gets half of its cores
    found = outcomes(
        backends.execute(
            tasks.square, [(i,) for i in range(4)], backend="dask", address=dask_address
        )
    )
    assert found == {i: ((i * i, max(1, (os.cpu_count() or 1) // 2)), None) for i in range(4)}
    described = backends.describe("dask", dask_address, None)
    assert described == {"backend": "dask", "address": dask_address, "workers": 2}


def test_dask_at_an_address_gives_the_loky_numbers(
    dask_address, loky_summary, tmp_path, monkeypatch
):
    import distributed

    submitted = []
    submit = distributed.Client.submit

    def spy(self, *args, **kwargs):
        submitted.append(args[0])
        return submit(self, *args, **kwargs)

    monkeypatch.setattr(distributed.Client, "submit", spy)
    summary = runner.run(
        [SLUG], scale="smoke", out=tmp_path, backend="dask", address=dask_address, progress=False
    )[SLUG]
    assert len(submitted) == summary["cells"]["total"]  # the cells ran on the cluster
    assert summary["cells"]["failed"] == 0
    assert summary["measurements"] == loky_summary["measurements"]


def test_dask_a_cell_that_kills_its_workers_fails_and_the_others_finish(tasks):
    pytest.importorskip("distributed")
    work = [(i, KILLER, 0.2) for i in range(4)]
    found = outcomes(backends.execute(tasks.die_if, work, backend="dask", jobs=2))
    assert {i: found[i] for i in found if i != KILLER} == {
        i: (i * i, None) for i in range(4) if i != KILLER
    }
    result, reason = found[KILLER]
    assert result is None
    assert "died twice" in reason and "KilledWorker" in reason and "\n" not in reason


# ------------------------------------------------------------------------------------------- ray


def test_ray_shuts_down_the_session_it_started(tasks):
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("a Ray session is running already")
    found = outcomes(
        backends.execute(tasks.square, [(i,) for i in range(3)], backend="ray", jobs=2)
    )
    assert found == {i: ((i * i, 1), None) for i in range(3)}
    assert not ray.is_initialized()


@pytest.fixture(scope="module")
def ray_session(tasks) -> Iterator:
    """A Ray session started by the caller (two CPUs), as a user of the library would."""
    ray = pytest.importorskip("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_ray_leaves_the_callers_session_running(tasks, ray_session):
    found = outcomes(backends.execute(tasks.square, [(i,) for i in range(4)], backend="ray"))
    assert found == {i: ((i * i, 1), None) for i in range(4)}
    assert ray_session.is_initialized()
    assert backends.describe("ray", None, 7) == {"backend": "ray", "address": None, "workers": 2}


def test_ray_a_cell_that_kills_its_worker_fails_and_the_others_finish(tasks, ray_session):
    work = [(i, KILLER, 0.0) for i in range(4)]
    found = outcomes(backends.execute(tasks.die_if, work, backend="ray"))
    assert {i: found[i] for i in found if i != KILLER} == {
        i: (i * i, None) for i in range(4) if i != KILLER
    }
    result, reason = found[KILLER]
    assert result is None
    assert "died twice" in reason and "WorkerCrashedError" in reason and "\n" not in reason
    assert ray_session.is_initialized()


def test_ray_gives_the_loky_numbers(ray_session, loky_summary, tmp_path, monkeypatch):
    wrapped = []
    remote = ray_session.remote

    def spy(*args, **kwargs):
        wrapped.append(kwargs)
        return remote(*args, **kwargs)

    monkeypatch.setattr(ray_session, "remote", spy)
    summary = runner.run([SLUG], scale="smoke", out=tmp_path, backend="ray", progress=False)[SLUG]
    assert wrapped  # the cells ran as Ray tasks
    assert summary["cells"]["failed"] == 0
    assert summary["measurements"] == loky_summary["measurements"]
    assert ray_session.is_initialized()


# ------------------------------------------------------------------------ a write error mid-run


def _file_size_limit() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))  # writes past 8 KiB: EFBIG


@pytest.mark.parametrize(("backend", "repeats"), [("loky", 3), ("dask", 3)])
def test_a_write_error_mid_run_stops_in_one_line_and_never_hangs(tmp_path, backend, repeats):
    """A file-size limit gives the same OSError as a full disk, in the middle of the run with
    two workers busy. Repeated: the hang it guards against (a cancelled future under loky's
    manager thread) came in about half of the runs, and distributed's log of the cells and
    heartbeats that the stop cuts in about half of the dask runs."""
    import subprocess

    if backend == "dask":
        pytest.importorskip("distributed")
    for k in range(repeats):
        argv = ["run", SLUG, "--scale", "smoke", "--jobs", "2", "--backend", backend]
        proc = subprocess.run(
            [sys.executable, "-m", "icml25", *argv, "--out", str(tmp_path / f"runs-{k}")],
            preexec_fn=_file_size_limit,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
        assert proc.returncode == 2, proc.stderr[-2000:]
        assert proc.stderr.strip().splitlines() == ["icml25: error: File too large"], proc.stderr


def test_a_ray_that_cannot_start_is_one_line(tmp_path, monkeypatch, capsys):
    ray = pytest.importorskip("ray")
    from icml25.lab.cli import main

    def fails(**kwargs):
        raise RuntimeError("Failed to start GCS.  Last 0 lines of error files:\nmore")

    monkeypatch.setattr(ray, "init", fails)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    argv = ["run", SLUG, "--scale", "smoke", "--backend", "ray", "--out", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["icml25: error: a local Ray did not start: Failed to start GCS.  Last 0 "
                   "lines of error files:"]  # fmt: skip
