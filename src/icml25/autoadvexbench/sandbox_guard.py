"""Launcher of one sandboxed Python run (started by ``sandbox.run_python``; standard library
only, run by its path). Usage: ``python sandbox_guard.py FOLDER LOG_FD PRELOAD SCRIPT``.

In this order, it

1. applies the kernel barriers of ``sandbox_kernel.py`` that need one thread: Landlock (files
   only under FOLDER, reads only under the Python installation and the system's library
   folders, no ptrace-type access to processes outside the sandbox, so not to the harness's
   ``/proc/<pid>/environ``);
2. imports the comma-separated modules PRELOAD (numpy and torch for an attack: their import
   opens hundreds of library files and loads shared objects with ctypes);
3. installs the seccomp filter on every thread (no ``execve``, no sockets, no ptrace);
4. installs a PEP 578 audit hook and runs SCRIPT with FOLDER as working directory.

Each barrier applied, or missing because the kernel lacks it, is recorded as one JSON line
``{"event": "barrier" | "barrier-missing", ...}`` on the inherited descriptor LOG_FD. From then
on the hook refuses, by raising ``PermissionError``, and records as one JSON line on LOG_FD:

- opening a file outside FOLDER for writing, or for reading outside FOLDER, the Python
  installation (``sys.prefix``, ``sys.base_prefix``), this file's folder (the harness's source,
  read when a traceback is printed), ``/proc/<own pid>`` (``/proc/self``), a
  few system files (``/proc/cpuinfo``, ``/proc/meminfo``, ``/proc/stat``), ``/sys`` and the
  devices ``/dev/null``, ``/dev/zero``, ``/dev/random``, ``/dev/urandom``; likewise removing,
  renaming, linking, creating or changing files and directories outside FOLDER, and listing
  directories outside the read roots;
- creating a socket (no network);
- starting a process or loading native code (``subprocess``, ``os.system``, ``os.exec*``,
  ``os.posix_spawn``, ``os.fork``, ``ctypes``), opening an sqlite database, signalling another
  process.

The hook is a tripwire that records: code that does not raise the audit event (native code,
or Python that calls ``_posixsubprocess.fork_exec`` itself) passes it. What stops such code are
the kernel barriers of steps 1 and 3 and the operating-system limits (CPU time, address space,
file size) set by the parent with ``resource.setrlimit``.
"""

import json
import os
import runpy
import sys

import sandbox_kernel  # beside this file, which runs by path

BLOCKED_EVENTS = (
    "socket.__new__",
    "socket.connect",
    "socket.bind",
    "subprocess.Popen",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "pty.spawn",
    "ctypes.dlopen",
    "ctypes.dlsym",
    "ctypes.cdata",
    "ctypes.call_function",
    "sqlite3.connect",
    "os.killpg",
)
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
# file-system events other than open: which of their arguments are paths, and whether they change
# the file system (then the path must be in FOLDER) or only read it (FOLDER or a read root)
PATH_EVENTS = {
    "os.remove": ((0,), True),
    "os.rmdir": ((0,), True),
    "os.mkdir": ((0,), True),
    "os.rename": ((0, 1), True),
    "os.link": ((0, 1), True),
    "os.symlink": ((1,), True),
    "os.chmod": ((0,), True),
    "os.chown": ((0,), True),
    "os.truncate": ((0,), True),
    "os.utime": ((0,), True),
    "os.listdir": ((0,), False),
    "os.scandir": ((0,), False),
}


DEVICES = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")
PROC_FILES = ("/proc/cpuinfo", "/proc/meminfo", "/proc/stat")
SYSTEM_LIBRARIES = ("/usr", "/lib", "/lib64", "/etc/ld.so.cache")  # read by the dynamic loader


def _inside(path, roots):
    return any(path == root or path.startswith(root + os.sep) for root in roots)


def _prefixes():
    """The Python installation, and this file's folder (read for the lines of a traceback)."""
    paths = (sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(__file__))
    return sorted({os.path.realpath(p) for p in paths})


def barriers(folder, log_fd, preload):
    """Steps 1-3 of the module docstring; each outcome recorded on ``log_fd``."""

    def record(event, detail):
        os.write(log_fd, (json.dumps({"event": event, "detail": detail}) + "\n").encode())

    roots = [*_prefixes(), *SYSTEM_LIBRARIES, "/sys", f"/proc/{os.getpid()}", *PROC_FILES]
    roots += DEVICES[1:]
    try:
        record("barrier", sandbox_kernel.landlock(folder, roots, devices=DEVICES[:1]))
    except OSError as error:
        record("barrier-missing", f"landlock: {error}")
    for name in filter(None, preload.split(",")):
        module = __import__(name)
        if name == "torch":
            module.set_num_threads(1)
    try:
        record("barrier", sandbox_kernel.seccomp())
    except OSError as error:
        record("barrier-missing", f"seccomp: {error}")


def install(folder, log_fd):
    folder = os.path.realpath(folder)
    own = f"/proc/{os.getpid()}"
    read_roots = [folder, own, "/sys", *PROC_FILES, *DEVICES, *_prefixes()]
    realpath, write, dumps, pid = os.path.realpath, os.write, json.dumps, os.getpid()

    def refuse(event, detail):
        write(log_fd, (dumps({"event": event, "detail": str(detail)[:300]}) + "\n").encode())
        raise PermissionError(f"sandbox: {event} refused ({detail})")

    def check(event, path, writing):
        if path is None or isinstance(path, int):
            return
        full = realpath(os.fsdecode(path))
        if writing and not (_inside(full, [folder]) or full == "/dev/null"):
            refuse(f"{event}-write-outside", full)
        if not writing and not _inside(full, read_roots):
            refuse(f"{event}-read-outside", full)

    def hook(event, args):
        if event in PATH_EVENTS:
            positions, writing = PATH_EVENTS[event]
            for i in positions:
                check(event, args[i] if i < len(args) else None, writing)
        elif event == "open":
            path, mode, flags = args
            writing = any(c in str(mode or "") for c in "wax+") or bool((flags or 0) & WRITE_FLAGS)
            check("open", path, writing)
        elif event == "os.kill" and args[0] not in (0, pid):
            refuse(event, args)
        elif event.startswith(BLOCKED_EVENTS):
            refuse(event, args[:2] if isinstance(args, tuple) else args)

    sys.addaudithook(hook)


def main():
    folder, log_fd, preload, script = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    folder = os.path.realpath(folder)
    barriers(folder, log_fd, preload)
    os.chdir(folder)
    sys.path.insert(0, folder)
    sys.argv = [script]
    install(folder, log_fd)
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
