"""Shared test set-up: matplotlib never opens a window, and torch runs on one thread (small
models on these shared 2-core machines run several times slower with two); a Dask cluster
started from the command line for the tests that need one."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import matplotlib
import pytest
import torch

matplotlib.use("Agg")
torch.set_num_threads(1)
# Ray starts its workers at nice 15; beside a second test process they would wait for every
# other job on the machine (a torch import in a worker: 49 s against 2 s at nice 0)
os.environ.setdefault("RAY_worker_niceness", "0")


def _wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds} s")
        time.sleep(0.05)


@pytest.fixture
def wait_for():
    """``wait_for(condition, seconds, what)``: poll ``condition`` every 50 ms; AssertionError
    naming ``what`` if it does not hold within ``seconds``."""
    return _wait_for


@pytest.fixture
def alive():
    """Whether a process id still names a running (or unreaped) process."""

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    return alive


@pytest.fixture(scope="session")
def dask_cluster(tmp_path_factory: pytest.TempPathFactory):
    """``with dask_cluster() as address``: a scheduler and two one-thread workers started with
    the ``dask`` command line, as a user would, stopped (workers first) on leaving."""
    distributed = pytest.importorskip("distributed")

    @contextlib.contextmanager
    def start():
        folder = tmp_path_factory.mktemp("dask")
        file = folder / "scheduler.json"
        dask = str(Path(sys.executable).parent / "dask")
        quiet = ["--no-dashboard", "--dashboard-address", ":0", "--scheduler-file", str(file)]
        commands = [
            [dask, "scheduler", "--port", "0", *quiet],
            [dask, "worker", "--nworkers", "2", "--nthreads", "1", *quiet],
        ]
        processes = []
        try:
            for n, command in enumerate(commands):
                with open(folder / f"{n}.log", "w") as log:  # the process keeps its own copy
                    processes.append(
                        subprocess.Popen(command, stdout=log, stderr=log, start_new_session=True)
                    )
            scheduler = processes[0]
            _wait_for(lambda: file.exists() or scheduler.poll() is not None, 60, "scheduler file")
            assert file.exists(), (folder / "0.log").read_text()  # else the scheduler died
            with distributed.Client(scheduler_file=str(file), timeout=60) as client:
                client.wait_for_workers(2, timeout=60)
                address = client.scheduler.address
            yield address
        finally:
            for process in reversed(processes):  # workers first, then the scheduler
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()

    return start


@pytest.fixture(scope="session")
def smoke(tmp_path_factory: pytest.TempPathFactory):
    """One smoke run per paper for the whole session, shared by the conformance tests and the
    paper's own: ``smoke(slug)`` returns ``(summary, runs folder)``. Tests must not edit
    either."""
    from icml25.lab import runner

    done: dict[str, tuple[dict, Path]] = {}

    def run(slug: str) -> tuple[dict, Path]:
        if slug not in done:
            out = tmp_path_factory.mktemp(f"smoke-{slug}")
            done[slug] = runner.run([slug], scale="smoke", seed=0, out=out, jobs=1)[slug], out
        return done[slug]

    return run
