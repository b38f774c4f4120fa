"""The agent's sandbox: file tools confined to one folder and Python runs in a limited child
process (AutoAdvExBench runs its agent in a Docker container; we use a subprocess).

A Python run is ``python sandbox_guard.py FOLDER LOG_FD SCRIPT`` with

- ``resource.setrlimit`` in the child before it starts: CPU seconds (``RLIMIT_CPU``, the kernel
  kills it with SIGXCPU/SIGKILL), address space (``RLIMIT_AS``: an allocation beyond it raises
  ``MemoryError``), the size of any file it writes (``RLIMIT_FSIZE``), open files;
- a wall-clock timeout, after which the whole process group is killed;
- a clean environment: no proxies, no API keys, one thread, ``HOME`` set to the folder;
- an audit hook (``sandbox_guard.py``) that refuses sockets, processes, native loading and files
  outside the folder, and records each refusal on a pipe the parent reads.

How strong this is: the rlimits and the timeout are enforced by the kernel. The audit hook is
Python-level (PEP 578 says it is not a sandbox): it stops Python code, including the usual
escapes (``open``, ``socket``, ``subprocess``, ``os.system``, ``ctypes``), but not native code
already loaded in the process (numpy, torch). The file tools resolve symlinks before checking
the path. A determined adversary needs OS isolation (a container, a network namespace, seccomp).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

GUARD = Path(__file__).with_name("sandbox_guard.py")
OUTPUT_LIMIT = 10_000  # characters of stdout/stderr handed back (the official agent's 10,000)


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
    blocked: list[dict] = field(default_factory=list)  # refusals recorded by the audit hook

    @property
    def stopped(self) -> bool:
        """Whether the sandbox stopped anything in this run."""
        return bool(self.timed_out or self.cpu_killed or self.memory_error or self.blocked)

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
        timed_out = False
        try:
            stdout, stderr = process.communicate(timeout=self.limits.wall_seconds)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            timed_out = True
        with os.fdopen(read_fd, "rb") as log:
            lines = log.read().decode(errors="replace").splitlines()
        blocked = [_parse_refusal(line) for line in lines if line.strip()]
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
            blocked=blocked,
        )

    def _environment(self) -> dict[str, str]:
        threads = "1"
        return {
            "PATH": os.path.dirname(sys.executable) + ":/usr/bin:/bin",
            "HOME": str(self.folder),
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


def _parse_refusal(line: str) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return {"event": "unparsed", "detail": line[:300]}
    return record if isinstance(record, dict) else {"event": "unparsed", "detail": line[:300]}


def _cut(text: str) -> str:
    return text if len(text) <= OUTPUT_LIMIT else text[:OUTPUT_LIMIT] + "\n... [cut]"
