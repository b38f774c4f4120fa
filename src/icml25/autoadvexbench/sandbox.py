"""The agent's sandbox: file tools confined to one folder and Python runs in a limited child
process (AutoAdvExBench runs its agent in a Docker container; we use a subprocess).

A Python run is ``python sandbox_guard.py FOLDER LOG_FD PRELOAD SCRIPT`` with

- ``resource.setrlimit`` in the child before it starts: CPU seconds (``RLIMIT_CPU``, the kernel
  kills it with SIGXCPU/SIGKILL), address space (``RLIMIT_AS``: an allocation beyond it raises
  ``MemoryError``), the size of any file it writes (``RLIMIT_FSIZE``), open files;
- a wall-clock timeout, after which the whole process group is killed;
- a clean environment: no proxies, no API keys, one thread, ``HOME`` and ``TMPDIR`` the folder;
- kernel barriers (``sandbox_kernel.py``, where the kernel offers them): Landlock confines files
  to the folder (reads also to the Python installation, system libraries and the child's own
  ``/proc/<pid>``, so not another process's environment or memory) and signals to the
  sandbox; seccomp refuses ``execve``, sockets, ptrace and ``process_vm_readv`` in every
  thread. Applied or missing, each is recorded in ``RunResult.barriers``;
- an audit hook (``sandbox_guard.py``) that refuses sockets, processes, ctypes and files
  outside the folder at the Python level, and records each refusal on a pipe that the parent
  drains while the child runs (the first ``REFUSALS_KEPT`` kept, all counted).

How strong this is: the rlimits, the timeout and the kernel barriers hold for any code in the
child, native code included. The audit hook is a tripwire (PEP 578 says it is not a sandbox):
it records the ordinary Python escapes, but code that raises no audit event (torch's
``from_file``, a call to ``_posixsubprocess.fork_exec``) passes it and is stopped only by the
kernel barriers, with an ``OSError``/``PermissionError`` in the run's stderr and no entry in
``blocked``. Without Landlock and seccomp (an older kernel, another OS) those escapes are not
stopped. Not stopped in any case: reading files under the read roots, using CPU and memory up to
the limits. The file tools resolve symlinks before checking the path.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

GUARD = Path(__file__).with_name("sandbox_guard.py")
OUTPUT_LIMIT = 10_000  # characters of stdout/stderr handed back (the official agent's 10,000)
REFUSALS_KEPT = 200  # refusal records kept per run; the rest are only counted


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 60
    wall_seconds: float = 90.0
    memory_bytes: int = 3 * 2**30
    file_bytes: int = 64 * 2**20
    open_files: int = 256

    def __post_init__(self) -> None:
        if self.cpu_seconds < 1 or self.wall_seconds <= 0 or self.memory_bytes < 2**28:
            raise ValueError(
                "Limits need cpu_seconds >= 1, wall_seconds > 0 and memory_bytes >= 256 MiB, "
                f"got {self}"
            )


@dataclass
class RunResult:
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool  # killed at the wall-clock limit
    cpu_killed: bool  # killed by the kernel at the CPU-time limit
    memory_error: bool  # a MemoryError (the address-space limit)
    blocked: list[dict] = field(default_factory=list)  # the audit hook's first refusals
    refusals: int = 0  # all refusals recorded by the audit hook (len(blocked) at most 200)
    barriers: list[dict] = field(default_factory=list)  # kernel barriers applied or missing

    @property
    def stopped(self) -> bool:
        """Whether the sandbox stopped anything in this run."""
        return bool(self.timed_out or self.cpu_killed or self.memory_error or self.refusals)

    def to_dict(self) -> dict:
        return {**asdict(self), "stopped": self.stopped}


class SandboxError(PermissionError):
    """A file tool was asked for a path outside the sandbox's folder."""


