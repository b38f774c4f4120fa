"""The agent's sandbox: file tools confined to one folder and Python runs in a limited child
process tree (AutoAdvExBench runs its agent in a Docker container; we use the kernel's own
barriers around a subprocess).

The file tools (``sandbox_files.py``) open every path one component at a time without
following links, and only regular files with one link: a symlink or FIFO the sandboxed code
swaps in cannot make the harness read or write outside the folder, or hang.

A Python run is ``[unshare ...] python sandbox_guard.py FOLDER LOG_FD BARRIER_FD PRELOAD
REQUIRE SCRIPT`` with, from the outside in,

- **namespaces** and **control groups** for the whole process tree where this machine gives
  them (``sandbox_tree.py``): PID (every process dies with the run), network, mount (a private
  ``/proc``); the tree's memory, process count and CPU time;
- ``resource.setrlimit`` in the child before it starts: CPU seconds per process
  (``RLIMIT_CPU``), address space (``RLIMIT_AS``: an allocation beyond it raises
  ``MemoryError``), the size of any file it writes (``RLIMIT_FSIZE``), open files;
- a watchdog thread in the harness: the tree's CPU time (from the control group, else summed
  over the session's live processes), its resident memory where no control group limits it,
  and the bytes under the folder (the folder quota), each killing the whole tree when over;
- a wall-clock timeout; at the end every process of the run's session and control groups is
  killed, whatever it did to detach;
- a clean environment: no proxies, no API keys, one thread, ``HOME`` and ``TMPDIR`` the folder;
- kernel barriers applied by the child to itself (``sandbox_kernel.py``): Landlock (files only
  in the folder, reads only in the Python installation and system libraries; signals scoped),
  no capabilities, a seccomp deny-list (no ``execve``, sockets, ptrace, ``setsid``,
  administrative calls), reported on a pipe the child closes before the script starts;
- an audit hook (``sandbox_guard.py``): a tripwire that records the ordinary Python escapes,
  not a barrier (the sandboxed code can disarm it).

Captured output is capped (the first ``CAPTURE_BYTES`` of each stream kept, the rest drained
and counted). Where Landlock or seccomp is missing, ``Sandbox`` refuses guarded runs unless
``allow_unconfined=True`` says the caller accepts code running with only the rlimits, the
tree barriers and the hook.
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
from typing import BinaryIO

from icml25.autoadvexbench import sandbox_kernel
from icml25.autoadvexbench.sandbox_files import (
    SandboxError,
    components,
    folder_bytes,
    open_beneath,
)
from icml25.autoadvexbench.sandbox_tree import (
    TreeGroup,
    kill_session,
    namespace_prefix,
    session_usage,
)

GUARD = Path(__file__).with_name("sandbox_guard.py")
OUTPUT_LIMIT = 10_000  # characters of stdout/stderr handed back (the official agent's 10,000)
CAPTURE_BYTES = 4 * OUTPUT_LIMIT + 4  # bytes of each stream kept (UTF-8: 4 bytes a character)
REFUSALS_KEPT = 200  # refusal records kept per run; the rest are only counted
WATCH_SECONDS = 0.05  # the watchdog's period
REFUSED_UNCONFINED = 97  # the guard's exit code when a required barrier is missing

__all__ = ["Limits", "RunResult", "Sandbox", "SandboxError", "SandboxUnavailable"]


@dataclass(frozen=True)
class Limits:
    """The limits of one sandboxed Python run.

    Parameters
    ----------
    cpu_seconds : int, default 60
        CPU seconds per process (``RLIMIT_CPU``) and for the whole tree (watchdog), ``>= 1``.
    wall_seconds : float, default 90.0
        Wall-clock timeout, ``> 0``.
    memory_bytes : int, default 3 * 2**30
        Address space per process and resident memory of the tree, at least 256 MiB.
    file_bytes : int, default 64 * 2**20
        Size of any one file written.
    open_files : int, default 256
        Open files per process.
    processes : int, default 64
        Processes of the tree at once (where a pids control group exists), ``>= 4``.
    folder_bytes : int, default 2**30
        Every file under the folder together, ``>= file_bytes``.
    """

    cpu_seconds: int = 60  # per process (RLIMIT_CPU) and for the whole tree (watchdog)
    wall_seconds: float = 90.0
    memory_bytes: int = 3 * 2**30  # address space per process; resident memory of the tree
    file_bytes: int = 64 * 2**20  # any one file written
    open_files: int = 256
    processes: int = 64  # processes of the tree at once (where a pids control group exists)
    folder_bytes: int = 1 * 2**30  # every file under the folder together

    def __post_init__(self) -> None:
        if self.cpu_seconds < 1 or self.wall_seconds <= 0 or self.memory_bytes < 2**28:
            raise ValueError(
                "Limits need cpu_seconds >= 1, wall_seconds > 0 and memory_bytes >= 256 MiB, "
                f"got {self}"
            )
        if self.processes < 4 or self.folder_bytes < self.file_bytes:
            raise ValueError(
                f"Limits need processes >= 4 and folder_bytes >= file_bytes, got {self}"
            )


@dataclass
class RunResult:
    """What one sandboxed Python run did and what stopped it.

    Parameters
    ----------
    returncode : int or None
        The script's exit code (negative: the signal that ended it).
    stdout : str
        Captured standard output, cut at ``OUTPUT_LIMIT`` characters.
    stderr : str
        Captured standard error, cut likewise.
    seconds : float
        Wall-clock duration of the run.
    timed_out : bool
        Killed at the wall-clock limit.
    cpu_killed : bool
        Killed at the CPU-time limit (one process's, or the tree's).
    memory_error : bool
        A ``MemoryError`` in stderr (the address-space limit).
    blocked : list of dict, default []
        The audit hook's first refusals (at most ``REFUSALS_KEPT``).
    refusals : int, default 0
        All refusals the audit hook recorded.
    barriers : list of dict, default []
        The barriers applied or missing.
    memory_killed : bool, default False
        The tree killed at its memory limit.
    quota_killed : bool, default False
        The tree killed when the folder passed its quota.
    output_bytes : int, default 0
        Bytes written to stdout and stderr (``CAPTURE_BYTES`` of each kept).
    leftovers_killed : int, default 0
        Processes still alive after the run's init exited, killed.
    tree_cpu_seconds : float, default 0.0
        The watchdog's last reading of the tree's CPU time.

    Notes
    -----
    ``stopped`` is true when the sandbox stopped anything in the run; ``to_dict()`` gives the
    fields and ``stopped``.
    """

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool  # killed at the wall-clock limit
    cpu_killed: bool  # killed at the CPU-time limit (one process's, or the tree's)
    memory_error: bool  # a MemoryError (the address-space limit)
    blocked: list[dict] = field(default_factory=list)  # the audit hook's first refusals
    refusals: int = 0  # all refusals recorded by the audit hook (len(blocked) at most 200)
    barriers: list[dict] = field(default_factory=list)  # barriers applied or missing
    memory_killed: bool = False  # the tree killed at its memory limit
    quota_killed: bool = False  # the tree killed when the folder passed its quota
    output_bytes: int = 0  # bytes written to stdout and stderr (CAPTURE_BYTES of each kept)
    leftovers_killed: int = 0  # processes still alive after the run's init exited, killed
    tree_cpu_seconds: float = 0.0  # the watchdog's last reading of the tree's CPU time

    @property
    def stopped(self) -> bool:
        """Whether the sandbox stopped anything in this run."""
        return bool(
            self.timed_out
            or self.cpu_killed
            or self.memory_error
            or self.memory_killed
            or self.quota_killed
            or self.refusals
            or self.leftovers_killed
        )

    def to_dict(self) -> dict:
        return {**asdict(self), "stopped": self.stopped}


class SandboxUnavailable(RuntimeError):
    """The kernel lacks a barrier that guarded runs of model-written code require."""


class Sandbox:
    """One folder with file tools confined to it and limited Python runs in it.

    ``read_file``, ``write_file`` and ``open_file`` act on regular files of the folder only;
    ``run_python(path)`` runs a script of the folder under ``limits`` and returns a
    :class:`RunResult`.

    Parameters
    ----------
    folder : str or pathlib.Path
        An existing directory, the only place the tools and runs may write.
    limits : Limits or None, default None
        Limits of each run; None gives ``Limits()``.
    preload : tuple of str, default ("numpy", "torch")
        Modules imported before the audit hook is installed.
    guarded : bool, default True
        Run scripts under the guard, namespaces, control groups and watchdog; False only for
        the control runs that show what the guard stops.
    allow_unconfined : bool, default False
        Accept guarded runs on a kernel without Landlock or seccomp; otherwise such a kernel
        raises ``SandboxUnavailable`` here or at the run.
    """

    def __init__(
        self,
        folder: str | Path,
        limits: Limits | None = None,
        *,
        preload: tuple[str, ...] = ("numpy", "torch"),
        guarded: bool = True,
        allow_unconfined: bool = False,
    ):
        self.folder = Path(folder).resolve()
        if not self.folder.is_dir():
            raise ValueError(f"folder must be an existing directory, got {folder!r}")
        self.limits = limits or Limits()
        self.preload = preload  # modules imported before the audit hook is installed
        self.guarded = guarded  # False only for the control runs that show what the guard stops
        self.allow_unconfined = allow_unconfined
        kernel = sandbox_kernel.support()
        if guarded and not allow_unconfined and not (kernel["landlock"] and kernel["seccomp"]):
            raise SandboxUnavailable(
                f"this kernel lacks Landlock or seccomp ({kernel}): model-written code would "
                "run with only the rlimits and the audit hook, able to read and write what "
                "this user can. Pass allow_unconfined=True to accept that risk."
            )

    def path(self, relative: str) -> Path:
        """The path ``relative`` names in the folder (checked lexically: no ``..``, not
        outside); for display: open files with ``open_file``, which follows no link."""
        return self.folder.joinpath(*components(str(self.folder), relative))

    def open_file(self, relative: str) -> BinaryIO:
        """The regular file ``relative`` of the folder, opened for reading in binary mode."""
        return os.fdopen(open_beneath(str(self.folder), relative), "rb")

    def read_file(self, relative: str, limit: int = OUTPUT_LIMIT) -> str:
        with self.open_file(relative) as handle:
            data = handle.read(4 * limit + 4)
            more = bool(handle.read(1))
        text = data.decode(errors="replace")
        if len(text) <= limit and not more:
            return text
        return text[:limit] + f"\n... [cut at {limit} chars]"

    def write_file(self, relative: str, content: str) -> None:
        if not isinstance(content, str):
            raise TypeError(f"content must be a string, got {type(content).__name__}")
        data = content.encode()
        if len(data) > self.limits.file_bytes:
            raise SandboxError(
                f"content is {len(data)} bytes, above the file limit {self.limits.file_bytes}"
            )
        with os.fdopen(open_beneath(str(self.folder), relative, write=True), "wb") as handle:
            handle.write(data)

    def run_python(self, relative: str) -> RunResult:
        """Run a script of the folder under the limits; never raises for what the script does.
        Raises SandboxUnavailable when a required kernel barrier could not be applied."""
        os.close(open_beneath(str(self.folder), relative))  # a regular file of the folder
        script = str(self.path(relative))
        log_read, log_write = os.pipe()
        barrier_read, barrier_write = os.pipe()
        group = TreeGroup(self.limits.memory_bytes, self.limits.processes) if self.guarded else None
        prefix = list(namespace_prefix()) if self.guarded else []
        command = [*prefix, sys.executable, "-E", "-s"]
        if self.guarded:
            require = "0" if self.allow_unconfined else "1"
            command += [str(GUARD), str(self.folder), str(log_write), str(barrier_write)]
            command += [",".join(self.preload), require, script]
        else:
            command += [script]
        begin = time.perf_counter()
        try:
            process = subprocess.Popen(
                command,
                cwd=self.folder,
                env=self._environment(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(log_write, barrier_write),
                preexec_fn=lambda: self._set_limits(group),
                start_new_session=True,
            )
        except BaseException:
            for fd in (log_read, log_write, barrier_read, barrier_write):
                os.close(fd)
            if group is not None:
                group.close()
            raise
        os.close(log_write)
        os.close(barrier_write)
        log, fence = _LogReader(log_read), _LogReader(barrier_read, fence=True)
        out, err = _Capture(process.stdout), _Capture(process.stderr)
        watch = _Watchdog(process, group, self.limits, str(self.folder), active=self.guarded)
        timed_out = False
        try:
            process.wait(timeout=self.limits.wall_seconds)
        except subprocess.TimeoutExpired:
            timed_out = True
            watch.kill_tree()
            process.wait()
        watch.stop()
        leftovers = kill_session(process.pid) if self.guarded else 0
        oom = 0
        if group is not None:
            leftovers += len(group.members())
            oom = group.oom_kills()
            group.close()
        for reader in (out, err, log, fence):
            reader.join()
        leftovers = max(leftovers, fence.left)
        code = _exit_code(fence.exits, process.returncode)
        if code == REFUSED_UNCONFINED and any(
            b["event"] == "barrier-missing" for b in fence.barriers
        ):
            raise SandboxUnavailable(
                f"a kernel barrier is missing ({fence.barriers}); the run was refused. "
                "Pass allow_unconfined=True to Sandbox to accept running without it."
            )
        stderr = err.text()
        memory_killed = oom > 0 or watch.reason == "memory"
        return RunResult(
            returncode=code,
            stdout=out.text(),
            stderr=stderr,
            seconds=time.perf_counter() - begin,
            timed_out=timed_out,
            cpu_killed=watch.reason == "cpu"
            or (
                not timed_out
                and not memory_killed
                and not watch.reason
                and code in (-signal.SIGXCPU, -signal.SIGKILL)
            ),
            memory_error="MemoryError" in stderr,
            blocked=log.refusals,
            refusals=log.count,
            barriers=self._tree_barriers(group, prefix) + fence.barriers,
            memory_killed=memory_killed,
            quota_killed=watch.reason == "folder",
            output_bytes=out.total + err.total,
            leftovers_killed=leftovers,
            tree_cpu_seconds=watch.cpu_seconds,
        )

    def _tree_barriers(self, group: TreeGroup | None, prefix: list[str]) -> list[dict]:
        """The harness's own record of the barriers it set up around the run."""
        if not self.guarded:
            return []
        records = []
        if prefix:
            kind = "user, " if "--user" in prefix else ""
            records.append({"event": "barrier", "detail": f"namespaces: {kind}pid, net, mount"})
        else:
            records.append({"event": "barrier-missing", "detail": "namespaces: unshare failed"})
        if group is not None and group.dirs:
            records.append({"event": "barrier", "detail": group.describe()})
        else:
            records.append({"event": "barrier-missing", "detail": "cgroups: none writable"})
        records.append({"event": "barrier", "detail": "session: watched and killed at the end"})
        return records

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

    def _set_limits(self, group: TreeGroup | None) -> None:
        cpu = self.limits.cpu_seconds
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_AS, (self.limits.memory_bytes,) * 2)
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.limits.file_bytes,) * 2)
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.limits.open_files,) * 2)
        if group is not None:
            group.join()


