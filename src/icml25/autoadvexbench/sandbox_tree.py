"""Barriers for the whole process tree of one sandboxed run, set up and watched by the harness
(the sandboxed code cannot reach or forge them):

- **namespaces** (``unshare(1)`` from util-linux): a PID namespace, so that when the run's init
  exits the kernel kills every process left in it, however it detached (new session, closed
  descriptors); a network namespace with only a loopback that is down; a mount namespace with
  its own ``/proc``, where the harness's processes do not appear. As root directly, otherwise
  inside a user namespace where the kernel allows one.
- **control groups** (cgroup v1 hierarchies or v2, whichever are writable): the memory of the
  tree (``memory.limit_in_bytes`` / ``memory.max``: the kernel's OOM killer acts inside the
  group), the number of its processes (``pids.max``), and its CPU time (``cpuacct.usage`` /
  ``cpu.stat``), which the harness's watchdog compares with the limit; at the end every member
  is killed (``cgroup.kill`` where v2 has it).
- **the session** (always): the run starts a new session and the seccomp filter refuses
  ``setsid``, so every process of the tree keeps its session id; at the end the harness kills
  every process of that session, and without control groups its watchdog sums the CPU time and
  resident memory of the session's live processes.

``Namespaces.command()`` gives the command prefix, or ``[]`` where none works; ``TreeGroup``
the control groups of one run; ``session_usage`` and ``kill_session`` the session fallback.
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

UNSHARE = ("--pid", "--fork", "--kill-child", "--net", "--mount-proc")
_COUNTER = itertools.count()
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


@functools.cache
def namespace_prefix() -> tuple[str, ...]:
    """The ``unshare`` command prefix that works here (as root, or in a user namespace), else
    ``()``. Probed once per process with ``true``."""
    binary = shutil.which("unshare")
    if binary is None:
        return ()
    for extra in ((), ("--user", "--map-root-user")):
        prefix = (binary, *extra, *UNSHARE)
        try:
            probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            continue
        if probe.returncode == 0:
            return prefix
    return ()


def _hierarchies() -> dict[str, Path]:
    """Writable cgroup directories of this process: ``"v2"``, and v1 ``"memory"``, ``"pids"``,
    ``"cpuacct"``, each the folder of this process's own group in that hierarchy."""
    own = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else ["v2"]:
            own[name] = path
    found = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, right = line.split(" - ", 1)
        fields, (fstype, _, options) = left.split(), right.split()[:3]
        root, mount = fields[3], fields[4]
        if fstype == "cgroup2":
            names = ["v2"]
        elif fstype == "cgroup":
            names = [o for o in options.split(",") if o in ("memory", "pids", "cpuacct")]
        else:
            continue
        for name in names:
            if name in own and name not in found and own[name].startswith(root):
                folder = Path(mount, own[name][len(root) :].lstrip("/"))
                if os.access(folder, os.W_OK):
                    found[name] = folder
    return found


class TreeGroup:
    """Control groups holding one run's process tree. ``join()`` is called by the child before
    it starts the run (``preexec_fn``); ``close()`` kills what is left and removes the groups."""

    def __init__(self, memory_bytes: int, processes: int):
        self.dirs: dict[str, Path] = {}
        name = f"icml25-sandbox-{os.getpid()}-{next(_COUNTER)}"
        for kind, parent in _hierarchies().items():
            try:
                (parent / name).mkdir()
            except OSError:
                continue
            self.dirs[kind] = parent / name
        self.limits = []
        self._limit("memory", "memory.limit_in_bytes", memory_bytes, "memory")
        self._limit("v2", "memory.max", memory_bytes, "memory")
        self._limit("pids", "pids.max", processes, "processes")
        self._limit("v2", "pids.max", processes, "processes")

    def _limit(self, kind: str, file: str, value: int, what: str) -> None:
        folder = self.dirs.get(kind)
        if folder is None or what in self.limits or not (folder / file).exists():
            return
        try:
            (folder / file).write_text(str(value))
        except OSError:
            return
        self.limits.append(what)

    @property
    def counts_cpu(self) -> bool:
        return "cpuacct" in self.dirs or "v2" in self.dirs

    def describe(self) -> str:
        kinds = ", ".join(sorted(self.dirs)) or "none"
        limits = ", ".join(self.limits + (["cpu time"] if self.counts_cpu else [])) or "nothing"
        return f"cgroups ({kinds}): limits {limits} for the whole tree"

    def join(self) -> None:
        pid = str(os.getpid()).encode()
        for folder in self.dirs.values():
            fd = os.open(folder / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def cpu_seconds(self) -> float | None:
        """CPU time of every process that was in the group, exited ones included."""
        try:
            if "v2" in self.dirs:
                for line in (self.dirs["v2"] / "cpu.stat").read_text().splitlines():
                    if line.startswith("usage_usec "):
                        return int(line.split()[1]) / 1e6
            if "cpuacct" in self.dirs:
                return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None
        return None

    def oom_kills(self) -> int:
        """Processes the kernel's OOM killer killed in the group."""
        for kind, file in (("memory", "memory.oom_control"), ("v2", "memory.events")):
            try:
                lines = (self.dirs[kind] / file).read_text().splitlines()
            except (KeyError, OSError):
                continue
            for line in lines:
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        return 0

    def members(self) -> set[int]:
        pids = set()
        for folder in self.dirs.values():
            try:
                pids.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
            except OSError:
                continue
        return pids

    def kill(self) -> None:
        if (self.dirs.get("v2", Path("/nonexistent")) / "cgroup.kill").exists():
            try:
                (self.dirs["v2"] / "cgroup.kill").write_text("1")
            except OSError:
                pass
        for pid in self.members():
            _kill(pid)

    def close(self, wait: float = 5.0) -> None:
        deadline = time.monotonic() + wait
        while True:
            self.kill()
            if not self.members() or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        for folder in self.dirs.values():
            try:
                folder.rmdir()
            except OSError:
                pass


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _session_stats(sid: int):
    """(pid, utime + stime ticks, resident pages) of every live process of session ``sid``."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            text = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        # fields[0] is field 3 of proc(5): state; session is 6, utime 14, stime 15, rss 24
        if int(fields[3]) == sid and fields[0] != "Z":
            yield int(entry.name), int(fields[11]) + int(fields[12]), int(fields[21])


def session_usage(sid: int) -> tuple[float, int]:
    """CPU seconds and resident bytes summed over the live processes of session ``sid``."""
    cpu = rss = 0
    for _, ticks, pages in _session_stats(sid):
        cpu, rss = cpu + ticks, rss + pages
    return cpu / TICKS, rss * PAGE


def kill_session(sid: int, wait: float = 5.0) -> int:
    """SIGKILL every process of session ``sid`` until none is left; how many were killed."""
    killed, deadline = set(), time.monotonic() + wait
    while time.monotonic() < deadline:
        pids = [pid for pid, _, _ in _session_stats(sid) if pid != os.getpid()]
        if not pids:
            break
        for pid in pids:
            _kill(pid)
        killed.update(pids)
        time.sleep(0.01)
    return len(killed)