class Sandbox:
    """One folder with file tools confined to it and limited Python runs in it."""

    def __init__(
        self,
        folder: str | Path,
        limits: Limits | None = None,
        *,
        preload: tuple[str, ...] = ("numpy", "torch"),
        guarded: bool = True,
    ):
        self.folder = Path(folder).resolve()
        if not self.folder.is_dir():
            raise ValueError(f"folder must be an existing directory, got {folder!r}")
        self.limits = limits or Limits()
        self.preload = preload  # modules imported before the audit hook is installed
        self.guarded = guarded  # False only for the control runs that show what the guard stops

    def path(self, relative: str) -> Path:
        """``relative`` resolved inside the folder (symlinks followed), else SandboxError."""
        if not isinstance(relative, str) or not relative:
            raise SandboxError(f"path must be a non-empty string, got {relative!r}")
        full = (self.folder / relative).resolve()
        if full != self.folder and self.folder not in full.parents:
            raise SandboxError(f"path {relative!r} is outside the sandbox folder")
        return full

    def read_file(self, relative: str, limit: int = OUTPUT_LIMIT) -> str:
        text = self.path(relative).read_text(errors="replace")
        return text if len(text) <= limit else text[:limit] + f"\n... [cut at {limit} chars]"

    def write_file(self, relative: str, content: str) -> None:
        if not isinstance(content, str):
            raise TypeError(f"content must be a string, got {type(content).__name__}")
        target = self.path(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)

    def run_python(self, relative: str) -> RunResult:
        """Run a script of the folder under the limits; never raises for what the script does."""
        script = self.path(relative)
        read_fd, write_fd = os.pipe()
        command = [sys.executable, "-E", "-s"]
        if self.guarded:
            command += [str(GUARD), str(self.folder), str(write_fd), ",".join(self.preload)]
            command += [str(script)]
        else:
            command += [str(script)]
        begin = time.perf_counter()
        process = subprocess.Popen(
            command,
            cwd=self.folder,
            env=self._environment(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(write_fd,),
            preexec_fn=self._set_limits,
            start_new_session=True,
        )
        os.close(write_fd)
        log = _LogReader(read_fd)
        timed_out = False
        try:
            stdout, stderr = process.communicate(timeout=self.limits.wall_seconds)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            timed_out = True
        log.join()
        code = process.returncode
        out, err = _cut(stdout.decode(errors="replace")), _cut(stderr.decode(errors="replace"))
        return RunResult(
            returncode=code,
            stdout=out,
            stderr=err,
            seconds=time.perf_counter() - begin,
            timed_out=timed_out,
            cpu_killed=not timed_out and code in (-signal.SIGXCPU, -signal.SIGKILL),
            memory_error="MemoryError" in err,
            blocked=log.refusals,
            refusals=log.count,
            barriers=log.barriers,
        )

    def _environment(self) -> dict[str, str]:
        threads = "1"
        return {
            "PATH": os.path.dirname(sys.executable) + ":/usr/bin:/bin",
            "HOME": str(self.folder),
            "TMPDIR": str(self.folder),
            "OMP_NUM_THREADS": threads,
            "MKL_NUM_THREADS": threads,
            "OPENBLAS_NUM_THREADS": threads,
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
        }

    def _set_limits(self) -> None:
        cpu = self.limits.cpu_seconds
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_AS, (self.limits.memory_bytes,) * 2)
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.limits.file_bytes,) * 2)
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.limits.open_files,) * 2)


class _LogReader:
    """Drains the guard's log pipe in a thread while the child runs (a full pipe would block
    the child): barrier records, the first ``REFUSALS_KEPT`` refusals, and their count."""

    def __init__(self, fd: int):
        self.barriers: list[dict] = []
        self.refusals: list[dict] = []
        self.count = 0
        self._thread = threading.Thread(target=self._read, args=(fd,), daemon=True)
        self._thread.start()

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as pipe:
            for line in pipe:
                if not line.strip():
                    continue
                record = _parse_refusal(line.decode(errors="replace"))
                if record.get("event", "").startswith("barrier"):
                    self.barriers.append(record)
                    continue
                self.count += 1
                if len(self.refusals) < REFUSALS_KEPT:
                    self.refusals.append(record)

    def join(self, timeout: float = 5.0) -> None:
        """Wait for the end of the log (a grandchild outside the killed group may hold it)."""
        self._thread.join(timeout)


def _parse_refusal(line: str) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return {"event": "unparsed", "detail": line[:300]}
    return record if isinstance(record, dict) else {"event": "unparsed", "detail": line[:300]}


def _cut(text: str) -> str:
    return text if len(text) <= OUTPUT_LIMIT else text[:OUTPUT_LIMIT] + "\n... [cut]"