def _exit_code(exits: list[int], returncode: int | None) -> int | None:
    """The script's exit code from the init's report (negative: the signal that ended it),
    else the launcher's own."""
    if exits:
        return os.waitstatus_to_exitcode(exits[-1])
    return returncode


class _Watchdog:
    """Every ``WATCH_SECONDS`` while the run lives: the tree's CPU time, its resident memory
    (where no control group limits it) and the folder's bytes; the first over its limit kills
    the whole tree and is kept in ``reason``."""

    def __init__(self, process, group, limits: Limits, folder: str, active: bool = True):
        self.process, self.group, self.limits, self.folder = process, group, limits, folder
        self.reason = ""
        self.cpu_seconds = 0.0  # the tree's CPU time at the last look
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        if active:  # an unguarded control run has no watchdog, only its rlimits and timeout
            self._thread.start()

    def _watch(self) -> None:
        memory_by_group = self.group is not None and "memory" in self.group.limits
        tick = 0
        while not self._done.wait(WATCH_SECONDS):
            if self.group is not None and self.group.oom_kills():
                self.reason = "memory"
                self.kill_tree()
                return
            cpu = self.group.cpu_seconds() if self.group is not None else None
            rss = None
            if cpu is None or not memory_by_group:
                session_cpu, rss = session_usage(self.process.pid)
                cpu = session_cpu if cpu is None else cpu
            self.cpu_seconds = max(self.cpu_seconds, cpu)
            if rss is not None and not memory_by_group and rss > self.limits.memory_bytes:
                self.reason = "memory"
            elif cpu > self.limits.cpu_seconds:
                self.reason = "cpu"
            elif tick % 4 == 0 and folder_bytes(self.folder) > self.limits.folder_bytes:
                self.reason = "folder"
            tick += 1
            if self.reason:
                self.kill_tree()
                return

    def kill_tree(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if self.group is not None:
            self.group.kill()
        kill_session(self.process.pid, wait=1.0)

    def stop(self) -> None:
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()


class _Capture:
    """Drains one output pipe in a thread: the first ``CAPTURE_BYTES`` kept, all counted."""

    def __init__(self, pipe):
        self.kept = bytearray()
        self.total = 0
        self._thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self._thread.start()

    def _read(self, pipe) -> None:
        with pipe:
            while chunk := pipe.read1(1 << 16):
                self.total += len(chunk)
                room = CAPTURE_BYTES - len(self.kept)
                if room > 0:
                    self.kept += chunk[:room]

    def join(self, timeout: float = 5.0) -> None:
        self._thread.join(timeout)

    def text(self) -> str:
        text = self.kept.decode(errors="replace")
        if len(text) <= OUTPUT_LIMIT and self.total <= len(self.kept):
            return text
        return text[:OUTPUT_LIMIT] + f"\n... [cut: {self.total} bytes written]"


class _LogReader:
    """Drains one of the guard's pipes in a thread while the child runs (a full pipe would
    block the child). On the barrier pipe (``fence=True``, closed before the script starts):
    barrier and exit records. On the refusal log, which the script can also write to: every
    line is a refusal, whatever it claims to be; the first ``REFUSALS_KEPT`` kept, all
    counted."""

    def __init__(self, fd: int, fence: bool = False):
        self.fence = fence
        self.barriers: list[dict] = []
        self.exits: list[int] = []  # wait statuses reported by the run's init
        self.left = 0  # processes the init saw in its PID namespace when the script ended
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
                if self.fence:
                    if record.get("event") == "exit" and isinstance(record.get("status"), int):
                        self.exits.append(record["status"])
                        self.left += int(record.get("left", 0))
                    elif record.get("event", "").startswith("barrier"):
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
