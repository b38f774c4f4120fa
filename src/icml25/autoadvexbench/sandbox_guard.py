"""Launcher of one sandboxed Python run (started by ``sandbox.run_python``; standard library
only, run by its path). Usage: ``python sandbox_guard.py FOLDER LOG_FD PRELOAD SCRIPT``.

It imports the comma-separated modules PRELOAD first (numpy and torch for an attack: their
import opens hundreds of library files and loads shared objects with ctypes),
then installs a PEP 578 audit hook and runs SCRIPT with FOLDER as working directory. From
then on the hook refuses, by raising ``PermissionError``, and records as one JSON line on
the inherited descriptor LOG_FD:

- opening a file outside FOLDER for writing, or for reading outside FOLDER and the Python
  installation (``sys.prefix``, ``sys.base_prefix``) and ``/proc``, ``/sys``, ``/dev``;
  likewise removing, renaming, linking, creating or changing files and directories outside
  FOLDER, and listing directories outside the read roots;
- creating a socket (no network);
- starting a process or loading native code (``subprocess``, ``os.system``, ``os.exec*``,
  ``os.posix_spawn``, ``os.fork``, ``ctypes``), which would run outside the hook.

An audit hook is a tripwire, not a wall: native code already loaded (numpy, torch) is not
audited. The operating-system limits (CPU time, address space, file size) are set by the
parent with ``resource.setrlimit`` and hold for native code too.
"""

import json
import os
import runpy
import sys

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


def _inside(path, roots):
    return any(path == root or path.startswith(root + os.sep) for root in roots)


def install(folder, log_fd):
    folder = os.path.realpath(folder)
    read_roots = [folder, "/proc", "/sys", "/dev"] + sorted(
        {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    )
    realpath, write, dumps = os.path.realpath, os.write, json.dumps

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
        elif event.startswith(BLOCKED_EVENTS):
            refuse(event, args[:2] if isinstance(args, tuple) else args)

    sys.addaudithook(hook)


def main():
    folder, log_fd, preload, script = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    for name in filter(None, preload.split(",")):
        module = __import__(name)
        if name == "torch":
            module.set_num_threads(1)
    os.chdir(folder)
    sys.path.insert(0, os.path.realpath(folder))
    sys.argv = [script]
    install(folder, log_fd)
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
