"""Launcher of one sandboxed Python run (started by ``sandbox.run_python``; standard library
only, run by its path). Usage:
``python sandbox_guard.py FOLDER LOG_FD BARRIER_FD PRELOAD REQUIRE SCRIPT``.

It forks. The parent is the run's init: it only waits for the child (reaping orphans, as the
init of a PID namespace must), then writes the child's wait status as one JSON line
``{"event": "exit", "status": ...}`` on BARRIER_FD and exits; in a PID namespace its exit makes
the kernel kill every process left in the namespace. The child, in this order,

1. applies the kernel barriers of ``sandbox_kernel.py`` that need one thread: Landlock (files
   only under FOLDER, reads only under the Python installation and the system's library
   folders, no ptrace-type access to processes outside the sandbox, so not to the harness's
   ``/proc/<pid>/environ``);
2. imports the comma-separated modules PRELOAD (numpy and torch for an attack: their import
   opens hundreds of library files and loads shared objects with ctypes);
3. drops every capability and installs the seccomp filter on every thread;
4. records each barrier applied, or missing because the kernel lacks it, as one JSON line
   ``{"event": "barrier" | "barrier-missing", ...}`` on BARRIER_FD; with REQUIRE = 1 a missing
   barrier ends the run here, with exit code 97, before any of SCRIPT runs;
5. closes BARRIER_FD (so nothing SCRIPT does can write to it: the record of the barriers is
   the harness's, not the sandboxed code's), installs a PEP 578 audit hook and runs SCRIPT
   with FOLDER as working directory.

From then on the hook refuses, by raising ``PermissionError``, and records as one JSON line on
LOG_FD:

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

The hook is a tripwire that records, not a barrier: it runs inside the sandboxed interpreter,
so code that raises no audit event (native code, or Python that calls
``_posixsubprocess.fork_exec`` itself) passes it, and code that walks ``gc.get_objects()`` to
the hook's closure can disarm it; LOG_FD is open to the sandboxed code, which can write false
refusals on it. What stops such code are the kernel barriers of steps 1 and 3, the
operating-system limits (CPU time, address space, file size) set by the parent with
``resource.setrlimit``, and the harness's namespaces and control groups.
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


def barriers(folder, barrier_fd, preload):
    """Steps 1-4 of the module docstring; whether every barrier was applied."""

    def record(event, detail):
        os.write(barrier_fd, (json.dumps({"event": event, "detail": detail}) + "\n").encode())

    roots = [*_prefixes(), *SYSTEM_LIBRARIES, "/sys", f"/proc/{os.getpid()}", *PROC_FILES]
    roots += DEVICES[1:]
    complete = True
    try:
        record("barrier", sandbox_kernel.landlock(folder, roots, devices=DEVICES[:1]))
    except OSError as error:
        record("barrier-missing", f"landlock: {error}")
        complete = False
    for name in filter(None, preload.split(",")):
        module = __import__(name)
        if name == "torch":
            module.set_num_threads(1)
    for name, apply in (
        ("capabilities", sandbox_kernel.drop_capabilities),
        ("seccomp", sandbox_kernel.seccomp),
    ):
        try:
            record("barrier", apply())
        except OSError as error:
            record("barrier-missing", f"{name}: {error}")
            complete = False
    return complete


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


REFUSED_UNCONFINED = 97  # exit code: a barrier is missing and the harness required them all


def _namespace_processes():
    """Processes other than this init in its PID namespace (its own ``/proc``); the kernel
    kills them when the init exits."""
    return sum(name.isdigit() and name != "1" for name in os.listdir("/proc"))


def init(child, barrier_fd):
    """The run's init: reap every child until ``child`` has exited, report its wait status
    (and, as a PID namespace's init, how many processes are left) on ``barrier_fd``, and exit
    with its code (128 + signal when a signal ended it)."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            status = 0
            break
        if pid == child:
            break
    left = _namespace_processes() if os.getpid() == 1 else 0
    report = {"event": "exit", "status": status, "left": left}
    os.write(barrier_fd, (json.dumps(report) + "\n").encode())
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


def main():
    folder, log_fd, barrier_fd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    preload, require, script = sys.argv[4], sys.argv[5] == "1", sys.argv[6]
    folder = os.path.realpath(folder)
    child = os.fork()
    if child:
        os.close(log_fd)
        init(child, barrier_fd)
    complete = barriers(folder, barrier_fd, preload)
    if require and not complete:
        os.write(2, b"sandbox: a kernel barrier is missing; the run was refused\n")
        os._exit(REFUSED_UNCONFINED)
    os.close(barrier_fd)
    os.chdir(folder)
    sys.path.insert(0, folder)
    sys.argv = [script]
    install(folder, log_fd)
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
